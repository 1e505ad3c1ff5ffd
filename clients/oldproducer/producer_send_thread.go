package oldproducer

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/core/metrics"
)

// queueItem is one entry of the async producer's queue; shutdown marks the shutdown command.
type queueItem[K, V any] struct {
	msg      KeyedMessage[K, V]
	shutdown bool
}

// ProducerSendThread drains an async producer's queue: it hands a batch to the event handler
// when batch.num.messages messages are waiting or queue.buffering.max.ms passed since the last
// send, and sends what is left at shutdown.
//
// Kafka 0.10.2: kafka.producer.async.ProducerSendThread (a goroutine named
// "ProducerSendThread-<clientId>"; gauge ProducerQueueSize).
type ProducerSendThread[K, V any] struct {
	name      string
	queue     chan queueItem[K, V]
	handler   EventHandler[K, V]
	queueTime time.Duration
	batchSize int
	log       *logrus.Entry
	done      chan struct{}
}

func newProducerSendThread[K, V any](name string, queue chan queueItem[K, V], handler EventHandler[K, V], queueTime time.Duration,
	batchSize int, clientID string, reg *metrics.Registry, log *logrus.Entry) *ProducerSendThread[K, V] {
	t := &ProducerSendThread[K, V]{name: name, queue: queue, handler: handler, queueTime: queueTime, batchSize: batchSize,
		log:  log.WithField("logger", "kafka.producer.async.ProducerSendThread").WithField("ident", "["+name+"], "),
		done: make(chan struct{})}
	metrics.NewKafkaMetricsGroup(reg, "kafka.producer.async", "ProducerSendThread").
		NewGauge("ProducerQueueSize", func() int64 { return int64(len(queue)) }, metrics.Tag{Key: "clientId", Value: clientID})
	return t
}

func (t *ProducerSendThread[K, V]) start() {
	go func() {
		defer close(t.done)
		if err := t.processEvents(); err != nil {
			t.log.WithError(err).Error("Error in sending events: ")
		}
	}()
}

// shutdown queues the shutdown command and waits until the last batch was handled.
func (t *ProducerSendThread[K, V]) shutdown() {
	t.log.Info("Begin shutting down ProducerSendThread")
	t.queue <- queueItem[K, V]{shutdown: true}
	<-t.done
	t.log.Info("Shutdown ProducerSendThread complete")
}

func (t *ProducerSendThread[K, V]) processEvents() error {
	lastSend := time.Now()
	var events []KeyedMessage[K, V]
	timer := time.NewTimer(t.queueTime)
	defer timer.Stop()
	for {
		wait := max(0, time.Until(lastSend.Add(t.queueTime)))
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
		expired := false
		select {
		case item := <-t.queue:
			if item.shutdown {
				t.tryToHandle(events)
				if n := len(t.queue); n > 0 {
					return fmt.Errorf("kafka.producer.async.IllegalQueueStateException: Invalid queue state! After queue shutdown, %d remaining items in the queue", n)
				}
				return nil
			}
			t.log.Tracef("Dequeued item for topic %s, partition key: %v, data: %v", item.msg.Topic, item.msg.Key, item.msg.Message)
			events = append(events, item.msg)
		case <-timer.C:
			expired = true
		}
		full := len(events) >= t.batchSize
		if full || expired {
			if expired {
				t.log.Debugf("%d ms elapsed. Queue time reached. Sending..", time.Since(lastSend).Milliseconds())
			}
			if full {
				t.log.Debug("Batch full. Sending..")
			}
			t.tryToHandle(events)
			lastSend = time.Now()
			events = nil
		}
	}
}

// tryToHandle sends a batch; a failure is logged (the async producer does not report it).
func (t *ProducerSendThread[K, V]) tryToHandle(events []KeyedMessage[K, V]) {
	if len(events) == 0 {
		return
	}
	t.log.Debugf("Handling %d events", len(events))
	if err := t.handler.Handle(context.Background(), events); err != nil {
		t.log.WithError(err).Errorf("Error in handling batch of %d events", len(events))
	}
}
