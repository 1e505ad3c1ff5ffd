package record

import "errors"

// The error vocabulary of this package. Callers test with errors.Is; the messages carry positions
// and sizes. The protocol layer maps them to Kafka error codes (CORRUPT_MESSAGE, MESSAGE_TOO_LARGE).
var (
	// ErrCorruptRecord marks bytes that cannot be a message: a size field below the minimum
	// overhead or above the allowed maximum, lengths that run past the message, an unknown
	// compression codec, a compressed payload that does not decompress.
	//
	// Kafka 0.10.2: org.apache.kafka.common.errors.CorruptRecordException.
	ErrCorruptRecord = errors.New("corrupt record")

	// ErrInvalidRecord marks a message that parses but is not acceptable: a CRC mismatch, nested
	// compression, an inner magic that differs from its wrapper's. As in Kafka, where
	// InvalidRecordException extends CorruptRecordException, errors.Is(err, ErrCorruptRecord) also
	// holds for it.
	//
	// Kafka 0.10.2: org.apache.kafka.common.record.InvalidRecordException.
	ErrInvalidRecord = &invalidRecordError{}

	// ErrRecordTooLarge marks a message larger than a configured maximum
	// (max.message.bytes on the broker, max.request.size in the producer).
	//
	// Kafka 0.10.2: org.apache.kafka.common.errors.RecordTooLargeException.
	ErrRecordTooLarge = errors.New("record too large")

	// ErrIllegalArgument marks a programming error by the caller of a writer: a bad magic, a
	// timestamp below -1, offsets that do not increase, an append after Build.
	//
	// Kafka 0.10.2: java.lang.IllegalArgumentException thrown by Record.write and MemoryRecordsBuilder.
	ErrIllegalArgument = errors.New("illegal argument")
)

// invalidRecordError is the type of ErrInvalidRecord; it reports itself as a corrupt record too.
type invalidRecordError struct{}

func (*invalidRecordError) Error() string { return "invalid record" }

// Is lets errors.Is(ErrInvalidRecord, ErrCorruptRecord) hold, mirroring the Java subclassing.
func (*invalidRecordError) Is(target error) bool { return target == ErrCorruptRecord }
