package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
)

// consumed is one record a group member consumed, and whether the member owned the partition
// when it did.
type consumed struct {
	member string
	tp     common.TopicPartition
	offset int64
}

// saramaMember is a sarama ConsumerGroup member that records what it consumes and marks it.
type saramaMember struct {
	mu       sync.Mutex
	claims   map[int32]bool
	records  []consumed
	assigned chan struct{}
	topic    string // "cg" when empty
}

func (s *saramaMember) Setup(sess sarama.ConsumerGroupSession) error {
	s.mu.Lock()
	s.claims = map[int32]bool{}
	topic := s.topic
	if topic == "" {
		topic = "cg"
	}
	for _, p := range sess.Claims()[topic] {
		s.claims[p] = true
	}
	s.mu.Unlock()
	select {
	case s.assigned <- struct{}{}:
	default:
	}
	return nil
}
func (s *saramaMember) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (s *saramaMember) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		s.mu.Lock()
		s.records = append(s.records, consumed{"sarama", common.TopicPartition{Topic: m.Topic, Partition: m.Partition}, m.Offset})
		s.mu.Unlock()
		sess.MarkMessage(m, "")
	}
	return nil
}

func (s *saramaMember) snapshot() (map[int32]bool, []consumed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := map[int32]bool{}
	for k, v := range s.claims {
		c[k] = v
	}
	return c, append([]consumed(nil), s.records...)
}

