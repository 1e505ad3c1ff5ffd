package consumer

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
)

// NoTimestamp is the timestamp of a record written with message format v0.
const NoTimestamp int64 = -1

// ConsumerRecord is one record received from Kafka: where it was (topic, partition, offset),
// its timestamp and type, its deserialized key and value, its checksum and serialized sizes
// (-1 for a null key or value).
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.ConsumerRecord.
type ConsumerRecord[K, V any] struct {
	Topic               string
	Partition           int32
	Offset              int64
	Timestamp           int64
	TimestampType       record.TimestampType
	Checksum            uint32
	SerializedKeySize   int32
	SerializedValueSize int32
	Key                 K
	Value               V
}

func (r ConsumerRecord[K, V]) String() string {
	return fmt.Sprintf("ConsumerRecord(topic = %s, partition = %d, offset = %d, %s = %d, checksum = %d, serialized key size = %d, serialized value size = %d, key = %v, value = %v)",
		r.Topic, r.Partition, r.Offset, r.TimestampType, r.Timestamp, r.Checksum, r.SerializedKeySize, r.SerializedValueSize, r.Key, r.Value)
}

// ConsumerRecords are the records one poll returned, per partition, each partition's in offset
// order.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.ConsumerRecords.
type ConsumerRecords[K, V any] struct {
	records map[common.TopicPartition][]ConsumerRecord[K, V]
	order   []common.TopicPartition
}

func newConsumerRecords[K, V any](m map[common.TopicPartition][]ConsumerRecord[K, V], order []common.TopicPartition) *ConsumerRecords[K, V] {
	return &ConsumerRecords[K, V]{records: m, order: order}
}

// Records are the records of one partition.
func (c *ConsumerRecords[K, V]) Records(tp common.TopicPartition) []ConsumerRecord[K, V] {
	if c == nil {
		return nil
	}
	return c.records[tp]
}

// RecordsOfTopic are the records of one topic, partition by partition.
func (c *ConsumerRecords[K, V]) RecordsOfTopic(topic string) []ConsumerRecord[K, V] {
	var out []ConsumerRecord[K, V]
	for _, tp := range c.Partitions() {
		if tp.Topic == topic {
			out = append(out, c.records[tp]...)
		}
	}
	return out
}

// Partitions are the partitions with records, in the order they were fetched.
func (c *ConsumerRecords[K, V]) Partitions() []common.TopicPartition {
	if c == nil {
		return nil
	}
	return c.order
}

// All returns every record, partition by partition (ConsumerRecords.iterator).
func (c *ConsumerRecords[K, V]) All() []ConsumerRecord[K, V] {
	var out []ConsumerRecord[K, V]
	for _, tp := range c.Partitions() {
		out = append(out, c.records[tp]...)
	}
	return out
}

// Count is the number of records.
func (c *ConsumerRecords[K, V]) Count() int {
	n := 0
	for _, tp := range c.Partitions() {
		n += len(c.records[tp])
	}
	return n
}

// IsEmpty reports no records.
func (c *ConsumerRecords[K, V]) IsEmpty() bool { return c.Count() == 0 }

// Filter returns the records keep accepts, partition by partition (for interceptors).
func (c *ConsumerRecords[K, V]) Filter(keep func(ConsumerRecord[K, V]) bool) *ConsumerRecords[K, V] {
	out := map[common.TopicPartition][]ConsumerRecord[K, V]{}
	var order []common.TopicPartition
	for _, tp := range c.Partitions() {
		var kept []ConsumerRecord[K, V]
		for _, r := range c.records[tp] {
			if keep(r) {
				kept = append(kept, r)
			}
		}
		if len(kept) > 0 {
			out[tp] = kept
			order = append(order, tp)
		}
	}
	return newConsumerRecords(out, order)
}
