package protocol

import (
	"errors"
	"strings"
)

// exceptionClasses are the simple names of the exception classes 0.10.2's Errors enum throws
// for each code (package org.apache.kafka.common.errors), indexed like errorsByCode.
var exceptionClasses = [...]string{
	"UnknownServerException", "", "OffsetOutOfRangeException", "CorruptRecordException",
	"UnknownTopicOrPartitionException", "InvalidFetchSizeException", "LeaderNotAvailableException",
	"NotLeaderForPartitionException", "TimeoutException", "BrokerNotAvailableException",
	"ReplicaNotAvailableException", "RecordTooLargeException", "ControllerMovedException",
	"OffsetMetadataTooLarge", "NetworkException", "GroupLoadInProgressException",
	"GroupCoordinatorNotAvailableException", "NotCoordinatorForGroupException", "InvalidTopicException",
	"RecordBatchTooLargeException", "NotEnoughReplicasException", "NotEnoughReplicasAfterAppendException",
	"InvalidRequiredAcksException", "IllegalGenerationException", "InconsistentGroupProtocolException",
	"InvalidGroupIdException", "UnknownMemberIdException", "InvalidSessionTimeoutException",
	"RebalanceInProgressException", "InvalidCommitOffsetSizeException", "TopicAuthorizationException",
	"GroupAuthorizationException", "ClusterAuthorizationException", "InvalidTimestampException",
	"UnsupportedSaslMechanismException", "IllegalSaslStateException", "UnsupportedVersionException",
	"TopicExistsException", "InvalidPartitionsException", "InvalidReplicationFactorException",
	"InvalidReplicaAssignmentException", "InvalidConfigurationException", "NotControllerException",
	"InvalidRequestException", "UnsupportedForMessageFormatException", "PolicyViolationException",
}

// ExceptionName is the fully qualified Java class of the exception a Kafka client throws for
// err's code (org.apache.kafka.common.errors.TimeoutException for REQUEST_TIMED_OUT), as
// tools print it; "" when err carries no Kafka error.
//
// Kafka 0.10.2: Errors.exception() (the class of each code's exception).
func ExceptionName(err error) string {
	var ke *Error
	if !errors.As(err, &ke) || ke == nil {
		return ""
	}
	i := int(ke.Code) + 1
	if i < 0 || i >= len(exceptionClasses) || exceptionClasses[i] == "" {
		return ""
	}
	return "org.apache.kafka.common.errors." + exceptionClasses[i]
}

// ExceptionMessage is the message of the Java exception err stands for: the specific message
// given with protocol.Errorf ("Failed to update metadata after 60000 ms."), or the code's default
// description; err.Error() for an error that is not a Kafka one.
func ExceptionMessage(err error) string {
	var ke *Error
	if !errors.As(err, &ke) || ke == nil {
		return err.Error()
	}
	s := err.Error()
	if i := strings.Index(s, ke.Error()+": "); i >= 0 {
		return s[i+len(ke.Error())+2:]
	}
	return ke.Message
}
