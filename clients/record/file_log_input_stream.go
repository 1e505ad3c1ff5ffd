package record

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"sync"
)

// fileReadAhead is how many bytes the file iterator reads at once; headers (and whole entries)
// inside that window cost no further system call.
const fileReadAhead = 64 * 1024

// FileChannelLogEntry is a shallow entry of a FileRecords known by its header: the message bytes
// are read only when asked for (searching by offset needs only the headers).
//
// Kafka 0.10.2: FileLogInputStream.FileChannelLogEntry.
type FileChannelLogEntry struct {
	Offset int64
	// Position is the entry's byte position in the file (not relative to a slice), as Kafka's.
	Position int
	// recordSize is the message_size field.
	recordSize int
	fr         *FileRecords
	// loaded holds the message bytes when the iterator's read-ahead already covered them.
	loaded []byte
}

// SizeInBytes is the entry's size with the log overhead.
func (e FileChannelLogEntry) SizeInBytes() int { return LogOverhead + e.recordSize }

// NextOffset is Offset + 1.
func (e FileChannelLogEntry) NextOffset() int64 { return e.Offset + 1 }

// Record reads the message and checks its structure (ErrCorruptRecord when its lengths do not add
// up, io.ErrUnexpectedEOF when the file is now shorter). The CRC is not checked here: call
// EnsureValid, as log recovery does.
func (e FileChannelLogEntry) Record() (Record, error) {
	b := e.loaded
	if b == nil {
		b = make([]byte, e.recordSize)
		if _, err := e.fr.file.ReadAt(b, int64(e.Position+LogOverhead)); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Record{}, fmt.Errorf("reading record at position %d of %s: %w", e.Position, e.fr.File(), err)
		}
	}
	r := Record{buf: b}
	if err := r.checkStructure(); err != nil {
		return Record{}, errorAt(err, e.Position, "offset %d in %s", e.Offset, e.fr.File())
	}
	return r, nil
}

// LogEntry reads the message and returns the entry (Position relative to the file).
func (e FileChannelLogEntry) LogEntry() (LogEntry, error) {
	r, err := e.Record()
	if err != nil {
		return LogEntry{}, err
	}
	return LogEntry{Offset: e.Offset, Record: r, Position: e.Position}, nil
}

// ShallowEntries iterates the entries of this set (or slice) by reading their headers. It stops
// without error at a partial entry at the end; a size field below RecordOverheadV0 yields an error
// wrapping ErrCorruptRecord and ends the iteration.
//
// Kafka 0.10.2: FileRecords.shallowEntries (FileLogInputStream).
func (fr *FileRecords) ShallowEntries() iter.Seq2[FileChannelLogEntry, error] {
	return fr.shallowEntriesFrom(maxInt32, fr.start)
}

// ShallowEntriesWithMaxSize is ShallowEntries that also rejects size fields above maxRecordSize
// (log recovery passes max.message.bytes).
//
// Kafka 0.10.2: FileRecords.shallowEntries(maxRecordSize).
func (fr *FileRecords) ShallowEntriesWithMaxSize(maxRecordSize int) iter.Seq2[FileChannelLogEntry, error] {
	return fr.shallowEntriesFrom(maxRecordSize, fr.start)
}

func (fr *FileRecords) iterationEnd() int {
	if fr.isSlice {
		return fr.end
	}
	return fr.start + fr.SizeInBytes()
}

// shallowEntriesFrom iterates from the file position start to the end of this view.
//
// Kafka 0.10.2: FileLogInputStream.nextEntry.
func (fr *FileRecords) shallowEntriesFrom(maxRecordSize, start int) iter.Seq2[FileChannelLogEntry, error] {
	return func(yield func(FileChannelLogEntry, error) bool) {
		end := fr.iterationEnd()
		var win []byte // a fresh read-ahead window each time: yielded entries may keep sub-slices
		winStart := 0
		for pos := start; pos+LogOverhead < end; {
			if pos < winStart || pos+LogOverhead > winStart+len(win) {
				win = make([]byte, min(fileReadAhead, end-pos))
				n, err := fr.file.ReadAt(win, int64(pos))
				if err != nil && err != io.EOF {
					yield(FileChannelLogEntry{}, fmt.Errorf("reading %s at %d: %w", fr.File(), pos, err))
					return
				}
				win, winStart = win[:n], pos
				if n < LogOverhead {
					return // the file is shorter than its recorded size (truncated under us)
				}
			}
			offset, size, err := fr.entryHeader(win[pos-winStart:], pos, maxRecordSize)
			if err != nil {
				yield(FileChannelLogEntry{}, err)
				return
			}
			if pos+LogOverhead+size > end {
				return
			}
			e := FileChannelLogEntry{Offset: offset, Position: pos, recordSize: size, fr: fr}
			if rel := pos - winStart + LogOverhead; rel+size <= len(win) {
				e.loaded = win[rel : rel+size : rel+size]
			}
			if !yield(e, nil) {
				return
			}
			pos += LogOverhead + size
		}
	}
}

