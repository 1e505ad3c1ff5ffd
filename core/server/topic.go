package server

import (
	"fmt"
	"regexp"

	"github.com/zkafka/zkafka/clients/protocol"
)

// GroupMetadataTopicName is the offsets topic (kafka.common.Topic.GroupMetadataTopicName).
const GroupMetadataTopicName = "__consumer_offsets"

// AdminClientID is the client id allowed to write to internal topics (AdminUtils.AdminClientId).
const AdminClientID = "__admin_client"

const maxTopicNameLength = 249

var legalTopicChars = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// IsInternalTopic reports whether topic is internal (only __consumer_offsets in 0.10.2).
//
// Kafka 0.10.2: kafka.common.Topic.isInternal.
func IsInternalTopic(topic string) bool { return topic == GroupMetadataTopicName }

// ValidateTopic checks a topic name as kafka.common.Topic.validate does (INVALID_TOPIC_EXCEPTION).
func ValidateTopic(topic string) error {
	switch {
	case topic == "":
		return protocol.Errorf(protocol.ErrInvalidTopicException, "Topic name is illegal, can't be empty")
	case topic == "." || topic == "..":
		return protocol.Errorf(protocol.ErrInvalidTopicException, "Topic name cannot be \".\" or \"..\"")
	case len(topic) > maxTopicNameLength:
		return protocol.Errorf(protocol.ErrInvalidTopicException, "Topic name is illegal, can't be longer than %d characters", maxTopicNameLength)
	case !legalTopicChars.MatchString(topic):
		return protocol.Errorf(protocol.ErrInvalidTopicException, "Topic name %s is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'", topic)
	}
	return nil
}

var _ = fmt.Sprint
