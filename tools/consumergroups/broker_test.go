package consumergroups

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/server"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
)

// waitForLeaders waits until the broker's metadata shows a leader for every partition of topic.
func waitForLeaders(t *testing.T, c *blockingChannel, topic string, partitions int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := &protocol.MetadataResponse{}
		if err := c.Send(&protocol.MetadataRequest{Topics: []string{topic}}, r); err != nil {
			t.Fatal(err)
		}
		ok := len(r.TopicMetadata) == 1 && r.TopicMetadata[0].TopicErrorCode == 0 && len(r.TopicMetadata[0].PartitionMetadata) == partitions
		for i := 0; ok && i < partitions; i++ {
			p := r.TopicMetadata[0].PartitionMetadata[i]
			ok = p.PartitionErrorCode == 0 && p.Leader >= 0
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leaders for %s: %+v", topic, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDescribeAgainstBroker: a group that committed offsets (OffsetCommit v2, no group
// management) is listed and described by a real broker's coordinator, LAG = log end - committed.
func TestDescribeAgainstBroker(t *testing.T) {
	connect := zktest.Chroot(t)
	cfg, err := config.FromProps(map[string]string{"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": t.TempDir(),
		"zookeeper.connect": connect, "num.io.threads": "2", "num.network.threads": "2", "log.cleaner.dedupe.buffer.size": "4194304",
		"offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1"})
	if err != nil {
		t.Fatal(err)
	}
	l := logrus.New()
	l.SetOutput(io.Discard)
	e := logrus.NewEntry(l)
	srv := server.NewKafkaServer(cfg, nil, server.Loggers{Server: e, StateChange: e, Request: e}, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	port := srv.BoundPort("PLAINTEXT")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
	c, err := connectAddr(addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Send(&protocol.GroupCoordinatorRequest{GroupID: "kg"}, &protocol.GroupCoordinatorResponse{}); err != nil {
		t.Fatal(err) // creates __consumer_offsets
	}
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic("t", 2, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	waitForLeaders(t, c, "__consumer_offsets", 1)
	waitForLeaders(t, c, "t", 2)

	scfg := sarama.NewConfig()
	scfg.Version = sarama.V0_10_2_0
	scfg.Producer.Return.Successes = true
	scfg.Producer.Partitioner = sarama.NewManualPartitioner
	prod, err := sarama.NewSyncProducer([]string{addr}, scfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: "t", Partition: int32(i % 2), Value: sarama.StringEncoder("m")}); err != nil {
			t.Fatal(err)
		}
	}
	_ = prod.Close()
	// Wait for the coordinator to own the partition, then commit t-0 at 2 and t-1 at 5.
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := &protocol.OffsetCommitResponse{Version: 2}
		req := &protocol.OffsetCommitRequest{Version: 2, GroupID: "kg", GroupGenerationID: -1, RetentionTime: -1,
			Topics: []protocol.OffsetCommitRequestTopic{{Topic: "t", Partitions: []protocol.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 2}, {Partition: 1, Offset: 5}}}}}
		if err := c.Send(req, resp); err != nil {
			t.Fatal(err)
		}
		if resp.Responses[0].PartitionResponses[0].ErrorCode == 0 && resp.Responses[0].PartitionResponses[1].ErrorCode == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("commit: %+v", resp)
		}
		time.Sleep(50 * time.Millisecond)
	}
	run := func(args ...string) (string, string) {
		var out, errOut bytes.Buffer
		RunWith(context.Background(), append([]string{"--bootstrap-server", addr}, args...), &out, &errOut, Deps{Timeout: 10 * time.Second})
		return out.String(), errOut.String()
	}
	// A group that only stores offsets has no protocol type, so --list (which keeps "consumer"
	// groups) does not show it, as in 0.10.2.
	if out, _ := run("--list"); out != "" {
		t.Fatalf("list: %q", out)
	}
	out, errOut := run("--describe", "--group", "kg")
	want := "\n" + fmt.Sprintf("%-30s %-10s %-15s %-15s %-10s %-50s%-30s %s\n", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID") +
		fmt.Sprintf("%-30s %-10s %-15s %-15s %-10s %-50s%-30s %s\n", "t", "0", "2", "5", "3", "-", "-", "-") +
		fmt.Sprintf("%-30s %-10s %-15s %-15s %-10s %-50s%-30s %s\n", "t", "1", "5", "5", "0", "-", "-", "-")
	if out != want || !bytes.Contains([]byte(errOut), []byte("Consumer group 'kg' has no active members.")) {
		t.Fatalf("describe:\n%s\nwant\n%s\nstderr %s", out, want, errOut)
	}
}
