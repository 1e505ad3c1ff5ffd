// The Scala clients' encoders and decoders (kafka.serializer, core/src/main/scala/kafka/serializer):
// the old producer's Encoder and the old consumer's Decoder, beside the Java clients' Serializer
// and Deserializer. Bookmap: 《Kafka技术内幕》 §2.2 and ch.3.

package serialization

import (
	"fmt"
	"strings"
)

// Encoder turns a value into bytes for the old producer.
//
// Kafka 0.10.2: kafka.serializer.Encoder. A nil result is a null key or value on the wire.
type Encoder[T any] interface {
	ToBytes(v T) []byte
}

// Decoder turns bytes into a value for the old consumer.
//
// Kafka 0.10.2: kafka.serializer.Decoder.
type Decoder[T any] interface {
	FromBytes(b []byte) T
}

// DefaultEncoder passes byte slices through.
//
// Kafka 0.10.2: kafka.serializer.DefaultEncoder.
type DefaultEncoder struct{}

// ToBytes returns v itself.
func (DefaultEncoder) ToBytes(v []byte) []byte { return v }

// DefaultDecoder passes byte slices through.
//
// Kafka 0.10.2: kafka.serializer.DefaultDecoder.
type DefaultDecoder struct{}

// FromBytes returns b itself.
func (DefaultDecoder) FromBytes(b []byte) []byte { return b }

// NullEncoder writes every value as null.
//
// Kafka 0.10.2: kafka.serializer.NullEncoder.
type NullEncoder[T any] struct{}

// ToBytes returns nil.
func (NullEncoder[T]) ToBytes(T) []byte { return nil }

// StringEncoder writes strings as UTF-8, the only serializer.encoding zkafka offers (Go strings
// are UTF-8; Kafka's default is "UTF8").
//
// Kafka 0.10.2: kafka.serializer.StringEncoder. Its null string (Java) has no Go counterpart:
// every Go string encodes to bytes, the empty one to an empty (not null) value.
type StringEncoder struct{}

// ToBytes returns the UTF-8 bytes of s.
func (StringEncoder) ToBytes(s string) []byte { return []byte(s) }

// StringDecoder reads UTF-8 strings.
//
// Kafka 0.10.2: kafka.serializer.StringDecoder.
type StringDecoder struct{}

// FromBytes returns b as a string.
func (StringDecoder) FromBytes(b []byte) string { return string(b) }

// CheckStringEncoding accepts the serializer.encoding values that mean UTF-8 (Java's charset
// names "UTF8" and "UTF-8", any case) and refuses the others, which zkafka does not implement.
func CheckStringEncoding(encoding string) error {
	switch strings.ToUpper(strings.TrimSpace(encoding)) {
	case "", "UTF8", "UTF-8":
		return nil
	}
	return fmt.Errorf("serializer.encoding %q is not supported: zkafka encodes strings as UTF-8 only", encoding)
}
