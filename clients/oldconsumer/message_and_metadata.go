package oldconsumer

import (
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

// MessageAndMetadata is one consumed message with where it came from; Key and Message decode
// the raw bytes on demand.
//
// Kafka 0.10.2: kafka.message.MessageAndMetadata.
type MessageAndMetadata[K, V any] struct {
	Topic         string
	Partition     int32
	RawMessage    record.Record
	Offset        int64
	Timestamp     int64
	TimestampType record.TimestampType

	keyDecoder   serialization.Decoder[K]
	valueDecoder serialization.Decoder[V]
}

// Key decodes the key; a message without key gives K's zero value (Kafka's null).
func (m MessageAndMetadata[K, V]) Key() K {
	if !m.RawMessage.HasKey() {
		var zero K
		return zero
	}
	return m.keyDecoder.FromBytes(m.RawMessage.Key())
}

// Message decodes the value; a null value gives V's zero value.
func (m MessageAndMetadata[K, V]) Message() V {
	if m.RawMessage.HasNullValue() {
		var zero V
		return zero
	}
	return m.valueDecoder.FromBytes(m.RawMessage.Value())
}

// MessageAndOffset is a message with its offset, as a fetch returns it.
//
// Kafka 0.10.2: kafka.message.MessageAndOffset (a view of record.LogEntry here).
type MessageAndOffset = record.LogEntry
