package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Offsets inside a log entry (the 12-byte "log overhead" that precedes every message).
//
// Kafka 0.10.2: Records.OFFSET_OFFSET, SIZE_OFFSET, LOG_OVERHEAD.
const (
	OffsetOffset = 0
	OffsetLength = 8
	SizeOffset   = OffsetOffset + OffsetLength
	SizeLength   = 4
	LogOverhead  = SizeOffset + SizeLength // 12
)

// Field offsets inside a message (relative to its crc), and the format constants.
//
// Kafka 0.10.2: Record.CRC_OFFSET ... Record.TIMESTAMP_TYPE_MASK.
const (
	CrcOffset                    = 0
	CrcLength                    = 4
	MagicOffset                  = CrcOffset + CrcLength // 4
	MagicLength                  = 1
	AttributesOffset             = MagicOffset + MagicLength // 5
	AttributesLength             = 1
	TimestampOffset              = AttributesOffset + AttributesLength // 6 (v1 only)
	TimestampLength              = 8
	KeySizeOffsetV0              = AttributesOffset + AttributesLength // 6
	KeySizeOffsetV1              = TimestampOffset + TimestampLength   // 14
	KeySizeLength                = 4
	KeyOffsetV0                  = KeySizeOffsetV0 + KeySizeLength // 10
	KeyOffsetV1                  = KeySizeOffsetV1 + KeySizeLength // 18
	ValueSizeLength              = 4
	HeaderSize                   = CrcLength + MagicLength + AttributesLength                     // 6
	RecordOverheadV0             = HeaderSize + KeySizeLength + ValueSizeLength                   // 14
	RecordOverheadV1             = HeaderSize + TimestampLength + KeySizeLength + ValueSizeLength // 22
	MagicValueV0                 = int8(0)
	MagicValueV1                 = int8(1)
	CurrentMagicValue            = MagicValueV1
	CompressionCodecMask         = int8(0x07)
	TimestampTypeMask            = int8(0x08)
	TimestampTypeAttributeOffset = 3
)

// Record is a read-only view over the bytes of one message: crc, magic, attributes, [timestamp],
// key, value. It does not own or copy the bytes. A Record for an inner message of a compressed
// wrapper also carries the wrapper's timestamp and timestamp type, because with LogAppendTime the
// inner messages report the wrapper's timestamp (their own bytes are left untouched by the broker).
//
// Accessors never panic: a Record produced by this package's iterators has been checked with
// checkStructure, and on bytes that were not, out-of-range fields read as zero/nil. Java would throw
// at access time instead; Go cannot afford a panic on input.
//
// Kafka 0.10.2: org.apache.kafka.common.record.Record (and kafka.message.Message).
type Record struct {
	buf []byte
	// wrapper information, set only on inner messages of a magic >= 1 wrapper (Java's nullable
	// wrapperRecordTimestamp / wrapperRecordTimestampType).
	hasWrapper           bool
	wrapperTimestamp     int64
	wrapperTimestampType TimestampType
}

// NewRecordFromBytes wraps b, the bytes of one message starting at its crc (not copied).
func NewRecordFromBytes(b []byte) Record { return Record{buf: b} }

// newInnerRecord wraps b with the wrapper's timestamp information.
func newInnerRecord(b []byte, wrapperTimestamp int64, wrapperType TimestampType) Record {
	return Record{buf: b, hasWrapper: true, wrapperTimestamp: wrapperTimestamp, wrapperTimestampType: wrapperType}
}

// Buffer returns the message bytes (crc through value).
func (r Record) Buffer() []byte { return r.buf }

// SizeInBytes is the length of the message (the log entry's message_size field).
func (r Record) SizeInBytes() int { return len(r.buf) }

// Checksum is the stored CRC-32 (unsigned).
func (r Record) Checksum() uint32 {
	if len(r.buf) < CrcLength {
		return 0
	}
	return binary.BigEndian.Uint32(r.buf[CrcOffset:])
}

// ComputeChecksum is the CRC-32 (IEEE, as java.util.zip.CRC32) of everything after the crc field.
func (r Record) ComputeChecksum() uint32 {
	if len(r.buf) < MagicOffset {
		return crc32.ChecksumIEEE(nil)
	}
	return crc32.ChecksumIEEE(r.buf[MagicOffset:])
}

