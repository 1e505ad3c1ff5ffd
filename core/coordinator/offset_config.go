package coordinator

import (
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/server/config"
)

// OffsetConfig gathers the offsets.* settings the manager uses.
//
// Kafka 0.10.2: kafka.coordinator.OffsetConfig.
type OffsetConfig struct {
	MaxMetadataSize                 int
	LoadBufferSize                  int
	OffsetsRetentionMs              int64
	OffsetsRetentionCheckIntervalMs int64
	OffsetsTopicNumPartitions       int32
	OffsetsTopicSegmentBytes        int32
	OffsetsTopicReplicationFactor   int16
	OffsetsTopicCompressionCodec    record.CompressionType
	OffsetCommitTimeoutMs           int32
	OffsetCommitRequiredAcks        int16
}

// DefaultOffsetConfig is OffsetConfig with 0.10.2's defaults.
func DefaultOffsetConfig() OffsetConfig {
	return OffsetConfig{MaxMetadataSize: 4096, LoadBufferSize: 5 * 1024 * 1024, OffsetsRetentionMs: 24 * 60 * 60 * 1000,
		OffsetsRetentionCheckIntervalMs: 600000, OffsetsTopicNumPartitions: 50, OffsetsTopicSegmentBytes: 100 * 1024 * 1024,
		OffsetsTopicReplicationFactor: 3, OffsetsTopicCompressionCodec: record.NONE, OffsetCommitTimeoutMs: 5000,
		OffsetCommitRequiredAcks: -1}
}

// GroupConfig bounds the session timeouts members may ask for.
//
// Kafka 0.10.2: kafka.coordinator.GroupConfig.
type GroupConfig struct {
	GroupMinSessionTimeoutMs int32
	GroupMaxSessionTimeoutMs int32
}

// OffsetConfigFromKafkaConfig reads the offsets.* and offset.metadata.max.bytes keys.
//
// Kafka 0.10.2: GroupCoordinator.offsetConfig.
func OffsetConfigFromKafkaConfig(c *config.KafkaConfig) OffsetConfig {
	codec := record.CompressionType(c.OffsetsTopicCompressionCodec)
	if codec < record.NONE || codec > record.LZ4 {
		codec = record.NONE
	}
	return OffsetConfig{
		MaxMetadataSize:                 int(c.OffsetMetadataMaxSize),
		LoadBufferSize:                  int(c.OffsetsLoadBufferSize),
		OffsetsRetentionMs:              int64(c.OffsetsRetentionMinutes) * 60 * 1000,
		OffsetsRetentionCheckIntervalMs: c.OffsetsRetentionCheckIntervalMs,
		OffsetsTopicNumPartitions:       c.OffsetsTopicPartitions,
		OffsetsTopicSegmentBytes:        c.OffsetsTopicSegmentBytes,
		OffsetsTopicReplicationFactor:   c.OffsetsTopicReplicationFactor,
		OffsetsTopicCompressionCodec:    codec,
		OffsetCommitTimeoutMs:           c.OffsetCommitTimeoutMs,
		OffsetCommitRequiredAcks:        c.OffsetCommitRequiredAcks,
	}
}

// GroupConfigFromKafkaConfig reads group.min/max.session.timeout.ms.
func GroupConfigFromKafkaConfig(c *config.KafkaConfig) GroupConfig {
	return GroupConfig{GroupMinSessionTimeoutMs: c.GroupMinSessionTimeoutMs,
		GroupMaxSessionTimeoutMs: c.GroupMaxSessionTimeoutMs}
}

// GroupMetadataTopicName is the internal topic holding offsets and group metadata.
//
// Kafka 0.10.2: kafka.common.Topic.GroupMetadataTopicName.
const GroupMetadataTopicName = "__consumer_offsets"

// OffsetsTopicConfigs are the topic configs __consumer_offsets is created with: compacted,
// with its own segment size, keeping the coordinator's compression as written.
//
// Kafka 0.10.2: GroupCoordinator.offsetsTopicConfigs.
func (c OffsetConfig) OffsetsTopicConfigs() map[string]string {
	return map[string]string{
		"cleanup.policy":   "compact",
		"segment.bytes":    itoa(int64(c.OffsetsTopicSegmentBytes)),
		"compression.type": "producer",
	}
}

// OffsetsTopicReplicationFactorFor caps the configured replication factor at the number of
// live brokers, as 0.10.2 does when it creates the topic.
func (c OffsetConfig) OffsetsTopicReplicationFactorFor(liveBrokers int) int16 {
	rf := c.OffsetsTopicReplicationFactor
	if liveBrokers < int(rf) {
		rf = int16(liveBrokers)
	}
	return rf
}
