package record

import "fmt"

// LogEntryFilter decides whether the log cleaner keeps a (deep) entry.
//
// Kafka 0.10.2: MemoryRecords.LogEntryFilter (shouldRetain).
type LogEntryFilter func(entry LogEntry) bool

// FilterResult reports what FilterTo read and kept.
//
// Kafka 0.10.2: MemoryRecords.FilterResult.
type FilterResult struct {
	// Output is the destination slice with the retained entries appended.
	Output           []byte
	MessagesRead     int
	BytesRead        int
	MessagesRetained int
	BytesRetained    int
	// MaxOffset is the largest retained offset (-1 if none).
	MaxOffset                   int64
	MaxTimestamp                int64
	ShallowOffsetOfMaxTimestamp int64
	// OversizedFirstOffsets lists the first offsets of rebuilt wrappers that grew beyond
	// maxRecordSize. Kafka logs a warning for each (older consumers may need a larger fetch
	// size); this package has no logger, so the cleaner logs them.
	OversizedFirstOffsets []int64
}

// FilterTo appends to dst the entries of this set that filter retains, deciding message by
// message (deep). A shallow entry all of whose messages are kept, in its own magic, is copied
// verbatim; otherwise the kept messages of a wrapper are recompressed into a new wrapper with the
// same codec and timestamp type, starting at the first kept offset. (Rebuilding also repairs
// wrappers whose inner magic differs from theirs, KAFKA-4298.) Go slices grow, so the early
// return Kafka needs when its buffer is reallocated (KAFKA-5316) has no counterpart here.
//
// Kafka 0.10.2: MemoryRecords.filterTo.
func (m *MemoryRecords) FilterTo(filter LogEntryFilter, dst []byte, maxRecordSize int) (FilterResult, error) {
	res := FilterResult{Output: dst, MaxOffset: -1, MaxTimestamp: NoTimestamp, ShallowOffsetOfMaxTimestamp: -1}
	for shallow, err := range m.ShallowEntries() {
		if err != nil {
			return res, err
		}
		res.BytesRead += shallow.Size()
		sr := shallow.Record
		writeOriginal := true
		var retained []LogEntry
		for deep, err := range shallow.DeepEntries() {
			if err != nil {
				return res, errorAt(err, shallow.Position, "offset %d", shallow.Offset)
			}
			res.MessagesRead++
			if !filter(deep) {
				writeOriginal = false
				continue
			}
			if deep.Record.Magic() != sr.Magic() {
				writeOriginal = false
			}
			res.MaxOffset = max(res.MaxOffset, deep.Offset)
			retained = append(retained, deep)
		}
		switch {
		case writeOriginal:
			res.Output = append(res.Output, shallow.header...)
			res.Output = append(res.Output, sr.buf...)
			res.MessagesRetained += len(retained)
			res.BytesRetained += shallow.Size()
			if sr.Timestamp() > res.MaxTimestamp {
				res.MaxTimestamp = sr.Timestamp()
				res.ShallowOffsetOfMaxTimestamp = shallow.Offset
			}
		case len(retained) > 0:
			first := retained[0]
			b := NewMemoryRecordsBuilder(first.Record.Magic(), sr.CompressionType(), sr.TimestampType(),
				first.Offset, sr.Timestamp(), 0)
			for _, e := range retained {
				if err := b.AppendRecordWithOffset(e.Offset, e.Record); err != nil {
					return res, fmt.Errorf("rebuilding the entry at offset %d: %w", shallow.Offset, err)
				}
			}
			built := b.Build()
			res.Output = append(res.Output, built.Bytes()...)
			res.MessagesRetained += len(retained)
			res.BytesRetained += built.SizeInBytes()
			if built.SizeInBytes() > shallow.Size() && built.SizeInBytes() > maxRecordSize {
				res.OversizedFirstOffsets = append(res.OversizedFirstOffsets, first.Offset)
			}
			if info := b.Info(); info.MaxTimestamp > res.MaxTimestamp {
				res.MaxTimestamp = info.MaxTimestamp
				res.ShallowOffsetOfMaxTimestamp = info.ShallowOffsetOfMaxTimestamp
			}
		}
	}
	return res, nil
}

// BuilderWithEntries returns a builder (magic and base offset taken from the first entry) with
// entries appended at their own offsets; entries must not be empty and must share the first
// entry's magic.
//
// Kafka 0.10.2: MemoryRecords.builderWithEntries.
func BuilderWithEntries(tsType TimestampType, codec CompressionType, logAppendTime int64, entries []LogEntry) (*MemoryRecordsBuilder, error) {
	if len(entries) == 0 {
		return nil, fmt.Errorf("%w: entries must not be empty", ErrIllegalArgument)
	}
	b := NewMemoryRecordsBuilder(entries[0].Record.Magic(), codec, tsType, entries[0].Offset, logAppendTime, 0)
	for _, e := range entries {
		if err := b.AppendRecordWithOffset(e.Offset, e.Record); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// WithRecords builds a set of records at consecutive offsets from initialOffset, in the magic of
// the first record (an empty set when there are none).
//
// Kafka 0.10.2: MemoryRecords.withRecords.
func WithRecords(initialOffset int64, tsType TimestampType, codec CompressionType, logAppendTime int64, records ...Record) (*MemoryRecords, error) {
	if len(records) == 0 {
		return NewMemoryRecords(nil), nil
	}
	entries := make([]LogEntry, len(records))
	for i, r := range records {
		entries[i] = NewLogEntry(initialOffset+int64(i), r)
	}
	b, err := BuilderWithEntries(tsType, codec, logAppendTime, entries)
	if err != nil {
		return nil, err
	}
	return b.Build(), nil
}