// IsValid reports whether the stored CRC matches the bytes.
func (r Record) IsValid() bool {
	return len(r.buf) >= CrcLength && r.Checksum() == r.ComputeChecksum()
}

// EnsureValid returns an error wrapping ErrInvalidRecord when the CRC does not match.
func (r Record) EnsureValid() error {
	if r.IsValid() {
		return nil
	}
	if len(r.buf) < CrcLength {
		return fmt.Errorf("%w: record is corrupt (crc could not be retrieved as the record is too small, size = %d)",
			ErrInvalidRecord, len(r.buf))
	}
	return fmt.Errorf("%w: record is corrupt (stored crc = %d, computed crc = %d)",
		ErrInvalidRecord, r.Checksum(), r.ComputeChecksum())
}

// Magic is the format version byte (0 or 1).
func (r Record) Magic() int8 {
	if len(r.buf) <= MagicOffset {
		return 0
	}
	return int8(r.buf[MagicOffset])
}

// Attributes is the attributes byte.
func (r Record) Attributes() int8 {
	if len(r.buf) <= AttributesOffset {
		return 0
	}
	return int8(r.buf[AttributesOffset])
}

// CompressionType is the codec in the attributes. Ids 4-7 come back as they are (not valid
// CompressionType constants); iterators reject them with ErrCorruptRecord before decompressing.
func (r Record) CompressionType() CompressionType {
	return CompressionType(r.Attributes() & CompressionCodecMask)
}

// IsCompressed reports whether the codec is not NONE (the message is a wrapper).
func (r Record) IsCompressed() bool { return r.CompressionType() != NONE }

// Timestamp is the message's timestamp: NoTimestamp for magic 0; the wrapper's timestamp for an
// inner message whose wrapper says LogAppendTime; otherwise the message's own timestamp field.
func (r Record) Timestamp() int64 {
	if r.Magic() == MagicValueV0 {
		return NoTimestamp
	}
	if r.hasWrapper && r.wrapperTimestampType == LogAppendTime {
		return r.wrapperTimestamp
	}
	return r.readInt64(TimestampOffset)
}

// TimestampType is NoTimestampType for magic 0, the wrapper's type for an inner message, and
// otherwise bit 3 of the attributes.
func (r Record) TimestampType() TimestampType {
	if r.Magic() == MagicValueV0 {
		return NoTimestampType
	}
	if r.hasWrapper {
		return r.wrapperTimestampType
	}
	return TimestampTypeForAttributes(r.Attributes())
}

// WrapperTimestamp returns the wrapper's timestamp and type for an inner message (ok = false for a
// shallow message).
func (r Record) WrapperTimestamp() (timestamp int64, tsType TimestampType, ok bool) {
	return r.wrapperTimestamp, r.wrapperTimestampType, r.hasWrapper
}

func (r Record) keySizeOffset() int {
	if r.Magic() == MagicValueV0 {
		return KeySizeOffsetV0
	}
	return KeySizeOffsetV1
}

// KeySize is the key length field (-1 for a null key).
func (r Record) KeySize() int { return int(r.readInt32(r.keySizeOffset())) }

// HasKey reports a non-null key (key length >= 0).
func (r Record) HasKey() bool { return r.KeySize() >= 0 }

func (r Record) valueSizeOffset() int {
	return r.keySizeOffset() + KeySizeLength + max(0, r.KeySize())
}

// ValueSize is the value length field (-1 for a null value).
func (r Record) ValueSize() int { return int(r.readInt32(r.valueSizeOffset())) }

// HasNullValue reports a null value (a tombstone for compacted topics).
func (r Record) HasNullValue() bool { return r.ValueSize() < 0 }

// Key returns the key bytes (a sub-slice, not a copy), nil for a null key. An empty key is a
// non-nil empty slice.
func (r Record) Key() []byte { return r.sizeDelimited(r.keySizeOffset()) }

// Value returns the value bytes (a sub-slice, not a copy), nil for a null value. An empty value is
// a non-nil empty slice.
func (r Record) Value() []byte { return r.sizeDelimited(r.valueSizeOffset()) }

