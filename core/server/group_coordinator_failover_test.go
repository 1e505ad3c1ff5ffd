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

// TestCoordinatorFailover: three brokers with their real controller; three
// sarama ConsumerGroup members split 12 partitions; the broker leading the group's
// __consumer_offsets partition stops; the group finds the new coordinator, which loaded the
// committed offsets, and every message is consumed.
func TestCoordinatorFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("three brokers: skipped with -short")
	}
	connect := zktest.Chroot(t)
	extra := map[string]string{"offsets.topic.num.partitions": "3", "offsets.topic.replication.factor": "3",
		"controlled.shutdown.enable": "false", "replica.lag.time.max.ms": "2000", "replica.fetch.wait.max.ms": "100"}
	servers := make([]*KafkaServer, 3)
	for i := range servers {
		props := map[string]string{"broker.id": fmt.Sprint(i)}
		for k, v := range extra {
			props[k] = v
		}
		loggers, _ := testLoggers(t)
		servers[i] = NewKafkaServer(brokerConfig(t, connect, t.TempDir(), props), nil, loggers, func(string) string { return "" })
		if err := servers[i].Startup(); err != nil {
			t.Fatal(err)
		}
		defer servers[i].Shutdown()
	}
	addrs := make([]string, 3)
	for i, s := range servers {
		addrs[i] = fmt.Sprintf("127.0.0.1:%d", s.BoundPort("PLAINTEXT"))
	}
	ctl := dialRaw(t, servers[0].BoundPort("PLAINTEXT"))
	zktest.WaitUntilTrue(t, func() bool {
		r := ctl.roundTrip(t, &protocol.MetadataRequest{Version: 0, Topics: []string{}}).(*protocol.MetadataResponse)
		return len(r.Brokers) == 3
	}, "three live brokers", 30*time.Second)
	ctl.roundTrip(t, &protocol.GroupCoordinatorRequest{GroupID: "fg"}) // creates __consumer_offsets (RF 3)
	const topic = "fo"
	if err := admin.NewAdminUtils(servers[0].ZkUtils(), nil, nil).CreateTopic(topic, 12, 3, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	waitForLeaders(t, ctl, GroupMetadataTopicName, 3)
	waitForLeaders(t, ctl, topic, 12)
	coordinatorOf := func(c *rawClient) int32 {
		r := c.roundTrip(t, &protocol.GroupCoordinatorRequest{GroupID: "fg"}).(*protocol.GroupCoordinatorResponse)
		if r.ErrorCode != 0 {
			return -1
		}
		return r.Coordinator.NodeID
	}
	zktest.WaitUntilTrue(t, func() bool { return coordinatorOf(ctl) >= 0 }, "a coordinator", 30*time.Second)
	first := coordinatorOf(ctl)

	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Retry.Max = 20
	cfg.Producer.Retry.Backoff = 200 * time.Millisecond
	prod, err := sarama.NewSyncProducer(addrs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	const n = 1200
	send := func(from, to int) {
		for i := from; i < to; i++ {
			if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(fmt.Sprint(i))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	send(0, n/2)

	ccfg := sarama.NewConfig()
	ccfg.Version = sarama.V0_10_2_0
	ccfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	ccfg.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
	ccfg.Consumer.Group.Session.Timeout = 6 * time.Second
	ccfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	ccfg.Consumer.Group.Rebalance.Timeout = 3 * time.Second
	ccfg.Metadata.RefreshFrequency = time.Second
	h := &groupHandler{seen: map[string]int{}, claims: map[string][]int32{}, setupsCh: make(chan struct{}, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		g, err := sarama.NewConsumerGroup(addrs, "fg", ccfg)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer g.Close()
			for ctx.Err() == nil {
				if err := g.Consume(ctx, []string{topic}, h); err != nil && ctx.Err() == nil {
					time.Sleep(200 * time.Millisecond)
				}
			}
		}()
	}
	zktest.WaitUntilTrue(t, func() bool { return h.distinct() == n/2 }, "first half consumed", 60*time.Second)
	time.Sleep(500 * time.Millisecond) // let an auto-commit go out

	servers[first].Shutdown() // the coordinator goes away
	zktest.WaitUntilTrue(t, func() bool {
		for i, s := range servers {
			if int32(i) == first || s == nil {
				continue
			}
			c := dialRaw(t, s.BoundPort("PLAINTEXT"))
			id := coordinatorOf(c)
			if id >= 0 && id != first {
				return true
			}
		}
		return false
	}, "a new coordinator", 60*time.Second)
	send(n/2, n)
	zktest.WaitUntilTrue(t, func() bool { return h.distinct() == n }, "everything consumed after the failover", 90*time.Second)
	h.mu.Lock()
	dups := 0
	for _, c := range h.seen {
		dups += c - 1
	}
	h.mu.Unlock()
	t.Logf("coordinator %d stopped; %d duplicate deliveries (uncommitted window)", first, dups)
	// Had the new coordinator not loaded the committed offsets, the group would have started
	// over from the oldest offsets and delivered the first half again.
	if dups >= n/2 {
		t.Fatalf("%d duplicates: the committed offsets were not carried over", dups)
	}
	cancel()
	wg.Wait()
}
