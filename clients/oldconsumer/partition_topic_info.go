package oldconsumer

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/server/fetcher"
)

// InvalidOffset is the offset of a partition the group never committed; the fetcher then asks
// the broker where to start (auto.offset.reset).
const InvalidOffset int64 = -1

// IsOffsetInvalid reports whether offset means "none".
//
// Kafka 0.10.2: PartitionTopicInfo.isOffsetInvalid.
func IsOffsetInvalid(offset int64) bool { return offset < 0 }

// PartitionTopicInfo is one owned partition as the consumer sees it: the queue its chunks go
// to, the offset fetched up to, and the offset consumed up to (what a commit writes).
//
// Kafka 0.10.2: kafka.consumer.PartitionTopicInfo. The two offsets are atomics, as in Kafka:
// the fetcher moves fetchedOffset and the stream's iterator moves consumedOffset.
type PartitionTopicInfo struct {
	Topic       string
	PartitionID int32

	chunkQueue     *chunkQueue
	consumedOffset atomic.Int64
	fetchedOffset  atomic.Int64
	fetchSize      atomic.Int32
	clientID       string
	stats          *ConsumerTopicStats
	log            *logrus.Entry
}

func newPartitionTopicInfo(topic string, partition int32, queue *chunkQueue, consumedOffset, fetchedOffset int64,
	fetchSize int32, clientID string, stats *ConsumerTopicStats, log *logrus.Entry) *PartitionTopicInfo {
	p := &PartitionTopicInfo{Topic: topic, PartitionID: partition, chunkQueue: queue, clientID: clientID, stats: stats,
		log: log.WithField("logger", "kafka.consumer.PartitionTopicInfo")}
	p.consumedOffset.Store(consumedOffset)
	p.fetchedOffset.Store(fetchedOffset)
	p.fetchSize.Store(fetchSize)
	p.log.Debugf("initial consumer offset of %s is %d", p, consumedOffset)
	p.log.Debugf("initial fetch offset of %s is %d", p, fetchedOffset)
	return p
}

// GetConsumeOffset is the offset after the last message handed to the application.
func (p *PartitionTopicInfo) GetConsumeOffset() int64 { return p.consumedOffset.Load() }

// GetFetchOffset is the offset the next fetch starts at.
func (p *PartitionTopicInfo) GetFetchOffset() int64 { return p.fetchedOffset.Load() }

// ResetConsumeOffset sets the consumed offset.
func (p *PartitionTopicInfo) ResetConsumeOffset(offset int64) {
	p.consumedOffset.Store(offset)
	p.log.Debugf("reset consume offset of %s to %d", p, offset)
}

// ResetFetchOffset sets the fetch offset.
func (p *PartitionTopicInfo) ResetFetchOffset(offset int64) {
	p.fetchedOffset.Store(offset)
	p.log.Debugf("reset fetch offset of ( %s ) to %d", p, offset)
}

// Enqueue hands a fetched message set to the stream and moves the fetch offset past its last
// whole message. A set without a whole message but with bytes (a message larger than
// fetch.message.max.bytes) is queued too, so that the iterator reports it. It waits while the
// queue is full, until ctx ends.
func (p *PartitionTopicInfo) Enqueue(ctx context.Context, messages *record.MemoryRecords) error {
	size := messages.ValidBytes()
	if size > 0 {
		next, _ := fetcher.LastNextOffset(messages)
		p.log.Tracef("Updating fetch offset = %d to %d", p.fetchedOffset.Load(), next)
		if err := p.chunkQueue.put(ctx, &FetchedDataChunk{Messages: messages, TopicInfo: p, FetchOffset: p.fetchedOffset.Load()}); err != nil {
			return err
		}
		p.fetchedOffset.Store(next)
		p.log.Debugf("updated fetch offset of (%s) to %d", p, next)
		if p.stats != nil {
			p.stats.GetConsumerTopicStats(p.Topic).ByteRate.Mark(int64(size))
			p.stats.GetConsumerAllTopicStats().ByteRate.Mark(int64(size))
		}
	} else if messages.SizeInBytes() > 0 {
		return p.chunkQueue.put(ctx, &FetchedDataChunk{Messages: messages, TopicInfo: p, FetchOffset: p.fetchedOffset.Load()})
	}
	return nil
}

// String is "topic:partition: fetched offset = F: consumed offset = C".
func (p *PartitionTopicInfo) String() string {
	return fmt.Sprintf("%s:%d: fetched offset = %d: consumed offset = %d", p.Topic, p.PartitionID,
		p.fetchedOffset.Load(), p.consumedOffset.Load())
}