// sizeDelimited reads an INT32 length at off and returns the bytes after it; nil for length < 0 or
// when the field runs past the message.
func (r Record) sizeDelimited(off int) []byte {
	if off < 0 || off+4 > len(r.buf) {
		return nil
	}
	n := int(int32(binary.BigEndian.Uint32(r.buf[off:])))
	start := off + 4
	if n < 0 || n > len(r.buf)-start {
		return nil
	}
	return r.buf[start : start+n : start+n]
}

func (r Record) readInt32(off int) int32 {
	if off < 0 || off+4 > len(r.buf) {
		return 0
	}
	return int32(binary.BigEndian.Uint32(r.buf[off:]))
}

func (r Record) readInt64(off int) int64 {
	if off < 0 || off+8 > len(r.buf) {
		return 0
	}
	return int64(binary.BigEndian.Uint64(r.buf[off:]))
}

// checkStructure verifies that the message's fields fit its bytes exactly: a known magic, a size
// of at least the overhead of that magic, key and value lengths >= -1 that end exactly at the end
// of the message. Iterators call it so that accessors on the Records they yield read real fields.
func (r Record) checkStructure() error {
	magic := r.Magic()
	if len(r.buf) < RecordOverheadV0 {
		return fmt.Errorf("%w: record size %d is less than the minimum record overhead (%d)",
			ErrCorruptRecord, len(r.buf), RecordOverheadV0)
	}
	if magic != MagicValueV0 && magic != MagicValueV1 {
		return fmt.Errorf("%w: invalid magic value %d", ErrCorruptRecord, magic)
	}
	if len(r.buf) < RecordOverhead(magic) {
		return fmt.Errorf("%w: record size %d is less than the record overhead of magic %d (%d)",
			ErrCorruptRecord, len(r.buf), magic, RecordOverhead(magic))
	}
	ko := r.keySizeOffset()
	ks := int(r.readInt32(ko))
	if ks < -1 || ks > len(r.buf)-ko-KeySizeLength-ValueSizeLength {
		return fmt.Errorf("%w: invalid key size %d in a record of %d bytes", ErrCorruptRecord, ks, len(r.buf))
	}
	vo := ko + KeySizeLength + max(0, ks)
	vs := int(r.readInt32(vo))
	rest := len(r.buf) - vo - ValueSizeLength
	if vs < -1 || (vs >= 0 && vs != rest) || (vs < 0 && rest != 0) {
		return fmt.Errorf("%w: invalid value size %d in a record of %d bytes (%d bytes after the value size field)",
			ErrCorruptRecord, vs, len(r.buf), rest)
	}
	return nil
}

// String renders the record as Kafka's Record.toString does (fields, not bytes).
func (r Record) String() string {
	if r.Magic() > 0 {
		return fmt.Sprintf("Record(magic = %d, attributes = %d, compression = %s, crc = %d, %s = %d, key = %d bytes, value = %d bytes)",
			r.Magic(), r.Attributes(), r.CompressionType(), r.Checksum(), r.TimestampType(), r.Timestamp(),
			max(0, r.KeySize()), max(0, r.ValueSize()))
	}
	return fmt.Sprintf("Record(magic = %d, attributes = %d, compression = %s, crc = %d, key = %d bytes, value = %d bytes)",
		r.Magic(), r.Attributes(), r.CompressionType(), r.Checksum(), max(0, r.KeySize()), max(0, r.ValueSize()))
}

// RecordOverhead is the size of a message of the given magic with a null key and null value
// (14 for magic 0, 22 for magic 1).
func RecordOverhead(magic int8) int {
	if magic == MagicValueV0 {
		return RecordOverheadV0
	}
	return RecordOverheadV1
}

// RecordSize is the size of a message holding key and value (null and empty count as 0 bytes).
func RecordSize(magic int8, key, value []byte) int {
	return RecordOverhead(magic) + len(key) + len(value)
}

