package record

import (
	"io"
	"iter"
)

// MemoryRecords is a message set held in a byte slice. Shallow entries are views into the slice,
// so the broker can rewrite offsets and timestamps in place (LogEntry.SetOffset & co).
//
// Kafka 0.10.2: org.apache.kafka.common.record.MemoryRecords (and kafka.message.ByteBufferMessageSet,
// which in 0.10.2 is already a view over MemoryRecords).
type MemoryRecords struct {
	buf []byte
}

// NewMemoryRecords wraps b (not copied).
//
// Kafka 0.10.2: MemoryRecords.readableRecords.
func NewMemoryRecords(b []byte) *MemoryRecords { return &MemoryRecords{buf: b} }

// Bytes returns the underlying bytes.
func (m *MemoryRecords) Bytes() []byte { return m.buf }

// SizeInBytes implements Records.
func (m *MemoryRecords) SizeInBytes() int { return len(m.buf) }

// WriteTo implements Records.
func (m *MemoryRecords) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(m.buf)
	return int64(n), err
}

// ShallowEntries iterates the top-level entries; a compressed wrapper comes back as one entry.
// Iteration stops without error at a trailing partial entry (a fetch may end mid-message). A size
// field below RecordOverheadV0, or a message whose internal lengths do not add up, yields one
// error wrapping ErrCorruptRecord (with the byte position) and ends the iteration.
//
// Kafka 0.10.2: MemoryRecords.shallowEntries (ByteBufferLogInputStream).
func (m *MemoryRecords) ShallowEntries() iter.Seq2[LogEntry, error] {
	return shallowEntriesOf(m.buf, maxInt32)
}

// ShallowEntriesWithMaxSize is ShallowEntries with a maximum message size: a larger size field
// yields an error wrapping ErrCorruptRecord, as Kafka's log input streams do.
func (m *MemoryRecords) ShallowEntriesWithMaxSize(maxRecordSize int) iter.Seq2[LogEntry, error] {
	return shallowEntriesOf(m.buf, maxRecordSize)
}

// DeepEntries iterates every message: uncompressed shallow entries as they are, wrappers replaced
// by their decompressed inner messages with absolute offsets (v1 inner offsets are relative and
// are rebased on the wrapper's offset; v0 inner offsets are used as written). A wrapper that
// fails to decompress, or holds a compressed inner message, yields an error and ends the
// iteration.
//
// Kafka 0.10.2: MemoryRecords.deepEntries (RecordsIterator, DeepRecordsIterator).
func (m *MemoryRecords) DeepEntries() iter.Seq2[LogEntry, error] {
	return deepEntriesOfSet(m.buf, false, maxInt32)
}

// DeepEntriesEnsureMatchingMagic is DeepEntries that also rejects (ErrInvalidRecord) an inner
// message whose magic differs from its wrapper's; the broker uses it on append.
//
// Kafka 0.10.2: MemoryRecords.deepEntries(ensureMatchingMagic = true, ...).
func (m *MemoryRecords) DeepEntriesEnsureMatchingMagic() iter.Seq2[LogEntry, error] {
	return deepEntriesOfSet(m.buf, true, maxInt32)
}

// ValidBytes is the number of bytes up to the end of the last whole, well-formed shallow entry
// (the trailing partial entry of a fetch response is not counted).
//
// Kafka 0.10.2: MemoryRecords.validBytes.
func (m *MemoryRecords) ValidBytes() int {
	n := 0
	for e, err := range m.ShallowEntries() {
		if err != nil {
			break
		}
		n = e.Position + e.Size()
	}
	return n
}

// Validate checks every shallow entry: the size fields, the structure, the CRC and, when
// maxMessageSize > 0, that no entry (log overhead included) exceeds it (ErrRecordTooLarge). It
// returns the number of valid bytes; trailing partial bytes are not an error.
func (m *MemoryRecords) Validate(maxMessageSize int) (validBytes int, err error) {
	for e, err := range m.ShallowEntries() {
		if err != nil {
			return validBytes, err
		}
		if maxMessageSize > 0 && e.Size() > maxMessageSize {
			return validBytes, errorAt(ErrRecordTooLarge, e.Position,
				"message size %d (log overhead included) is larger than the maximum %d", e.Size(), maxMessageSize)
		}
		if err := e.Record.EnsureValid(); err != nil {
			return validBytes, errorAt(err, e.Position, "offset %d", e.Offset)
		}
		validBytes = e.Position + e.Size()
	}
	return validBytes, nil
}
