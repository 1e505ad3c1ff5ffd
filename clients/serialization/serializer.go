package serialization

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrSerialization marks a value that cannot be turned into bytes or back.
//
// Kafka 0.10.2: org.apache.kafka.common.errors.SerializationException.
var ErrSerialization = errors.New("serialization error")

// Serializer turns a T into bytes (nil meaning null).
//
// Kafka 0.10.2: org.apache.kafka.common.serialization.Serializer.
type Serializer[T any] interface {
	// Configure receives the client's configuration (the raw properties); isKey tells a key
	// serializer from a value serializer.
	Configure(configs map[string]string, isKey bool)
	Serialize(topic string, data T) ([]byte, error)
	Close()
}

// Deserializer turns bytes (nil meaning null) into a T.
//
// Kafka 0.10.2: org.apache.kafka.common.serialization.Deserializer.
type Deserializer[T any] interface {
	Configure(configs map[string]string, isKey bool)
	Deserialize(topic string, data []byte) (T, error)
	Close()
}

// ByteArraySerializer passes bytes through.
//
// Kafka 0.10.2: ByteArraySerializer.
type ByteArraySerializer struct{}

// Configure implements Serializer.
func (ByteArraySerializer) Configure(map[string]string, bool) {}

// Serialize implements Serializer.
func (ByteArraySerializer) Serialize(_ string, data []byte) ([]byte, error) { return data, nil }

// Close implements Serializer.
func (ByteArraySerializer) Close() {}

// ByteArrayDeserializer passes bytes through.
//
// Kafka 0.10.2: ByteArrayDeserializer.
type ByteArrayDeserializer struct{}

// Configure implements Deserializer.
func (ByteArrayDeserializer) Configure(map[string]string, bool) {}

// Deserialize implements Deserializer.
func (ByteArrayDeserializer) Deserialize(_ string, data []byte) ([]byte, error) { return data, nil }

// Close implements Deserializer.
func (ByteArrayDeserializer) Close() {}

// encoding reads key.serializer.encoding / value.serializer.encoding / serializer.encoding
// (or the deserializer names), as StringSerializer.configure does.
func encoding(configs map[string]string, isKey bool, role string) string {
	name := role + ".encoding"
	if isKey {
		name = "key." + name
	} else {
		name = "value." + name
	}
	if e, ok := configs[name]; ok {
		return e
	}
	if e, ok := configs[role+".encoding"]; ok {
		return e
	}
	return "UTF8"
}

// utf8Encoding reports the names Java accepts for UTF-8, the one charset supported here.
func utf8Encoding(name string) bool {
	switch strings.ToUpper(name) {
	case "UTF8", "UTF-8":
		return true
	}
	return false
}

// StringSerializer encodes strings in UTF-8 (the default, and the only charset zkafka supports).
//
// Kafka 0.10.2: StringSerializer.
type StringSerializer struct{ Encoding string }

// Configure implements Serializer.
func (s *StringSerializer) Configure(configs map[string]string, isKey bool) {
	s.Encoding = encoding(configs, isKey, "serializer")
}

// Serialize implements Serializer.
func (s *StringSerializer) Serialize(_ string, data string) ([]byte, error) {
	if s.Encoding != "" && !utf8Encoding(s.Encoding) {
		return nil, fmt.Errorf("%w: Error when serializing string to byte[] due to unsupported encoding %s", ErrSerialization, s.Encoding)
	}
	return []byte(data), nil
}

// Close implements Serializer.
func (s *StringSerializer) Close() {}

// StringDeserializer decodes UTF-8 strings.
//
// Kafka 0.10.2: StringDeserializer.
type StringDeserializer struct{ Encoding string }

// Configure implements Deserializer.
func (s *StringDeserializer) Configure(configs map[string]string, isKey bool) {
	s.Encoding = encoding(configs, isKey, "deserializer")
}

// Deserialize implements Deserializer (null becomes "").
func (s *StringDeserializer) Deserialize(_ string, data []byte) (string, error) {
	if s.Encoding != "" && !utf8Encoding(s.Encoding) {
		return "", fmt.Errorf("%w: Error when deserializing byte[] to string due to unsupported encoding %s", ErrSerialization, s.Encoding)
	}
	return string(data), nil
}

// Close implements Deserializer.
func (s *StringDeserializer) Close() {}

// IntegerSerializer writes a big-endian int32.
//
// Kafka 0.10.2: IntegerSerializer.
type IntegerSerializer struct{}

// Configure implements Serializer.
func (IntegerSerializer) Configure(map[string]string, bool) {}

// Serialize implements Serializer.
func (IntegerSerializer) Serialize(_ string, v int32) ([]byte, error) {
	return binary.BigEndian.AppendUint32(nil, uint32(v)), nil
}

