package protocol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/zkafka/zkafka/clients/protocol/types"
	"github.com/zkafka/zkafka/clients/record"
)

// The primitive encoders and the bounds-checked decoder the generated codecs call. Their
// behaviour follows types.Type (see clients/protocol/types/doc.go for the wire format).

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func appendInt8(dst []byte, v int8) []byte   { return append(dst, byte(v)) }
func appendInt16(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }
func appendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }
func appendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// ErrStringTooLong is what encoding a STRING over 32767 bytes fails with: the wire format's
// INT16 length cannot carry it.
//
// Kafka 0.10.2: the SchemaException of Type.STRING.write ("String is longer than the maximum
// string length."), which is no ApiException, so a broker answers UNKNOWN.
var ErrStringTooLong = errors.New("String is longer than the maximum string length.")

// encodeAbort carries an encoding failure out of the generated append functions (which have no
// error return) to the entry point that recovers it: Marshal, EncodeChecked, WriteRequest,
// WriteResponse.
type encodeAbort struct{ err error }

// recoverEncode turns an encodeAbort panic into *err; other panics go on.
func recoverEncode(err *error) {
	if r := recover(); r != nil {
		a, ok := r.(encodeAbort)
		if !ok {
			panic(r)
		}
		*err = a.err
	}
}

// appendString writes a STRING. One longer than 32767 bytes cannot be written: the encoding is
// aborted (an error from Marshal and the Write functions; a panic from a bare AppendTo).
func appendString(dst []byte, v string) []byte {
	if len(v) > math.MaxInt16 {
		panic(encodeAbort{fmt.Errorf("%w (%d bytes)", ErrStringTooLong, len(v))})
	}
	dst = appendInt16(dst, int16(len(v)))
	return append(dst, v...)
}

// Marshal is m.AppendTo(dst), with a value the wire format cannot carry (a STRING over 32767
// bytes) reported as an error.
func Marshal(dst []byte, m Message) (out []byte, err error) {
	defer recoverEncode(&err)
	return m.AppendTo(dst), nil
}

func appendNullableString(dst []byte, v *string) []byte {
	if v == nil {
		return appendInt16(dst, -1)
	}
	return appendString(dst, *v)
}

// appendBytes writes BYTES; nil is written as zero-length.
func appendBytes(dst []byte, v []byte) []byte {
	dst = appendInt32(dst, int32(len(v)))
	return append(dst, v...)
}

// appendNullableBytes writes NULLABLE_BYTES; nil is null (-1), an empty non-nil slice is length 0.
func appendNullableBytes(dst []byte, v []byte) []byte {
	if v == nil {
		return appendInt32(dst, -1)
	}
	return appendBytes(dst, v)
}

func appendArrayLen(dst []byte, n int) []byte { return appendInt32(dst, int32(n)) }

func appendNullableArrayLen(dst []byte, n int, isNull bool) []byte {
	if isNull {
		return appendInt32(dst, -1)
	}
	return appendInt32(dst, int32(n))
}

// appendRecords writes a RECORDS field. A nil set is written as an empty one (Kafka's handlers
// use MemoryRecords.EMPTY for partitions in error; a null set would not decode). A
// *record.MemoryRecords is copied in. Any other set (a FileRecords slice) is, with s != nil, left out of the
// buffer and remembered as a cut for WriteTo to stream; with s == nil it is copied through its
// WriteTo.
func appendRecords(dst []byte, recs record.Records, s *sends) []byte {
	if recs == nil {
		return appendInt32(dst, 0)
	}
	if mr, ok := recs.(*record.MemoryRecords); ok {
		return appendBytes(dst, mr.Bytes())
	}
	dst = appendInt32(dst, int32(recs.SizeInBytes()))
	if s != nil {
		s.cuts = append(s.cuts, cut{pos: len(dst), recs: recs})
		return dst
	}
	w := appendWriter{buf: dst}
	_, _ = recs.WriteTo(&w)
	return w.buf
}

type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// reader decodes a body with a sticky error: after the first failure every read returns a zero
// value, and done reports the failure. Nothing is allocated from a length that the remaining
// bytes cannot hold.
type reader struct {
	buf []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", types.ErrSchema, fmt.Sprintf(format, args...), r.off)
	}
}

// take returns the next n bytes, or nil after recording an error.
func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.buf)-r.off {
		r.fail("need %d bytes, %d left", n, len(r.buf)-r.off)
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

func (r *reader) bool() bool {
	b := r.take(1)
	return b != nil && b[0] != 0
}

func (r *reader) int8() int8 {
	if b := r.take(1); b != nil {
		return int8(b[0])
	}
	return 0
}

func (r *reader) int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *reader) string() string {
	n := r.int16()
	if n < 0 {
		r.fail("string length %d cannot be negative", n)
		return ""
	}
	return string(r.take(int(n)))
}

func (r *reader) nullableString() *string {
	n := r.int16()
	if n < 0 || r.err != nil {
		return nil
	}
	b := r.take(int(n))
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func (r *reader) bytes() []byte {
	n := r.int32()
	if n < 0 {
		r.fail("bytes size %d cannot be negative", n)
		return nil
	}
	return r.take(int(n))
}

func (r *reader) nullableBytes() []byte {
	n := r.int32()
	if n < 0 || r.err != nil {
		return nil
	}
	return r.take(int(n))
}

// records reads a RECORDS field as a MemoryRecords view of the input (no copy, no parsing).
// A null set is an error: Kafka's request and response constructors fail on it.
func (r *reader) records() record.Records {
	n := r.int32()
	if r.err != nil {
		return nil
	}
	if n < 0 {
		r.fail("null record set")
		return nil
	}
	b := r.take(int(n))
	if b == nil {
		return nil
	}
	return record.NewMemoryRecords(b)
}

// arrayLen reads an array count whose elements need at least minElem bytes each. It reports
// ok=false for a null (nullable) array, an empty non-nullable array (decoded as nil) and errors.
func (r *reader) arrayLen(minElem int, nullable bool) (int, bool) {
	n := r.int32()
	if r.err != nil {
		return 0, false
	}
	if n < 0 {
		if !nullable {
			r.fail("array size %d cannot be negative", n)
		}
		return 0, false
	}
	if minElem < 1 {
		minElem = 1
	}
	if int64(n)*int64(minElem) > int64(len(r.buf)-r.off) {
		r.fail("array of %d elements cannot fit in %d bytes", n, len(r.buf)-r.off)
		return 0, false
	}
	if n == 0 && !nullable {
		return 0, false
	}
	return int(n), true
}

// done returns the decoding error, if any, naming the message.
func (r *reader) done(what string) error {
	if r.err != nil {
		return fmt.Errorf("decoding %s: %w", what, r.err)
	}
	return nil
}
