package log

import (
	"errors"

	"github.com/zkafka/zkafka/clients/record"
)

// Error sentinels of the log layer. Each stands for the Kafka exception named in its comment; callers
// test them with errors.Is, and the broker's KafkaApis maps them to protocol error codes at its
// boundary (layout.md B.8). They are plain errors here because core/log sits below the protocol
// package's error table in the build order of this slice.
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
	ErrOffsetOutOfRange = errors.New("offset out of range")
	// ErrCorruptRecord is CorruptRecordException (CORRUPT_MESSAGE): bad CRC, truncated entry.
	// It is the same sentinel as record.ErrCorruptRecord, so errors from the record layer match.
	ErrCorruptRecord = record.ErrCorruptRecord
	// ErrInvalidMessage is kafka.message.InvalidMessageException (CORRUPT_MESSAGE): a compacted topic
	// message without a key, or a compressed inner message.
	ErrInvalidMessage = errors.New("invalid message")
	// ErrInvalidTimestamp is InvalidTimestampException (INVALID_TIMESTAMP).
	ErrInvalidTimestamp = errors.New("invalid timestamp")
	// ErrRecordTooLarge is RecordTooLargeException (MESSAGE_TOO_LARGE).
	// It is the same sentinel as record.ErrRecordTooLarge.
	ErrRecordTooLarge = record.ErrRecordTooLarge
	// ErrRecordBatchTooLarge is RecordBatchTooLargeException (RECORD_LIST_TOO_LARGE).
	ErrRecordBatchTooLarge = errors.New("record batch too large")
	// ErrUnsupportedForMessageFormat is UnsupportedForMessageFormatException
	// (UNSUPPORTED_FOR_MESSAGE_FORMAT): a timestamp search on a magic-0 topic.
	ErrUnsupportedForMessageFormat = errors.New("unsupported for message format")
	// ErrKafkaStorage is KafkaStorageException: an I/O failure on a log file.
	ErrKafkaStorage = errors.New("kafka storage error")
	// ErrConfig is ConfigException / InvalidConfigurationException for LogConfig values.
	ErrConfig = errors.New("invalid configuration")
)
