package producer

import (
	"fmt"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

type thunk struct {
	callback Callback
	future   *FutureRecordMetadata
}

// RecordBatch is the records being gathered for one partition, built in a MemoryRecordsBuilder
// over a BufferPool buffer, with the futures and callbacks of its records, and the bookkeeping
// the accumulator and the Sender need: when it was created, drained, last tried, how often.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.RecordBatch (renamed
// ProducerBatch in 0.11). Fields are guarded by the partition's deque lock while the batch is in
// the accumulator, and owned by the Sender's goroutine after drain.
type RecordBatch struct {
	createdMs      int64
	topicPartition common.TopicPartition
	produceFuture  *ProduceRequestResult
	thunks         []thunk
	builder        *record.MemoryRecordsBuilder
	buffer         []byte // from the BufferPool, returned by RecordAccumulator.deallocate
	initialSize    int

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

func newRecordBatch(tp common.TopicPartition, builder *record.MemoryRecordsBuilder, buffer []byte, nowMs int64) *RecordBatch {
	return &RecordBatch{createdMs: nowMs, lastAttemptMs: nowMs, lastAppendTime: nowMs, topicPartition: tp,
		produceFuture: newProduceRequestResult(tp), builder: builder, buffer: buffer, initialSize: len(buffer)}
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
	f := &FutureRecordMetadata{result: b.produceFuture, relativeOffset: int64(b.recordCount), createTimestamp: timestamp,
		checksum: int64(checksum), serializedKeySize: sizeOrNull(key), serializedValueSize: sizeOrNull(value)}
	if callback != nil {
		b.thunks = append(b.thunks, thunk{callback, f})
	}
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
func (b *RecordBatch) done(baseOffset, logAppendTime int64, err error, log *logrus.Entry) {
	if b.completed.Swap(true) {
		log.Errorf("Batch %s has already been completed", b)
		return
	}
	log.Tracef("Produced messages to topic-partition %s with base offset offset %d and error: %v.", b.topicPartition, baseOffset, err)
	b.produceFuture.set(baseOffset, logAppendTime, err)
	for _, t := range b.thunks {
		func() {
			defer func() {
				if p := recover(); p != nil {
					log.Errorf("Error executing user-provided callback on message for topic-partition '%s': %v", b.topicPartition, p)
				}
			}()
			if err == nil {
				t.callback(t.future.value(), nil)
			} else {
				t.callback(nil, err)
			}
		}()
	}
	b.produceFuture.complete()
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
func (b *RecordBatch) expirationDone(log *logrus.Entry) {
	b.done(-1, record.NoTimestamp, protocol.Errorf(protocol.ErrRequestTimedOut, "Expiring %d record(s) for %s: %s",
		b.recordCount, b.topicPartition, b.expiryErrorMsg), log)
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
