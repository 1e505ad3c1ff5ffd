package oldconsumer

import (
	"context"
	"time"

	"github.com/zkafka/zkafka/clients/record"
)

// FetchedDataChunk is one partition's fetched message set on its way from a fetcher to a
// stream: the records, the partition's PartitionTopicInfo, and the offset they were fetched at.
//
// Kafka 0.10.2: kafka.consumer.FetchedDataChunk.
type FetchedDataChunk struct {
	Messages    *record.MemoryRecords
	TopicInfo   *PartitionTopicInfo
	FetchOffset int64
}

// shutdownCommand is the chunk that ends a stream (ZookeeperConsumerConnector.shutdownCommand),
// recognised by identity.
var shutdownCommand = &FetchedDataChunk{FetchOffset: -1}

// chunkQueue is a bounded blocking queue of chunks between the fetchers and a stream (one per
// stream; the wildcard streams are shared by every topic).
//
// Kafka 0.10.2: the LinkedBlockingQueue[FetchedDataChunk] of queued.max.message.chunks
// entries. put blocks while the queue is full, and is given up when ctx (the fetcher's) ends.
type chunkQueue struct {
	ch chan *FetchedDataChunk
}

func newChunkQueue(capacity int32) *chunkQueue {
	return &chunkQueue{ch: make(chan *FetchedDataChunk, capacity)}
}

// put waits for room (Kafka's put).
func (q *chunkQueue) put(ctx context.Context, c *FetchedDataChunk) error {
	select {
	case q.ch <- c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// take waits for a chunk (Kafka's take).
func (q *chunkQueue) take() *FetchedDataChunk { return <-q.ch }

// poll waits up to d for a chunk; nil when none came (Kafka's poll(timeout)).
func (q *chunkQueue) poll(d time.Duration) *FetchedDataChunk {
	select {
	case c := <-q.ch:
		return c
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case c := <-q.ch:
		return c
	case <-t.C:
		return nil
	}
}

// clear drops the queued chunks.
func (q *chunkQueue) clear() {
	for {
		select {
		case <-q.ch:
		default:
			return
		}
	}
}

// size is the number of queued chunks (the FetchQueueSize gauge).
func (q *chunkQueue) size() int { return len(q.ch) }
