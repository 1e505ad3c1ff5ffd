package protocol

import (
	"errors"
	"fmt"

	"github.com/zkafka/zkafka/clients/record"
)

// Error is one of Kafka's protocol error codes, as a Go error. Every code of 0.10.2 except 0
// (NONE, which is a nil error) has one exported sentinel below; compare with errors.Is, extract
// with errors.As, and turn any error into a code with CodeOf.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.Errors (with the exception classes of
// org.apache.kafka.common.errors; Retriable is true where that class extends RetriableException).
type Error struct {
	Code      int16
	Name      string // Kafka's enum name, e.g. NOT_LEADER_FOR_PARTITION
	Retriable bool
	Message   string // a default description, in zkafka's words
}

// Error implements error.
func (e *Error) Error() string { return e.Name + ": " + e.Message }

func newError(code int16, name string, retriable bool, msg string) *Error {
	return &Error{Code: code, Name: name, Retriable: retriable, Message: msg}
}

// The error codes of Kafka 0.10.2 (codes -1 and 1..44).
var (
	ErrUnknown                      = newError(-1, "UNKNOWN", false, "the server failed unexpectedly while handling the request")
	ErrOffsetOutOfRange             = newError(1, "OFFSET_OUT_OF_RANGE", false, "the requested offset is outside the offsets the server holds for this partition")
	ErrCorruptMessage               = newError(2, "CORRUPT_MESSAGE", true, "a message failed its CRC check, is too short, or is otherwise malformed")
	ErrUnknownTopicOrPartition      = newError(3, "UNKNOWN_TOPIC_OR_PARTITION", true, "this server does not host this topic-partition")
	ErrInvalidFetchSize             = newError(4, "INVALID_FETCH_SIZE", false, "the fetch size is invalid")
	ErrLeaderNotAvailable           = newError(5, "LEADER_NOT_AVAILABLE", true, "the partition has no leader at the moment (an election may be in progress)")
	ErrNotLeaderForPartition        = newError(6, "NOT_LEADER_FOR_PARTITION", true, "this server is not the leader of that topic-partition")
	ErrRequestTimedOut              = newError(7, "REQUEST_TIMED_OUT", true, "the request timed out")
	ErrBrokerNotAvailable           = newError(8, "BROKER_NOT_AVAILABLE", false, "the broker is not available")
	ErrReplicaNotAvailable          = newError(9, "REPLICA_NOT_AVAILABLE", false, "the replica is not available for the requested topic-partition")
	ErrMessageTooLarge              = newError(10, "MESSAGE_TOO_LARGE", false, "a message is larger than the server accepts")
	ErrStaleControllerEpoch         = newError(11, "STALE_CONTROLLER_EPOCH", false, "the request came from a controller with an old epoch")
	ErrOffsetMetadataTooLarge       = newError(12, "OFFSET_METADATA_TOO_LARGE", false, "the metadata string of the offset commit is too long")
	ErrNetworkException             = newError(13, "NETWORK_EXCEPTION", true, "the connection was closed before a response arrived")
	ErrGroupLoadInProgress          = newError(14, "GROUP_LOAD_IN_PROGRESS", true, "the coordinator is still loading the group's offsets and metadata")
	ErrGroupCoordinatorNotAvailable = newError(15, "GROUP_COORDINATOR_NOT_AVAILABLE", true, "the group coordinator is not available")
	ErrNotCoordinatorForGroup       = newError(16, "NOT_COORDINATOR_FOR_GROUP", true, "this server is not the coordinator of the group")
	ErrInvalidTopicException        = newError(17, "INVALID_TOPIC_EXCEPTION", false, "the topic name is invalid or the topic may not be written by clients")
	ErrRecordListTooLarge           = newError(18, "RECORD_LIST_TOO_LARGE", false, "the message set is larger than a log segment")
	ErrNotEnoughReplicas            = newError(19, "NOT_ENOUGH_REPLICAS", true, "the in-sync replicas are fewer than min.insync.replicas")
	ErrNotEnoughReplicasAfterAppend = newError(20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true, "the messages were written, but to fewer in-sync replicas than min.insync.replicas")
	ErrInvalidRequiredAcks          = newError(21, "INVALID_REQUIRED_ACKS", false, "acks must be -1, 0 or 1")
	ErrIllegalGeneration            = newError(22, "ILLEGAL_GENERATION", false, "the group generation id does not match the coordinator's")
	ErrInconsistentGroupProtocol    = newError(23, "INCONSISTENT_GROUP_PROTOCOL", false, "the member's protocol type or protocols do not match the group's")
	ErrInvalidGroupID               = newError(24, "INVALID_GROUP_ID", false, "the group id is empty or invalid")
	ErrUnknownMemberID              = newError(25, "UNKNOWN_MEMBER_ID", false, "the coordinator does not know this member id")
	ErrInvalidSessionTimeout        = newError(26, "INVALID_SESSION_TIMEOUT", false, "the session timeout is outside the range the broker allows")
	ErrRebalanceInProgress          = newError(27, "REBALANCE_IN_PROGRESS", false, "the group is rebalancing; rejoin it")
	ErrInvalidCommitOffsetSize      = newError(28, "INVALID_COMMIT_OFFSET_SIZE", false, "the offset commit was rejected because its size is too large")
	ErrTopicAuthorizationFailed     = newError(29, "TOPIC_AUTHORIZATION_FAILED", false, "not authorized to access the topic")
	ErrGroupAuthorizationFailed     = newError(30, "GROUP_AUTHORIZATION_FAILED", false, "not authorized to access the group")
	ErrClusterAuthorizationFailed   = newError(31, "CLUSTER_AUTHORIZATION_FAILED", false, "not authorized for this cluster action")
	ErrInvalidTimestamp             = newError(32, "INVALID_TIMESTAMP", false, "a message timestamp is outside the accepted range")
	ErrUnsupportedSaslMechanism     = newError(33, "UNSUPPORTED_SASL_MECHANISM", false, "the broker does not enable the requested SASL mechanism")
	ErrIllegalSaslState             = newError(34, "ILLEGAL_SASL_STATE", false, "the request is not valid in the current SASL state")
	ErrUnsupportedVersion           = newError(35, "UNSUPPORTED_VERSION", false, "the broker does not support this version of the request")
	ErrTopicAlreadyExists           = newError(36, "TOPIC_ALREADY_EXISTS", false, "the topic already exists")
	ErrInvalidPartitions            = newError(37, "INVALID_PARTITIONS", false, "the number of partitions is invalid")
	ErrInvalidReplicationFactor     = newError(38, "INVALID_REPLICATION_FACTOR", false, "the replication factor is invalid")
	ErrInvalidReplicaAssignment     = newError(39, "INVALID_REPLICA_ASSIGNMENT", false, "the replica assignment is invalid")
	ErrInvalidConfig                = newError(40, "INVALID_CONFIG", false, "a configuration value is invalid")
	ErrNotController                = newError(41, "NOT_CONTROLLER", true, "this broker is not the active controller")
	ErrInvalidRequest               = newError(42, "INVALID_REQUEST", false, "the request is malformed or violates the protocol")
	ErrUnsupportedForMessageFormat  = newError(43, "UNSUPPORTED_FOR_MESSAGE_FORMAT", false, "the topic's message format version does not support this request")
	ErrPolicyViolation              = newError(44, "POLICY_VIOLATION", false, "the request does not satisfy the configured policy")
)

