package perf

import (
	"context"
	"errors"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// assignedListener notes whether the group has assigned partitions.
type assignedListener struct{ assigned bool }

func (l *assignedListener) OnPartitionsAssigned([]common.TopicPartition) { l.assigned = true }
func (l *assignedListener) OnPartitionsRevoked([]common.TopicPartition)  { l.assigned = false }

// NewConsumerConsume is the new consumer's benchmark (Deps.NewConsumer): subscribe to topic,
// wait up to 10 s for the group to assign partitions, seek them to the beginning, then poll
// (100 ms) until messages records were read or none came for 1 s; bytes are the keys' and
// values' sizes.
//
// Kafka 0.10.2: ConsumerPerformance.main (new consumer branch) and ConsumerPerformance.consume.
func NewConsumerConsume(ctx context.Context, props map[string]string, topic string, messages int64) (msgs, bytes int64, err error) {
	c, err := consumer.NewKafkaConsumer[[]byte, []byte](props, serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{})
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = c.Close(30 * time.Second) }()
	stop := context.AfterFunc(ctx, c.Wakeup)
	defer stop()
	l := &assignedListener{}
	if err := c.Subscribe([]string{topic}, l); err != nil {
		return 0, 0, err
	}
	joinStart := time.Now()
	for !l.assigned {
		if time.Since(joinStart) >= 10*time.Second {
			return 0, 0, errors.New("java.lang.Exception: Timed out waiting for initial group join.")
		}
		if _, err := c.Poll(100 * time.Millisecond); err != nil {
			return 0, 0, wakeupIsEnd(err)
		}
	}
	if err := c.SeekToBeginning(nil); err != nil {
		return 0, 0, err
	}
	lastConsumed := time.Now()
	now := lastConsumed
	for msgs < messages && now.Sub(lastConsumed) <= time.Second {
		recs, err := c.Poll(100 * time.Millisecond)
		if err != nil {
			return msgs, bytes, wakeupIsEnd(err)
		}
		now = time.Now()
		if !recs.IsEmpty() {
			lastConsumed = now
		}
		for _, r := range recs.All() {
			msgs++
			bytes += int64(len(r.Key) + len(r.Value))
		}
	}
	return msgs, bytes, nil
}

// wakeupIsEnd turns the wakeup of an interrupted run into a normal end.
func wakeupIsEnd(err error) error {
	if errors.Is(err, consumer.ErrWakeup) {
		return nil
	}
	return err
}
