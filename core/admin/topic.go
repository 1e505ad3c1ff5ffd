package admin

import (
	"regexp"
	"strconv"
	"strings"
)

// GroupMetadataTopicName is the offsets topic, the only internal topic in 0.10.2.
const GroupMetadataTopicName = "__consumer_offsets"

// maxTopicNameLength keeps "<topic>-<partition>" within a 255-byte directory name.
const maxTopicNameLength = 249

var legalTopicChars = regexp.MustCompile(`[a-zA-Z0-9._-]+`)

// ValidateTopic checks a topic name against Kafka's rules (kafka.common.Topic.validate).
//
// Kafka 0.10.2: kafka.common.Topic.validate.
func ValidateTopic(topic string) error {
	switch {
	case len(topic) == 0:
		return newError(ErrInvalidTopic, "topic name is illegal, can't be empty")
	case topic == "." || topic == "..":
		return newError(ErrInvalidTopic, `topic name cannot be "." or ".."`)
	case len(topic) > maxTopicNameLength:
		// Java counts UTF-16 units; for the legal ASCII alphabet that is bytes.
		return newError(ErrInvalidTopic, "topic name is illegal, can't be longer than "+strconv.Itoa(maxTopicNameLength)+" characters")
	}
	m := legalTopicChars.FindString(topic)
	if m == "" {
		// Kafka's message has two spaces here, and is kept.
		return newError(ErrInvalidTopic, "topic name "+topic+" is illegal,  contains a character other than ASCII alphanumerics, '.', '_' and '-'")
	}
	if m != topic {
		return newError(ErrInvalidTopic, "topic name "+topic+" is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'")
	}
	return nil
}

// TopicHasCollisionChars reports a '.' or '_' in the name: such names may
// collide in metric names.
//
// Kafka 0.10.2: kafka.common.Topic.hasCollisionChars.
func TopicHasCollisionChars(topic string) bool { return strings.ContainsAny(topic, "._") }

// TopicHasCollision reports two names equal once '.' is read as '_'.
//
// Kafka 0.10.2: kafka.common.Topic.hasCollision.
func TopicHasCollision(a, b string) bool {
	return strings.ReplaceAll(a, ".", "_") == strings.ReplaceAll(b, ".", "_")
}

// IsInternalTopic reports Kafka's internal topics (only __consumer_offsets).
//
// Kafka 0.10.2: kafka.common.Topic.isInternal.
func IsInternalTopic(topic string) bool { return topic == GroupMetadataTopicName }
