package server

// GroupMetadataTopicName is the offsets topic (kafka.common.Topic.GroupMetadataTopicName).
const GroupMetadataTopicName = "__consumer_offsets"

// AdminClientID is the client id allowed to write to internal topics (AdminUtils.AdminClientId).
const AdminClientID = "__admin_client"

// IsInternalTopic reports whether topic is internal (only __consumer_offsets in 0.10.2).
//
// Kafka 0.10.2: kafka.common.Topic.isInternal.
func IsInternalTopic(topic string) bool { return topic == GroupMetadataTopicName }
