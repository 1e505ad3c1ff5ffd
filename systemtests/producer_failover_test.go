package systemtests

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// KafkaProducerLoad keeps a zkafka KafkaProducer (acks=all, retries, max.in.flight=1) sending
// to every partition of a topic at a steady rate, recording each send and acknowledgement in a
// Checker and the acknowledged offsets per partition in send order, until Stop.
type KafkaProducerLoad struct {
	p       *producer.KafkaProducer[[]byte, []byte]
	stop    chan struct{}
	done    chan struct{}
	acked   atomic.Int64
	mu      sync.Mutex
	errs    []error
	offsets map[int32]map[int]int64 // partition -> message index -> acknowledged offset
}

// StartKafkaProducerLoad sends MessageFor(i, size) to partition i%partitions, rate per second.
func StartKafkaProducerLoad(addrs []string, topic string, partitions, size, rate int, props map[string]string, checker *Checker) (*KafkaProducerLoad, error) {
	cfg := map[string]string{"bootstrap.servers": joinAddrs(addrs)}
	for k, v := range props {
		cfg[k] = v
	}
	l := logrus.New()
	l.SetOutput(io.Discard)
	p, err := producer.NewKafkaProducerWith[[]byte, []byte](cfg, serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{},
		producer.ProducerOptions[[]byte, []byte]{Log: logrus.NewEntry(l)})
	if err != nil {
		return nil, err
	}
	load := &KafkaProducerLoad{p: p, stop: make(chan struct{}), done: make(chan struct{}), offsets: map[int32]map[int]int64{}}
	go func() {
		defer close(load.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		perTick := max(rate/100, 1)
		for i := 0; ; {
			select {
			case <-load.stop:
				return
			case <-tick.C:
			}
			for j := 0; j < perTick; j, i = j+1, i+1 {
				k, v := MessageFor(i, size)
				part := int32(i % partitions)
				checker.Sent(k, v)
				idx := i
				_, err := p.Send(producer.NewProducerRecord(topic, k, v).WithPartition(part), func(md *producer.RecordMetadata, err error) {
					if err != nil {
						load.mu.Lock()
						load.errs = append(load.errs, fmt.Errorf("message %d to partition %d: %w", idx, part, err))
						load.mu.Unlock()
						return
					}
					checker.Acked(common.TopicPartition{Topic: topic, Partition: md.Partition}, md.Offset, k, v)
					load.mu.Lock()
					if load.offsets[md.Partition] == nil {
						load.offsets[md.Partition] = map[int]int64{}
					}
					load.offsets[md.Partition][idx] = md.Offset
					load.mu.Unlock()
					load.acked.Add(1)
				})
				if err != nil {
					load.mu.Lock()
					load.errs = append(load.errs, err)
					load.mu.Unlock()
				}
			}
		}
	}()
	return load, nil
}

func joinAddrs(addrs []string) string {
	s := ""
	for i, a := range addrs {
		if i > 0 {
			s += ","
		}
		s += a
	}
	return s
}

// WaitAcked waits until n more messages than now were acknowledged.
func (l *KafkaProducerLoad) WaitAcked(ctx context.Context, n int64) error {
	target := l.acked.Load() + n
	return WaitFor(ctx, func() string { return fmt.Sprintf("producer stuck at %d acks (want %d)", l.acked.Load(), target) },
		func() bool { return l.acked.Load() >= target })
}

// Stop stops sending, closes the producer (every outstanding record completes) and returns the
// acknowledgement count and the sends that failed.
func (l *KafkaProducerLoad) Stop() (acked int64, errs []error) {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
	_ = l.p.Close(2 * time.Minute)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked.Load(), append([]error(nil), l.errs...)
}

// outOfOrder lists partitions where a later message was acknowledged at a lower offset than an
// earlier one.
func (l *KafkaProducerLoad) outOfOrder() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var bad []string
	for p, byIndex := range l.offsets {
		idx := make([]int, 0, len(byIndex))
		for i := range byIndex {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for j := 1; j < len(idx); j++ {
			if byIndex[idx[j]] <= byIndex[idx[j-1]] {
				bad = append(bad, fmt.Sprintf("partition %d: message %d at offset %d after message %d at offset %d",
					p, idx[j], byIndex[idx[j]], idx[j-1], byIndex[idx[j-1]]))
				break
			}
		}
	}
	return bad
}

// Leader failure under load with zkafka's own KafkaProducer: acks=all, retries, and
// max.in.flight.requests.per.connection=1, min.insync.replicas=2; SIGKILL the leader of a
// random partition, wait for a new leader and for the producer to go on, restart the broker,
// wait for the full ISR; repeat. Every acknowledged record is consumed at its offset, and the
// acknowledged offsets of each partition follow the send order.
//
// Kafka 0.10.2: tests/kafkatest/tests/core/replication_test.py (hard bounce of the leader)
// with the Java producer (VerifiableProducer) and ProduceConsumeValidateTest's validation.
func TestLeaderFailureKafkaProducer(t *testing.T) {
	rounds := 2
	if long() {
		rounds = 6
	}
	c := controllerCluster(t, nil)
	requireReplication(t, c)
	ctx := within(t, time.Duration(rounds)*90*time.Second+2*time.Minute)
	const topic = "kp-failover"
	const parts = 4
	assignment := rf3(parts)
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	load, err := StartKafkaProducerLoad(c.BootstrapServers(), topic, parts, 200, 1000, map[string]string{
		"acks": "all", "retries": "1000", "retry.backoff.ms": "250", "max.in.flight.requests.per.connection": "1",
		"request.timeout.ms": "30000", "linger.ms": "5", "metadata.max.age.ms": "5000", "reconnect.backoff.ms": "100",
	}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer load.Stop()
	if err := load.WaitAcked(ctx, 500); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(time.Now().UnixNano()))
	for r := 0; r < rounds; r++ {
		p := int32(rnd.Intn(parts))
		leader, err := c.LeaderOf(topic, p)
		if err != nil {
			t.Fatal(err)
		}
		b := c.Broker(leader)
		t0 := time.Now()
		if err := b.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := WaitFor(within(t, sessionTimeout+30*time.Second), func() string { return fmt.Sprintf("round %d: [%s,%d] not re-elected", r, topic, p) }, func() bool {
			l, err := c.LeaderOf(topic, p)
			return err == nil && l != leader
		}); err != nil {
			t.Fatal(err)
		}
		took := time.Since(t0)
		if err := load.WaitAcked(within(t, 60*time.Second), 300); err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitRegistered(ctx, b); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitPartitions(within(t, 60*time.Second), topic, parts, FullIsr(assignment)); err != nil {
			t.Fatalf("round %d: ISR not restored: %v", r, err)
		}
		t.Logf("round %d: killed broker %d (leader of [%s,%d]); new leader after %v; ISR full again after %v",
			r, leader, topic, p, took.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	}
	if err := load.WaitAcked(within(t, 60*time.Second), 300); err != nil {
		t.Fatal(err)
	}
	acked, errs := load.Stop()
	if len(errs) > 0 {
		t.Errorf("%d sends failed despite retries, first: %v", len(errs), errs[0])
	}
	if bad := load.outOfOrder(); len(bad) > 0 {
		t.Errorf("order lost: %v", bad)
	}
	n, err := c.ConsumeAll(ctx, topic, parts, checker)
	if err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	t.Logf("KafkaProducer: acked %d, failed %d, consumed %d; %v", acked, len(errs), n, rep)
	if !rep.OK() {
		t.Fatalf("acked vs consumed: %v", rep)
	}
}
