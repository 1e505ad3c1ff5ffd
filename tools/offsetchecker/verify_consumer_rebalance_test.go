package offsetchecker

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestVerifyConsumerRebalance: a live group owning both partitions passes; an owner znode
// naming a thread that is not a member, and a partition without an owner, fail with 0.10.2's
// ERROR lines.
func TestVerifyConsumerRebalance(t *testing.T) {
	connect := zktest.Chroot(t)
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, "vr", 2, nil)
	cfg, err := oldconsumer.NewConsumerConfig(map[string]string{"zookeeper.connect": connect, "group.id": "vrg", "consumer.id": "c1",
		"auto.commit.enable": "false"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := oldconsumer.NewZookeeperConsumerConnector(context.Background(), cfg, oldconsumer.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	if _, err := c.CreateMessageStreams(map[string]int{"vr": 1}); err != nil {
		t.Fatal(err)
	}
	run := func() (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := VerifyConsumerRebalance(context.Background(), []string{"--zookeeper.connect", connect, "--group", "vrg"}, &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return out.String(), errOut.String()
	}
	if out, errOut := run(); out != "Rebalance operation successful !\n" || errOut != "" {
		t.Fatalf("live group: %q %q", out, errOut)
	}
	if err := b.Zk.UpdatePersistentPath("/consumers/vrg/owners/vr/1", []byte("vrg_ghost-0")); err != nil {
		t.Fatal(err)
	}
	out, errOut := run()
	if out != "Rebalance operation failed !\n" ||
		!strings.Contains(errOut, "ERROR Owner vrg_ghost-0 for partition [vr,1] is not a valid member of consumer group vrg (kafka.tools.VerifyConsumerRebalance$)") {
		t.Fatalf("foreign owner: %q %q", out, errOut)
	}
	if _, err := b.Zk.DeletePath("/consumers/vrg/owners/vr/1"); err != nil {
		t.Fatal(err)
	}
	if out, errOut := run(); out != "Rebalance operation failed !\n" || strings.Count(errOut, "ERROR No owner for partition [vr,1]") != 2 {
		t.Fatalf("missing owner: %q %q", out, errOut)
	}
	var o, e bytes.Buffer
	if code := VerifyConsumerRebalance(context.Background(), []string{"--zookeeper.connect", connect}, &o, &e); code != 1 ||
		!strings.HasPrefix(e.String(), `Missing required argument "[group]"`) {
		t.Fatalf("no group: %d %q", code, e.String())
	}
}
