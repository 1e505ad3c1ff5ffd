package systemtests

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// What the tests of the controller read and write in ZooKeeper, the way Kafka's
// ZkUtils-based test helpers do (TestUtils.waitUntilLeaderIsElectedOrChanged and friends), plus
// a producer that keeps sending while brokers fail.

// WriteTopicAssignment creates /brokers/topics/<topic> with the replica assignment JSON, the
// way 0.10.2's AdminUtils does; the controller's TopicChangeListener does the rest.
func (c *Cluster) WriteTopicAssignment(topic string, assignment map[int32][]int32) error {
	z, err := c.Zk()
	if err != nil {
		return err
	}
	return z.CreatePersistentPath(zkutils.TopicPath(topic), zkutils.ReplicaAssignmentZkData(assignment))
}

// PartitionState reads /brokers/topics/<topic>/partitions/<p>/state; ok is false when absent.
func (c *Cluster) PartitionState(topic string, p int32) (zkutils.LeaderIsrAndControllerEpoch, bool, error) {
	z, err := c.Zk()
	if err != nil {
		return zkutils.LeaderIsrAndControllerEpoch{}, false, err
	}
	return z.GetLeaderIsrAndEpochForPartition(topic, p)
}

// ControllerInfo reads /controller's broker id and /controller_epoch (-1, -1 while there is none).
func (c *Cluster) ControllerInfo() (id, epoch int32) {
	z, err := c.Zk()
	if err != nil {
		return -1, -1
	}
	id, err = z.GetController()
	if err != nil {
		return -1, -1
	}
	data, _, err := z.ReadData(zkutils.ControllerEpochPath)
	if err != nil {
		return id, -1
	}
	epoch, err = zkutils.ParseControllerEpoch(data)
	if err != nil {
		return id, -1
	}
	return id, epoch
}

// WaitFor polls cond every 50 ms until it holds, failing with what's last description.
func WaitFor(ctx context.Context, what func() string, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what(), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// WaitPartitions polls the state of partitions 0..n-1 of topic until ok holds for every one.
func (c *Cluster) WaitPartitions(ctx context.Context, topic string, n int32, ok func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool) error {
	var last string
	return WaitFor(ctx, func() string { return "partitions of " + topic + ": " + last }, func() bool {
		for p := int32(0); p < n; p++ {
			s, exists, err := c.PartitionState(topic, p)
			if err != nil || !exists {
				last = fmt.Sprintf("[%s,%d] has no state (%v)", topic, p, err)
				return false
			}
			if !ok(p, s) {
				last = fmt.Sprintf("[%s,%d] is %+v", topic, p, s.LeaderAndIsr)
				return false
			}
		}
		return true
	})
}

// SameReplicas reports whether a and b hold the same ids in any order.
func SameReplicas(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	x := append([]int32(nil), a...)
	y := append([]int32(nil), b...)
	sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })
	sort.Slice(y, func(i, j int) bool { return y[i] < y[j] })
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// FullIsr is a WaitPartitions condition: a leader, and the ISR equal to the assignment.
func FullIsr(assignment map[int32][]int32) func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
	return func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return s.LeaderAndIsr.Leader >= 0 && SameReplicas(s.LeaderAndIsr.Isr, assignment[p])
	}
}

// WaitServing waits until every running broker's metadata cache shows a leader for every
// partition of topic. Each broker is asked on its own: the controller sends a broker its
// LeaderAndIsr before its UpdateMetadata on one queue, so once the leader's own cache shows the
// partition it also leads it, and a producer will not meet UNKNOWN_TOPIC_OR_PARTITION from a
// broker that has not caught up yet (a client asking just any broker can, on a loaded machine).
func (c *Cluster) WaitServing(ctx context.Context, topic string, partitions int32) error {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	var last error
	return WaitFor(ctx, func() string { return fmt.Sprintf("%s not served: %v", topic, last) }, func() bool {
		for _, addr := range c.RunningBootstrapServers() {
			if err := brokerServes(cfg, addr, topic, partitions); err != nil {
				last = fmt.Errorf("%s: %w", addr, err)
				return false
			}
		}
		return true
	})
}

// brokerServes asks the broker at addr alone for topic's metadata and checks that every
// partition has a leader.
func brokerServes(cfg *sarama.Config, addr, topic string, partitions int32) error {
	b := sarama.NewBroker(addr)
	if err := b.Open(cfg); err != nil {
		return err
	}
	defer b.Close()
	md, err := b.GetMetadata(&sarama.MetadataRequest{Version: 1, Topics: []string{topic}})
	if err != nil {
		return err
	}
	if len(md.Topics) != 1 || md.Topics[0].Err != sarama.ErrNoError {
		return fmt.Errorf("topic %s not in its metadata cache", topic)
	}
	leaders := map[int32]bool{}
	for _, p := range md.Topics[0].Partitions {
		if p.Err == sarama.ErrNoError && p.Leader >= 0 {
			leaders[p.ID] = true
		}
	}
	for p := int32(0); p < partitions; p++ {
		if !leaders[p] {
			return fmt.Errorf("[%s,%d] has no leader in its metadata cache", topic, p)
		}
	}
	return nil
}

