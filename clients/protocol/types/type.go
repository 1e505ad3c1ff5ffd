package types

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrSchema is wrapped by every error this package returns for bytes or values that do not fit a
// schema.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.types.SchemaException.
var ErrSchema = errors.New("schema exception")

func schemaErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSchema, fmt.Sprintf(format, args...))
}

// Type is one wire type: it writes and reads a Go value in its encoding.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.types.Type.
type Type interface {
	// Write appends the encoding of v to dst. v must have the Go type listed in the package doc.
	Write(dst []byte, v any) ([]byte, error)
	// Read decodes one value from the start of b and reports how many bytes it used.
	Read(b []byte) (v any, n int, err error)
	// MinSize is the length of the shortest possible encoding; it bounds array counts on reading.
	MinSize() int
	// IsNullable tells whether nil is a valid value.
	IsNullable() bool
	// String is Kafka's name for the type, e.g. "INT32" or "ARRAY(STRING)".
	String() string
}

// primitive implements the fixed set of Kafka's scalar types. kind selects the behaviour; it is a
// small closed set, so a switch reads more plainly than ten types.
type primitive struct {
	name string
	kind int
}

const (
	kBoolean = iota
	kInt8
	kInt16
	kInt32
	kInt64
	kString
	kNullableString
	kBytes
	kNullableBytes
	kRecords
)

// The primitive types, named as in Kafka's Type class so the schema table reads like Protocol.java.
var (
	BOOLEAN         Type = primitive{"BOOLEAN", kBoolean}
	INT8            Type = primitive{"INT8", kInt8}
	INT16           Type = primitive{"INT16", kInt16}
	INT32           Type = primitive{"INT32", kInt32}
	INT64           Type = primitive{"INT64", kInt64}
	STRING          Type = primitive{"STRING", kString}
	NULLABLE_STRING Type = primitive{"NULLABLE_STRING", kNullableString}
	BYTES           Type = primitive{"BYTES", kBytes}
	NULLABLE_BYTES  Type = primitive{"NULLABLE_BYTES", kNullableBytes}
	RECORDS         Type = primitive{"RECORDS", kRecords}
)

func (p primitive) String() string { return p.name }

func (p primitive) IsNullable() bool {
	return p.kind == kNullableString || p.kind == kNullableBytes || p.kind == kRecords
}

func (p primitive) MinSize() int {
	switch p.kind {
	case kBoolean, kInt8:
		return 1
	case kInt16, kString, kNullableString:
		return 2
	case kInt64:
		return 8
	default: // INT32 and the length-prefixed byte types
		return 4
	}
}

func (p primitive) Write(dst []byte, v any) ([]byte, error) {
	bad := func() ([]byte, error) { return dst, schemaErrorf("%v (%T) is not a valid %s", v, v, p.name) }
	switch p.kind {
	case kBoolean:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		if b {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case kInt8:
		x, ok := v.(int8)
		if !ok {
			return bad()
		}
		return append(dst, byte(x)), nil
	case kInt16:
		x, ok := v.(int16)
		if !ok {
			return bad()
		}
		return binary.BigEndian.AppendUint16(dst, uint16(x)), nil
	case kInt32:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		return binary.BigEndian.AppendUint32(dst, uint32(x)), nil
	case kInt64:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		return binary.BigEndian.AppendUint64(dst, uint64(x)), nil
	case kString, kNullableString:
		if v == nil && p.kind == kNullableString {
			return binary.BigEndian.AppendUint16(dst, 0xffff), nil
		}
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		if len(s) > math.MaxInt16 {
			return dst, schemaErrorf("string of %d bytes is longer than %d", len(s), math.MaxInt16)
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
		return append(dst, s...), nil
	default: // byte types
		if v == nil && p.kind != kBytes {
			return binary.BigEndian.AppendUint32(dst, 0xffffffff), nil
		}
		b, ok := v.([]byte)
		if !ok {
			return bad()
		}
		if b == nil && p.kind != kBytes {
			return binary.BigEndian.AppendUint32(dst, 0xffffffff), nil
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
		return append(dst, b...), nil
	}
}

func (p primitive) Read(b []byte) (any, int, error) {
	if len(b) < p.MinSize() {
		return nil, 0, schemaErrorf("%s needs %d bytes, only %d available", p.name, p.MinSize(), len(b))
	}
	switch p.kind {
	case kBoolean:
		return b[0] != 0, 1, nil
	case kInt8:
		return int8(b[0]), 1, nil
	case kInt16:
		return int16(binary.BigEndian.Uint16(b)), 2, nil
	case kInt32:
		return int32(binary.BigEndian.Uint32(b)), 4, nil
	case kInt64:
		return int64(binary.BigEndian.Uint64(b)), 8, nil
	case kString, kNullableString:
		n := int(int16(binary.BigEndian.Uint16(b)))
		if n < 0 {
			if p.kind == kNullableString {
				return nil, 2, nil
			}
			return nil, 0, schemaErrorf("string length %d cannot be negative", n)
		}
		if n > len(b)-2 {
			return nil, 0, schemaErrorf("string of length %d, only %d bytes available", n, len(b)-2)
		}
		return string(b[2 : 2+n]), 2 + n, nil
	default:
		n := int64(int32(binary.BigEndian.Uint32(b)))
		if n < 0 {
			switch p.kind {
			case kBytes:
				return nil, 0, schemaErrorf("bytes size %d cannot be negative", n)
			case kRecords:
				return nil, 0, schemaErrorf("null record set")
			}
			return nil, 4, nil
		}
		if n > int64(len(b)-4) {
			return nil, 0, schemaErrorf("bytes of size %d, only %d bytes available", n, len(b)-4)
		}
		return b[4 : 4+n : 4+n], 4 + int(n), nil
	}
}
