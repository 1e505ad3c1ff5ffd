package record

import "fmt"

// compressionRateEstimationFactor pads the estimated compressed size of a batch, as Kafka does,
// so that a producer batch rarely outgrows its buffer.
const compressionRateEstimationFactor = 1.05

// RecordsInfo describes what a builder wrote: the maximum timestamp and the offset that carries it.
//
// Kafka 0.10.2: MemoryRecordsBuilder.RecordsInfo.
type RecordsInfo struct {
	MaxTimestamp int64
	// ShallowOffsetOfMaxTimestamp is the offset of the message with the max timestamp, or, for
	// a compressed set, of its wrapper (the last offset), as the time index wants.
	ShallowOffsetOfMaxTimestamp int64
}

// MemoryRecordsBuilder builds a message set for magic 0 or 1: a plain sequence of log entries
// when the compression type is NONE, otherwise one compressed wrapper holding them. For a v1
// wrapper the inner offsets are stored relative to the base offset (0, 1, ...) and the wrapper
// carries the last offset; the wrapper's timestamp is the max inner timestamp (CreateTime) or the
// log append time (LogAppendTime, with bit 3 set on the wrapper and the inner messages).
//
// Go difference: Kafka streams appends through the compressor into a ByteBuffer; this builder
// keeps the uncompressed inner set and compresses it once in Build (simpler, and the compressed
// bytes are the same kind). Build does not fail: all argument errors are reported by the appends.
//
// Kafka 0.10.2: org.apache.kafka.common.record.MemoryRecordsBuilder.
type MemoryRecordsBuilder struct {
	magic           int8
	compressionType CompressionType
	timestampType   TimestampType
	baseOffset      int64
	logAppendTime   int64
	writeLimit      int

	// entries is the set being built: the final bytes when uncompressed, the inner set otherwise.
	entries []byte

	numRecords           int
	writtenUncompressed  int
	maxTimestamp         int64
	offsetOfMaxTimestamp int64
	lastOffset           int64
	compressionRate      float64

	built *MemoryRecords
}

// NewMemoryRecordsBuilder starts a set. logAppendTime is used only with LogAppendTime; writeLimit
// (bytes, <= 0 for none) is what HasRoomFor and IsFull measure against.
//
// Kafka 0.10.2: MemoryRecords.builder / new MemoryRecordsBuilder(buffer, magic, compressionType,
// timestampType, baseOffset, logAppendTime, writeLimit).
func NewMemoryRecordsBuilder(magic int8, compressionType CompressionType, timestampType TimestampType,
	baseOffset, logAppendTime int64, writeLimit int) *MemoryRecordsBuilder {
	b := &MemoryRecordsBuilder{
		magic:                magic,
		compressionType:      compressionType,
		timestampType:        timestampType,
		baseOffset:           baseOffset,
		logAppendTime:        logAppendTime,
		writeLimit:           writeLimit,
		maxTimestamp:         NoTimestamp,
		offsetOfMaxTimestamp: -1,
		lastOffset:           -1,
		compressionRate:      1,
	}
	if writeLimit > 0 {
		b.entries = make([]byte, 0, min(writeLimit, 1<<20))
	}
	return b
}

// NewMemoryRecordsBuilderWithBuffer is NewMemoryRecordsBuilder building the set in buf[:0] (a
// buffer of the producer's BufferPool) for as long as it fits, and in a larger buffer of its own
// after that; a compressed set is compressed into a buffer of its own by Build. The caller gives
// buf back to its pool once the set is no longer needed.
//
// Kafka 0.10.2: MemoryRecords.builder(ByteBuffer buffer, compressionType, timestampType, writeLimit).
func NewMemoryRecordsBuilderWithBuffer(buf []byte, magic int8, compressionType CompressionType, timestampType TimestampType,
	baseOffset, logAppendTime int64, writeLimit int) *MemoryRecordsBuilder {
	b := NewMemoryRecordsBuilder(magic, compressionType, timestampType, baseOffset, logAppendTime, 0)
	b.writeLimit = writeLimit
	b.entries = buf[:0]
	return b
}