// ComputeAttributes builds the attributes byte: the codec in bits 0-2 and, for magic >= 1 only, the
// timestamp type in bit 3.
func ComputeAttributes(magic int8, codec CompressionType, tsType TimestampType) int8 {
	attributes := int8(codec) & CompressionCodecMask
	if magic > MagicValueV0 {
		attributes = tsType.UpdateAttributes(attributes)
	}
	return attributes
}

// AppendRecord appends one message (crc through value, no log overhead) to dst and returns the
// extended slice. A nil key or value is written as null (length -1); an empty non-nil one as
// length 0. codec goes into the attributes only: for a wrapper, value must already be compressed.
// It fails with ErrIllegalArgument for a magic other than 0/1 or a timestamp below -1.
//
// Kafka 0.10.2: Record.write (with computeAttributes and computeChecksum).
func AppendRecord(dst []byte, magic int8, timestamp int64, key, value []byte,
	codec CompressionType, tsType TimestampType) ([]byte, error) {
	if magic != MagicValueV0 && magic != MagicValueV1 {
		return dst, fmt.Errorf("%w: invalid magic value %d", ErrIllegalArgument, magic)
	}
	if timestamp < 0 && timestamp != NoTimestamp {
		return dst, fmt.Errorf("%w: invalid message timestamp %d", ErrIllegalArgument, timestamp)
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, byte(magic), byte(ComputeAttributes(magic, codec, tsType)))
	if magic > MagicValueV0 {
		dst = binary.BigEndian.AppendUint64(dst, uint64(timestamp))
	}
	dst = appendNullableBytes(dst, key)
	dst = appendNullableBytes(dst, value)
	binary.BigEndian.PutUint32(dst[start:], crc32.ChecksumIEEE(dst[start+MagicOffset:]))
	return dst, nil
}

// BuildRecord returns a new message; see AppendRecord.
//
// Kafka 0.10.2: Record.create.
func BuildRecord(magic int8, timestamp int64, key, value []byte, codec CompressionType, tsType TimestampType) ([]byte, error) {
	return AppendRecord(make([]byte, 0, RecordSize(magic, key, value)), magic, timestamp, key, value, codec, tsType)
}

func appendNullableBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.BigEndian.AppendUint32(dst, 0xffffffff)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// AppendLogEntryHeader appends the 12-byte log overhead (offset, message size).
//
// Kafka 0.10.2: LogEntry.writeHeader.
func AppendLogEntryHeader(dst []byte, offset int64, size int) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(offset))
	return binary.BigEndian.AppendUint32(dst, uint32(size))
}

// ConvertedSize is the size of this (uncompressed) message rewritten with magic toMagic.
func (r Record) ConvertedSize(toMagic int8) int {
	return RecordOverhead(toMagic) + max(0, r.KeySize()) + max(0, r.ValueSize())
}

// AppendConverted appends this message rewritten in magic toMagic with the given timestamp and
// type (used by up/down-conversion). Converting a compressed message is an ErrIllegalArgument:
// wrappers are converted by deep iteration.
//
// Kafka 0.10.2: Record.convertTo.
func (r Record) AppendConverted(dst []byte, toMagic int8, timestamp int64, tsType TimestampType) ([]byte, error) {
	if r.IsCompressed() {
		return dst, fmt.Errorf("%w: cannot use convertTo for deep conversion", ErrIllegalArgument)
	}
	return AppendRecord(dst, toMagic, timestamp, r.Key(), r.Value(), NONE, tsType)
}

// Convert returns this message in magic toMagic (itself when already in that magic), keeping its
// timestamp (as seen through the wrapper) and timestamp type.
//
// Kafka 0.10.2: Record.convert.
func (r Record) Convert(toMagic int8) (Record, error) {
	if toMagic == r.Magic() {
		return r, nil
	}
	tsType := TimestampTypeForAttributes(r.Attributes())
	if r.hasWrapper {
		tsType = r.wrapperTimestampType
	}
	b, err := r.AppendConverted(make([]byte, 0, r.ConvertedSize(toMagic)), toMagic, r.Timestamp(), tsType)
	if err != nil {
		return Record{}, err
	}
	return NewRecordFromBytes(b), nil
}

func appendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }
func appendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }
func putUint32(dst []byte, v uint32)         { binary.BigEndian.PutUint32(dst, v) }