// RunningBootstrapServers lists the addresses of the brokers whose process runs.
func (c *Cluster) RunningBootstrapServers() []string {
	var out []string
	for _, b := range c.Brokers {
		if b.Running() {
			out = append(out, b.Addr())
		}
	}
	if len(out) == 0 {
		return c.BootstrapServers()
	}
	return out
}

// CreateTopic writes the assignment to /brokers/topics/<topic> and waits until the controller
// has elected a leader with a full ISR for every partition and the brokers serve it.
func (c *Cluster) CreateTopic(ctx context.Context, topic string, assignment map[int32][]int32) error {
	if err := c.WriteTopicAssignment(topic, assignment); err != nil {
		return err
	}
	if err := c.WaitPartitions(ctx, topic, int32(len(assignment)), FullIsr(assignment)); err != nil {
		return err
	}
	return c.WaitServing(ctx, topic, int32(len(assignment)))
}

// WaitElected waits until every partition of the assignment has a leader and a full ISR again
// (after a restart, once the controller has re-elected) and the brokers serve it.
func (c *Cluster) WaitElected(ctx context.Context, topic string, assignment map[int32][]int32) error {
	if err := c.WaitPartitions(ctx, topic, int32(len(assignment)), FullIsr(assignment)); err != nil {
		return err
	}
	return c.WaitServing(ctx, topic, int32(len(assignment)))
}

// LoadProducer keeps producing to every partition of a topic with a sarama AsyncProducer
// (acks=all, retries on), recording each send and acknowledgement in a Checker, until Stop.
type LoadProducer struct {
	checker *Checker
	topic   string
	stop    chan struct{}
	done    chan struct{}

	sent, acked atomic.Int64
	sentAt      sync.Map // message index -> time.Time it was handed to the producer
	mu          sync.Mutex
	errs        []error
	latencies   []ackLatency
}

// ackLatency is one acknowledged message: when it was handed to the producer and when its
// acknowledgement came back.
type ackLatency struct{ sent, acked time.Time }

// LoadSpec configures StartLoad.
type LoadSpec struct {
	Topic      string
	Partitions int
	// First is the index of the first message (MessageFor); loads sharing a Checker need
	// disjoint ranges.
	First int
	Size  int
	// Rate is messages per second (0 means 1000).
	Rate int
	// Retries is the producer's Retry.Max (0 means 40, with 250 ms backoff).
	Retries int
}

// StartLoad starts a LoadProducer against addrs.
func StartLoad(addrs []string, spec LoadSpec, checker *Checker) (*LoadProducer, error) {
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "none")
	if err != nil {
		return nil, err
	}
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Retry.Max = spec.Retries
	if cfg.Producer.Retry.Max == 0 {
		cfg.Producer.Retry.Max = 40
	}
	cfg.Producer.Retry.Backoff = 250 * time.Millisecond
	// The broker answers an acks=all request it cannot complete after this (REQUEST_TIMED_OUT),
	// which bounds how long Stop waits for outstanding sends.
	cfg.Producer.Timeout = 3 * time.Second
	cfg.Net.ReadTimeout = 10 * time.Second
	cfg.Net.MaxOpenRequests = 1
	cfg.Metadata.Retry.Max = 30
	cfg.Metadata.Retry.Backoff = 250 * time.Millisecond
	p, err := sarama.NewAsyncProducer(addrs, cfg)
	if err != nil {
		return nil, err
	}
	rate := spec.Rate
	if rate == 0 {
		rate = 1000
	}
	parts := max(spec.Partitions, 1)
	l := &LoadProducer{checker: checker, topic: spec.Topic, stop: make(chan struct{}), done: make(chan struct{})}
	results := make(chan struct{})
	go func() {
		defer close(results)
		succ, errs := p.Successes(), p.Errors()
		for succ != nil || errs != nil {
			select {
			case m, ok := <-succ:
				if !ok {
					succ = nil
					continue
				}
				l.acked.Add(1)
				if at, ok := l.sentAt.LoadAndDelete(m.Metadata.(int)); ok {
					l.mu.Lock()
					l.latencies = append(l.latencies, ackLatency{sent: at.(time.Time), acked: time.Now()})
					l.mu.Unlock()
				}
				k, v := MessageFor(m.Metadata.(int), spec.Size)
				checker.Acked(common.TopicPartition{Topic: spec.Topic, Partition: m.Partition}, m.Offset, k, v)
			case e, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				l.mu.Lock()
				l.errs = append(l.errs, fmt.Errorf("message %v to partition %d: %w", e.Msg.Metadata, e.Msg.Partition, e.Err))
				l.mu.Unlock()
			}
		}
	}()
	go func() {
		defer close(l.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		perTick := max(rate/100, 1)
		i := spec.First
	loop:
		for {
			select {
			case <-l.stop:
				break loop
			case <-tick.C:
			}
			for j := 0; j < perTick; j++ {
				k, v := MessageFor(i, spec.Size)
				checker.Sent(k, v)
				m := &sarama.ProducerMessage{Topic: spec.Topic, Partition: int32(i % parts), Key: sarama.ByteEncoder(k), Value: sarama.ByteEncoder(v), Metadata: i}
				l.sentAt.Store(i, time.Now())
				select {
				case p.Input() <- m:
				case <-l.stop:
					break loop
				}
				l.sent.Add(1)
				i++
			}
		}
		p.AsyncClose()
		<-results
	}()
	return l, nil
}