// AppendWithOffset appends a message at offset. Offsets must increase; the timestamp is replaced
// by the log append time under LogAppendTime. It returns the message's CRC.
//
// Kafka 0.10.2: MemoryRecordsBuilder.appendWithOffset(offset, timestamp, key, value).
func (b *MemoryRecordsBuilder) AppendWithOffset(offset, timestamp int64, key, value []byte) (uint32, error) {
	if err := b.checkAppend(offset); err != nil {
		return 0, err
	}
	if b.timestampType == LogAppendTime {
		timestamp = b.logAppendTime
	}
	start := len(b.entries)
	b.ensureRoom(LogOverhead + RecordSize(b.magic, key, value))
	b.entries = AppendLogEntryHeader(b.entries, b.toInnerOffset(offset), RecordSize(b.magic, key, value))
	var err error
	if b.entries, err = AppendRecord(b.entries, b.magic, timestamp, key, value, NONE, b.timestampType); err != nil {
		b.entries = b.entries[:start]
		return 0, err
	}
	b.recordWritten(offset, timestamp, len(b.entries)-start)
	return NewRecordFromBytes(b.entries[start+LogOverhead:]).Checksum(), nil
}

// Append appends a message at the next offset (the base offset for the first).
//
// Kafka 0.10.2: MemoryRecordsBuilder.append(timestamp, key, value).
func (b *MemoryRecordsBuilder) Append(timestamp int64, key, value []byte) (uint32, error) {
	return b.AppendWithOffset(b.nextOffset(), timestamp, key, value)
}

// AppendRecordWithOffset copies an existing uncompressed message of the builder's magic at offset.
//
// Kafka 0.10.2: MemoryRecordsBuilder.appendWithOffset(offset, record).
func (b *MemoryRecordsBuilder) AppendRecordWithOffset(offset int64, r Record) error {
	if r.Magic() != b.magic {
		return fmt.Errorf("%w: inner log entries must have matching magic values as the wrapper", ErrIllegalArgument)
	}
	if err := b.checkAppend(offset); err != nil {
		return err
	}
	return b.AppendUnchecked(offset, r)
}

// AppendUnchecked copies r at offset without checking its magic or the offset order.
//
// Kafka 0.10.2: MemoryRecordsBuilder.appendUnchecked.
func (b *MemoryRecordsBuilder) AppendUnchecked(offset int64, r Record) error {
	if err := b.checkAppend(b.lastOffset + 1); err != nil {
		return err
	}
	start := len(b.entries)
	b.ensureRoom(LogOverhead + r.SizeInBytes())
	b.entries = AppendLogEntryHeader(b.entries, b.toInnerOffset(offset), r.SizeInBytes())
	b.entries = append(b.entries, r.buf...)
	b.recordWritten(offset, r.Timestamp(), len(b.entries)-start)
	return nil
}

// ConvertAndAppendWithOffset appends r at offset, converting it to the builder's magic when it
// differs (the timestamp becomes the log append time under LogAppendTime, else r's timestamp).
//
// Kafka 0.10.2: MemoryRecordsBuilder.convertAndAppendWithOffset.
func (b *MemoryRecordsBuilder) ConvertAndAppendWithOffset(offset int64, r Record) error {
	if r.Magic() == b.magic {
		return b.AppendRecordWithOffset(offset, r)
	}
	if err := b.checkAppend(offset); err != nil {
		return err
	}
	timestamp := r.Timestamp()
	if b.timestampType == LogAppendTime {
		timestamp = b.logAppendTime
	}
	start := len(b.entries)
	b.ensureRoom(LogOverhead + r.ConvertedSize(b.magic))
	b.entries = AppendLogEntryHeader(b.entries, b.toInnerOffset(offset), r.ConvertedSize(b.magic))
	var err error
	if b.entries, err = r.AppendConverted(b.entries, b.magic, timestamp, b.timestampType); err != nil {
		b.entries = b.entries[:start]
		return err
	}
	b.recordWritten(offset, timestamp, len(b.entries)-start)
	return nil
}

