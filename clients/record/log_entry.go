package record

import (
	"encoding/binary"
	"fmt"
	"iter"
)

// LogEntry is one entry of a message set: an offset and a message. For a shallow entry of a
// MemoryRecords it is backed by the set's bytes, so SetOffset, SetCreateTime and SetLogAppendTime
// rewrite them in place (the broker's LogValidator does this on its in-place path).
//
// Kafka 0.10.2: org.apache.kafka.common.record.LogEntry (SimpleLogEntry, and
// ByteBufferLogInputStream.ByteBufferLogEntry for the in-place setters).
type LogEntry struct {
	// Offset is the absolute offset; for a compressed wrapper it is the offset of its last inner
	// message.
	Offset int64
	// Record is the message.
	Record Record
	// Position is the byte position of a shallow entry within the set it was read from (-1 for
	// inner entries and for entries built by hand).
	Position int

	// header is the 12-byte log overhead in the backing buffer, when there is one.
	header []byte
}

// NewLogEntry pairs an offset with a message (not backed by any set).
func NewLogEntry(offset int64, r Record) LogEntry {
	return LogEntry{Offset: offset, Record: r, Position: -1}
}

// Size is the entry's size in a message set: LogOverhead + the message size.
func (e LogEntry) Size() int { return LogOverhead + e.Record.SizeInBytes() }

// NextOffset is Offset + 1 (for a wrapper, one past its last inner message).
func (e LogEntry) NextOffset() int64 { return e.Offset + 1 }

// Magic is the message's magic.
func (e LogEntry) Magic() int8 { return e.Record.Magic() }

// IsCompressed reports a wrapper message.
func (e LogEntry) IsCompressed() bool { return e.Record.IsCompressed() }

// AppendTo appends the entry (log overhead + message bytes) to dst.
//
// Kafka 0.10.2: LogEntry.writeTo.
func (e LogEntry) AppendTo(dst []byte) []byte {
	dst = AppendLogEntryHeader(dst, e.Offset, e.Record.SizeInBytes())
	return append(dst, e.Record.buf...)
}

// String renders the entry as "LogEntry(offset, record)".
func (e LogEntry) String() string { return fmt.Sprintf("LogEntry(%d, %s)", e.Offset, e.Record) }

// DeepEntries iterates the messages inside this entry: for a wrapper, its decompressed inner
// messages with absolute offsets; for an uncompressed entry, the entry itself.
//
// Kafka 0.10.2: LogEntry.iterator.
func (e LogEntry) DeepEntries() iter.Seq2[LogEntry, error] {
	return func(yield func(LogEntry, error) bool) {
		if !e.IsCompressed() {
			yield(e, nil)
			return
		}
		inner, err := deepEntriesOf(e, false, maxInt32)
		if err != nil {
			yield(LogEntry{}, err)
			return
		}
		for _, ie := range inner {
			if !yield(ie, nil) {
				return
			}
		}
	}
}

// SetOffset rewrites the entry's offset, in the backing bytes when there are any.
//
// Kafka 0.10.2: ByteBufferLogEntry.setOffset.
func (e *LogEntry) SetOffset(offset int64) {
	e.Offset = offset
	if len(e.header) >= OffsetLength {
		binary.BigEndian.PutUint64(e.header[OffsetOffset:], uint64(offset))
	}
}

// SetCreateTime sets the timestamp with CreateTime in the attributes and recomputes the CRC,
// unless the message already carries exactly that (the CRC is then left alone). Magic 0 messages
// have no timestamp: ErrIllegalArgument.
//
// Kafka 0.10.2: ByteBufferLogEntry.setCreateTime.
func (e *LogEntry) SetCreateTime(timestamp int64) error {
	if e.Record.Magic() == MagicValueV0 {
		return fmt.Errorf("%w: cannot set timestamp for a record with magic = 0", ErrIllegalArgument)
	}
	if e.Record.TimestampType() == CreateTime && e.Record.Timestamp() == timestamp {
		return nil
	}
	return e.setTimestampAndUpdateCrc(CreateTime, timestamp)
}

// SetLogAppendTime sets the timestamp with LogAppendTime (bit 3) and recomputes the CRC.
//
// Kafka 0.10.2: ByteBufferLogEntry.setLogAppendTime.
func (e *LogEntry) SetLogAppendTime(timestamp int64) error {
	if e.Record.Magic() == MagicValueV0 {
		return fmt.Errorf("%w: cannot set timestamp for a record with magic = 0", ErrIllegalArgument)
	}
	return e.setTimestampAndUpdateCrc(LogAppendTime, timestamp)
}

func (e *LogEntry) setTimestampAndUpdateCrc(tsType TimestampType, timestamp int64) error {
	b := e.Record.buf
	if len(b) < KeySizeOffsetV1 {
		return fmt.Errorf("%w: record of %d bytes has no timestamp field", ErrCorruptRecord, len(b))
	}
	b[AttributesOffset] = byte(tsType.UpdateAttributes(int8(b[AttributesOffset])))
	binary.BigEndian.PutUint64(b[TimestampOffset:], uint64(timestamp))
	binary.BigEndian.PutUint32(b[CrcOffset:], e.Record.ComputeChecksum())
	return nil
}
