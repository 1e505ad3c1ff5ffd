package producer

import (
	"errors"
	"fmt"
	"strconv"
)

// ProducerRecord is a record to send: a topic, optionally a partition (otherwise the
// Partitioner picks one), optionally a timestamp (otherwise the send time), a key and a value.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.ProducerRecord.
type ProducerRecord[K, V any] struct {
	Topic     string
	Partition *int32 // nil: the partitioner decides
	Timestamp *int64 // nil: the time of Send
	Key       K
	Value     V
}

// NewProducerRecord is a record for topic with a key and a value (new ProducerRecord(topic,
// key, value)).
func NewProducerRecord[K, V any](topic string, key K, value V) ProducerRecord[K, V] {
	return ProducerRecord[K, V]{Topic: topic, Key: key, Value: value}
}

// WithPartition returns the record addressed to partition p.
func (r ProducerRecord[K, V]) WithPartition(p int32) ProducerRecord[K, V] {
	r.Partition = &p
	return r
}

// WithTimestamp returns the record with timestamp ts (ms since the epoch).
func (r ProducerRecord[K, V]) WithTimestamp(ts int64) ProducerRecord[K, V] {
	r.Timestamp = &ts
	return r
}

// ErrIllegalArgument marks a record the producer refuses before sending it (Java's
// IllegalArgumentException from the ProducerRecord constructor).
var ErrIllegalArgument = errors.New("illegal argument")

// validate is the ProducerRecord constructor's checks.
func (r ProducerRecord[K, V]) validate() error {
	if r.Timestamp != nil && *r.Timestamp < 0 {
		return fmt.Errorf("%w: Invalid timestamp: %d. Timestamp should always be non-negative or null.", ErrIllegalArgument, *r.Timestamp)
	}
	if r.Partition != nil && *r.Partition < 0 {
		return fmt.Errorf("%w: Invalid partition: %d. Partition number should always be non-negative or null.", ErrIllegalArgument, *r.Partition)
	}
	return nil
}

func (r ProducerRecord[K, V]) String() string {
	p, ts := "null", "null"
	if r.Partition != nil {
		p = strconv.Itoa(int(*r.Partition))
	}
	if r.Timestamp != nil {
		ts = strconv.FormatInt(*r.Timestamp, 10)
	}
	return fmt.Sprintf("ProducerRecord(topic=%s, partition=%s, key=%v, value=%v, timestamp=%s)", r.Topic, p, r.Key, r.Value, ts)
}

// UnknownPartition is RecordMetadata's partition when none was chosen.
//
// Kafka 0.10.2: RecordMetadata.UNKNOWN_PARTITION.
const UnknownPartition = -1

// RecordMetadata is where a record was written: topic, partition, offset, and its timestamp
// (the log append time when the topic uses LogAppendTime, else the create time), checksum and
// serialized sizes (-1 for a null key or value).
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.RecordMetadata.
type RecordMetadata struct {
	Topic               string
	Partition           int32
	Offset              int64
	Timestamp           int64
	Checksum            int64
	SerializedKeySize   int32
	SerializedValueSize int32
}

// newRecordMetadata computes the offset from the batch's base offset, keeping -1 when the
// base offset is unknown (acks=0).
func newRecordMetadata(topic string, partition int32, baseOffset, relativeOffset, timestamp, checksum int64, keySize, valueSize int32) *RecordMetadata {
	offset := baseOffset
	if baseOffset != -1 {
		offset = baseOffset + relativeOffset
	}
	return &RecordMetadata{Topic: topic, Partition: partition, Offset: offset, Timestamp: timestamp, Checksum: checksum,
		SerializedKeySize: keySize, SerializedValueSize: valueSize}
}

func (m *RecordMetadata) String() string {
	return m.Topic + "-" + strconv.Itoa(int(m.Partition)) + "@" + strconv.FormatInt(m.Offset, 10)
}

// Callback is called once per record with its metadata or its error, on the producer's
// network goroutine (keep it quick; do not call Close with a timeout from it).
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.Callback.
type Callback func(metadata *RecordMetadata, err error)