// ConvertAndAppend is ConvertAndAppendWithOffset at the next offset.
func (b *MemoryRecordsBuilder) ConvertAndAppend(r Record) error {
	return b.ConvertAndAppendWithOffset(b.nextOffset(), r)
}

// ensureRoom doubles the buffer when n more bytes do not fit (append alone grows large slices by
// only 1.25x, which copies a 1 MiB batch several times over).
func (b *MemoryRecordsBuilder) ensureRoom(n int) {
	if cap(b.entries)-len(b.entries) < n {
		nb := make([]byte, len(b.entries), max(2*cap(b.entries), len(b.entries)+n, 4096))
		copy(nb, b.entries)
		b.entries = nb
	}
}

func (b *MemoryRecordsBuilder) nextOffset() int64 {
	if b.lastOffset < 0 {
		return b.baseOffset
	}
	return b.lastOffset + 1
}

func (b *MemoryRecordsBuilder) checkAppend(offset int64) error {
	if b.compressionType < NONE || b.compressionType > LZ4 {
		return fmt.Errorf("%w: unknown compression type: %d", ErrIllegalArgument, b.compressionType)
	}
	if b.built != nil {
		return fmt.Errorf("%w: append to a closed MemoryRecordsBuilder", ErrIllegalArgument)
	}
	if b.lastOffset >= 0 && offset <= b.lastOffset {
		return fmt.Errorf("%w: illegal offset %d following previous offset %d (offsets must increase monotonically)",
			ErrIllegalArgument, offset, b.lastOffset)
	}
	return nil
}

// toInnerOffset stores v1 inner offsets relative to the base offset; everything else is absolute.
func (b *MemoryRecordsBuilder) toInnerOffset(offset int64) int64 {
	if b.magic > MagicValueV0 && b.compressionType != NONE {
		return offset - b.baseOffset
	}
	return offset
}

func (b *MemoryRecordsBuilder) recordWritten(offset, timestamp int64, size int) {
	b.numRecords++
	b.writtenUncompressed += size
	b.lastOffset = offset
	if timestamp > b.maxTimestamp {
		b.maxTimestamp = timestamp
		b.offsetOfMaxTimestamp = offset
	}
}

// Build closes the builder (compressing the set and writing the wrapper header when compressed)
// and returns the set. Later calls return the same set. An empty compressed builder yields an
// empty set (Kafka would write a wrapper with an empty payload, which no reader accepts).
//
// Kafka 0.10.2: MemoryRecordsBuilder.build / close / writerCompressedWrapperHeader.
func (b *MemoryRecordsBuilder) Build() *MemoryRecords {
	if b.built != nil {
		return b.built
	}
	if b.compressionType == NONE || b.numRecords == 0 {
		b.built = NewMemoryRecords(b.entries)
		return b.built
	}
	overhead := LogOverhead + RecordOverhead(b.magic)
	out := make([]byte, overhead, overhead+len(b.entries)/2+64)
	out, err := appendCompressed(out, b.compressionType, b.magic, b.entries)
	if err != nil {
		// Unreachable: compressing into memory does not fail for the four codecs, and appends
		// with any other codec value were refused. Keep the set empty rather than panic.
		b.built = NewMemoryRecords(nil)
		return b.built
	}
	timestamp := b.maxTimestamp
	if b.timestampType == LogAppendTime {
		timestamp = b.logAppendTime
	}
	writeCompressedWrapperHeader(out, b.lastOffset, b.magic, timestamp, b.compressionType, b.timestampType)
	b.compressionRate = float64(len(out)-overhead) / float64(b.writtenUncompressed)
	b.entries = nil
	b.built = NewMemoryRecords(out)
	return b.built
}

