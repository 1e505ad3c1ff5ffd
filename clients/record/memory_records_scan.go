package record

import (
	"encoding/binary"
	"hash/crc32"
)

// The broker's append path reads every shallow entry of a produce request twice in Kafka: once to
// check it (Log.analyzeAndValidateRecords) and once, under the log lock, to give it an offset
// (LogValidator.assignOffsetsNonCompressed). Both go through the iterator, which builds a LogEntry
// per message. This file gives the first of those walks a form that touches only the bytes: one
// loop over the set, no per-message values, one CRC call over each message's contiguous bytes.
//
// It answers only for the happy path. Whenever an entry is anything but a whole, well-formed,
// CRC-valid message within the size limit, it says so (ok = false) and the caller runs the
// iterator-based walk, which produces the precise error. That keeps one source of truth for error
// values and their ordering.

// ShallowScan is what one walk over a set's shallow entries learns (Kafka computes the same
// figures in Log.analyzeAndValidateRecords).
type ShallowScan struct {
	// Count is the number of whole shallow entries.
	Count int
	// ValidBytes is the number of bytes up to the end of the last whole entry.
	ValidBytes int
	// FirstOffset and LastOffset are the offset fields of the first and last entries (-1 if none).
	FirstOffset, LastOffset int64
	// OffsetsMonotonic is false when some entry's offset is not above the previous one's.
	OffsetsMonotonic bool
	// MaxTimestamp is the largest message timestamp (NoTimestamp for magic 0) and
	// OffsetOfMaxTimestamp the offset field of the first entry carrying it (-1 if none).
	MaxTimestamp, OffsetOfMaxTimestamp int64
	// Magics has bit m set when some entry has magic m.
	Magics uint8
	// Codec is the codec of the last compressed entry, NONE when no entry is compressed.
	Codec CompressionType
}

// ScanShallow walks the set once, checking every whole entry as Validate does (size fields,
// structure, CRC, and no entry larger than maxEntrySize bytes with its log overhead) and
// summarising it. A trailing partial entry ends the walk, as with ShallowEntries. It allocates
// nothing and writes nothing.
//
// ok is false as soon as an entry fails any check; the summary is then meaningless and the caller
// should walk the set with ShallowEntries to learn what is wrong.
func (m *MemoryRecords) ScanShallow(maxEntrySize int) (s ShallowScan, ok bool) {
	buf := m.buf
	s = ShallowScan{FirstOffset: -1, LastOffset: -1, OffsetsMonotonic: true, MaxTimestamp: NoTimestamp,
		OffsetOfMaxTimestamp: -1, Codec: NONE}
	pos := 0
	for len(buf)-pos >= LogOverhead {
		size := int(int32(binary.BigEndian.Uint32(buf[pos+SizeOffset:])))
		if size < RecordOverheadV0 {
			return s, false
		}
		if len(buf)-pos-LogOverhead < size {
			break // a partial entry: the clean end of the set
		}
		if LogOverhead+size > maxEntrySize {
			return s, false
		}
		end := pos + LogOverhead + size
		msg := buf[pos+LogOverhead : end]
		if !wellFormed(msg) {
			return s, false
		}
		if binary.BigEndian.Uint32(msg[CrcOffset:]) != crc32.ChecksumIEEE(msg[MagicOffset:]) {
			return s, false
		}
		offset := int64(binary.BigEndian.Uint64(buf[pos+OffsetOffset:]))
		if s.FirstOffset < 0 {
			s.FirstOffset = offset
		}
		if s.LastOffset >= offset {
			s.OffsetsMonotonic = false
		}
		s.LastOffset = offset
		magic := msg[MagicOffset]
		// A magic-0 message has no timestamp (NoTimestamp), which never beats the starting value.
		if magic != byte(MagicValueV0) {
			if ts := int64(binary.BigEndian.Uint64(msg[TimestampOffset:])); ts > s.MaxTimestamp {
				s.MaxTimestamp, s.OffsetOfMaxTimestamp = ts, offset
			}
		}
		s.Magics |= 1 << magic
		if codec := CompressionType(msg[AttributesOffset] & byte(CompressionCodecMask)); codec != NONE {
			s.Codec = codec
		}
		s.Count++
		pos = end
		s.ValidBytes = pos
	}
	return s, true
}

// wellFormed is checkStructure as a yes/no answer, without building an error: a known magic,
// enough bytes for its overhead, and key and value lengths that end exactly at the end of msg.
func wellFormed(msg []byte) bool {
	n := len(msg)
	if n < RecordOverheadV0 {
		return false
	}
	ko := KeySizeOffsetV0
	switch int8(msg[MagicOffset]) {
	case MagicValueV0:
	case MagicValueV1:
		if n < RecordOverheadV1 {
			return false
		}
		ko = KeySizeOffsetV1
	default:
		return false
	}
	ks := int(int32(binary.BigEndian.Uint32(msg[ko:])))
	if ks < -1 || ks > n-ko-KeySizeLength-ValueSizeLength {
		return false
	}
	vo := ko + KeySizeLength + max(0, ks)
	vs := int(int32(binary.BigEndian.Uint32(msg[vo:])))
	rest := n - vo - ValueSizeLength
	if vs < 0 {
		return vs == -1 && rest == 0
	}
	return vs == rest
}

// ShallowHeaders walks only the entry headers (offset and message_size) of a set whose entries
// were already validated, e.g. by the log append of a follower: the bytes up to the end of the
// last whole entry and that entry's offset field (-1 if there is none). A size field below the
// smallest message ends the walk as a partial entry does. It is MemoryRecords.validBytes and
// shallowEntries.lastOption of Kafka's fetcher in one pass that reads 12 bytes per entry.
func (m *MemoryRecords) ShallowHeaders() (validBytes int, lastOffset int64) {
	buf := m.buf
	lastOffset = -1
	for pos := 0; len(buf)-pos >= LogOverhead; {
		size := int(int32(binary.BigEndian.Uint32(buf[pos+SizeOffset:])))
		if size < RecordOverheadV0 || len(buf)-pos-LogOverhead < size {
			break
		}
		lastOffset = int64(binary.BigEndian.Uint64(buf[pos+OffsetOffset:]))
		pos += LogOverhead + size
		validBytes = pos
	}
	return validBytes, lastOffset
}
