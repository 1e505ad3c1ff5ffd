package offsetchecker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// TestConsumerOffsetChecker: a live old-consumer group with offsets in ZooKeeper: offsets,
// log sizes, lags and owner threads per partition; --broker-info; a group without offsets.
func TestConsumerOffsetChecker(t *testing.T) {
	connect := zktest.Chroot(t)
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, "oc", 2, nil)
	brokertest.Produce(t, []string{b.Addr}, "oc", 2, 0, 10)
	cfg, err := oldconsumer.NewConsumerConfig(map[string]string{"zookeeper.connect": connect, "group.id": "ocg", "consumer.id": "c1",
		"auto.offset.reset": "smallest", "auto.commit.enable": "false"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := oldconsumer.NewZookeeperConsumerConnector(context.Background(), cfg, oldconsumer.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	streams, err := c.CreateMessageStreams(map[string]int{"oc": 1})
	if err != nil {
		t.Fatal(err)
	}
	it := streams["oc"][0].Iterator()
	for i := 0; i < 7; i++ { // 7 of 10: partition 0 (v0 v2 v4 v6 v8) and 1 (v1 ...) in some order
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CommitOffsets(); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"--zookeeper", connect, "--group", "ocg", "--broker-info", "--socket.timeout.ms", "10000"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 5 || lines[0] != fmt.Sprintf("%-15s %-30s %-3s %-15s %-15s %-15s %s", "Group", "Topic", "Pid", "Offset", "logSize", "Lag", "Owner") ||
		lines[3] != "BROKER INFO" || lines[4] != fmt.Sprintf("0 -> %s:%d", b.Host, b.Port) {
		t.Fatalf("output\n%s", out.String())
	}
	var sum int
	for p, line := range lines[1:3] {
		var group, topic, owner string
		var pid, offset, logSize, lag int
		if _, err := fmt.Sscan(line, &group, &topic, &pid, &offset, &logSize, &lag, &owner); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if group != "ocg" || topic != "oc" || pid != p || logSize != 5 || lag != logSize-offset || owner != "ocg_c1-0" {
			t.Fatalf("row %q", line)
		}
		sum += offset
	}
	if sum != 7 {
		t.Fatalf("committed offsets add up to %d, want 7:\n%s", sum, out.String())
	}
	if !strings.Contains(errOut.String(), "WARN WARNING: ConsumerOffsetChecker is deprecated") {
		t.Fatalf("stderr %q", errOut.String())
	}
	out.Reset()
	Run(context.Background(), []string{"--zookeeper", connect, "--group", "nogroup"}, &out, &errOut)
	if !strings.HasPrefix(out.String(), "Exiting due to: ") {
		t.Fatalf("unknown group: %q", out.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out.Reset()
	Run(ctx, []string{"--zookeeper", connect, "--group", "other", "--topic", "oc"}, &out, &errOut)
	if !strings.HasPrefix(out.String(), "Exiting due to: ") {
		t.Fatalf("a group without an offsets directory fails as in Kafka: %q", out.String())
	}
	// With the group's offsets directory present, a partition without an offset is "unknown".
	if err := b.Zk.MakeSurePersistentPathExists("/consumers/other/offsets/oc"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	Run(ctx, []string{"--zookeeper", connect, "--group", "other", "--topic", "oc"}, &out, &errOut)
	if !strings.Contains(out.String(), fmt.Sprintf("%-15s %-30s %-3s %-15s %-15s %-15s %s", "other", "oc", "0", "-1", "5", "unknown", "none")) {
		t.Fatalf("group without offsets:\n%s", out.String())
	}
}
