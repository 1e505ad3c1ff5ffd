package zkoffsets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestUpdateOffsetsInZK: latest then earliest, for each partition of the topic, in the group of
// consumer.properties, with 0.10.2's lines; the usage line for a bad mode.
func TestUpdateOffsetsInZK(t *testing.T) {
	connect := zktest.Chroot(t)
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, "up", 2, nil)
	brokertest.Produce(t, []string{b.Addr}, "up", 2, 0, 7) // 4 in partition 0, 3 in partition 1
	props := filepath.Join(t.TempDir(), "consumer.properties")
	if err := os.WriteFile(props, []byte("zookeeper.connect="+connect+"\ngroup.id=upg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		data, _, err := b.Zk.ReadData("/consumers/upg/offsets/up/" + p)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	var out, errOut bytes.Buffer
	if code := UpdateOffsetsInZK(context.Background(), []string{"latest", props, "up"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if out.String() != "updating partition 0 with new offset: 4\nupdating partition 1 with new offset: 3\nupdated the offset for 2 partitions\n" ||
		read("0") != "4" || read("1") != "3" {
		t.Fatalf("latest: %q", out.String())
	}
	out.Reset()
	if code := UpdateOffsetsInZK(context.Background(), []string{"earliest", props, "up"}, &out, &errOut); code != 0 || read("0") != "0" || read("1") != "0" ||
		!strings.HasSuffix(out.String(), "updated the offset for 2 partitions\n") {
		t.Fatalf("earliest: exit %d %q %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := UpdateOffsetsInZK(context.Background(), []string{"newest", props, "up"}, &out, &errOut); code != 1 ||
		out.String() != "USAGE: kafka.tools.UpdateOffsetsInZK$ [earliest | latest] consumer.properties topic\n" {
		t.Fatalf("bad mode: exit %d %q", code, out.String())
	}
	out.Reset()
	if code := UpdateOffsetsInZK(context.Background(), []string{"latest", props}, &out, &errOut); code != 1 || !strings.HasPrefix(out.String(), "USAGE:") {
		t.Fatalf("two arguments: exit %d %q", code, out.String())
	}
}
