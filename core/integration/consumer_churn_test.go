package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
)

// Members leave and join while 100,000 records are consumed by a mixed group (zkafka members
// committing after each poll, a sarama ConsumerGroup member marking each record, a kafka-python
// member committing after each poll, a kcat -G member): a zkafka member leaves after a third of the records and a
// new one joins after two thirds; every record is consumed exactly once, by a member that owned
// its partition at the time. The group runs once with range and once with roundrobin, every
// member configured with the same assignor.
func TestConsumerGroupChurnExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 records")
	}
	for _, strategy := range []struct{ kafka, name string }{
		{consumer.RangeAssignorClass, "range"}, {consumer.RoundRobinAssignorClass, "roundrobin"},
	} {
		t.Run(strategy.name, func(t *testing.T) { testConsumerGroupChurnExactlyOnce(t, strategy.kafka, strategy.name) })
	}
}

func testConsumerGroupChurnExactlyOnce(t *testing.T, assignorClass, strategy string) {
	const total, parts = 100_000, 12
	b := startTestBroker(t, map[string]string{"group.initial.rebalance.delay.ms": "0"})
	b.createTopic(t, "churn", parts, nil)
	group := "churn"
	zkNew := func(id string) *consumer.KafkaConsumer[[]byte, []byte] {
		c := newTestConsumer(t, b.addr, "group.id", group, "partition.assignment.strategy", assignorClass,
			"auto.offset.reset", "earliest", "enable.auto.commit", "false", "client.id", id)
		if err := c.Subscribe([]string{"churn"}, nil); err != nil {
			t.Fatal(err)
		}
		return c
	}
	z0 := startZkMemberCommitting(t, "z0", zkNew("z0"), true)
	z1c := zkNew("z1")
	z1 := startZkMemberCommitting(t, "z1", z1c, true)
	members := []*zkMember{z0, z1}
	defer func() {
		for _, m := range members {
			m.stop()
		}
	}()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Group.Session.Timeout = 6 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	if strategy == "range" {
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
	} else {
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRoundRobin()}
	}
	cfg.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
	sg, err := sarama.NewConsumerGroup([]string{b.addr}, group, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sm := &saramaMember{assigned: make(chan struct{}, 1), topic: "churn"}
	ctx, cancel := context.WithCancel(context.Background())
	sdone := make(chan struct{})
	go func() {
		defer close(sdone)
		for ctx.Err() == nil {
			if err := sg.Consume(ctx, []string{"churn"}, sm); err != nil {
				return
			}
		}
	}()
	defer func() { cancel(); <-sdone; sg.Close() }()
	var py *pyMember
	if pythonAvailable() {
		py = startPyMember(t, b.addr, "churn", group, strategy)
	}
	var kc *kcatMember
	if kcatAvailable() {
		kc = startKcatMember(t, b.addr, "churn", group, strategy)
	}
	// Produce in the background, 1,000 records every 20 ms, so that members leave and join
	// while records flow.
	prodErr := make(chan error, 1)
	go func() { prodErr <- produceThrottled(b.addr, "churn", total) }()
	count := func() int {
		n := 0
		for _, m := range members {
			_, r := m.snapshot()
			n += len(r)
		}
		_, s := sm.snapshot()
		n += len(s)
		if py != nil {
			_, p := py.snapshot()
			n += len(p)
		}
		if kc != nil {
			_, k := kc.snapshot()
			n += len(k)
		}
		return n
	}
	left, joined := false, false
	deadline := time.Now().Add(3 * time.Minute)
	for count() < total {
		select {
		case err := <-prodErr:
			if err != nil {
				t.Fatal(err)
			}
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumed %d of %d", count(), total)
		}
		n := count()
		if !left && n >= total/3 {
			z1.stop()
			if err := z1c.Close(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			left = true
			t.Logf("z1 left after %d records", n)
		}
		if left && !joined && n >= 2*total/3 {
			members = append(members, startZkMemberCommitting(t, "z2", zkNew("z2"), true))
			joined = true
			t.Logf("z2 joined after %d records", n)
		}
		for _, m := range members {
			m.mu.Lock()
			err := m.err
			m.mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second) // any duplicate delivery would show now
	seen := map[common.TopicPartition]map[int64]string{}
	perMember := map[string]int{}
	var lists [][]consumed
	for _, m := range members {
		_, r := m.snapshot()
		lists = append(lists, r)
	}
	_, s := sm.snapshot()
	lists = append(lists, s)
	if kc != nil {
		_, k := kc.snapshot()
		lists = append(lists, k)
	}
	if py != nil {
		_, p := py.snapshot()
		lists = append(lists, p)
		if py.err != nil {
			t.Fatal(py.err)
		}
	}
	for _, list := range lists {
		for _, r := range list {
			if seen[r.tp] == nil {
				seen[r.tp] = map[int64]string{}
			}
			if m, dup := seen[r.tp][r.offset]; dup {
				t.Fatalf("%s@%d consumed twice (%s, %s)", r.tp, r.offset, m, r.member)
			}
			seen[r.tp][r.offset] = r.member
			perMember[r.member]++
		}
	}
	n := 0
	for p := int32(0); p < parts; p++ {
		n += len(seen[common.TopicPartition{Topic: "churn", Partition: p}])
	}
	if n != total {
		t.Fatalf("%d distinct records consumed, want %d", n, total)
	}
	t.Logf("records per member: %v", perMember)
}

// produceThrottled writes n records (keys k<i>, round-robin over partitions) in chunks of 1,000
// every 20 ms.
func produceThrottled(addr, topic string, n int) error {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewRoundRobinPartitioner
	cfg.Producer.Flush.Messages = 200
	cfg.Producer.Flush.Frequency = 5 * time.Millisecond
	sp, err := sarama.NewAsyncProducer([]string{addr}, cfg)
	if err != nil {
		return err
	}
	defer sp.Close()
	for i := 0; i < n; i += 1000 {
		for j := i; j < min(i+1000, n); j++ {
			sp.Input() <- &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(fmt.Sprintf("k%d", j)), Value: sarama.StringEncoder("v")}
		}
		for j := i; j < min(i+1000, n); j++ {
			select {
			case <-sp.Successes():
			case err := <-sp.Errors():
				return err
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}
