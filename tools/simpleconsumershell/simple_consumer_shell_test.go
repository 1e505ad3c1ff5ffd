package simpleconsumershell

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zktest"
)

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := RunWith(ctx, args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestSimpleConsumerShell: one partition from the beginning to the end of the log (with
// --print-offsets), from an offset, a bounded number, and Kafka's errors.
func TestSimpleConsumerShell(t *testing.T) {
	connect := zktest.Chroot(t)
	addr := startBroker(t, connect, "s", 2, 6) // partition 1 holds v1, v3, v5
	out, errOut, code := run(t, "--broker-list", addr, "--topic", "s", "--partition", "1", "--no-wait-at-logend", "--print-offsets",
		"--property", "print.key=true")
	want := "next offset = 1\nk1\tv1\nnext offset = 2\nk3\tv3\nnext offset = 3\nk5\tv5\nTerminating. Reached the end of partition (s, 1) at offset 3\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d out %q err %q", code, out, errOut)
	}
	if out, _, _ := run(t, "--broker-list", addr, "--topic", "s", "--partition", "1", "--offset", "1", "--max-messages", "1"); out != "v3\n" {
		t.Fatalf("from offset 1, one message: %q", out)
	}
	if out, _, _ := run(t, "--broker-list", addr, "--topic", "s", "--offset", "-1", "--no-wait-at-logend"); out != "Terminating. Reached the end of partition (s, 0) at offset 3\n" {
		t.Fatalf("from the end: %q", out)
	}
	if out, _, _ := run(t, "--broker-list", addr, "--topic", "s", "--replica", "0", "--max-messages", "2"); out != "v0\nv2\n" {
		t.Fatalf("from replica 0 as the debugging consumer: %q", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--broker-list", addr, "--topic", "s", "--partition", "7"}, "Error: partition 7 does not exist for topic s"},
		{[]string{"--broker-list", addr, "--topic", "s", "--replica", "5"}, "Error: replica 5 does not exist for partition (s, 0)"},
		{[]string{"--broker-list", addr, "--topic", "s", "--offset", "-3"}, "Invalid starting offset: -3"},
		{[]string{"--topic", "s"}, `Missing required argument "[broker-list]"`},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d stderr %q", tc.args, code, errOut)
		}
	}
}
