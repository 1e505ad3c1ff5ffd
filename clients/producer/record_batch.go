package producer

import (
	"fmt"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// RecordBatch is the records being gathered for one partition, built in a MemoryRecordsBuilder
// over a BufferPool buffer, with the futures and callbacks of its records, and the bookkeeping
// the accumulator and the Sender need: when it was created, drained, last tried, how often.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.RecordBatch (renamed
// ProducerBatch in 0.11). Fields are guarded by the partition's deque lock while the batch is in
// the accumulator, and owned by the Sender's goroutine after drain.
type RecordBatch struct {
	createdMs       int64
	topicPartition  common.TopicPartition
	produceFuture   *ProduceRequestResult
	slabs           [][]FutureRecordMetadata // the records' futures (with their callbacks), in order
	expectedRecords int
	builder         *record.MemoryRecordsBuilder
	buffer          []byte // from the BufferPool, returned by RecordAccumulator.deallocate
	initialSize     int

	attempts       int32
	recordCount    int
	maxRecordSize  int
	drainedMs      int64
	lastAttemptMs  int64
	lastAppendTime int64
	expiryErrorMsg string
	completed      atomic.Bool
	retry          bool
}

// newRecordBatch starts a batch expected to hold about expectedRecords records.
func newRecordBatch(tp common.TopicPartition, builder *record.MemoryRecordsBuilder, buffer []byte, nowMs int64, expectedRecords int) *RecordBatch {
	return &RecordBatch{createdMs: nowMs, lastAttemptMs: nowMs, lastAppendTime: nowMs, topicPartition: tp,
		produceFuture: newProduceRequestResult(tp), builder: builder, buffer: buffer, initialSize: len(buffer),
		expectedRecords: min(max(expectedRecords, 1), 1<<14)}
}

// firstSlab is the number of futures allocated with a batch's first record: a batch that stays
// small (linger.ms=0 at a low rate) costs little, one that fills takes one more slab.
const firstSlab = 64

// newFuture carves a record's future out of the batch's slabs: the first slab holds firstSlab
// futures, the next the rest of the records batch.size is expected to hold (estimated from the
// first record), then more of the same as needed. Slabs never grow in place, so a future handed
// out stays where it is; the Java client's Thunk list (callback and future per record) is the
// callback field of these futures.
func (b *RecordBatch) newFuture(f FutureRecordMetadata) *FutureRecordMetadata {
	n := len(b.slabs)
	if n == 0 || len(b.slabs[n-1]) == cap(b.slabs[n-1]) {
		size := min(firstSlab, b.expectedRecords)
		if n > 0 {
			size = max(b.expectedRecords-firstSlab, firstSlab)
		}
		b.slabs = append(b.slabs, make([]FutureRecordMetadata, 0, size))
		n++
	}
	b.slabs[n-1] = append(b.slabs[n-1], f)
	return &b.slabs[n-1][len(b.slabs[n-1])-1]
}

// tryAppend adds a record if the batch has room, returning its future (nil when full).
//
// Kafka 0.10.2: RecordBatch.tryAppend.
func (b *RecordBatch) tryAppend(timestamp int64, key, value []byte, callback Callback, nowMs int64) (*FutureRecordMetadata, error) {
	if !b.builder.HasRoomFor(key, value) {
		return nil, nil
	}
	checksum, err := b.builder.Append(timestamp, key, value)
	if err != nil {
		return nil, err
	}
	b.maxRecordSize = max(b.maxRecordSize, record.RecordSize(record.MagicValueV1, key, value))
	b.lastAppendTime = nowMs
	f := b.newFuture(FutureRecordMetadata{result: b.produceFuture, relativeOffset: int32(b.recordCount), createTimestamp: timestamp,
		checksum: checksum, serializedKeySize: sizeOrNull(key), serializedValueSize: sizeOrNull(value), callback: callback})
	b.recordCount++
	return f, nil
}

func sizeOrNull(b []byte) int32 {
	if b == nil {
		return -1
	}
	return int32(len(b))
}

// done completes the batch: every record's future, then every callback, in order.
//
// Kafka 0.10.2: RecordBatch.done.
func (b *RecordBatch) done(baseOffset, logAppendTime int64, err error, log *logrus.Entry, inCallback *atomic.Bool) {
	if b.completed.Swap(true) {
		log.Errorf("Batch %s has already been completed", b)
		return
	}
	log.Tracef("Produced messages to topic-partition %s with base offset offset %d and error: %v.", b.topicPartition, baseOffset, err)
	b.produceFuture.set(baseOffset, logAppendTime, err)
	for _, slab := range b.slabs {
		for i := range slab {
			if f := &slab[i]; f.callback != nil {
				b.callback(f, err, log, inCallback)
				f.callback = nil // the batch's records are done with: let the callback go
			}
		}
	}
	b.produceFuture.complete()
}

func (b *RecordBatch) callback(f *FutureRecordMetadata, err error, log *logrus.Entry, inCallback *atomic.Bool) {
	inCallback.Store(true)
	defer func() {
		inCallback.Store(false)
		if p := recover(); p != nil {
			log.Errorf("Error executing user-provided callback on message for topic-partition '%s': %v", b.topicPartition, p)
		}
	}()
	if err == nil {
		f.callback(f.value(), nil)
	} else {
		f.callback(nil, err)
	}
}

// maybeExpire reports (and closes) a batch that has waited too long: not retrying, full and
// unsent for request.timeout.ms since its last append, or created (plus linger.ms) that long
// ago; retrying, request.timeout.ms since its last attempt plus the backoff.
//
// Kafka 0.10.2: RecordBatch.maybeExpire.
func (b *RecordBatch) maybeExpire(requestTimeoutMs int32, retryBackoffMs, nowMs, lingerMs int64, isFull bool) bool {
	rt := int64(requestTimeoutMs)
	switch {
	case !b.retry && isFull && rt < nowMs-b.lastAppendTime:
		b.expiryErrorMsg = fmt.Sprintf("%d ms has passed since last append", nowMs-b.lastAppendTime)
	case !b.retry && rt < nowMs-(b.createdMs+lingerMs):
		b.expiryErrorMsg = fmt.Sprintf("%d ms has passed since batch creation plus linger time", nowMs-(b.createdMs+lingerMs))
	case b.retry && rt < nowMs-(b.lastAttemptMs+retryBackoffMs):
		b.expiryErrorMsg = fmt.Sprintf("%d ms has passed since last attempt plus backoff time", nowMs-(b.lastAttemptMs+retryBackoffMs))
	}
	expired := b.expiryErrorMsg != ""
	if expired {
		b.close()
	}
	return expired
}

// expirationDone fails an expired batch with Kafka's TimeoutException message.
func (b *RecordBatch) expirationDone(log *logrus.Entry, inCallback *atomic.Bool) {
	b.done(-1, record.NoTimestamp, protocol.Errorf(protocol.ErrRequestTimedOut, "Expiring %d record(s) for %s: %s",
		b.recordCount, b.topicPartition, b.expiryErrorMsg), log, inCallback)
}

func (b *RecordBatch) setRetry() { b.retry = true }

// records closes the builder and returns the set to send.
func (b *RecordBatch) records() *record.MemoryRecords { return b.builder.Build() }

func (b *RecordBatch) sizeInBytes() int         { return b.builder.SizeInBytes() }
func (b *RecordBatch) compressionRate() float64 { return b.builder.CompressionRate() }
func (b *RecordBatch) isFull() bool             { return b.builder.IsFull() }
func (b *RecordBatch) close()                   { b.builder.Build() }

func (b *RecordBatch) String() string {
	return fmt.Sprintf("RecordBatch(topicPartition=%s, recordCount=%d)", b.topicPartition, b.recordCount)
}
