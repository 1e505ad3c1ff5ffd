package log

import (
	"encoding/binary"
	"fmt"

	"github.com/sirupsen/logrus"
)

// OffsetIndexEntrySize is the size of one offset-index entry: INT32 relative offset, INT32 position.
const OffsetIndexEntrySize = 8

// OffsetIndex maps offsets to byte positions in a segment's .log file. It is sparse: LogSegment adds
// an entry only every index.interval.bytes, and a lookup returns the closest entry at or below the
// target, from where FileRecords scans forward. Offsets are stored relative to the segment's base
// offset so that an entry fits in 8 bytes; entries are strictly increasing in offset.
//
// Kafka 0.10.2: kafka.log.OffsetIndex
type OffsetIndex struct {
	*AbstractIndex
	lastOffset int64 // cached offset of the last entry (base offset when empty)
}

// NewOffsetIndex opens (or creates, preallocated to maxIndexSize) the offset index at file.
func NewOffsetIndex(file string, baseOffset int64, maxIndexSize int, logger *logrus.Entry) (*OffsetIndex, error) {
	a, err := openAbstractIndex(file, baseOffset, maxIndexSize, OffsetIndexEntrySize, logger)
	if err != nil {
		return nil, err
	}
	i := &OffsetIndex{AbstractIndex: a}
	i.lastOffset = i.lastEntryLocked().Offset
	return i, nil
}

func (i *OffsetIndex) relativeOffset(n int) int32 { return i.int32At(n * OffsetIndexEntrySize) }
func (i *OffsetIndex) physical(n int) int32       { return i.int32At(n*OffsetIndexEntrySize + 4) }

func (i *OffsetIndex) parseEntry(n int) OffsetPosition {
	return OffsetPosition{Offset: i.baseOffset + int64(i.relativeOffset(n)), Position: i.physical(n)}
}

func (i *OffsetIndex) lastEntryLocked() OffsetPosition {
	if i.entries == 0 {
		return OffsetPosition{Offset: i.baseOffset, Position: 0}
	}
	return i.parseEntry(i.entries - 1)
}

// LastOffset is the offset of the last entry, or the base offset when the index is empty.
func (i *OffsetIndex) LastOffset() int64 { i.mu.RLock(); defer i.mu.RUnlock(); return i.lastOffset }

// IsFull reports whether no more entries fit.
func (i *OffsetIndex) IsFull() bool {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.entries >= i.maxEntries
}

// Lookup returns the entry with the largest offset <= targetOffset, or (baseOffset, 0) when there is
// none.
func (i *OffsetIndex) Lookup(targetOffset int64) OffsetPosition {
	i.mu.RLock()
	defer i.mu.RUnlock()
	slot := i.indexSlotFor(targetOffset, func(n int) int64 { return i.baseOffset + int64(i.relativeOffset(n)) })
	if slot == -1 {
		return OffsetPosition{Offset: i.baseOffset, Position: 0}
	}
	return i.parseEntry(slot)
}

// Entry returns the n-th entry (relative offset already made absolute).
func (i *OffsetIndex) Entry(n int) (OffsetPosition, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if n < 0 || n >= i.entries {
		return OffsetPosition{}, fmt.Errorf("attempt to fetch entry %d from an index of %d entries: %w", n, i.entries, ErrIllegalArgument)
	}
	return i.parseEntry(n), nil
}

// Append adds (offset, position). The offset must be larger than the last one.
func (i *OffsetIndex) Append(offset int64, position int32) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.entries >= i.maxEntries {
		return fmt.Errorf("attempt to append to a full index %s (%d entries): %w", i.file, i.entries, ErrIndexFull)
	}
	if i.entries != 0 && offset <= i.lastOffset {
		return fmt.Errorf("offset %d appended at position %d is not larger than the last offset %d in %s: %w",
			offset, i.entries, i.lastOffset, i.file, ErrInvalidOffset)
	}
	rel := offset - i.baseOffset
	if rel < 0 || rel > 2147483647 {
		return fmt.Errorf("offset %d cannot be stored relative to base offset %d in %s: %w", offset, i.baseOffset, i.file, ErrInvalidOffset)
	}
	pos := i.writePos()
	if err := i.writeMapped(func() {
		binary.BigEndian.PutUint32(i.mmap[pos:], uint32(int32(rel)))
		binary.BigEndian.PutUint32(i.mmap[pos+4:], uint32(position))
	}); err != nil {
		return err
	}
	i.entries++
	i.lastOffset = offset
	return nil
}

// Truncate removes every entry.
func (i *OffsetIndex) Truncate() { i.mu.Lock(); defer i.mu.Unlock(); i.truncateToEntries(0) }

// TruncateTo removes every entry with an offset >= offset.
func (i *OffsetIndex) TruncateTo(offset int64) {
	i.mu.Lock()
	defer i.mu.Unlock()
	slot := i.indexSlotFor(offset, func(n int) int64 { return i.baseOffset + int64(i.relativeOffset(n)) })
	var n int
	switch {
	case slot < 0:
		n = 0 // target before the first entry: nothing survives
	case i.baseOffset+int64(i.relativeOffset(slot)) == offset:
		n = slot // exact hit: drop it and everything after
	default:
		n = slot + 1 // slot is below offset: keep it
	}
	i.truncateToEntries(n)
}

func (i *OffsetIndex) truncateToEntries(n int) {
	i.entries = n
	i.lastOffset = i.lastEntryLocked().Offset
}

// SanityCheck verifies an index loaded from disk: a non-empty index must end above its base offset,
// and the file must hold whole entries. Failure means the index must be rebuilt.
func (i *OffsetIndex) SanityCheck() error {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.entries != 0 && i.lastOffset <= i.baseOffset {
		return fmt.Errorf("corrupt index %s: non-empty but its last offset %d is not larger than the base offset %d: %w",
			i.file, i.lastOffset, i.baseOffset, ErrCorruptIndex)
	}
	if i.length%OffsetIndexEntrySize != 0 {
		return fmt.Errorf("index file %s is corrupt: %d bytes is not a multiple of %d: %w", i.file, i.length, OffsetIndexEntrySize, ErrCorruptIndex)
	}
	return nil
}
