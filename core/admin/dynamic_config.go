package admin

import (
	"errors"
	"strconv"
	"strings"

	kafkalog "github.com/zkafka/zkafka/core/log"
)

// Dynamic config names (kafka.server.DynamicConfig), settable only through
// /config/<type>/<name>.
const (
	LeaderReplicationThrottledRateProp   = "leader.replication.throttled.rate"
	FollowerReplicationThrottledRateProp = "follower.replication.throttled.rate"
	ProducerByteRateOverrideProp         = "producer_byte_rate"
	ConsumerByteRateOverrideProp         = "consumer_byte_rate"
	ScramSha256                          = "SCRAM-SHA-256"
	ScramSha512                          = "SCRAM-SHA-512"

	// LeaderReplicationThrottledReplicasProp and FollowerReplicationThrottledReplicasProp
	// are the topic-level throttled replica lists (LogConfig).
	LeaderReplicationThrottledReplicasProp   = "leader.replication.throttled.replicas"
	FollowerReplicationThrottledReplicasProp = "follower.replication.throttled.replicas"
	// MessageFormatVersionProp is LogConfig.MessageFormatVersionProp.
	MessageFormatVersionProp = "message.format.version"
)

// dynamicConfigType is the value type of a dynamic config.
type dynamicConfigType int

const (
	dynLong         dynamicConfigType = iota // LONG
	dynLongAtLeast0                          // LONG with atLeast(0)
	dynString                                // STRING (SCRAM credentials)
)

// Dynamic config definitions per entity type, in DynamicConfig's order.
var (
	DynamicBrokerConfigNames = []string{LeaderReplicationThrottledRateProp, FollowerReplicationThrottledRateProp}
	DynamicClientConfigNames = []string{ProducerByteRateOverrideProp, ConsumerByteRateOverrideProp}
	DynamicUserConfigNames   = []string{ScramSha256, ScramSha512, ProducerByteRateOverrideProp, ConsumerByteRateOverrideProp}
)

func dynamicType(name string) dynamicConfigType {
	switch name {
	case LeaderReplicationThrottledRateProp, FollowerReplicationThrottledRateProp:
		return dynLongAtLeast0
	case ScramSha256, ScramSha512:
		return dynString
	}
	return dynLong
}

// validateDynamicConfig checks names, then values, as DynamicConfig.validate
// (ConfigDef.parse) does.
func validateDynamicConfig(names []string, props map[string]string) error {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	for _, k := range sortedKeys(props) {
		if !known[k] {
			return newError(ErrInvalidConfig, "requirement failed: Unknown Dynamic Configuration '"+k+"'.")
		}
	}
	for _, k := range names {
		v, ok := props[k]
		if !ok {
			continue
		}
		t := dynamicType(k)
		if t == dynString {
			continue
		}
		s := strings.TrimSpace(v)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return newError(ErrInvalidConfig, "Invalid value "+s+" for configuration "+k+": Not a number of type LONG")
		}
		if t == dynLongAtLeast0 && n < 0 {
			return newError(ErrInvalidConfig, "Invalid value "+s+" for configuration "+k+": Value must be at least 0")
		}
	}
	return nil
}

// ValidateBrokerDynamicConfig is DynamicConfig.Broker.validate.
func ValidateBrokerDynamicConfig(props map[string]string) error {
	return validateDynamicConfig(DynamicBrokerConfigNames, props)
}

// ValidateClientDynamicConfig is DynamicConfig.Client.validate.
func ValidateClientDynamicConfig(props map[string]string) error {
	return validateDynamicConfig(DynamicClientConfigNames, props)
}

// ValidateUserDynamicConfig is DynamicConfig.User.validate.
func ValidateUserDynamicConfig(props map[string]string) error {
	return validateDynamicConfig(DynamicUserConfigNames, props)
}

// ValidateTopicConfig is LogConfig.validate with Kafka's message as the error
// text (core/log appends its own sentinel, which is unwrapped here).
func ValidateTopicConfig(props map[string]string) error {
	return logConfigError(kafkalog.Validate(props))
}

// ValidateTopicConfigNames is LogConfig.validateNames.
func ValidateTopicConfigNames(props map[string]string) error {
	return logConfigError(kafkalog.ValidateNames(props))
}

func logConfigError(err error) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimSuffix(err.Error(), ": "+kafkalog.ErrConfig.Error())
	kind := ErrInvalidConfig
	if !errors.Is(err, kafkalog.ErrConfig) {
		kind = ErrAdminOperation
	}
	return &adminError{msg: msg, kind: kind, cause: err}
}
