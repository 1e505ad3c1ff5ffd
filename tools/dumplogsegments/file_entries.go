package dumplogsegments

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/zkafka/zkafka/clients/record"
)

// shallowEntry is one top-level entry read from a segment file, with its byte position.
type shallowEntry struct {
	entry    record.LogEntry
	position int64
}

// Size is the entry's size including the 12-byte log overhead.
func (e shallowEntry) Size() int64 { return int64(e.entry.Size()) }

// readShallowEntries iterates the entries of f between start and end the way Kafka's
// FileLogInputStream does: it stops quietly where fewer than a header plus one byte, or
// fewer than the announced entry, remain; a size below the minimum message overhead or
// above maxRecordSize is an error (CorruptRecordException in Kafka).
func readShallowEntries(f io.ReaderAt, start, end int64, maxRecordSize int) iter.Seq2[shallowEntry, error] {
	return func(yield func(shallowEntry, error) bool) {
		var header [record.LogOverhead]byte
		pos := start
		for pos+record.LogOverhead < end {
			if _, err := f.ReadAt(header[:], pos); err != nil {
				yield(shallowEntry{}, fmt.Errorf("read log header at %d: %w", pos, err))
				return
			}
			offset := int64(binary.BigEndian.Uint64(header[0:8]))
			size := int32(binary.BigEndian.Uint32(header[8:12]))
			if size < record.RecordOverheadV0 {
				yield(shallowEntry{}, fmt.Errorf("%w: Record size is smaller than minimum record overhead (%d).", record.ErrCorruptRecord, record.RecordOverheadV0))
				return
			}
			if int64(size) > int64(maxRecordSize) {
				yield(shallowEntry{}, fmt.Errorf("%w: Record size exceeds the largest allowable message size (%d).", record.ErrCorruptRecord, maxRecordSize))
				return
			}
			if pos+record.LogOverhead+int64(size) > end {
				return
			}
			buf := make([]byte, size)
			if _, err := f.ReadAt(buf, pos+record.LogOverhead); err != nil {
				yield(shallowEntry{}, fmt.Errorf("read message at %d: %w", pos, err))
				return
			}
			e := record.NewLogEntry(offset, record.NewRecordFromBytes(buf))
			if !yield(shallowEntry{entry: e, position: pos}, nil) {
				return
			}
			pos += record.LogOverhead + int64(size)
		}
	}
}

// openLog opens a .log file read-only and returns it with its size.
func openLog(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// indexEntry is one raw index entry: the relative offset and, for .index, the position or,
// for .timeindex, the timestamp.
type indexEntry struct {
	relOffset int32
	position  int32
	timestamp int64
}

// readIndexFile reads every whole entry of an index file, as Kafka's index classes count
// them on open (file length / entry size).
func readIndexFile(path string, entrySize int) ([]indexEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	n := len(b) / entrySize
	out := make([]indexEntry, n)
	for i := range out {
		e := b[i*entrySize:]
		switch entrySize {
		case 8:
			out[i] = indexEntry{relOffset: int32(binary.BigEndian.Uint32(e)), position: int32(binary.BigEndian.Uint32(e[4:]))}
		case 12:
			out[i] = indexEntry{timestamp: int64(binary.BigEndian.Uint64(e)), relOffset: int32(binary.BigEndian.Uint32(e[8:]))}
		default:
			return nil, errors.New("unknown index entry size")
		}
	}
	return out, nil
}

// lookupPosition is OffsetIndex.lookup over raw entries: the position of the largest entry
// whose offset is <= target, or 0 when there is none.
func lookupPosition(entries []indexEntry, baseOffset, target int64) int32 {
	if len(entries) == 0 || baseOffset+int64(entries[0].relOffset) > target {
		return 0
	}
	lo, hi := 0, len(entries)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		found := baseOffset + int64(entries[mid].relOffset)
		switch {
		case found == target:
			return entries[mid].position
		case found < target:
			lo = mid
		default:
			hi = mid - 1
		}
	}
	return entries[lo].position
}
