package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zktest"
)

// groupHandler consumes and marks every message, recording what it saw.
type groupHandler struct {
	mu       sync.Mutex
	seen     map[string]int
	claims   map[string][]int32 // member id -> partitions of its latest session
	setupsCh chan struct{}
}

func (h *groupHandler) Setup(s sarama.ConsumerGroupSession) error {
	h.mu.Lock()
	var ps []int32
	for _, p := range s.Claims() {
		ps = append(ps, p...)
	}
	h.claims[s.MemberID()] = ps
	h.mu.Unlock()
	select {
	case h.setupsCh <- struct{}{}:
	default:
	}
	return nil
}

func (h *groupHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *groupHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		h.mu.Lock()
		h.seen[string(m.Value)]++
		h.mu.Unlock()
		s.MarkMessage(m, "")
	}
	return nil
}

func (h *groupHandler) distinct() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.seen)
}

// TestConsumerGroupsOnOneBroker: three sarama ConsumerGroup members (V0_10_2_0) split 12
// partitions through this broker's coordinator, rebalance when one leaves, consume every
// message, and commit what they consumed; after a restart the coordinator reloads the
// committed offsets from __consumer_offsets.
func TestConsumerGroupsOnOneBroker(t *testing.T) {
	connect := zktest.Chroot(t)
	dataDir := t.TempDir()
	loggers, _ := testLoggers(t)
	extra := map[string]string{"offsets.topic.num.partitions": "3", "offsets.topic.replication.factor": "1"}
	srv := NewKafkaServer(brokerConfig(t, connect, dataDir, extra), nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	port := srv.BoundPort("PLAINTEXT")
	ctl := dialRaw(t, port)

	// The first GroupCoordinator request creates __consumer_offsets and answers "not available".
	if r := ctl.roundTrip(t, &protocol.GroupCoordinatorRequest{GroupID: "g"}).(*protocol.GroupCoordinatorResponse); r.ErrorCode != protocol.ErrGroupCoordinatorNotAvailable.Code {
		t.Fatalf("first lookup: %+v", r)
	}
	parts, err := srv.ZkUtils().GetPartitionsForTopics([]string{GroupMetadataTopicName})
	if err != nil || len(parts[GroupMetadataTopicName]) != 3 {
		t.Fatalf("__consumer_offsets partitions %v %v", parts, err)
	}
	const topic = "cg"
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, 12, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	// This broker's controller makes it the leader of everything.
	waitForLeaders(t, ctl, topic, 12)
	zktest.WaitUntilTrue(t, func() bool {
		r := ctl.roundTrip(t, &protocol.GroupCoordinatorRequest{GroupID: "g"}).(*protocol.GroupCoordinatorResponse)
		return r.ErrorCode == 0 && r.Coordinator.Port == port
	}, "the coordinator lookup", 30*time.Second)

	checkZkAndKafkaOffsets(t, srv, ctl, topic)

	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewRoundRobinPartitioner
	prod, err := sarama.NewSyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1200
	for i := 0; i < n/2; i++ {
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}

	ccfg := sarama.NewConfig()
	ccfg.Version = sarama.V0_10_2_0
	ccfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	ccfg.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
	ccfg.Consumer.Group.Session.Timeout = 6 * time.Second
	ccfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	ccfg.Consumer.Group.Rebalance.Timeout = 3 * time.Second
	h := &groupHandler{seen: map[string]int{}, claims: map[string][]int32{}, setupsCh: make(chan struct{}, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	groups := make([]sarama.ConsumerGroup, 3)
	cancels := make([]context.CancelFunc, 3)
	for i := range groups {
		g, err := sarama.NewConsumerGroup([]string{addr}, "g", ccfg)
		if err != nil {
			t.Fatal(err)
		}
		groups[i] = g
		mctx, mcancel := context.WithCancel(ctx)
		cancels[i] = mcancel
		wg.Add(1)
		go func() {
			defer wg.Done()
			for mctx.Err() == nil {
				if err := g.Consume(mctx, []string{topic}, h); err != nil && mctx.Err() == nil {
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	zktest.WaitUntilTrue(t, func() bool {
		code, summary := srv.Coordinator.HandleDescribeGroup("g")
		if code != 0 || summary.State != "Stable" || len(summary.Members) != 3 {
			return false
		}
		total := 0
		for _, m := range summary.Members {
			var a protocol.ConsumerProtocolAssignment
			if a.ReadFrom(m.Assignment) != nil || len(a.Partitions) != 4 {
				return false
			}
			total += len(a.Partitions)
		}
		return total == 12
	}, "3 members splitting 12 partitions", 30*time.Second)
	zktest.WaitUntilTrue(t, func() bool { return h.distinct() == n/2 }, "first half consumed", 30*time.Second)

	// One member leaves: the other two take its partitions.
	cancels[2]()
	_ = groups[2].Close()
	zktest.WaitUntilTrue(t, func() bool {
		code, summary := srv.Coordinator.HandleDescribeGroup("g")
		return code == 0 && summary.State == "Stable" && len(summary.Members) == 2
	}, "2 members splitting 12 partitions", 30*time.Second)
	// The group APIs through real admin clients (docs/api-coverage.md).
	checkGroupAdminClients(t, addr, "g", 2)
	for i := n / 2; i < n; i++ {
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	zktest.WaitUntilTrue(t, func() bool { return h.distinct() == n }, "everything consumed", 30*time.Second)
	// Committed offsets reach the log end of every partition (auto-commit every 100 ms).
	zktest.WaitUntilTrue(t, func() bool {
		code, offsets := srv.Coordinator.HandleFetchOffsets("g", nil)
		if code != 0 || len(offsets) != 12 {
			return false
		}
		var sum int64
		for _, o := range offsets {
			sum += o.Offset
		}
		return sum == n
	}, "offsets committed up to the log end", 10*time.Second)
	cancel()
	for _, g := range groups[:2] {
		_ = g.Close()
	}
	wg.Wait()
	_ = prod.Close()

	// Restart: the new coordinator loads the committed offsets from __consumer_offsets.
	srv.Shutdown()
	loggers2, _ := testLoggers(t)
	srv2 := NewKafkaServer(brokerConfig(t, connect, dataDir, extra), nil, loggers2, func(string) string { return "" })
	if err := srv2.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv2.Shutdown()
	port2 := srv2.BoundPort("PLAINTEXT")
	ctl2 := dialRaw(t, port2)
	zktest.WaitUntilTrue(t, func() bool {
		req := &protocol.OffsetFetchRequest{Version: 2, GroupID: "g"}
		r := ctl2.roundTrip(t, req).(*protocol.OffsetFetchResponse)
		if r.ErrorCode != 0 {
			return false
		}
		var sum int64
		count := 0
		for _, tr := range r.Responses {
			for _, p := range tr.PartitionResponses {
				sum += p.Offset
				count++
			}
		}
		return count == 12 && sum == n
	}, "offsets reloaded", 10*time.Second)
}

// checkZkAndKafkaOffsets: OffsetCommit/OffsetFetch v0 use ZooKeeper (/consumers/<group>/offsets),
// v1 and v2 the coordinator's __consumer_offsets; the two stores are independent.
func checkZkAndKafkaOffsets(t *testing.T, srv *KafkaServer, c *rawClient, topic string) {
	t.Helper()
	commit := func(version int16, offset int64) int16 {
		req := &protocol.OffsetCommitRequest{Version: version, GroupID: "zkg", GroupGenerationID: -1, RetentionTime: -1,
			Topics: []protocol.OffsetCommitRequestTopic{{Topic: topic, Partitions: []protocol.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: offset, Timestamp: -1}}}}}
		return c.roundTrip(t, req).(*protocol.OffsetCommitResponse).Responses[0].PartitionResponses[0].ErrorCode
	}
	fetch := func(version int16) int64 {
		req := &protocol.OffsetFetchRequest{Version: version, GroupID: "zkg", Topics: []protocol.OffsetFetchRequestTopic{{Topic: topic,
			Partitions: []protocol.OffsetFetchRequestTopicPartition{{Partition: 0}}}}}
		return c.roundTrip(t, req).(*protocol.OffsetFetchResponse).Responses[0].PartitionResponses[0].Offset
	}
	if code := commit(0, 42); code != 0 {
		t.Fatalf("commit v0: %d", code)
	}
	if data, _, err := srv.ZkUtils().ReadData("/consumers/zkg/offsets/" + topic + "/0"); err != nil || string(data) != "42" {
		t.Fatalf("ZooKeeper offset %q %v", data, err)
	}
	zktest.WaitUntilTrue(t, func() bool { return commit(1, 7) == 0 }, "the coordinator to own zkg's partition", 10*time.Second)
	if v0, v1, v2 := fetch(0), fetch(1), fetch(2); v0 != 42 || v1 != 7 || v2 != 7 {
		t.Fatalf("fetch v0 %d (want 42), v1 %d, v2 %d (want 7)", v0, v1, v2)
	}
}

// waitForLeaders waits until the broker's metadata shows a leader for every partition of topic.
func waitForLeaders(t *testing.T, c *rawClient, topic string, partitions int) {
	t.Helper()
	zktest.WaitUntilTrue(t, func() bool {
		r := c.roundTrip(t, &protocol.MetadataRequest{Version: 0, Topics: []string{topic}}).(*protocol.MetadataResponse)
		if len(r.TopicMetadata) != 1 || r.TopicMetadata[0].TopicErrorCode != 0 || len(r.TopicMetadata[0].PartitionMetadata) != partitions {
			return false
		}
		for _, p := range r.TopicMetadata[0].PartitionMetadata {
			if p.PartitionErrorCode != 0 || p.Leader < 0 {
				return false
			}
		}
		return true
	}, "leaders of "+topic, 30*time.Second)
}
