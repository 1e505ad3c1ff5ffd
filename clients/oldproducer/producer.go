package oldproducer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/serialization"
	"github.com/zkafka/zkafka/core/metrics"
)

var (
	// ErrProducerClosed is a send after Close.
	//
	// Kafka 0.10.2: kafka.producer.ProducerClosedException.
	ErrProducerClosed = errors.New("kafka.producer.ProducerClosedException: producer already closed")
	// ErrQueueFull is an async send that found the queue full (queue.enqueue.timeout.ms).
	//
	// Kafka 0.10.2: kafka.common.QueueFullException.
	ErrQueueFull = errors.New("kafka.common.QueueFullException")
)

// Deps are a producer's outside world; fields may be left zero.
type Deps struct {
	Logger  *logrus.Entry
	Metrics *metrics.Registry
}

// Producer is the old (Scala) producer: Send hands messages to the DefaultEventHandler at once
// (producer.type=sync) or queues them for the ProducerSendThread (async).
//
// Kafka 0.10.2: kafka.producer.Producer.
type Producer[K, V any] struct {
	config     *ProducerConfig
	handler    EventHandler[K, V]
	topicStats *ProducerTopicStats
	log        *logrus.Entry

	mu          sync.Mutex // Kafka's lock: sends and close are serialised
	hasShutdown atomic.Bool
	queue       chan queueItem[K, V]
	sendThread  *ProducerSendThread[K, V]
}

// NewProducer makes a producer. partitioner nil means the class of partitioner.class
// (kafka.producer.DefaultPartitioner or ByteArrayPartitioner). The encoders are Go values: the
// serializer.class and key.serializer.class keys name Scala classes and are not read here
// (see OldProducer for the byte-array producer of the tools).
func NewProducer[K, V any](config *ProducerConfig, keyEncoder serialization.Encoder[K], valueEncoder serialization.Encoder[V],
	partitioner Partitioner, deps Deps) (*Producer[K, V], error) {
	if keyEncoder == nil || valueEncoder == nil {
		return nil, errors.New("the old producer needs a key and a value encoder")
	}
	if partitioner == nil {
		var err error
		if partitioner, err = partitionerForClass(config.PartitionerClass); err != nil {
			return nil, err
		}
	}
	log := deps.Logger
	if log == nil {
		log = discardEntry()
	}
	pool := NewProducerPool(config, deps.Metrics, log)
	handler := NewDefaultEventHandler[K, V](config, partitioner, valueEncoder, keyEncoder, pool, nil,
		newProducerStats(deps.Metrics, config.ClientID), newProducerTopicStats(deps.Metrics, config.ClientID), log)
	return newProducerWithHandler[K, V](config, handler, deps), nil
}

// newProducerWithHandler is Kafka's constructor with an event handler (for tests).
func newProducerWithHandler[K, V any](config *ProducerConfig, handler EventHandler[K, V], deps Deps) *Producer[K, V] {
	log := deps.Logger
	if log == nil {
		log = discardEntry()
	}
	p := &Producer[K, V]{config: config, handler: handler, topicStats: newProducerTopicStats(deps.Metrics, config.ClientID),
		log: log.WithField("logger", "kafka.producer.Producer")}
	if config.ProducerType == "async" {
		p.queue = make(chan queueItem[K, V], config.QueueBufferingMaxMessages)
		p.sendThread = newProducerSendThread("ProducerSendThread-"+config.ClientID, p.queue, handler,
			time.Duration(config.QueueBufferingMaxMs)*time.Millisecond, int(config.BatchNumMessages), config.ClientID, deps.Metrics, log)
		p.sendThread.start()
	}
	return p
}

// Send sends (sync) or queues (async) the messages.
func (p *Producer[K, V]) Send(ctx context.Context, messages ...KeyedMessage[K, V]) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hasShutdown.Load() {
		return ErrProducerClosed
	}
	for _, m := range messages {
		p.topicStats.GetProducerTopicStats(m.Topic).MessageRate.Mark(1)
		p.topicStats.GetProducerAllTopicsStats().MessageRate.Mark(1)
	}
	if p.sendThread == nil {
		return p.handler.Handle(ctx, messages)
	}
	return p.asyncSend(ctx, messages)
}

func (p *Producer[K, V]) asyncSend(ctx context.Context, messages []KeyedMessage[K, V]) error {
	for _, m := range messages {
		item := queueItem[K, V]{msg: m}
		added := false
		switch timeout := p.config.QueueEnqueueTimeoutMs; {
		case timeout == 0:
			select {
			case p.queue <- item:
				added = true
			default:
			}
		case timeout < 0:
			select {
			case p.queue <- item:
				added = true
			case <-ctx.Done():
			}
		default:
			t := time.NewTimer(time.Duration(timeout) * time.Millisecond)
			select {
			case p.queue <- item:
				added = true
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
		if !added {
			p.topicStats.GetProducerTopicStats(m.Topic).DroppedMessageRate.Mark(1)
			p.topicStats.GetProducerAllTopicsStats().DroppedMessageRate.Mark(1)
			return fmt.Errorf("%w: Event queue is full of unsent messages, could not send event: %s", ErrQueueFull, m)
		}
		p.log.Tracef("Added to send queue an event: %s", m)
	}
	return nil
}

// Close sends what is queued (async), then closes the connections; later sends fail.
func (p *Producer[K, V]) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.hasShutdown.CompareAndSwap(false, true) {
		return
	}
	p.log.Info("Shutting down producer")
	start := time.Now()
	if p.sendThread != nil {
		p.sendThread.shutdown()
	}
	p.handler.Close()
	p.log.Infof("Producer shutdown completed in %d ms", time.Since(start).Milliseconds())
}
