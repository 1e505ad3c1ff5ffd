package log

import (
	"errors"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// Error sentinels of the log layer. Each stands for the Kafka exception named in its comment;
// callers test them with errors.Is. Those that reach clients are protocol.NewSentinel values:
// they unwrap to the protocol error of that exception, so protocol.CodeOf (the one place where
// errors become codes) finds it; the others are UNKNOWN on the wire, as in Kafka.
var (
	// ErrInvalidOffset is kafka.common.InvalidOffsetException: an index append whose offset does not
	// move forward, or an offset that cannot be stored relative to a segment's base offset.
	ErrInvalidOffset = errors.New("invalid offset")
	// ErrCorruptIndex is the IllegalArgumentException thrown by AbstractIndex.sanityCheck; Log reacts
	// by deleting both index files and rebuilding them from the .log.
	ErrCorruptIndex = errors.New("corrupt index")
	// ErrIndexFull is the require(!isFull) failure of OffsetIndex.append / TimeIndex.maybeAppend.
	ErrIndexFull = errors.New("index is full")
	// ErrIllegalState is the IllegalStateException of TimeIndex.maybeAppend (timestamp going back).
	ErrIllegalState = errors.New("illegal state")
	// ErrIllegalArgument is IllegalArgumentException (negative sizes, out-of-order follower offsets).
	ErrIllegalArgument = errors.New("illegal argument")
	// ErrOffsetOutOfRange is OffsetOutOfRangeException (OFFSET_OUT_OF_RANGE).
	ErrOffsetOutOfRange = protocol.NewSentinel("offset out of range", protocol.ErrOffsetOutOfRange)
	// ErrCorruptRecord is CorruptRecordException (CORRUPT_MESSAGE): bad CRC, truncated entry.
	// It is the same sentinel as record.ErrCorruptRecord, which protocol.CodeOf maps itself
	// (clients/record sits below the protocol package).
	ErrCorruptRecord = record.ErrCorruptRecord
	// ErrInvalidMessage is kafka.message.InvalidMessageException (CORRUPT_MESSAGE): a compacted topic
	// message without a key, or a compressed inner message.
	ErrInvalidMessage = protocol.NewSentinel("invalid message", protocol.ErrCorruptMessage)
	// ErrInvalidTimestamp is InvalidTimestampException (INVALID_TIMESTAMP).
	ErrInvalidTimestamp = protocol.NewSentinel("invalid timestamp", protocol.ErrInvalidTimestamp)
	// ErrRecordTooLarge is RecordTooLargeException (MESSAGE_TOO_LARGE).
	// It is the same sentinel as record.ErrRecordTooLarge (mapped by protocol.CodeOf).
	ErrRecordTooLarge = record.ErrRecordTooLarge
	// ErrRecordBatchTooLarge is RecordBatchTooLargeException (RECORD_LIST_TOO_LARGE).
	ErrRecordBatchTooLarge = protocol.NewSentinel("record batch too large", protocol.ErrRecordListTooLarge)
	// ErrUnsupportedForMessageFormat is UnsupportedForMessageFormatException
	// (UNSUPPORTED_FOR_MESSAGE_FORMAT): a timestamp search on a magic-0 topic.
	ErrUnsupportedForMessageFormat = protocol.NewSentinel("unsupported for message format", protocol.ErrUnsupportedForMessageFormat)
	// ErrKafkaStorage is KafkaStorageException: an I/O failure on a log file (UNKNOWN on the wire
	// in 0.10.2, where it is not an ApiException).
	ErrKafkaStorage = errors.New("kafka storage error")
	// ErrConfig is ConfigException / InvalidConfigurationException for LogConfig values
	// (INVALID_CONFIG).
	ErrConfig = protocol.NewSentinel("invalid configuration", protocol.ErrInvalidConfig)
)