// errorsByCode is indexed by code+1 (so UNKNOWN, -1, is entry 0; NONE, 0, is nil).
var errorsByCode = [...]*Error{
	ErrUnknown, nil, ErrOffsetOutOfRange, ErrCorruptMessage, ErrUnknownTopicOrPartition,
	ErrInvalidFetchSize, ErrLeaderNotAvailable, ErrNotLeaderForPartition, ErrRequestTimedOut,
	ErrBrokerNotAvailable, ErrReplicaNotAvailable, ErrMessageTooLarge, ErrStaleControllerEpoch,
	ErrOffsetMetadataTooLarge, ErrNetworkException, ErrGroupLoadInProgress,
	ErrGroupCoordinatorNotAvailable, ErrNotCoordinatorForGroup, ErrInvalidTopicException,
	ErrRecordListTooLarge, ErrNotEnoughReplicas, ErrNotEnoughReplicasAfterAppend,
	ErrInvalidRequiredAcks, ErrIllegalGeneration, ErrInconsistentGroupProtocol, ErrInvalidGroupID,
	ErrUnknownMemberID, ErrInvalidSessionTimeout, ErrRebalanceInProgress,
	ErrInvalidCommitOffsetSize, ErrTopicAuthorizationFailed, ErrGroupAuthorizationFailed,
	ErrClusterAuthorizationFailed, ErrInvalidTimestamp, ErrUnsupportedSaslMechanism,
	ErrIllegalSaslState, ErrUnsupportedVersion, ErrTopicAlreadyExists, ErrInvalidPartitions,
	ErrInvalidReplicationFactor, ErrInvalidReplicaAssignment, ErrInvalidConfig, ErrNotController,
	ErrInvalidRequest, ErrUnsupportedForMessageFormat, ErrPolicyViolation,
}