// DeepEntries iterates every message of the file view, decompressing wrappers (see
// MemoryRecords.DeepEntries). Entries keep Position only for uncompressed shallow messages.
//
// Kafka 0.10.2: FileRecords.deepEntries.
func (fr *FileRecords) DeepEntries() iter.Seq2[LogEntry, error] {
	return func(yield func(LogEntry, error) bool) {
		for fe, err := range fr.ShallowEntries() {
			if err != nil {
				yield(LogEntry{}, err)
				return
			}
			e, err := fe.LogEntry()
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
			inner, err := deepEntriesOf(e, false, maxInt32)
			if err != nil {
				yield(LogEntry{}, errorAt(err, e.Position, "wrapper offset %d in %s", e.Offset, fr.File()))
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

// entryHeader decodes the offset and message_size at the start of h (the entry at file position
// pos) and rejects a size below the smallest message or above maxRecordSize.
func (fr *FileRecords) entryHeader(h []byte, pos, maxRecordSize int) (offset int64, size int, err error) {
	offset = int64(binary.BigEndian.Uint64(h[OffsetOffset:]))
	size = int(int32(binary.BigEndian.Uint32(h[SizeOffset:])))
	if size < RecordOverheadV0 {
		return 0, 0, errorAt(ErrCorruptRecord, pos,
			"record size %d is less than the minimum record overhead (%d) in %s", size, RecordOverheadV0, fr.File())
	}
	if size > maxRecordSize {
		return 0, 0, errorAt(ErrCorruptRecord, pos,
			"record size %d exceeds the largest allowable message size (%d) in %s", size, maxRecordSize, fr.File())
	}
	return offset, size, nil
}

// searchFirstRead is the first window SearchForOffsetWithSize reads: an index entry is at most
// index.interval.bytes (4 KiB by default) plus one entry before its target, so most searches need
// one read of this size; each further read doubles, up to fileReadAhead.
const searchFirstRead = 8 * 1024

// searchWindows are the read-ahead buffers of SearchForOffsetWithSize, which keeps nothing that
// points into them (a fetch makes one or two searches: zeroing a fresh 64 KiB window for each was
// a measurable share of a consumer fetch).
var searchWindows = sync.Pool{New: func() any { b := make([]byte, fileReadAhead); return &b }}

// SearchForOffsetWithSize scans forward from startingPosition (a file position) for the first
// shallow entry whose offset is >= targetOffset and returns where it is, or nil if none is. A
// wrapper's offset is its last inner offset, so the entry found may contain the target. It reads
// only as far as the headers it needs: 8 KiB first, then windows doubling to 64 KiB.
//
// Kafka 0.10.2: FileRecords.searchForOffsetWithSize.
func (fr *FileRecords) SearchForOffsetWithSize(targetOffset int64, startingPosition int) (*LogEntryPosition, error) {
	bp := searchWindows.Get().(*[]byte)
	defer searchWindows.Put(bp)
	end := fr.iterationEnd()
	var win []byte
	winStart, want := 0, searchFirstRead
	for pos := startingPosition; pos+LogOverhead < end; {
		if pos < winStart || pos+LogOverhead > winStart+len(win) {
			win = (*bp)[:min(want, end-pos)]
			want = min(2*want, fileReadAhead)
			n, err := fr.file.ReadAt(win, int64(pos))
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("reading %s at %d: %w", fr.File(), pos, err)
			}
			win, winStart = win[:n], pos
			if n < LogOverhead {
				return nil, nil // the file is shorter than its recorded size (truncated under us)
			}
		}
		offset, size, err := fr.entryHeader(win[pos-winStart:], pos, maxInt32)
		if err != nil {
			return nil, err
		}
		if pos+LogOverhead+size > end {
			return nil, nil
		}
		if offset >= targetOffset {
			return &LogEntryPosition{Offset: offset, Position: pos, Size: LogOverhead + size}, nil
		}
		pos += LogOverhead + size
	}
	return nil, nil
}

// SearchForTimestamp scans forward from startingPosition for the first message whose timestamp
// is >= targetTimestamp, looking inside a wrapper once the wrapper's (max) timestamp reaches the
// target. It returns nil if no message qualifies.
//
// Kafka 0.10.2: FileRecords.searchForTimestamp.
func (fr *FileRecords) SearchForTimestamp(targetTimestamp int64, startingPosition int) (*TimestampAndOffset, error) {
	for fe, err := range fr.shallowEntriesFrom(maxInt32, startingPosition) {
		if err != nil {
			return nil, err
		}
		e, err := fe.LogEntry()
		if err != nil {
			return nil, err
		}
		if e.Record.Timestamp() < targetTimestamp {
			continue
		}
		for de, err := range e.DeepEntries() {
			if err != nil {
				return nil, err
			}
			if ts := de.Record.Timestamp(); ts >= targetTimestamp {
				return &TimestampAndOffset{Timestamp: ts, Offset: de.Offset}, nil
			}
		}
		return nil, fmt.Errorf("%w: the message set (max timestamp = %d, max offset = %d) should contain target timestamp %d, but does not",
			ErrCorruptRecord, e.Record.Timestamp(), e.Offset, targetTimestamp)
	}
	return nil, nil
}

// LargestTimestampAfter returns the largest shallow timestamp from startingPosition on, and the
// offset of its entry ({NoTimestamp, -1} when there is none).
//
// Kafka 0.10.2: FileRecords.largestTimestampAfter.
func (fr *FileRecords) LargestTimestampAfter(startingPosition int) (TimestampAndOffset, error) {
	res := TimestampAndOffset{Timestamp: NoTimestamp, Offset: -1}
	for fe, err := range fr.shallowEntriesFrom(maxInt32, startingPosition) {
		if err != nil {
			return res, err
		}
		r, err := fe.Record()
		if err != nil {
			return res, err
		}
		if ts := r.Timestamp(); ts > res.Timestamp {
			res = TimestampAndOffset{Timestamp: ts, Offset: fe.Offset}
		}
	}
	return res, nil
}
