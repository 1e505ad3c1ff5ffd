package purgatory

import (
	"strconv"

	"github.com/zkafka/zkafka/clients/common"
)

// DelayedOperationKey names what a delayed operation waits on. Implementations are used as map
// keys and must be comparable.
//
// Kafka 0.10.2: kafka.server.DelayedOperationKey.
type DelayedOperationKey interface {
	KeyLabel() string
}

// GlobalLabel is the label for metrics aggregated over all keys (Kafka: DelayedOperationKey.globalLabel).
const GlobalLabel = "All"

// TopicPartitionOperationKey is the key of delayed produce and fetch operations.
//
// Kafka 0.10.2: kafka.server.TopicPartitionOperationKey.
type TopicPartitionOperationKey struct {
	Topic     string
	Partition int32
}

// NewTopicPartitionOperationKey is Kafka's auxiliary constructor from a TopicPartition.
func NewTopicPartitionOperationKey(tp common.TopicPartition) TopicPartitionOperationKey {
	return TopicPartitionOperationKey{Topic: tp.Topic, Partition: tp.Partition}
}

// KeyLabel is "topic-partition".
func (k TopicPartitionOperationKey) KeyLabel() string {
	return k.Topic + "-" + strconv.FormatInt(int64(k.Partition), 10)
}

// MemberKey is the key of delayed heartbeats (one member of one group).
//
// Kafka 0.10.2: kafka.server.MemberKey.
type MemberKey struct {
	GroupID    string
	ConsumerID string
}

// KeyLabel is "groupId-consumerId".
func (k MemberKey) KeyLabel() string { return k.GroupID + "-" + k.ConsumerID }

// GroupKey is the key of delayed joins (rebalances).
//
// Kafka 0.10.2: kafka.server.GroupKey.
type GroupKey struct {
	GroupID string
}

// KeyLabel is the group id.
func (k GroupKey) KeyLabel() string { return k.GroupID }

// TopicKey is the key of delayed topic creation and deletion.
//
// Kafka 0.10.2: kafka.server.TopicKey.
type TopicKey struct {
	Topic string
}

// KeyLabel is the topic name.
func (k TopicKey) KeyLabel() string { return k.Topic }
