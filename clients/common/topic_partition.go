package common

import (
	"sort"
	"strconv"
)

// TopicPartition names one partition of one topic.
//
// Kafka 0.10.2: org.apache.kafka.common.TopicPartition (and kafka.common.TopicAndPartition,
// which has the same meaning on the Scala side).
type TopicPartition struct {
	Topic     string
	Partition int32
}

// String renders "topic-partition", the form Kafka uses for log directory names and log lines.
func (tp TopicPartition) String() string {
	return tp.Topic + "-" + strconv.FormatInt(int64(tp.Partition), 10)
}

// GroupMetadataTopicName is the internal topic of group metadata and committed offsets.
//
// Kafka 0.10.2: kafka.common.Topic.GroupMetadataTopicName.
const GroupMetadataTopicName = "__consumer_offsets"

// IsInternalTopic reports whether topic is one of Kafka's internal topics.
//
// Kafka 0.10.2: kafka.common.Topic.isInternal.
func IsInternalTopic(topic string) bool { return topic == GroupMetadataTopicName }

// SortedTopicPartitions lists the keys of m by topic, then partition.
func SortedTopicPartitions[V any](m map[TopicPartition]V) []TopicPartition {
	out := make([]TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
