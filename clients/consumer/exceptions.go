package consumer

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// ErrWakeup is what a blocking call returns after Wakeup.
//
// Kafka 0.10.2: org.apache.kafka.common.errors.WakeupException.
var ErrWakeup = errors.New("org.apache.kafka.common.errors.WakeupException")

// ErrConsumerClosed is any call on a closed consumer (IllegalStateException).
var ErrConsumerClosed = errors.New("This consumer has already been closed.")

// ErrNoSubscription is poll on a consumer neither subscribed nor assigned.
var ErrNoSubscription = errors.New("Consumer is not subscribed to any topics or assigned any partitions")

// ErrTimeout is a call that did not finish within its time limit (Kafka's TimeoutException).
var ErrTimeout = errors.New("org.apache.kafka.common.errors.TimeoutException")

// NoOffsetForPartitionException: a partition has no committed offset (or its position is out of
// range) and auto.offset.reset is none.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.NoOffsetForPartitionException.
type NoOffsetForPartitionException struct {
	Partitions []common.TopicPartition
}

func (e *NoOffsetForPartitionException) Error() string {
	return "Undefined offset with no reset policy for partition: " + tpList(e.Partitions)
}

// OffsetOutOfRangeException: fetch positions out of range with no reset policy.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.OffsetOutOfRangeException.
type OffsetOutOfRangeException struct {
	Offsets map[common.TopicPartition]int64
}

func (e *OffsetOutOfRangeException) Error() string {
	return "Offsets out of range with no configured reset policy for partitions: " + tpOffsets(e.Offsets)
}

// Unwrap makes errors.Is(err, protocol.ErrOffsetOutOfRange) hold.
func (e *OffsetOutOfRangeException) Unwrap() error { return protocol.ErrOffsetOutOfRange }

// RecordTooLargeException: a partition's next record is larger than max.partition.fetch.bytes.
//
// Kafka 0.10.2: org.apache.kafka.common.errors.RecordTooLargeException (from Fetcher).
type RecordTooLargeException struct {
	Offsets   map[common.TopicPartition]int64
	FetchSize int32
}

func (e *RecordTooLargeException) Error() string {
	return fmt.Sprintf("There are some messages at [Partition=Offset]: %s whose size is larger than the fetch size %d"+
		" and hence cannot be ever returned. Increase the fetch size on the client (using max.partition.fetch.bytes),"+
		" or decrease the maximum message size the broker will allow (using message.max.bytes).", tpOffsets(e.Offsets), e.FetchSize)
}

// SerializationException: a key or value could not be deserialized; Partition and Offset say
// which record, so that an application can seek past it.
//
// Kafka 0.10.2: org.apache.kafka.common.errors.SerializationException, as Fetcher.parseRecord
// throws it ("Error deserializing key/value for partition T-P at offset O").
type SerializationException struct {
	Partition common.TopicPartition
	Offset    int64
	Cause     error
}

func (e *SerializationException) Error() string {
	return fmt.Sprintf("Error deserializing key/value for partition %s at offset %d: %v", e.Partition, e.Offset, e.Cause)
}

// Unwrap returns the deserializer's error.
func (e *SerializationException) Unwrap() error { return e.Cause }

// CommitFailedException: the group rebalanced (or this member was removed) before the commit.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.CommitFailedException.
type CommitFailedException struct{}

func (CommitFailedException) Error() string {
	return "Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member." +
		" This means that the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms," +
		" which typically implies that the poll loop is spending too much time message processing. You can address this" +
		" either by increasing the session timeout or by reducing the maximum size of batches returned in poll() with max.poll.records."
}

// InvalidOffsetException is the common face of NoOffsetForPartitionException and
// OffsetOutOfRangeException: the partitions whose position must be set by seek.
func InvalidOffsetPartitions(err error) []common.TopicPartition {
	var n *NoOffsetForPartitionException
	if errors.As(err, &n) {
		return n.Partitions
	}
	var o *OffsetOutOfRangeException
	if errors.As(err, &o) {
		return common.SortedTopicPartitions(o.Offsets)
	}
	return nil
}

func tpList(tps []common.TopicPartition) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = tp.String()
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

func tpOffsets(m map[common.TopicPartition]int64) string {
	var s []string
	for _, tp := range common.SortedTopicPartitions(m) {
		s = append(s, fmt.Sprintf("%s=%d", tp, m[tp]))
	}
	return "{" + strings.Join(s, ", ") + "}"
}