// Two zkafka consumers, a sarama ConsumerGroup member and a kafka-python KafkaConsumer split 12 partitions with range and
// with roundrobin: every partition has one owner, every record is consumed once, by its
// partition's owner; the offsets the zkafka members committed are read back equal by sarama's
// OffsetManager and by kafka-python.
func TestConsumerGroupMixedClients(t *testing.T) {
	b := startTestBroker(t, map[string]string{"group.initial.rebalance.delay.ms": "0"})
	b.createTopic(t, "cg", 12, nil)
	for _, strategy := range []struct{ kafka, sarama string }{
		{consumer.RangeAssignorClass, "range"}, {consumer.RoundRobinAssignorClass, "roundrobin"},
	} {
		t.Run(strategy.sarama, func(t *testing.T) {
			group := "mixed-" + strategy.sarama
			var zs []*consumer.KafkaConsumer[[]byte, []byte]
			for i := 0; i < 2; i++ {
				c := newTestConsumer(t, b.addr, "group.id", group, "partition.assignment.strategy", strategy.kafka,
					"auto.offset.reset", "earliest", "enable.auto.commit", "false", "client.id", fmt.Sprintf("z%d", i))
				if err := c.Subscribe([]string{"cg"}, nil); err != nil {
					t.Fatal(err)
				}
				zs = append(zs, c)
			}
			cfg := sarama.NewConfig()
			cfg.Version = sarama.V0_10_2_0
			cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
			cfg.Consumer.Group.Session.Timeout = 6 * time.Second
			cfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
			if strategy.sarama == "range" {
				cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
			} else {
				cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRoundRobin()}
			}
			cfg.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
			sg, err := sarama.NewConsumerGroup([]string{b.addr}, group, cfg)
			if err != nil {
				t.Fatal(err)
			}
			sm := &saramaMember{assigned: make(chan struct{}, 1)}
			ctx, cancel := context.WithCancel(context.Background())
			sdone := make(chan struct{})
			go func() {
				defer close(sdone)
				for ctx.Err() == nil {
					if err := sg.Consume(ctx, []string{"cg"}, sm); err != nil {
						return
					}
				}
			}()
			defer func() { cancel(); <-sdone; sg.Close() }()

			var py *pyMember
			if pythonAvailable() {
				py = startPyMember(t, b.addr, "cg", group, strategy.sarama)
			} else {
				t.Log("kafka-python not installed: the group has three members")
			}
			var kc *kcatMember
			if kcatAvailable() {
				kc = startKcatMember(t, b.addr, "cg", group, strategy.sarama)
			} else {
				t.Log("kcat not installed: no kcat -G member")
			}
			// Each zkafka member polls on its own goroutine, as an application does.
			zms := make([]*zkMember, len(zs))
			for i, c := range zs {
				zms[i] = startZkMember(t, fmt.Sprintf("z%d", i), c)
			}
			defer func() {
				for _, m := range zms {
					m.stop()
				}
			}()
			deadline := time.Now().Add(60 * time.Second)
			for {
				claims, _ := sm.snapshot()
				a0, _ := zms[0].snapshot()
				a1, _ := zms[1].snapshot()
				var pa, ka []int32
				if py != nil {
					pa, _ = py.snapshot()
				}
				if kc != nil {
					ka, _ = kc.snapshot()
				}
				// Stable: every member owns partitions, 12 in all.
				if len(a0) > 0 && len(a1) > 0 && len(claims) > 0 && (py == nil || len(pa) > 0) && (kc == nil || len(ka) > 0) &&
					len(a0)+len(a1)+len(claims)+len(pa)+len(ka) == 12 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("group not stable: %v %v %v %v %v", a0, a1, claims, pa, ka)
				}
				time.Sleep(20 * time.Millisecond)
			}
			owner := map[int32]string{}
			for _, m := range zms {
				a, _ := m.snapshot()
				for _, tp := range a {
					owner[tp.Partition] = m.name
				}
			}
			claims, _ := sm.snapshot()
			for p := range claims {
				if owner[p] != "" {
					t.Fatalf("partition %d owned twice", p)
				}
				owner[p] = "sarama"
			}
			if py != nil {
				pa, _ := py.snapshot()
				for _, p := range pa {
					if owner[p] != "" {
						t.Fatalf("partition %d owned twice", p)
					}
					owner[p] = "python"
				}
			}
			if kc != nil {
				ka, _ := kc.snapshot()
				for _, p := range ka {
					if owner[p] != "" {
						t.Fatalf("partition %d owned twice", p)
					}
					owner[p] = "kcat"
				}
			}
			if len(owner) != 12 {
				t.Fatalf("owners %v", owner)
			}
			base := map[int32]int64{}
			for p, o := range endOffsetsSarama(t, b.addr, "cg", 12) {
				base[p] = o
			}
			for p := int32(0); p < 12; p++ {
				produceSarama(t, b.addr, "cg", p, 0, 50, sarama.CompressionNone)
			}
			total := func() int {
				_, s := sm.snapshot()
				_, r0 := zms[0].snapshot()
				_, r1 := zms[1].snapshot()
				n := len(r0) + len(r1) + len(s)
				if py != nil {
					_, pr := py.snapshot()
					n += len(pr)
				}
				if kc != nil {
					_, kr := kc.snapshot()
					n += len(kr)
				}
				return n
			}
			deadline = time.Now().Add(60 * time.Second)
			for total() < 600+int(sum(base)) {
				time.Sleep(20 * time.Millisecond)
				if time.Now().After(deadline) {
					t.Fatalf("consumed %d of %d", total(), 600+sum(base))
				}
			}
			var zrecs [2][]consumed
			for i, m := range zms {
				m.stop()
				_, zrecs[i] = m.snapshot()
				if m.err != nil {
					t.Fatal(m.err)
				}
			}
			_, srecs := sm.snapshot()
			var precs []consumed
			if py != nil {
				py.stop()
				_, precs = py.snapshot()
				if py.err != nil {
					t.Fatal(py.err)
				}
			}
			var krecs []consumed
			if kc != nil {
				kc.stop()
				_, krecs = kc.snapshot()
			}
			seen := map[common.TopicPartition]map[int64]string{}
			for _, list := range [][]consumed{zrecs[0], zrecs[1], srecs, precs, krecs} {
				for _, r := range list {
					if r.offset < base[r.tp.Partition] {
						continue // consumed before this run's records (the range run's data)
					}
					if owner[r.tp.Partition] != r.member {
						t.Fatalf("%s@%d consumed by %s, owner %s", r.tp, r.offset, r.member, owner[r.tp.Partition])
					}
					if seen[r.tp] == nil {
						seen[r.tp] = map[int64]string{}
					}
					if m, dup := seen[r.tp][r.offset]; dup {
						t.Fatalf("%s@%d consumed twice (%s, %s)", r.tp, r.offset, m, r.member)
					}
					seen[r.tp][r.offset] = r.member
				}
			}
			perMember := map[string]int{}
			for _, byOffset := range seen {
				for _, m := range byOffset {
					perMember[m]++
				}
			}
			t.Logf("records consumed per member: %v", perMember)
			for _, m := range []string{"z0", "z1", "sarama", "python", "kcat"} {
				if m == "python" && py == nil || m == "kcat" && kc == nil {
					continue
				}
				if perMember[m] == 0 {
					t.Fatalf("%s consumed nothing: %v", m, perMember)
				}
			}
			for p := int32(0); p < 12; p++ {
				if n := len(seen[common.TopicPartition{Topic: "cg", Partition: p}]); n != 50 {
					t.Fatalf("partition %d: %d records consumed", p, n)
				}
			}
			// The zkafka members commit their positions; sarama's OffsetManager reads them back.
			want := map[int32]int64{}
			for _, c := range zs {
				if err := c.CommitSync(nil); err != nil {
					t.Fatal(err)
				}
				for _, tp := range c.Assignment() {
					p, err := c.Position(tp)
					if err != nil {
						t.Fatal(err)
					}
					want[tp.Partition] = p
				}
			}
			checkSaramaOffsets(t, b.addr, group, want)
			if py != nil {
				got := pythonCommitted(t, b.addr, group, "cg", 12)
				for p, o := range want {
					if got[p] != o {
						t.Fatalf("partition %d: kafka-python reads committed offset %d, zkafka committed %d", p, got[p], o)
					}
				}
			}
		})
	}
}

