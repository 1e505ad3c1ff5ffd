package producer

import (
	"context"
	"fmt"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// ProduceRequestResult is the outcome of one batch, shared by the futures of its records: the
// base offset, the log append time (record.NoTimestamp unless LogAppendTime), or the error, and a
// channel closed when it is known.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.ProduceRequestResult.
type ProduceRequestResult struct {
	tp            common.TopicPartition
	done          chan struct{}
	baseOffset    int64
	logAppendTime int64
	err           error
}

func newProduceRequestResult(tp common.TopicPartition) *ProduceRequestResult {
	return &ProduceRequestResult{tp: tp, done: make(chan struct{}), baseOffset: -1, logAppendTime: record.NoTimestamp}
}

// set records the outcome; complete publishes it.
func (r *ProduceRequestResult) set(baseOffset, logAppendTime int64, err error) {
	r.baseOffset, r.logAppendTime, r.err = baseOffset, logAppendTime, err
}

func (r *ProduceRequestResult) complete() { close(r.done) }

// Completed reports whether the outcome is known.
func (r *ProduceRequestResult) Completed() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// Await waits for the outcome or ctx.
func (r *ProduceRequestResult) Await(ctx context.Context) error {
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// FutureRecordMetadata is the result of Send for one record: Get waits for the record's
// RecordMetadata or error.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.FutureRecordMetadata (and
// KafkaProducer.FutureFailure, a future that failed before the record was queued).
type FutureRecordMetadata struct {
	result              *ProduceRequestResult
	createTimestamp     int64
	relativeOffset      int32
	checksum            uint32
	serializedKeySize   int32
	serializedValueSize int32
	callback            Callback // the record's callback until its batch completes
}

func failedFuture(tp common.TopicPartition, err error) *FutureRecordMetadata {
	r := newProduceRequestResult(tp)
	r.set(-1, record.NoTimestamp, err)
	r.complete()
	return &FutureRecordMetadata{result: r}
}

// Get waits for the record to be acknowledged (or to fail), or for ctx to end. This is a
// synchronous send: producer.Send(record, nil) then Get.
func (f *FutureRecordMetadata) Get(ctx context.Context) (*RecordMetadata, error) {
	if err := f.result.Await(ctx); err != nil {
		return nil, err
	}
	return f.valueOrError()
}

// GetTimeout is Get with a timeout, failing with Kafka's TimeoutException message.
func (f *FutureRecordMetadata) GetTimeout(d time.Duration) (*RecordMetadata, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := f.result.Await(ctx); err != nil {
		return nil, protocol.Errorf(protocol.ErrRequestTimedOut, "Timeout after waiting for %d ms.", d.Milliseconds())
	}
	return f.valueOrError()
}

// IsDone reports whether the outcome is known.
func (f *FutureRecordMetadata) IsDone() bool { return f.result.Completed() }

func (f *FutureRecordMetadata) valueOrError() (*RecordMetadata, error) {
	if f.result.err != nil {
		return nil, f.result.err
	}
	return f.value(), nil
}

func (f *FutureRecordMetadata) value() *RecordMetadata {
	ts := f.createTimestamp
	if f.result.logAppendTime != record.NoTimestamp {
		ts = f.result.logAppendTime
	}
	return newRecordMetadata(f.result.tp.Topic, f.result.tp.Partition, f.result.baseOffset, int64(f.relativeOffset), ts,
		int64(f.checksum), f.serializedKeySize, f.serializedValueSize)
}

func (f *FutureRecordMetadata) String() string {
	return fmt.Sprintf("FutureRecordMetadata(%s, done=%t)", f.result.tp, f.IsDone())
}