// ErrorForCode returns the error for a wire code: nil for 0 (NONE), and ErrUnknown for a code
// 0.10.2 does not define, as Errors.forCode does.
func ErrorForCode(code int16) error {
	if code == 0 {
		return nil
	}
	i := int(code) + 1
	if i < 0 || i >= len(errorsByCode) {
		return ErrUnknown
	}
	return errorsByCode[i]
}

// CodeOf returns the wire code for err: 0 for nil, the code of the first *Error in err's tree
// (a package's own sentinels reach one by unwrapping, see NewSentinel), the code of an exception
// kind of a package below this one (recordExceptions), and -1 (UNKNOWN) for anything else. This
// is Errors.forException, the one place where errors become codes (KafkaApis' error responses,
// the coordinator's callbacks); no other package maps errors to codes.
func CodeOf(err error) int16 {
	if err == nil {
		return 0
	}
	var ke *Error
	if errors.As(err, &ke) && ke != nil {
		return ke.Code
	}
	for _, x := range recordExceptions {
		if errors.Is(err, x.kind) {
			return x.code.Code
		}
	}
	return ErrUnknown.Code
}

// recordExceptions are the exception kinds of clients/record, which this package imports and so
// cannot be imported by: CorruptRecordException (and InvalidRecordException, which extends it)
// and RecordTooLargeException, with their entries of Errors.
var recordExceptions = []struct {
	kind error
	code *Error
}{
	{record.ErrCorruptRecord, ErrCorruptMessage},
	{record.ErrRecordTooLarge, ErrMessageTooLarge},
}

// NewSentinel returns a sentinel error for a package's own exception kind: its text is msg, and
// it unwraps to the Kafka error e, so errors.Is(err, e) holds and CodeOf finds e's code. This is
// how the packages above protocol (core/log, core/admin...) give their errors a wire code without
// a mapping table of their own:
//
//	var ErrOffsetOutOfRange = protocol.NewSentinel("offset out of range", protocol.ErrOffsetOutOfRange)
func NewSentinel(msg string, e *Error) error { return &sentinel{msg: msg, kafka: e} }

type sentinel struct {
	msg   string
	kafka *Error
}

func (s *sentinel) Error() string { return s.msg }

func (s *sentinel) Unwrap() error { return s.kafka }

// AllErrors returns every 0.10.2 error, in code order (UNKNOWN first, NONE omitted).
func AllErrors() []*Error {
	out := make([]*Error, 0, len(errorsByCode)-1)
	for _, e := range errorsByCode {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// Errorf returns an error wrapping the Kafka error e with a specific message, so CodeOf still
// finds e's code: protocol.Errorf(protocol.ErrInvalidPartitions, "%d partitions", n).
func Errorf(e *Error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", e, fmt.Sprintf(format, args...))
}
