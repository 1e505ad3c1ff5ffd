package oldconsumer

import (
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

var (
	// ErrConsumerTimeout is consumer.timeout.ms passing without a message; the iterator may be
	// asked again.
	//
	// Kafka 0.10.2: kafka.consumer.ConsumerTimeoutException.
	ErrConsumerTimeout = errors.New("kafka.consumer.ConsumerTimeoutException")

	// ErrMessageSizeTooLarge is a fetched chunk without one whole message: a message larger than
	// fetch.message.max.bytes.
	//
	// Kafka 0.10.2: kafka.common.MessageSizeTooLargeException.
	ErrMessageSizeTooLarge = errors.New("kafka.common.MessageSizeTooLargeException")

	// ErrIteratorFailed is any use of an iterator after it failed (IteratorTemplate's
	// IllegalStateException "Iterator is in failed state").
	ErrIteratorFailed = errors.New("Iterator is in failed state")

	// ErrNoSuchElement is Next after the stream ended.
	ErrNoSuchElement = errors.New("java.util.NoSuchElementException")
)

type iteratorState int

const (
	notReady iteratorState = iota
	ready
	done
	failed
)

// chunkIterator walks the messages (deep) of one chunk.
type chunkIterator struct {
	entries []record.LogEntry
	pos     int
	err     error // met after entries (a corrupt message): reported when reached
}

func newChunkIterator(m *record.MemoryRecords) *chunkIterator {
	it := &chunkIterator{}
	for e, err := range m.DeepEntries() {
		if err != nil {
			it.err = err
			break
		}
		it.entries = append(it.entries, e)
	}
	return it
}

func (c *chunkIterator) hasNext() bool { return c.pos < len(c.entries) || c.err != nil }

func (c *chunkIterator) next() (record.LogEntry, error) {
	if c.pos < len(c.entries) {
		e := c.entries[c.pos]
		c.pos++
		return e, nil
	}
	err := c.err
	c.err = nil
	return record.LogEntry{}, err
}

// ConsumerIterator blocks until a message can be read from its stream's queue. It ends when the
// connector shuts down, and reports ErrConsumerTimeout after consumer.timeout.ms without a
// message (it may then be used again).
//
// Kafka 0.10.2: kafka.consumer.ConsumerIterator on kafka.utils.IteratorTemplate (whose
// hasNext/next states are kept: once an error other than the timeout has been reported, every
// later call reports ErrIteratorFailed). One goroutine uses an iterator; only ClearCurrentChunk
// comes from another (the rebalance).
type ConsumerIterator[K, V any] struct {
	channel           *chunkQueue
	consumerTimeoutMs int32
	keyDecoder        serialization.Decoder[K]
	valueDecoder      serialization.Decoder[V]
	clientID          string
	stats             *ConsumerTopicStats
	log               *logrus.Entry

	current          atomic.Pointer[chunkIterator]
	currentTopicInfo *PartitionTopicInfo
	consumedOffset   int64
	state            iteratorState
	nextItem         MessageAndMetadata[K, V]
}

func newConsumerIterator[K, V any](channel *chunkQueue, consumerTimeoutMs int32, kd serialization.Decoder[K],
	vd serialization.Decoder[V], clientID string, stats *ConsumerTopicStats, log *logrus.Entry) *ConsumerIterator[K, V] {
	return &ConsumerIterator[K, V]{channel: channel, consumerTimeoutMs: consumerTimeoutMs, keyDecoder: kd, valueDecoder: vd,
		clientID: clientID, stats: stats, log: log.WithField("logger", "kafka.consumer.ConsumerIterator"), consumedOffset: -1}
}

// HasNext waits for the next message: true when there is one, false when the stream has ended.
func (it *ConsumerIterator[K, V]) HasNext() (bool, error) {
	switch it.state {
	case failed:
		return false, ErrIteratorFailed
	case done:
		return false, nil
	case ready:
		return true, nil
	}
	it.state = failed
	item, end, err := it.makeNext()
	if err != nil {
		if errors.Is(err, ErrConsumerTimeout) {
			it.state = notReady // resetState: the iterator stays usable
		}
		return false, err
	}
	if end {
		it.state = done
		return false, nil
	}
	it.nextItem = item
	it.state = ready
	return true, nil
}

// Next returns the next message and records it as consumed (the offset a commit writes).
func (it *ConsumerIterator[K, V]) Next() (MessageAndMetadata[K, V], error) {
	ok, err := it.HasNext()
	if err != nil {
		return MessageAndMetadata[K, V]{}, err
	}
	if !ok {
		return MessageAndMetadata[K, V]{}, ErrNoSuchElement
	}
	it.state = notReady
	item := it.nextItem
	it.nextItem = MessageAndMetadata[K, V]{}
	if it.consumedOffset < 0 {
		return item, fmt.Errorf("Offset returned by the message set is invalid %d", it.consumedOffset)
	}
	it.currentTopicInfo.ResetConsumeOffset(it.consumedOffset)
	it.log.Tracef("Setting %s consumed offset to %d", it.currentTopicInfo.Topic, it.consumedOffset)
	if it.stats != nil {
		it.stats.GetConsumerTopicStats(item.Topic).MessageRate.Mark(1)
		it.stats.GetConsumerAllTopicStats().MessageRate.Mark(1)
	}
	return item, nil
}

// makeNext computes the next item; end is true once the shutdown chunk arrived.
func (it *ConsumerIterator[K, V]) makeNext() (item MessageAndMetadata[K, V], end bool, err error) {
	local := it.current.Load()
	if local == nil || !local.hasNext() {
		var chunk *FetchedDataChunk
		if it.consumerTimeoutMs < 0 {
			chunk = it.channel.take()
		} else if chunk = it.channel.poll(ms(it.consumerTimeoutMs)); chunk == nil {
			return item, false, ErrConsumerTimeout
		}
		if chunk == shutdownCommand {
			it.log.Debug("Received the shutdown command")
			return item, true, nil
		}
		it.currentTopicInfo = chunk.TopicInfo
		if cti := it.currentTopicInfo.GetConsumeOffset(); cti < chunk.FetchOffset {
			it.log.Errorf("consumed offset: %d doesn't match fetch offset: %d for %s;\n Consumer may lose data",
				cti, chunk.FetchOffset, it.currentTopicInfo)
			it.currentTopicInfo.ResetConsumeOffset(chunk.FetchOffset)
		}
		local = newChunkIterator(chunk.Messages)
		it.current.Store(local)
		if chunk.Messages.ValidBytes() == 0 {
			return item, false, fmt.Errorf("%w: Found a message larger than the maximum fetch size of this consumer on topic "+
				"%s partition %d at fetch offset %d. Increase the fetch size, or decrease the maximum message size the broker will allow.",
				ErrMessageSizeTooLarge, chunk.TopicInfo.Topic, chunk.TopicInfo.PartitionID, chunk.FetchOffset)
		}
	}
	entry, err := local.next()
	if err != nil {
		return item, false, err
	}
	// Skip what was consumed already (a compressed set fetched from inside its wrapper).
	for entry.Offset < it.currentTopicInfo.GetConsumeOffset() && local.hasNext() {
		if entry, err = local.next(); err != nil {
			return item, false, err
		}
	}
	it.consumedOffset = entry.NextOffset()
	if err := entry.Record.EnsureValid(); err != nil {
		return item, false, err
	}
	return MessageAndMetadata[K, V]{Topic: it.currentTopicInfo.Topic, Partition: it.currentTopicInfo.PartitionID,
		RawMessage: entry.Record, Offset: entry.Offset, Timestamp: entry.Record.Timestamp(), TimestampType: entry.Record.TimestampType(),
		keyDecoder: it.keyDecoder, valueDecoder: it.valueDecoder}, false, nil
}

// All iterates the stream as a Go iterator: each message, until the stream ends; an error
// (ErrConsumerTimeout included) is yielded once and ends the loop.
func (it *ConsumerIterator[K, V]) All() iter.Seq2[MessageAndMetadata[K, V], error] {
	return func(yield func(MessageAndMetadata[K, V], error) bool) {
		for {
			m, err := it.Next()
			if errors.Is(err, ErrNoSuchElement) {
				return
			}
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// ClearCurrentChunk drops the chunk being iterated, so that no more of its messages are
// returned (called during a rebalance, from another goroutine).
func (it *ConsumerIterator[K, V]) ClearCurrentChunk() {
	it.log.Debug("Clearing the current data chunk for this consumer iterator")
	it.current.Store(nil)
}
