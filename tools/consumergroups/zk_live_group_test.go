package consumergroups

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestZkDescribeLiveOldConsumerGroup: --zookeeper --describe of a group whose old consumers
// are running shows each partition's committed offset, log end, lag and owning consumer (the
// owner znode without its thread suffix), read from the real broker and ZooKeeper; --list has it.
func TestZkDescribeLiveOldConsumerGroup(t *testing.T) {
	connect := zktest.Chroot(t)
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, "live", 2, nil)
	brokertest.Produce(t, []string{b.Addr}, "live", 2, 0, 8)
	var connectors []*oldconsumer.ZookeeperConsumerConnector
	for _, id := range []string{"a", "b"} {
		cfg, err := oldconsumer.NewConsumerConfig(map[string]string{"zookeeper.connect": connect, "group.id": "lg", "consumer.id": id,
			"auto.offset.reset": "smallest", "auto.commit.enable": "false", "rebalance.backoff.ms": "200", "rebalance.max.retries": "20"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := oldconsumer.NewZookeeperConsumerConnector(context.Background(), cfg, oldconsumer.Deps{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Shutdown()
		if _, err := c.CreateMessageStreams(map[string]int{"live": 1}); err != nil {
			t.Fatal(err)
		}
		connectors = append(connectors, c)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return fmt.Sprint(connectors[0].TopicRegistry()["live"]) == "[0]" && fmt.Sprint(connectors[1].TopicRegistry()["live"]) == "[1]"
	}, "a owns partition 0 and b partition 1", 30*time.Second)
	if err := connectors[0].CommitOffsetsMap(map[common.TopicPartition]int64{{Topic: "live", Partition: 0}: 3}, true); err != nil {
		t.Fatal(err)
	}
	if err := connectors[1].CommitOffsetsMap(map[common.TopicPartition]int64{{Topic: "live", Partition: 1}: 1}, true); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	RunWith(context.Background(), []string{"--zookeeper", connect, "--describe", "--group", "lg"}, &out, &errOut, Deps{Timeout: 10 * time.Second})
	want := "\n" + fmt.Sprintf("%-30s %-10s %-15s %-15s %-10s %-50s\n", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID") +
		fmt.Sprintf("%-30s %-10s %-15s %-15s %-10s %-50s\n", "live", "0", "3", "4", "1", "lg_a") +
		fmt.Sprintf("%-30s %-10s %-15s %-15s %-10s %-50s\n", "live", "1", "1", "4", "3", "lg_b")
	if out.String() != want {
		t.Fatalf("describe:\n%q\nwant\n%q\nstderr %s", out.String(), want, errOut.String())
	}
	out.Reset()
	RunWith(context.Background(), []string{"--zookeeper", connect, "--list"}, &out, &errOut, Deps{Timeout: 10 * time.Second})
	if !strings.Contains(out.String(), "lg\n") {
		t.Fatalf("list: %q", out.String())
	}
}
