package log

import (
	"encoding/binary"
	"fmt"

	"github.com/sirupsen/logrus"
)

// TimeIndexEntrySize is the size of one time-index entry: INT64 timestamp, INT32 relative offset.
const TimeIndexEntrySize = 12

// noTimestamp is Record.NO_TIMESTAMP.
const noTimestamp int64 = -1

// TimeIndex maps timestamps to offsets within one segment. An entry (T, O) promises that every
// message with a timestamp greater than T lies after offset O; entries are appended only when the
// timestamp grows, so the file is sorted by both columns. One slot is held back (IsFull counts
// maxEntries-1) for the entry written when the segment stops being active.
//
// Kafka 0.10.2: kafka.log.TimeIndex
type TimeIndex struct {
	*AbstractIndex
}

// NewTimeIndex opens (or creates, preallocated to maxIndexSize) the time index at file.
func NewTimeIndex(file string, baseOffset int64, maxIndexSize int, logger *logrus.Entry) (*TimeIndex, error) {
	a, err := openAbstractIndex(file, baseOffset, maxIndexSize, TimeIndexEntrySize, logger)
	if err != nil {
		return nil, err
	}
	return &TimeIndex{AbstractIndex: a}, nil
}

func (t *TimeIndex) timestamp(n int) int64      { return t.int64At(n * TimeIndexEntrySize) }
func (t *TimeIndex) relativeOffset(n int) int32 { return t.int32At(n*TimeIndexEntrySize + 8) }

func (t *TimeIndex) parseEntry(n int) TimestampOffset {
	return TimestampOffset{Timestamp: t.timestamp(n), Offset: t.baseOffset + int64(t.relativeOffset(n))}
}

func (t *TimeIndex) lastEntryLocked() TimestampOffset {
	if t.entries == 0 {
		return TimestampOffset{Timestamp: noTimestamp, Offset: t.baseOffset}
	}
	return t.parseEntry(t.entries - 1)
}

// LastEntry is the last entry, or (-1, baseOffset) when the index is empty.
func (t *TimeIndex) LastEntry() TimestampOffset {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.lastEntryLocked()
}

// IsFull reports whether only the reserved last slot is left.
func (t *TimeIndex) IsFull() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.entries >= t.maxEntries-1
}

// Entry returns the n-th entry with its offset RELATIVE to the base offset, as Kafka's entry(n)
// does (DumpLogSegments prints it that way).
func (t *TimeIndex) Entry(n int) (TimestampOffset, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if n < 0 || n >= t.entries {
		return TimestampOffset{}, fmt.Errorf("attempt to fetch entry %d from a time index of %d entries: %w", n, t.entries, ErrIllegalArgument)
	}
	return TimestampOffset{Timestamp: t.timestamp(n), Offset: int64(t.relativeOffset(n))}, nil
}

// MaybeAppend adds (timestamp, offset) if timestamp is larger than the last entry's; an equal
// timestamp is ignored (the roll/close entry repeating the last one). An offset or a timestamp going
// backwards is an error. skipFullCheck lets the roll/close entry use the reserved slot.
func (t *TimeIndex) MaybeAppend(timestamp, offset int64, skipFullCheck bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !skipFullCheck && t.entries >= t.maxEntries-1 {
		return fmt.Errorf("attempt to append to a full time index %s (%d entries): %w", t.file, t.entries, ErrIndexFull)
	}
	last := t.lastEntryLocked()
	if t.entries != 0 && offset < last.Offset {
		return fmt.Errorf("offset %d appended at slot %d is smaller than the last offset %d in %s: %w",
			offset, t.entries, last.Offset, t.file, ErrInvalidOffset)
	}
	if t.entries != 0 && timestamp < last.Timestamp {
		return fmt.Errorf("timestamp %d appended at slot %d is smaller than the last timestamp %d in %s: %w",
			timestamp, t.entries, last.Timestamp, t.file, ErrIllegalState)
	}
	if timestamp <= last.Timestamp {
		return nil
	}
	if t.entries >= t.maxEntries {
		return fmt.Errorf("no room in time index %s (%d entries): %w", t.file, t.entries, ErrIndexFull)
	}
	rel := offset - t.baseOffset
	if rel < 0 || rel > 2147483647 {
		return fmt.Errorf("offset %d cannot be stored relative to base offset %d in %s: %w", offset, t.baseOffset, t.file, ErrInvalidOffset)
	}
	pos := t.writePos()
	if err := t.writeMapped(func() {
		binary.BigEndian.PutUint64(t.mmap[pos:], uint64(timestamp))
		binary.BigEndian.PutUint32(t.mmap[pos+8:], uint32(int32(rel)))
	}); err != nil {
		return err
	}
	t.entries++
	return nil
}

// Lookup returns the entry with the largest timestamp <= targetTimestamp, or (-1, baseOffset).
func (t *TimeIndex) Lookup(targetTimestamp int64) TimestampOffset {
	t.mu.RLock()
	defer t.mu.RUnlock()
	slot := t.indexSlotFor(targetTimestamp, t.timestamp)
	if slot == -1 {
		return TimestampOffset{Timestamp: noTimestamp, Offset: t.baseOffset}
	}
	return t.parseEntry(slot)
}

// Truncate removes every entry.
func (t *TimeIndex) Truncate() { t.mu.Lock(); defer t.mu.Unlock(); t.entries = 0 }

// TruncateTo removes every entry whose offset is >= offset (searched by the offset column).
func (t *TimeIndex) TruncateTo(offset int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	slot := t.indexSlotFor(offset, func(n int) int64 { return t.baseOffset + int64(t.relativeOffset(n)) })
	var n int
	switch {
	case slot < 0:
		n = 0
	case t.baseOffset+int64(t.relativeOffset(slot)) == offset:
		n = slot
	default:
		n = slot + 1
	}
	t.entries = n
}

// SanityCheck verifies a time index loaded from disk: the last timestamp must not be below the first,
// the last offset not below the base offset, and the file must hold whole entries.
func (t *TimeIndex) SanityCheck() error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	last := t.lastEntryLocked()
	if t.entries != 0 && last.Timestamp < t.timestamp(0) {
		return fmt.Errorf("corrupt time index %s: last timestamp %d is smaller than the first %d: %w",
			t.file, last.Timestamp, t.timestamp(0), ErrCorruptIndex)
	}
	if t.entries != 0 && last.Offset < t.baseOffset {
		return fmt.Errorf("corrupt time index %s: last offset %d is smaller than the base offset %d: %w",
			t.file, last.Offset, t.baseOffset, ErrCorruptIndex)
	}
	if t.length%TimeIndexEntrySize != 0 {
		return fmt.Errorf("time index file %s is corrupt: %d bytes is not a multiple of %d: %w", t.file, t.length, TimeIndexEntrySize, ErrCorruptIndex)
	}
	return nil
}
