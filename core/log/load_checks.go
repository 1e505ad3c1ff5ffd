package log

import (
	"errors"
	"fmt"
	"math"

	"github.com/zkafka/zkafka/clients/record"
)

// Load-time checks that 0.10.2 does not make (docs/deviations.md). After a clean shutdown 0.10.2
// trusts every file: an index whose entries were damaged on disk sends fetches to the wrong
// place (a later offset's data first), and an active segment that ends in a torn message stays
// torn, so the next appends land behind the torn bytes and read back as one corrupt message.
// These checks are cheap (one pass over each offset and time index, a read of the active
// segment after its last index entry); when one fails, the log falls back to recovering the
// segment, as after an unclean shutdown.

// CheckEntries verifies every entry: offsets and positions strictly increase, the first offset
// is at least the base offset, and every position lies inside a log of logSize bytes. The
// failure wraps ErrCorruptIndex.
func (i *OffsetIndex) CheckEntries(logSize int) error {
	i.mu.RLock()
	defer i.mu.RUnlock()
	prev := OffsetPosition{Offset: i.baseOffset - 1, Position: -1}
	for n := 0; n < i.entries; n++ {
		e := i.parseEntry(n)
		if e.Offset <= prev.Offset || e.Position <= prev.Position || int(e.Position) >= logSize {
			return fmt.Errorf("corrupt index %s: entry %d (offset %d, position %d) after offset %d at position %d in a log of %d bytes: %w",
				i.file, n, e.Offset, e.Position, prev.Offset, prev.Position, logSize, ErrCorruptIndex)
		}
		prev = e
	}
	return nil
}

// CheckEntries verifies every entry: timestamps strictly increase and offsets never decrease
// nor fall below the base offset. The failure wraps ErrCorruptIndex.
func (t *TimeIndex) CheckEntries() error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	prev := TimestampOffset{Timestamp: noTimestamp, Offset: t.baseOffset}
	for n := 0; n < t.entries; n++ {
		e := t.parseEntry(n)
		if (n > 0 && e.Timestamp <= prev.Timestamp) || e.Offset < prev.Offset {
			return fmt.Errorf("corrupt time index %s: entry %d (timestamp %d, offset %d) after timestamp %d, offset %d: %w",
				t.file, n, e.Timestamp, e.Offset, prev.Timestamp, prev.Offset, ErrCorruptIndex)
		}
		prev = e
	}
	return nil
}

// checkIndexes runs CheckEntries on the indexes of every segment and rebuilds those that fail,
// except the segments recoverLog is about to recover anyway (after an unclean shutdown, from the
// recovery point on): their recovery rebuilds the indexes and, when it truncates, drops the later
// segments, which a rebuild here would hide from it.
func (l *Log) checkIndexes() error {
	c := l.Config()
	recoveredLater := map[*LogSegment]bool{}
	if !l.hasCleanShutdownFile() {
		for _, s := range l.LogSegmentsRange(l.recoveryPoint.Load(), math.MaxInt64) {
			recoveredLater[s] = true
		}
	}
	for _, seg := range l.LogSegments() {
		err := seg.Index().CheckEntries(seg.Log().SizeInBytes())
		if err == nil {
			err = seg.TimeIndex().CheckEntries()
		}
		if err == nil || recoveredLater[seg] {
			continue
		}
		if !errors.Is(err, ErrCorruptIndex) {
			return err
		}
		l.logger.Warnf("Found a corrupted index file due to %v. rebuilding the indexes of segment %d of log %s...", err, seg.BaseOffset(), l.Name())
		if _, err := seg.Recover(c.MaxMessageSize); err != nil {
			return err
		}
	}
	return nil
}

// errTornTail is what CheckTail reports: the segment does not end on a whole, valid message.
var errTornTail = errors.New("segment does not end on a whole message")

// CheckTail reads the segment from its last offset-index entry to its end and checks that it
// is whole messages with valid CRCs (none larger than maxMessageSize) ending exactly at the end
// of the file.
func (s *LogSegment) CheckTail(maxMessageSize int) error {
	s.index.mu.RLock()
	last := s.index.lastEntryLocked()
	s.index.mu.RUnlock()
	size := s.log.SizeInBytes()
	start := int(last.Position)
	if start > size {
		return fmt.Errorf("%w: the last index entry points at %d in %s of %d bytes", errTornTail, start, s.log.File(), size)
	}
	tail, err := s.log.Read(start, size-start)
	if err != nil {
		return err
	}
	end := start
	for fe, err := range tail.ShallowEntriesWithMaxSize(maxMessageSize) {
		if err != nil {
			return fmt.Errorf("%w: %w", errTornTail, err)
		}
		e, err := fe.LogEntry()
		if err == nil {
			err = e.Record.EnsureValid()
		}
		if err != nil {
			if errors.Is(err, record.ErrCorruptRecord) {
				return fmt.Errorf("%w: %w", errTornTail, err)
			}
			return err
		}
		end = fe.Position + fe.SizeInBytes()
	}
	if end != size {
		return fmt.Errorf("%w: %s holds %d bytes, its messages end at %d", errTornTail, s.log.File(), size, end)
	}
	return nil
}