// zkMember is a zkafka consumer polling on its own goroutine, recording what it consumed and
// checking that it owned each record's partition.
type zkMember struct {
	name    string
	c       *consumer.KafkaConsumer[[]byte, []byte]
	mu      sync.Mutex
	assign  []common.TopicPartition
	records []consumed
	err     error
	quit    chan struct{}
	done    chan struct{}
	once    sync.Once
	commit  bool // commitSync after each poll that returned records
}

func startZkMember(t *testing.T, name string, c *consumer.KafkaConsumer[[]byte, []byte]) *zkMember {
	return startZkMemberCommitting(t, name, c, false)
}

func startZkMemberCommitting(t *testing.T, name string, c *consumer.KafkaConsumer[[]byte, []byte], commit bool) *zkMember {
	m := &zkMember{name: name, c: c, quit: make(chan struct{}), done: make(chan struct{}), commit: commit}
	go func() {
		defer close(m.done)
		for {
			select {
			case <-m.quit:
				return
			default:
			}
			recs, err := c.Poll(50 * time.Millisecond)
			m.mu.Lock()
			if err != nil {
				m.err = err
				m.mu.Unlock()
				return
			}
			m.assign = c.Assignment()
			for _, r := range recs.All() {
				tp := common.TopicPartition{Topic: r.Topic, Partition: r.Partition}
				owned := false
				for _, a := range m.assign {
					owned = owned || a == tp
				}
				if !owned {
					m.err = fmt.Errorf("%s consumed %s@%d without owning it", name, tp, r.Offset)
				}
				m.records = append(m.records, consumed{name, tp, r.Offset})
			}
			m.mu.Unlock()
			if m.commit && !recs.IsEmpty() {
				if err := c.CommitSync(nil); err != nil {
					m.mu.Lock()
					m.err = fmt.Errorf("%s: commit: %w", name, err)
					m.mu.Unlock()
					return
				}
			}
		}
	}()
	return m
}

func (m *zkMember) stop() {
	m.once.Do(func() { close(m.quit) })
	<-m.done
}

func (m *zkMember) snapshot() ([]common.TopicPartition, []consumed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]common.TopicPartition(nil), m.assign...), append([]consumed(nil), m.records...)
}

// endOffsetsSarama reads the high watermarks of topic's partitions.
func endOffsetsSarama(t *testing.T, addr, topic string, n int32) map[int32]int64 {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cl, err := sarama.NewClient([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out := map[int32]int64{}
	for p := int32(0); p < n; p++ {
		o, err := cl.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = o
	}
	return out
}

func sum(m map[int32]int64) int64 {
	var s int64
	for _, v := range m {
		s += v
	}
	return s
}

func tpsOf(topic string, n int) []common.TopicPartition {
	out := make([]common.TopicPartition, n)
	for i := range out {
		out[i] = common.TopicPartition{Topic: topic, Partition: int32(i)}
	}
	return out
}

// checkSaramaOffsets reads the group's committed offsets with sarama's OffsetManager.
func checkSaramaOffsets(t *testing.T, addr, group string, want map[int32]int64) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cl, err := sarama.NewClient([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	om, err := sarama.NewOffsetManagerFromClient(group, cl)
	if err != nil {
		t.Fatal(err)
	}
	defer om.Close()
	for p, o := range want {
		pom, err := om.ManagePartition("cg", p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := pom.NextOffset()
		pom.AsyncClose()
		if got != o {
			t.Fatalf("partition %d: sarama reads committed offset %d, zkafka committed %d", p, got, o)
		}
	}
}