// Close implements Serializer.
func (IntegerSerializer) Close() {}

// IntegerDeserializer reads a big-endian int32.
//
// Kafka 0.10.2: IntegerDeserializer.
type IntegerDeserializer struct{}

// Configure implements Deserializer.
func (IntegerDeserializer) Configure(map[string]string, bool) {}

// Deserialize implements Deserializer.
func (IntegerDeserializer) Deserialize(_ string, data []byte) (int32, error) {
	if data == nil {
		return 0, nil
	}
	if len(data) != 4 {
		return 0, fmt.Errorf("%w: Size of data received by IntegerDeserializer is not 4", ErrSerialization)
	}
	return int32(binary.BigEndian.Uint32(data)), nil
}

// Close implements Deserializer.
func (IntegerDeserializer) Close() {}

// LongSerializer writes a big-endian int64.
//
// Kafka 0.10.2: LongSerializer.
type LongSerializer struct{}

// Configure implements Serializer.
func (LongSerializer) Configure(map[string]string, bool) {}

// Serialize implements Serializer.
func (LongSerializer) Serialize(_ string, v int64) ([]byte, error) {
	return binary.BigEndian.AppendUint64(nil, uint64(v)), nil
}

// Close implements Serializer.
func (LongSerializer) Close() {}

// LongDeserializer reads a big-endian int64.
//
// Kafka 0.10.2: LongDeserializer.
type LongDeserializer struct{}

// Configure implements Deserializer.
func (LongDeserializer) Configure(map[string]string, bool) {}

// Deserialize implements Deserializer.
func (LongDeserializer) Deserialize(_ string, data []byte) (int64, error) {
	if data == nil {
		return 0, nil
	}
	if len(data) != 8 {
		return 0, fmt.Errorf("%w: Size of data received by LongDeserializer is not 8", ErrSerialization)
	}
	return int64(binary.BigEndian.Uint64(data)), nil
}

// Close implements Deserializer.
func (LongDeserializer) Close() {}

// DoubleSerializer writes an IEEE 754 double, big-endian.
//
// Kafka 0.10.2: DoubleSerializer.
type DoubleSerializer struct{}

// Configure implements Serializer.
func (DoubleSerializer) Configure(map[string]string, bool) {}

// Serialize implements Serializer.
func (DoubleSerializer) Serialize(_ string, v float64) ([]byte, error) {
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
}

// Close implements Serializer.
func (DoubleSerializer) Close() {}

// DoubleDeserializer reads an IEEE 754 double.
//
// Kafka 0.10.2: DoubleDeserializer.
type DoubleDeserializer struct{}

// Configure implements Deserializer.
func (DoubleDeserializer) Configure(map[string]string, bool) {}

// Deserialize implements Deserializer.
func (DoubleDeserializer) Deserialize(_ string, data []byte) (float64, error) {
	if data == nil {
		return 0, nil
	}
	if len(data) != 8 {
		return 0, fmt.Errorf("%w: Size of data received by Deserializer is not 8", ErrSerialization)
	}
	return math.Float64frombits(binary.BigEndian.Uint64(data)), nil
}

// Close implements Deserializer.
func (DoubleDeserializer) Close() {}

// nullable serializes a *T with inner, nil being null.
type nullable[T any] struct{ inner Serializer[T] }

// Nullable turns a Serializer[T] into a Serializer[*T] that writes null for a nil pointer (the
// Java serializers' null handling).
func Nullable[T any](inner Serializer[T]) Serializer[*T] { return nullable[T]{inner} }

func (n nullable[T]) Configure(c map[string]string, isKey bool) { n.inner.Configure(c, isKey) }
func (n nullable[T]) Close()                                    { n.inner.Close() }
func (n nullable[T]) Serialize(topic string, data *T) ([]byte, error) {
	if data == nil {
		return nil, nil
	}
	return n.inner.Serialize(topic, *data)
}

type nullableDeserializer[T any] struct{ inner Deserializer[T] }

// NullableDeserializer turns a Deserializer[T] into a Deserializer[*T] that reads null as nil.
func NullableDeserializer[T any](inner Deserializer[T]) Deserializer[*T] {
	return nullableDeserializer[T]{inner}
}

func (n nullableDeserializer[T]) Configure(c map[string]string, isKey bool) {
	n.inner.Configure(c, isKey)
}
func (n nullableDeserializer[T]) Close() { n.inner.Close() }
func (n nullableDeserializer[T]) Deserialize(topic string, data []byte) (*T, error) {
	if data == nil {
		return nil, nil
	}
	v, err := n.inner.Deserialize(topic, data)
	if err != nil {
		return nil, err
	}
	return &v, nil
}
