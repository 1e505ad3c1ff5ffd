package serverstop

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func fakeProc(t *testing.T, root string, pid int, argv ...string) {
	t.Helper()
	dir := filepath.Join(root, strconv.Itoa(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.Join(argv, "\x00")+"\x00"), 0o644)
}

func TestFindBrokers(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 10, "/repo/bin/zkafka", "server-start", "config/server.properties")
	fakeProc(t, root, 11, "/usr/bin/java", "-Xmx1G", "kafka.Kafka", "server.properties")
	fakeProc(t, root, 12, "/repo/bin/zkafka", "zookeeper-server-start", "zookeeper.properties")
	fakeProc(t, root, 13, "/usr/bin/java", "org.apache.zookeeper.server.quorum.QuorumPeerMain")
	fakeProc(t, root, 14, "/bin/sh", "-c", "zkafka server-start")
	got := FindBrokers(root)
	if len(got) != 2 || !((got[0] == 10 && got[1] == 11) || (got[0] == 11 && got[1] == 10)) {
		t.Fatalf("found %v, want the zkafka broker 10 and the Kafka JVM 11", got)
	}
	if len(FindBrokers(t.TempDir())) != 0 {
		t.Fatal("found brokers in an empty /proc")
	}
}

// TestNoServerToStop: with no broker running on this machine, the script's message and exit 1.
func TestNoServerToStop(t *testing.T) {
	if len(FindBrokers("/proc")) != 0 {
		t.Skip("a broker is running on this machine")
	}
	var out, errb bytes.Buffer
	if code := Run(nil, &out, &errb); code != 1 || out.String() != "No kafka server to stop\n" {
		t.Fatalf("code %d stdout %q", code, out.String())
	}
}