// writeCompressedWrapperHeader fills the first LogOverhead+RecordOverhead(magic) bytes of entry,
// whose tail already holds the compressed value: offset, size, crc, magic, attributes,
// [timestamp], null key, value length.
//
// Kafka 0.10.2: Record.writeCompressedRecordHeader.
func writeCompressedWrapperHeader(entry []byte, offset int64, magic int8, timestamp int64,
	codec CompressionType, tsType TimestampType) {
	size := len(entry) - LogOverhead
	valueSize := size - RecordOverhead(magic)
	h := AppendLogEntryHeader(entry[:0], offset, size)
	h = append(h, 0, 0, 0, 0, byte(magic), byte(ComputeAttributes(magic, codec, tsType)))
	if magic > MagicValueV0 {
		h = appendInt64(h, timestamp)
	}
	h = appendInt32(h, -1)
	appendInt32(h, int32(valueSize))
	r := NewRecordFromBytes(entry[LogOverhead:])
	putUint32(entry[LogOverhead+CrcOffset:], r.ComputeChecksum())
}

// Info reports the max timestamp and its offset (see RecordsInfo).
//
// Kafka 0.10.2: MemoryRecordsBuilder.info.
func (b *MemoryRecordsBuilder) Info() RecordsInfo {
	switch {
	case b.timestampType == LogAppendTime:
		return RecordsInfo{MaxTimestamp: b.logAppendTime, ShallowOffsetOfMaxTimestamp: b.lastOffset}
	case b.maxTimestamp == NoTimestamp:
		return RecordsInfo{MaxTimestamp: NoTimestamp, ShallowOffsetOfMaxTimestamp: b.lastOffset}
	case b.compressionType == NONE:
		return RecordsInfo{MaxTimestamp: b.maxTimestamp, ShallowOffsetOfMaxTimestamp: b.offsetOfMaxTimestamp}
	default:
		return RecordsInfo{MaxTimestamp: b.maxTimestamp, ShallowOffsetOfMaxTimestamp: b.lastOffset}
	}
}

// NumRecords is the number of messages appended.
func (b *MemoryRecordsBuilder) NumRecords() int { return b.numRecords }

// LastOffset is the offset of the last message appended (-1 before any).
func (b *MemoryRecordsBuilder) LastOffset() int64 { return b.lastOffset }

// CompressionRate is compressed/uncompressed size after Build (1 before, or when uncompressed).
func (b *MemoryRecordsBuilder) CompressionRate() float64 { return b.compressionRate }

// IsClosed reports whether Build was called.
func (b *MemoryRecordsBuilder) IsClosed() bool { return b.built != nil }

// estimatedBytesWritten is the set's size so far: exact when uncompressed; for a compressed set,
// the uncompressed size padded by 5% (Kafka additionally scales by a running per-codec compression
// ratio kept in a static table; a package-global table is not kept here, so the estimate is the
// conservative one Kafka starts from, ratio 1).
func (b *MemoryRecordsBuilder) estimatedBytesWritten() int {
	if b.compressionType == NONE {
		return len(b.entries)
	}
	return int(float64(b.writtenUncompressed) * compressionRateEstimationFactor)
}

// HasRoomFor reports whether a message with key and value fits under the write limit. The first
// message always fits, so a batch is never empty.
//
// Kafka 0.10.2: MemoryRecordsBuilder.hasRoomFor.
func (b *MemoryRecordsBuilder) HasRoomFor(key, value []byte) bool {
	if b.IsFull() {
		return false
	}
	if b.numRecords == 0 || b.writeLimit <= 0 {
		return true
	}
	return b.writeLimit >= b.estimatedBytesWritten()+LogOverhead+RecordSize(b.magic, key, value)
}

// IsFull reports a closed builder or one that reached its write limit (only after one message).
//
// Kafka 0.10.2: MemoryRecordsBuilder.isFull.
func (b *MemoryRecordsBuilder) IsFull() bool {
	return b.IsClosed() || (b.writeLimit > 0 && b.numRecords > 0 && b.writeLimit <= b.estimatedBytesWritten())
}

// SizeInBytes is the built size after Build, the estimate before.
//
// Kafka 0.10.2: MemoryRecordsBuilder.sizeInBytes.
func (b *MemoryRecordsBuilder) SizeInBytes() int {
	if b.built != nil {
		return b.built.SizeInBytes()
	}
	return b.estimatedBytesWritten()
}
