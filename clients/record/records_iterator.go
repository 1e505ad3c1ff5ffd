package record

import (
	"encoding/binary"
	"fmt"
	"iter"
)

// errorAt wraps err with a byte position and a formatted detail.
func errorAt(err error, position int, format string, args ...any) error {
	return fmt.Errorf("%w at position %d: %s", err, position, fmt.Sprintf(format, args...))
}

// nextEntry reads the shallow entry starting at pos. It returns ok = false and no error when the
// bytes left cannot hold a whole entry (the clean end of a set that may be cut mid-message).
//
// Kafka 0.10.2: ByteBufferLogInputStream.nextEntry.
func nextEntry(buf []byte, pos, maxRecordSize int) (e LogEntry, ok bool, err error) {
	remaining := len(buf) - pos
	if remaining < LogOverhead {
		return LogEntry{}, false, nil
	}
	size := int(int32(binary.BigEndian.Uint32(buf[pos+SizeOffset:])))
	if size < RecordOverheadV0 {
		return LogEntry{}, false, errorAt(ErrCorruptRecord, pos,
			"record size %d is less than the minimum record overhead (%d)", size, RecordOverheadV0)
	}
	if size > maxRecordSize {
		return LogEntry{}, false, errorAt(ErrCorruptRecord, pos,
			"record size %d exceeds the largest allowable message size (%d)", size, maxRecordSize)
	}
	if remaining-LogOverhead < size {
		return LogEntry{}, false, nil
	}
	end := pos + LogOverhead + size
	e = LogEntry{
		Offset:   int64(binary.BigEndian.Uint64(buf[pos+OffsetOffset:])),
		Record:   Record{buf: buf[pos+LogOverhead : end : end]},
		Position: pos,
		header:   buf[pos : pos+LogOverhead : pos+LogOverhead],
	}
	if err := e.Record.checkStructure(); err != nil {
		return LogEntry{}, false, errorAt(err, pos, "offset %d", e.Offset)
	}
	return e, true, nil
}

// shallowEntriesOf iterates the top-level entries of buf.
func shallowEntriesOf(buf []byte, maxRecordSize int) iter.Seq2[LogEntry, error] {
	return func(yield func(LogEntry, error) bool) {
		pos := 0
		for {
			e, ok, err := nextEntry(buf, pos, maxRecordSize)
			if err != nil {
				yield(LogEntry{}, err)
				return
			}
			if !ok {
				return
			}
			if !yield(e, nil) {
				return
			}
			pos += e.Size()
		}
	}
}

// deepEntriesOfSet iterates buf deeply: shallow entries, with wrappers expanded.
//
// Kafka 0.10.2: RecordsIterator (shallow = false).
func deepEntriesOfSet(buf []byte, ensureMatchingMagic bool, maxRecordSize int) iter.Seq2[LogEntry, error] {
	return func(yield func(LogEntry, error) bool) {
		for e, err := range shallowEntriesOf(buf, maxRecordSize) {
			if err != nil {
				yield(LogEntry{}, err)
				return
			}
			if !e.IsCompressed() {
				if !yield(e, nil) {
					return
				}
				continue
			}
			inner, err := deepEntriesOf(e, ensureMatchingMagic, maxRecordSize)
			if err != nil {
				yield(LogEntry{}, errorAt(err, e.Position, "wrapper offset %d", e.Offset))
				return
			}
			for _, ie := range inner {
				if !yield(ie, nil) {
					return
				}
			}
		}
	}
}

// deepEntriesOf decompresses a wrapper and returns its inner entries with absolute offsets. The
// whole inner set is decoded first, because a v1 wrapper's relative offsets are rebased on the
// last one: absolute = wrapperOffset - lastRelative + relative. (Kafka does the same for v0,
// whose inner offsets are already absolute.)
//
// Kafka 0.10.2: RecordsIterator.DeepRecordsIterator and DataLogInputStream.
func deepEntriesOf(wrapper LogEntry, ensureMatchingMagic bool, maxRecordSize int) ([]LogEntry, error) {
	wr := wrapper.Record
	wrapperMagic := wr.Magic()
	codec := wr.CompressionType()
	if codec > LZ4 {
		return nil, fmt.Errorf("%w: unknown compression type id %d", ErrCorruptRecord, codec)
	}
	payload := wr.Value()
	if payload == nil {
		return nil, fmt.Errorf("%w: compressed wrapper message has a null value", ErrCorruptRecord)
	}
	data, err := decompress(codec, wrapperMagic, payload)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot decompress %s wrapper: %v", ErrCorruptRecord, codec, err)
	}
	wrapperTimestamp := wr.Timestamp()
	wrapperTsType := wr.TimestampType()

	var entries []LogEntry
	pos := 0
	for {
		// Like DataLogInputStream: a short header or short body at the end of the decompressed
		// stream ends the inner set; bad sizes are corrupt.
		if len(data)-pos < LogOverhead {
			break
		}
		offset := int64(binary.BigEndian.Uint64(data[pos+OffsetOffset:]))
		size := int(int32(binary.BigEndian.Uint32(data[pos+SizeOffset:])))
		if size < RecordOverheadV0 {
			return nil, fmt.Errorf("%w: inner record at %d: size %d is less than the minimum record overhead (%d)",
				ErrCorruptRecord, pos, size, RecordOverheadV0)
		}
		if size > maxRecordSize {
			return nil, fmt.Errorf("%w: inner record at %d: size %d exceeds the largest allowable message size (%d)",
				ErrCorruptRecord, pos, size, maxRecordSize)
		}
		if len(data)-pos-LogOverhead < size {
			break
		}
		end := pos + LogOverhead + size
		r := Record{buf: data[pos+LogOverhead : end : end]}
		if err := r.checkStructure(); err != nil {
			return nil, fmt.Errorf("inner record at %d: %w", pos, err)
		}
		magic := r.Magic()
		if ensureMatchingMagic && magic != wrapperMagic {
			return nil, fmt.Errorf("%w: compressed message magic %d does not match wrapper magic %d",
				ErrInvalidRecord, magic, wrapperMagic)
		}
		if r.IsCompressed() {
			return nil, fmt.Errorf("%w: inner messages must not be compressed", ErrInvalidRecord)
		}
		if magic > MagicValueV0 {
			r = newInnerRecord(r.buf, wrapperTimestamp, wrapperTsType)
		}
		entries = append(entries, LogEntry{Offset: offset, Record: r, Position: -1})
		pos = end
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%w: compressed message set holds no messages", ErrCorruptRecord)
	}
	if wrapperMagic > MagicValueV0 {
		base := wrapper.Offset - entries[len(entries)-1].Offset
		for i := range entries {
			entries[i].Offset += base
		}
	}
	return entries, nil
}