// MaxLatency is the longest time from send to acknowledgement among the messages in flight at
// some moment of [from, to] (acknowledged at or after from, sent at or before to): the longest
// produce stall a client saw in that window. Messages never acknowledged are not counted.
func (l *LoadProducer) MaxLatency(from, to time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var longest time.Duration
	for _, s := range l.latencies {
		if !s.acked.Before(from) && !s.sent.After(to) {
			longest = max(longest, s.acked.Sub(s.sent))
		}
	}
	return longest
}

// Acked is the number of acknowledgements so far.
func (l *LoadProducer) Acked() int64 { return l.acked.Load() }

// WaitAcked waits until n more messages than now were acknowledged (the producer makes
// progress).
func (l *LoadProducer) WaitAcked(ctx context.Context, n int64) error {
	target := l.acked.Load() + n
	return WaitFor(ctx, func() string { return fmt.Sprintf("producer stuck at %d acks (want %d)", l.acked.Load(), target) },
		func() bool { return l.acked.Load() >= target })
}

// Stop stops sending, waits for every outstanding outcome and returns the sent and acked
// counts and the sends that failed after all retries.
func (l *LoadProducer) Stop() (sent, acked int64, errs []error) {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent.Load(), l.acked.Load(), append([]error(nil), l.errs...)
}

// ConsumeAll reads every partition of topic from offset 0 to its high watermark into checker
// (each partition's HW is recorded too) and returns how many messages it read.
func (c *Cluster) ConsumeAll(ctx context.Context, topic string, partitions int32, checker *Checker) (int64, error) {
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "none")
	if err != nil {
		return 0, err
	}
	cl, err := sarama.NewClient(c.RunningBootstrapServers(), cfg)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	var total int64
	for p := int32(0); p < partitions; p++ {
		tp := common.TopicPartition{Topic: topic, Partition: p}
		hw, err := cl.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			return total, fmt.Errorf("high watermark of %v: %w", tp, err)
		}
		checker.HighWatermark(tp, hw)
		if hw == 0 {
			continue
		}
		n, err := SaramaConsume(ctx, c.RunningBootstrapServers(), cfg, topic, p, hw, func(m ConsumedMessage) error {
			checker.Consumed(tp, m.Offset, m.Key, m.Value)
			return nil
		})
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// WaitHighWatermarks waits until partition p of topic has a high watermark of at least want[p]
// (every acknowledged message is on the whole ISR).
func (c *Cluster) WaitHighWatermarks(ctx context.Context, topic string, want map[int32]int64) error {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	var last string
	return WaitFor(ctx, func() string { return "high watermarks of " + topic + ": " + last }, func() bool {
		cl, err := sarama.NewClient(c.RunningBootstrapServers(), cfg)
		if err != nil {
			last = err.Error()
			return false
		}
		defer cl.Close()
		for p, w := range want {
			hw, err := cl.GetOffset(topic, p, sarama.OffsetNewest)
			if err != nil || hw < w {
				last = fmt.Sprintf("[%s,%d] at %d, want %d (%v)", topic, p, hw, w, err)
				return false
			}
		}
		return true
	})
}

// errNoLeader is returned by LeaderOf when a partition has no live leader.
var errNoLeader = errors.New("no leader")

// LeaderOf is the partition's leader according to ZooKeeper.
func (c *Cluster) LeaderOf(topic string, p int32) (int32, error) {
	s, ok, err := c.PartitionState(topic, p)
	if err != nil {
		return -1, err
	}
	if !ok || s.LeaderAndIsr.Leader < 0 {
		return -1, errNoLeader
	}
	return s.LeaderAndIsr.Leader, nil
}
