package integration

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// Broker-backed tests of KafkaConsumer (Kafka's kafka.api.PlaintextConsumerTest family).

func quietConsumerLog() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

func newTestConsumer(t *testing.T, addr string, kv ...string) *consumer.KafkaConsumer[[]byte, []byte] {
	t.Helper()
	props := map[string]string{"bootstrap.servers": addr, "session.timeout.ms": "6000", "heartbeat.interval.ms": "500",
		"max.poll.interval.ms": "20000", "request.timeout.ms": "25000", "metadata.max.age.ms": "2000"}
	for i := 0; i < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	c, err := consumer.NewKafkaConsumerWith[[]byte, []byte](props, serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{},
		consumer.ConsumerOptions[[]byte, []byte]{Log: quietConsumerLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(5 * time.Second) })
	return c
}

// produceSarama writes n records "k<i>"/"v<i>" (i from first) to partition p of topic.
func produceSarama(t *testing.T, addr, topic string, p int32, first, n int, codec sarama.CompressionCodec) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Compression = codec
	cfg.Producer.Flush.Messages = 50
	cfg.Producer.Flush.Frequency = 10 * time.Millisecond
	sp, err := sarama.NewAsyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	go func() {
		for i := first; i < first+n; i++ {
			sp.Input() <- &sarama.ProducerMessage{Topic: topic, Partition: p, Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)),
				Value: sarama.StringEncoder(fmt.Sprintf("v%d", i)), Timestamp: time.UnixMilli(int64(1_000_000 + i))}
		}
	}()
	for i := 0; i < n; i++ {
		select {
		case <-sp.Successes():
		case err := <-sp.Errors():
			t.Fatal(err)
		}
	}
}

// pollUntil polls until want records arrived (deadline 60 s) and returns them by partition.
func pollN(t *testing.T, c *consumer.KafkaConsumer[[]byte, []byte], want int) []consumer.ConsumerRecord[[]byte, []byte] {
	t.Helper()
	var out []consumer.ConsumerRecord[[]byte, []byte]
	deadline := time.Now().Add(60 * time.Second)
	for len(out) < want {
		if time.Now().After(deadline) {
			t.Fatalf("got %d records of %d", len(out), want)
		}
		recs, err := c.Poll(200 * time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recs.All()...)
	}
	return out
}

