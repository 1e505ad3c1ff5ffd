package consumer

import (
	"errors"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/serialization"
)

// pausingListener calls the consumer from inside the rebalance callbacks, as Kafka's
// documentation suggests (commitSync in onPartitionsRevoked).
type pausingListener struct {
	c    *KafkaConsumer[[]byte, []byte]
	errs []error
}

func (l *pausingListener) OnPartitionsRevoked(p []common.TopicPartition) {
	l.errs = append(l.errs, l.c.Pause(nil))
}

func (l *pausingListener) OnPartitionsAssigned(p []common.TopicPartition) {
	l.errs = append(l.errs, l.c.Resume(nil))
}

// The guard against concurrent use lets a rebalance listener, running inside Poll, call the
// consumer (Java's re-entrant acquire), and still refuses a second caller outside a callback.
func TestRebalanceListenerMayCallConsumer(t *testing.T) {
	c, err := NewKafkaConsumerWith[[]byte, []byte](map[string]string{"bootstrap.servers": "127.0.0.1:1", "group.id": "g"},
		serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{}, ConsumerOptions[[]byte, []byte]{Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(0) //nolint:errcheck
	l := &pausingListener{c: c}
	if err := c.Subscribe([]string{"t"}, l); err != nil {
		t.Fatal(err)
	}
	// What Poll does: hold the consumer, then the coordinator calls the listener.
	if err := c.acquire(); err != nil {
		t.Fatal(err)
	}
	if err := c.Pause(nil); !errors.Is(err, ErrConcurrentModification) {
		t.Fatalf("a second caller outside a callback: %v", err)
	}
	c.subscriptions.Listener().OnPartitionsRevoked(nil)
	c.subscriptions.Listener().OnPartitionsAssigned(nil)
	if err := c.Pause(nil); !errors.Is(err, ErrConcurrentModification) {
		t.Fatalf("after the callbacks: %v", err)
	}
	c.release()
	if len(l.errs) != 2 || l.errs[0] != nil || l.errs[1] != nil {
		t.Fatalf("calls from the listener: %v", l.errs)
	}
	if err := c.Pause(nil); err != nil {
		t.Fatalf("after release: %v", err)
	}
}
