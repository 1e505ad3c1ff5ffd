package admin

import (
	"errors"

	"github.com/zkafka/zkafka/clients/protocol"
)

// Error kinds. Every error the package returns carries Kafka's exception
// message verbatim as its Error() text (the tools print it as is) and unwraps
// to one of these, so callers branch with errors.Is. The kinds that are
// ApiExceptions in Kafka unwrap in turn to their protocol error, so a broker
// answering with one (auto-creation, CreateTopics) gets its code from
// protocol.CodeOf.
var (
	// ErrAdminOperation is kafka.admin.AdminOperationException.
	ErrAdminOperation = errors.New("AdminOperationException")
	// ErrAdminCommandFailed is kafka.admin.AdminCommandFailedException.
	ErrAdminCommandFailed = errors.New("AdminCommandFailedException")
	// ErrTopicExists is org.apache.kafka.common.errors.TopicExistsException.
	ErrTopicExists = protocol.NewSentinel("TopicExistsException", protocol.ErrTopicAlreadyExists)
	// ErrTopicAlreadyMarkedForDeletion is kafka.common.TopicAlreadyMarkedForDeletionException.
	ErrTopicAlreadyMarkedForDeletion = errors.New("TopicAlreadyMarkedForDeletionException")
	// ErrUnknownTopicOrPartition is UnknownTopicOrPartitionException.
	ErrUnknownTopicOrPartition = protocol.NewSentinel("UnknownTopicOrPartitionException", protocol.ErrUnknownTopicOrPartition)
	// ErrInvalidTopic is org.apache.kafka.common.errors.InvalidTopicException.
	ErrInvalidTopic = protocol.NewSentinel("InvalidTopicException", protocol.ErrInvalidTopicException)
	// ErrInvalidPartitions is InvalidPartitionsException.
	ErrInvalidPartitions = protocol.NewSentinel("InvalidPartitionsException", protocol.ErrInvalidPartitions)
	// ErrInvalidReplicationFactor is InvalidReplicationFactorException.
	ErrInvalidReplicationFactor = protocol.NewSentinel("InvalidReplicationFactorException", protocol.ErrInvalidReplicationFactor)
	// ErrInvalidReplicaAssignment is InvalidReplicaAssignmentException.
	ErrInvalidReplicaAssignment = protocol.NewSentinel("InvalidReplicaAssignmentException", protocol.ErrInvalidReplicaAssignment)
	// ErrInvalidConfig is ConfigException / InvalidConfigurationException and
	// the IllegalArgumentException of a failed `require` in config validation.
	ErrInvalidConfig = protocol.NewSentinel("InvalidConfigurationException", protocol.ErrInvalidConfig)
)

// adminError is an error whose text is exactly Kafka's exception message and
// which unwraps to its kind (and, when set, to the underlying cause).
type adminError struct {
	msg   string
	kind  error
	cause error
}

func (e *adminError) Error() string { return e.msg }

func (e *adminError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

// newError returns an error with Kafka's message msg, of the given kind.
func newError(kind error, msg string) error { return &adminError{msg: msg, kind: kind} }

// NewAdminOperationException is AdminOperationException(msg).
//
// Kafka 0.10.2: kafka.admin.AdminOperationException.
func NewAdminOperationException(msg string) error { return newError(ErrAdminOperation, msg) }

// NewAdminCommandFailedException is AdminCommandFailedException(msg).
//
// Kafka 0.10.2: kafka.admin.AdminCommandFailedException.
func NewAdminCommandFailedException(msg string) error { return newError(ErrAdminCommandFailed, msg) }