// assign, seekToBeginning, poll every record in order (plain and compressed sets, a small
// max.partition.fetch.bytes so fetches end mid-message), position, commitSync, committed, and
// the offset lookups.
func TestConsumerAssignPollCommit(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "ca", 2, nil)
	produceSarama(t, b.addr, "ca", 0, 0, 300, sarama.CompressionNone)
	produceSarama(t, b.addr, "ca", 1, 0, 300, sarama.CompressionGZIP)
	c := newTestConsumer(t, b.addr, "group.id", "g-assign", "enable.auto.commit", "false", "max.partition.fetch.bytes", "1000",
		"auto.offset.reset", "earliest", "max.poll.records", "77")
	tp0, tp1 := common.TopicPartition{Topic: "ca", Partition: 0}, common.TopicPartition{Topic: "ca", Partition: 1}
	if err := c.Assign([]common.TopicPartition{tp0, tp1}); err != nil {
		t.Fatal(err)
	}
	recs := pollN(t, c, 600)
	if len(recs) != 600 {
		t.Fatalf("got %d records", len(recs))
	}
	next := map[int32]int64{}
	for _, r := range recs {
		if r.Offset != next[r.Partition] {
			t.Fatalf("partition %d: offset %d, want %d", r.Partition, r.Offset, next[r.Partition])
		}
		if string(r.Key) != fmt.Sprintf("k%d", r.Offset) || string(r.Value) != fmt.Sprintf("v%d", r.Offset) || r.Timestamp != 1_000_000+r.Offset {
			t.Fatalf("record %v", r)
		}
		next[r.Partition]++
	}
	for _, tp := range []common.TopicPartition{tp0, tp1} {
		if p, err := c.Position(tp); err != nil || p != 300 {
			t.Fatalf("position %s: %d %v", tp, p, err)
		}
	}
	if err := c.CommitSync(map[common.TopicPartition]consumer.OffsetAndMetadata{tp0: {Offset: 123, Metadata: "m"}}); err != nil {
		t.Fatal(err)
	}
	if o, err := c.Committed(tp0); err != nil || o == nil || o.Offset != 123 || o.Metadata != "m" {
		t.Fatalf("committed %v %v", o, err)
	}
	if o, err := c.Committed(tp1); err != nil || o != nil {
		t.Fatalf("committed tp1 %v %v", o, err)
	}
	// commitAsync: the callback runs on a later poll (or commit) of this goroutine.
	var asyncDone map[common.TopicPartition]consumer.OffsetAndMetadata
	var asyncErr error
	called := false
	if err := c.CommitAsync(map[common.TopicPartition]consumer.OffsetAndMetadata{tp1: {Offset: 250}}, func(o map[common.TopicPartition]consumer.OffsetAndMetadata, err error) {
		called, asyncDone, asyncErr = true, o, err
	}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !called && time.Now().Before(deadline); {
		if _, err := c.Poll(50 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	if !called || asyncErr != nil || asyncDone[tp1].Offset != 250 {
		t.Fatalf("commitAsync callback: %v %v %v", called, asyncDone, asyncErr)
	}
	if o, err := c.Committed(tp1); err != nil || o == nil || o.Offset != 250 {
		t.Fatalf("committed tp1 after commitAsync %v %v", o, err)
	}
	begin, err := c.BeginningOffsets([]common.TopicPartition{tp0, tp1})
	if err != nil || begin[tp0] != 0 || begin[tp1] != 0 {
		t.Fatalf("beginning %v %v", begin, err)
	}
	end, err := c.EndOffsets([]common.TopicPartition{tp0, tp1})
	if err != nil || end[tp0] != 300 || end[tp1] != 300 {
		t.Fatalf("end %v %v", end, err)
	}
	byTime, err := c.OffsetsForTimes(map[common.TopicPartition]int64{tp0: 1_000_100, tp1: 5_000_000})
	if err != nil || byTime[tp0] == nil || byTime[tp0].Offset != 100 || byTime[tp1] != nil {
		t.Fatalf("offsetsForTimes %v %v", byTime, err)
	}
	// seek, pause and resume
	if err := c.Seek(tp0, 290); err != nil {
		t.Fatal(err)
	}
	if err := c.Pause([]common.TopicPartition{tp1}); err != nil {
		t.Fatal(err)
	}
	if err := c.SeekToBeginning([]common.TopicPartition{tp1}); err != nil {
		t.Fatal(err)
	}
	got := pollN(t, c, 10)
	for _, r := range got {
		if r.Partition != 0 || r.Offset < 290 {
			t.Fatalf("after seek/pause: %v", r)
		}
	}
	if err := c.Resume([]common.TopicPartition{tp1}); err != nil {
		t.Fatal(err)
	}
	got = pollN(t, c, 300)
	if got[0].Partition != 1 || got[0].Offset != 0 {
		t.Fatalf("after resume: %v", got[0])
	}
	topics, err := c.ListTopics()
	if err != nil || len(topics["ca"]) != 2 {
		t.Fatalf("listTopics %v %v", topics, err)
	}
	if ps, err := c.PartitionsFor("ca"); err != nil || len(ps) != 2 {
		t.Fatalf("partitionsFor %v %v", ps, err)
	}
}

// auto.offset.reset=none with no committed offset fails with NoOffsetForPartitionException;
// latest starts at the end; Wakeup from another goroutine makes Poll return ErrWakeup.
func TestConsumerResetPoliciesAndWakeup(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "cr", 1, nil)
	produceSarama(t, b.addr, "cr", 0, 0, 10, sarama.CompressionNone)
	tp := common.TopicPartition{Topic: "cr", Partition: 0}

	none := newTestConsumer(t, b.addr, "group.id", "g-none", "auto.offset.reset", "none")
	if err := none.Assign([]common.TopicPartition{tp}); err != nil {
		t.Fatal(err)
	}
	_, err := none.Poll(time.Second)
	var nop *consumer.NoOffsetForPartitionException
	if !errors.As(err, &nop) || len(nop.Partitions) != 1 || nop.Partitions[0] != tp {
		t.Fatalf("poll with reset none: %v", err)
	}
	if err.Error() != "Undefined offset with no reset policy for partition: cr-0" {
		t.Fatalf("message %q", err)
	}

	latest := newTestConsumer(t, b.addr, "group.id", "g-latest")
	if err := latest.Assign([]common.TopicPartition{tp}); err != nil {
		t.Fatal(err)
	}
	if p, err := latest.Position(tp); err != nil || p != 10 {
		t.Fatalf("latest position %d %v", p, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := latest.Poll(time.Minute)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	latest.Wakeup()
	select {
	case err := <-done:
		if !errors.Is(err, consumer.ErrWakeup) {
			t.Fatalf("poll after wakeup: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("poll did not return after wakeup")
	}
	// out of range with a reset policy: seek past the end, the consumer resets to latest
	if err := latest.Seek(tp, 1000); err != nil {
		t.Fatal(err)
	}
	produceSarama(t, b.addr, "cr", 0, 10, 5, sarama.CompressionNone)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := latest.Poll(100 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if p, _ := latest.Position(tp); p == 15 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("position not reset after OFFSET_OUT_OF_RANGE")
		}
	}
}

// evenOnly is a ConsumerInterceptor keeping records at even offsets and counting commits.
type evenOnly struct {
	commits int
	closed  bool
}

func (e *evenOnly) OnConsume(r *consumer.ConsumerRecords[[]byte, []byte]) (*consumer.ConsumerRecords[[]byte, []byte], error) {
	return r.Filter(func(rec consumer.ConsumerRecord[[]byte, []byte]) bool { return rec.Offset%2 == 0 }), nil
}
func (e *evenOnly) OnCommit(map[common.TopicPartition]consumer.OffsetAndMetadata) error {
	e.commits++
	return nil
}
func (e *evenOnly) Close() { e.closed = true }

// ConsumerInterceptors: onConsume filters what poll returns, onCommit sees each commit, close
// closes them.
func TestConsumerInterceptors(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "ci", 1, nil)
	produceSarama(t, b.addr, "ci", 0, 0, 10, sarama.CompressionNone)
	ic := &evenOnly{}
	c, err := consumer.NewKafkaConsumerWith[[]byte, []byte](map[string]string{"bootstrap.servers": b.addr, "group.id": "ci",
		"auto.offset.reset": "earliest", "enable.auto.commit": "false"}, serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{},
		consumer.ConsumerOptions[[]byte, []byte]{Log: quietConsumerLog(), Interceptors: []consumer.ConsumerInterceptor[[]byte, []byte]{ic}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Assign([]common.TopicPartition{{Topic: "ci", Partition: 0}}); err != nil {
		t.Fatal(err)
	}
	recs := pollN(t, c, 5)
	for _, r := range recs {
		if r.Offset%2 != 0 {
			t.Fatalf("interceptor let %d through", r.Offset)
		}
	}
	if err := c.CommitSync(nil); err != nil || ic.commits != 1 {
		t.Fatalf("commit %v, interceptor saw %d commits", err, ic.commits)
	}
	if err := c.Close(5 * time.Second); err != nil || !ic.closed {
		t.Fatalf("close %v, interceptor closed %v", err, ic.closed)
	}
}
