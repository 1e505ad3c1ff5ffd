package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
)

// LogSegment is one slice of a log: a .log file of message sets (FileRecords) and its offset and
// time indexes, all named by the segment's base offset.
//
// A segment is not safe for concurrent writers: Log serialises Append, TruncateTo, Recover and the
// suffix changes under its lock. Reads (Read, NextOffset, FindOffsetByTimestamp) may run
// concurrently with the single writer, as in Kafka, because FileRecords reads and writes at explicit
// positions and the indexes lock internally.
//
// Kafka 0.10.2: kafka.log.LogSegment
type LogSegment struct {
	log                *record.FileRecords
	index              *OffsetIndex
	timeIndex          *TimeIndex
	baseOffset         int64
	indexIntervalBytes int
	rollJitterMs       int64
	time               common.Time
	logger             *logrus.Entry

	created                  int64 // wall-clock ms of creation (or of the last full truncation)
	bytesSinceLastIndexEntry int
	// rollingBasedTimestamp is the timestamp of the first message, used for time-based rolling.
	rollingBasedTimestamp    int64
	hasRollingBasedTimestamp bool

	maxTimestampSoFar    atomic.Int64
	offsetOfMaxTimestamp atomic.Int64
}

// NewLogSegment assembles a segment from already opened parts (Kafka's primary constructor; the
// cleaner and swap recovery use it). The max timestamp is initialised from the time index.
func NewLogSegment(log *record.FileRecords, index *OffsetIndex, timeIndex *TimeIndex, baseOffset int64,
	indexIntervalBytes int, rollJitterMs int64, time common.Time, logger *logrus.Entry) *LogSegment {
	s := &LogSegment{log: log, index: index, timeIndex: timeIndex, baseOffset: baseOffset,
		indexIntervalBytes: indexIntervalBytes, rollJitterMs: rollJitterMs, time: time,
		logger: orNopLogger(logger), created: time.Milliseconds()}
	last := timeIndex.LastEntry()
	s.maxTimestampSoFar.Store(last.Timestamp)
	s.offsetOfMaxTimestamp.Store(last.Offset)
	return s
}

// OpenLogSegment opens or creates the three files of the segment at startOffset in dir (Kafka's
// auxiliary constructor). With fileAlreadyExists the .log keeps its contents; with preallocate a
// new .log is sized to initFileSize up front.
func OpenLogSegment(dir string, startOffset int64, indexIntervalBytes, maxIndexSize int, rollJitterMs int64,
	time common.Time, fileAlreadyExists bool, initFileSize int, preallocate bool, logger *logrus.Entry) (*LogSegment, error) {
	fr, err := record.OpenFileRecords(LogFilename(dir, startOffset), record.FileRecordsOptions{
		FileAlreadyExists: fileAlreadyExists, Preallocate: preallocate, InitFileSize: initFileSize})
	if err != nil {
		return nil, fmt.Errorf("open segment %d in %s: %w: %w", startOffset, dir, ErrKafkaStorage, err)
	}
	idx, err := NewOffsetIndex(IndexFilename(dir, startOffset), startOffset, maxIndexSize, logger)
	if err != nil {
		_ = fr.Close()
		return nil, err
	}
	tidx, err := NewTimeIndex(TimeIndexFilename(dir, startOffset), startOffset, maxIndexSize, logger)
	if err != nil {
		_ = fr.Close()
		_ = idx.Close()
		return nil, err
	}
	return NewLogSegment(fr, idx, tidx, startOffset, indexIntervalBytes, rollJitterMs, time, logger), nil
}

// Log is the segment's message file.
func (s *LogSegment) Log() *record.FileRecords { return s.log }

// Index is the segment's offset index.
func (s *LogSegment) Index() *OffsetIndex { return s.index }

// TimeIndex is the segment's time index.
func (s *LogSegment) TimeIndex() *TimeIndex { return s.timeIndex }

// BaseOffset is the first offset the segment may hold.
func (s *LogSegment) BaseOffset() int64 { return s.baseOffset }

// RollJitterMs is the jitter drawn for this segment at creation.
func (s *LogSegment) RollJitterMs() int64 { return s.rollJitterMs }

// Size is the size of the .log in bytes.
func (s *LogSegment) Size() int64 { return int64(s.log.SizeInBytes()) }

// CanConvertToRelativeOffset reports whether offset fits in an index entry of this segment.
func (s *LogSegment) CanConvertToRelativeOffset(offset int64) bool {
	return offset-s.baseOffset <= 2147483647
}

// Append writes a validated message set whose offsets run from firstOffset to largestOffset, adding
// an offset-index entry (and a time-index entry) before it when more than index.interval.bytes
// were written since the last entry. The caller holds the log lock.
func (s *LogSegment) Append(firstOffset, largestOffset, largestTimestamp, shallowOffsetOfMaxTimestamp int64,
	records *record.MemoryRecords) error {
	if records.SizeInBytes() == 0 {
		return nil
	}
	physicalPosition := s.log.SizeInBytes()
	if physicalPosition == 0 {
		s.rollingBasedTimestamp, s.hasRollingBasedTimestamp = largestTimestamp, true
	}
	if !s.CanConvertToRelativeOffset(largestOffset) {
		return fmt.Errorf("largest offset %d in message set cannot be stored relative to base offset %d: %w",
			largestOffset, s.baseOffset, ErrIllegalArgument)
	}
	if _, err := s.log.Append(records); err != nil {
		return fmt.Errorf("append to %s: %w: %w", s.log.File(), ErrKafkaStorage, err)
	}
	if largestTimestamp > s.maxTimestampSoFar.Load() {
		s.maxTimestampSoFar.Store(largestTimestamp)
		s.offsetOfMaxTimestamp.Store(shallowOffsetOfMaxTimestamp)
	}
	if s.bytesSinceLastIndexEntry > s.indexIntervalBytes {
		if err := s.index.Append(firstOffset, int32(physicalPosition)); err != nil {
			return err
		}
		if err := s.timeIndex.MaybeAppend(s.maxTimestampSoFar.Load(), s.offsetOfMaxTimestamp.Load(), false); err != nil {
			return err
		}
		s.bytesSinceLastIndexEntry = 0
	}
	return s.indexWithinAppend(records.Bytes(), physicalPosition)
}

// indexWithinAppend adds an offset-index entry before each later shallow entry of one appended
// message set that starts more than index.interval.bytes after the last index entry, as recovery
// does for every shallow entry (0.10.2 indexes only the start of each append, so a 1 MB produce
// request left 1 MB between entries and every fetch into it scanned up to 1 MB of headers). The
// entry's offset is the previous shallow entry's offset + 1: every offset below it is in an
// earlier entry, which holds for a compressed wrapper (whose offset is its last inner offset) and
// for offsets with gaps. A full index gets no entries here (the next append rolls the segment).
func (s *LogSegment) indexWithinAppend(buf []byte, physicalPosition int) error {
	prevOffset := int64(-1)
	for pos := 0; pos+record.LogOverhead <= len(buf); {
		size := record.LogOverhead + int(int32(binary.BigEndian.Uint32(buf[pos+record.SizeOffset:])))
		if size <= record.LogOverhead {
			break // validated before the append; never loop on a bad size
		}
		if pos > 0 && s.bytesSinceLastIndexEntry > s.indexIntervalBytes && !s.index.IsFull() {
			if err := s.index.Append(prevOffset+1, int32(physicalPosition+pos)); err != nil {
				return err
			}
			s.bytesSinceLastIndexEntry = 0
		}
		prevOffset = int64(binary.BigEndian.Uint64(buf[pos+record.OffsetOffset:]))
		s.bytesSinceLastIndexEntry += size
		pos += size
	}
	return nil
}

// translateOffset finds the first shallow entry with an offset >= offset, starting from the index
// entry at or below it (and not before startingFilePosition). nil means the offset is past the end.
func (s *LogSegment) translateOffset(offset int64, startingFilePosition int) (*record.LogEntryPosition, error) {
	mapping := s.index.Lookup(offset)
	return s.log.SearchForOffsetWithSize(offset, max(int(mapping.Position), startingFilePosition))
}

// Read returns up to maxSize bytes starting at the first shallow entry with offset >= startOffset,
// ending before maxOffset's entry (if maxOffset is not nil) and never past maxPosition. The records
// are a slice view of the .log file. It returns nil when startOffset is beyond the segment.
// minOneMessage raises maxSize to the size of the first entry so that a large message is not stuck.
func (s *LogSegment) Read(startOffset int64, maxOffset *int64, maxSize int, maxPosition int64, minOneMessage bool) (*FetchDataInfo, error) {
	if maxSize < 0 {
		return nil, fmt.Errorf("invalid max size %d for log read: %w", maxSize, ErrIllegalArgument)
	}
	logSize := int64(s.log.SizeInBytes()) // may grow under us; keep one value
	start, err := s.translateOffset(startOffset, 0)
	if err != nil {
		return nil, err
	}
	if start == nil {
		return nil, nil
	}
	startPosition := start.Position
	meta := LogOffsetMetadata{MessageOffset: startOffset, SegmentBaseOffset: s.baseOffset, RelativePositionInSegment: int32(startPosition)}
	adjustedMaxSize := maxSize
	if minOneMessage {
		adjustedMaxSize = max(maxSize, start.Size)
	}
	if adjustedMaxSize == 0 {
		return &FetchDataInfo{FetchOffsetMetadata: meta, Records: record.NewMemoryRecords(nil)}, nil
	}
	var length int64
	if maxOffset == nil {
		length = min(maxPosition-int64(startPosition), int64(adjustedMaxSize))
	} else {
		if *maxOffset < startOffset {
			return &FetchDataInfo{FetchOffsetMetadata: meta, Records: record.NewMemoryRecords(nil)}, nil
		}
		mapping, err := s.translateOffset(*maxOffset, startPosition)
		if err != nil {
			return nil, err
		}
		endPosition := logSize // maxOffset is past the end of the segment
		if mapping != nil {
			endPosition = int64(mapping.Position)
		}
		length = min(min(maxPosition, endPosition)-int64(startPosition), int64(adjustedMaxSize))
	}
	if length < 0 {
		length = 0
	}
	slice, err := s.log.Read(startPosition, int(length))
	if err != nil {
		return nil, err
	}
	return &FetchDataInfo{FetchOffsetMetadata: meta, Records: slice, FirstEntryIncomplete: adjustedMaxSize < start.Size}, nil
}

// Recover rebuilds both indexes from the .log and truncates the .log at the first entry that is
// partial, larger than maxMessageSize or fails its CRC. It returns the number of bytes truncated.
// An ErrInvalidOffset from the index (offsets not increasing) is returned to the caller, which then
// empties the segment.
func (s *LogSegment) Recover(maxMessageSize int) (int, error) {
	s.index.Truncate()
	if err := s.index.Resize(s.index.MaxIndexSize()); err != nil {
		return 0, err
	}
	s.timeIndex.Truncate()
	if err := s.timeIndex.Resize(s.timeIndex.MaxIndexSize()); err != nil {
		return 0, err
	}
	validBytes := 0
	lastIndexEntry := 0
	maxTs := record.NoTimestamp
	offsetOfMaxTs := s.offsetOfMaxTimestamp.Load()
	for fe, err := range s.log.ShallowEntriesWithMaxSize(maxMessageSize) {
		if err == nil {
			var e record.LogEntry
			if e, err = fe.LogEntry(); err == nil {
				if err = e.Record.EnsureValid(); err == nil {
					if ts := e.Record.Timestamp(); ts > maxTs {
						maxTs, offsetOfMaxTs = ts, e.Offset
					}
					if validBytes-lastIndexEntry > s.indexIntervalBytes {
						startOffset, ferr := firstOffsetOf(e)
						if ferr != nil {
							err = ferr
						} else {
							if ierr := s.index.Append(startOffset, int32(validBytes)); ierr != nil {
								return 0, ierr
							}
							if ierr := s.timeIndex.MaybeAppend(maxTs, offsetOfMaxTs, false); ierr != nil {
								return 0, ierr
							}
							lastIndexEntry = validBytes
						}
					}
					if err == nil {
						validBytes += e.Size()
						continue
					}
				}
			}
		}
		if errors.Is(err, record.ErrCorruptRecord) {
			s.logger.Warnf("Found invalid messages in log segment %s at byte offset %d: %v.", s.log.File(), validBytes, err)
			break
		}
		return 0, fmt.Errorf("recover %s: %w: %w", s.log.File(), ErrKafkaStorage, err)
	}
	s.maxTimestampSoFar.Store(maxTs)
	s.offsetOfMaxTimestamp.Store(offsetOfMaxTs)
	truncated := s.log.SizeInBytes() - validBytes
	if _, err := s.log.TruncateTo(validBytes); err != nil {
		return 0, fmt.Errorf("truncate %s: %w: %w", s.log.File(), ErrKafkaStorage, err)
	}
	if err := s.index.TrimToValidSize(); err != nil {
		return 0, err
	}
	if err := s.timeIndex.MaybeAppend(maxTs, offsetOfMaxTs, true); err != nil {
		return 0, err
	}
	if err := s.timeIndex.TrimToValidSize(); err != nil {
		return 0, err
	}
	return truncated, nil
}

// firstOffsetOf is LogEntry.firstOffset: the entry's own offset, or for a wrapper the offset of its
// first inner message (which needs decompression).
func firstOffsetOf(e record.LogEntry) (int64, error) {
	if !e.IsCompressed() {
		return e.Offset, nil
	}
	for de, err := range e.DeepEntries() {
		if err != nil {
			return 0, err
		}
		return de.Offset, nil
	}
	return e.Offset, nil
}

// LoadLargestTimestamp re-reads the max timestamp from the time index and, with readToLogEnd, from
// the messages after its last entry.
func (s *LogSegment) LoadLargestTimestamp(readToLogEnd bool) error {
	last := s.timeIndex.LastEntry()
	s.maxTimestampSoFar.Store(last.Timestamp)
	s.offsetOfMaxTimestamp.Store(last.Offset)
	if readToLogEnd {
		pos := s.index.Lookup(last.Offset)
		after, err := s.log.LargestTimestampAfter(int(pos.Position))
		if err != nil {
			return err
		}
		if after.Timestamp > last.Timestamp {
			s.maxTimestampSoFar.Store(after.Timestamp)
			s.offsetOfMaxTimestamp.Store(after.Offset)
		}
	}
	return nil
}

// TruncateTo removes every message with an offset >= offset (at shallow-entry granularity) and
// returns the bytes removed. The indexes are re-extended to their max size, since a truncated
// segment becomes the active one.
func (s *LogSegment) TruncateTo(offset int64) (int, error) {
	mapping, err := s.translateOffset(offset, 0)
	if err != nil {
		return 0, err
	}
	if mapping == nil {
		return 0, nil
	}
	s.index.TruncateTo(offset)
	s.timeIndex.TruncateTo(offset)
	if err := s.index.Resize(s.index.MaxIndexSize()); err != nil {
		return 0, err
	}
	if err := s.timeIndex.Resize(s.timeIndex.MaxIndexSize()); err != nil {
		return 0, err
	}
	n, err := s.log.TruncateTo(mapping.Position)
	if err != nil {
		return 0, fmt.Errorf("truncate %s: %w: %w", s.log.File(), ErrKafkaStorage, err)
	}
	if s.log.SizeInBytes() == 0 {
		s.created = s.time.Milliseconds()
		s.hasRollingBasedTimestamp = false
	}
	s.bytesSinceLastIndexEntry = 0
	if s.maxTimestampSoFar.Load() >= 0 {
		if err := s.LoadLargestTimestamp(true); err != nil {
			return n, err
		}
	}
	return n, nil
}

// NextOffset is the offset after the last message in the segment (the base offset when empty).
func (s *LogSegment) NextOffset() (int64, error) {
	fetch, err := s.Read(s.index.LastOffset(), nil, s.log.SizeInBytes(), s.Size(), false)
	if err != nil {
		return 0, err
	}
	if fetch == nil {
		return s.baseOffset, nil
	}
	fr, ok := fetch.Records.(*record.FileRecords)
	if !ok {
		return s.baseOffset, nil
	}
	next := s.baseOffset
	for e, err := range fr.ShallowEntries() {
		if err != nil {
			return 0, err
		}
		next = e.NextOffset()
	}
	return next, nil
}

// Flush fsyncs the .log and msyncs both indexes.
func (s *LogSegment) Flush() error {
	if err := s.log.Flush(); err != nil {
		return fmt.Errorf("flush %s: %w: %w", s.log.File(), ErrKafkaStorage, err)
	}
	if err := s.index.Flush(); err != nil {
		return err
	}
	return s.timeIndex.Flush()
}

func replaceSuffix(path, oldSuffix, newSuffix string) (string, error) {
	if !strings.HasSuffix(path, oldSuffix) {
		return "", fmt.Errorf("expected %s to end with %q: %w", path, oldSuffix, ErrIllegalArgument)
	}
	return strings.TrimSuffix(path, oldSuffix) + newSuffix, nil
}

// ChangeFileSuffixes renames the three files from oldSuffix to newSuffix (e.g. "" → ".deleted",
// ".cleaned" → ".swap").
func (s *LogSegment) ChangeFileSuffixes(oldSuffix, newSuffix string) error {
	p, err := replaceSuffix(s.log.File(), oldSuffix, newSuffix)
	if err != nil {
		return err
	}
	if err := s.log.RenameTo(p); err != nil {
		return fmt.Errorf("failed to change the log file suffix from %q to %q for log segment %d: %w: %w", oldSuffix, newSuffix, s.baseOffset, ErrKafkaStorage, err)
	}
	if p, err = replaceSuffix(s.index.File(), oldSuffix, newSuffix); err != nil {
		return err
	}
	if err := s.index.RenameTo(p); err != nil {
		return fmt.Errorf("failed to change the index file suffix from %q to %q for log segment %d: %w", oldSuffix, newSuffix, s.baseOffset, err)
	}
	if p, err = replaceSuffix(s.timeIndex.File(), oldSuffix, newSuffix); err != nil {
		return err
	}
	if err := s.timeIndex.RenameTo(p); err != nil {
		return fmt.Errorf("failed to change the timeindex file suffix from %q to %q for log segment %d: %w", oldSuffix, newSuffix, s.baseOffset, err)
	}
	return nil
}

// OnBecomeInactiveSegment writes the final time-index entry (into the reserved slot) when the
// segment stops being the active one.
func (s *LogSegment) OnBecomeInactiveSegment() error {
	return s.timeIndex.MaybeAppend(s.maxTimestampSoFar.Load(), s.offsetOfMaxTimestamp.Load(), true)
}

// TimeWaitedForRoll is how long the segment has been collecting messages: by message timestamps
// when the first message has one, otherwise by the wall clock since creation.
func (s *LogSegment) TimeWaitedForRoll(now, messageTimestamp int64) int64 {
	if !s.hasRollingBasedTimestamp {
		for fe, err := range s.log.ShallowEntries() {
			if err != nil {
				break
			}
			if r, err := fe.Record(); err == nil {
				s.rollingBasedTimestamp, s.hasRollingBasedTimestamp = r.Timestamp(), true
			}
			break
		}
	}
	if s.hasRollingBasedTimestamp && s.rollingBasedTimestamp >= 0 {
		return messageTimestamp - s.rollingBasedTimestamp
	}
	return now - s.created
}

// FindOffsetByTimestamp returns the first message with a timestamp >= timestamp in this segment
// (its timestamp and offset), or ok = false.
func (s *LogSegment) FindOffsetByTimestamp(timestamp int64) (TimestampOffset, bool, error) {
	to := s.timeIndex.Lookup(timestamp)
	pos := s.index.Lookup(to.Offset).Position
	found, err := s.log.SearchForTimestamp(timestamp, int(pos))
	if err != nil || found == nil {
		return TimestampOffset{}, false, err
	}
	return TimestampOffset{Timestamp: found.Timestamp, Offset: found.Offset}, true, nil
}

// Close writes the final time-index entry, trims both indexes and closes the .log (which flushes
// and trims a preallocated tail). It tries every step and returns the first error.
func (s *LogSegment) Close() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	keep(s.timeIndex.MaybeAppend(s.maxTimestampSoFar.Load(), s.offsetOfMaxTimestamp.Load(), true))
	keep(s.index.Close())
	keep(s.timeIndex.Close())
	keep(s.log.Close())
	return first
}

// Delete removes the three files.
func (s *LogSegment) Delete() error {
	var first error
	if err := s.log.Delete(); err != nil && !errors.Is(err, os.ErrNotExist) {
		first = fmt.Errorf("delete of log %s failed: %w: %w", s.log.File(), ErrKafkaStorage, err)
	}
	if err := s.index.Delete(); err != nil && first == nil {
		first = err
	}
	if err := s.timeIndex.Delete(); err != nil && first == nil {
		first = err
	}
	return first
}

// LastModified is the .log file's mtime in ms.
func (s *LogSegment) LastModified() int64 {
	st, err := os.Stat(s.log.File())
	if err != nil {
		return 0
	}
	return st.ModTime().UnixMilli()
}

// SetLastModified sets the mtime of the three files (the cleaner keeps the source segment's).
func (s *LogSegment) SetLastModified(ms int64) error {
	t := time.UnixMilli(ms)
	for _, p := range []string{s.log.File(), s.index.File(), s.timeIndex.File()} {
		if err := os.Chtimes(p, t, t); err != nil {
			return fmt.Errorf("set mtime of %s: %w: %w", p, ErrKafkaStorage, err)
		}
	}
	return nil
}

// LargestTimestamp is the max message timestamp in the segment, or its mtime when it has none
// (magic-0 data); retention by time compares against it.
func (s *LogSegment) LargestTimestamp() int64 {
	if ts := s.maxTimestampSoFar.Load(); ts >= 0 {
		return ts
	}
	return s.LastModified()
}

// MaxTimestampSoFar is the in-memory max timestamp (-1 when none).
func (s *LogSegment) MaxTimestampSoFar() int64 { return s.maxTimestampSoFar.Load() }

// String is "LogSegment(baseOffset=…, size=…)".
func (s *LogSegment) String() string {
	return fmt.Sprintf("LogSegment(baseOffset=%d, size=%d)", s.baseOffset, s.Size())
}

// openSegmentFiles opens a segment whose three files have explicit paths (swap and cleaned files).
func openSegmentFiles(logPath, indexPath, timeIndexPath string, start int64, c *LogConfig, time common.Time,
	logger *logrus.Entry) (*LogSegment, error) {
	fr, err := record.OpenFileRecords(logPath, record.FileRecordsOptions{FileAlreadyExists: true})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w: %w", logPath, ErrKafkaStorage, err)
	}
	idx, err := NewOffsetIndex(indexPath, start, c.MaxIndexSize, logger)
	if err != nil {
		_ = fr.Close()
		return nil, err
	}
	tidx, err := NewTimeIndex(timeIndexPath, start, c.MaxIndexSize, logger)
	if err != nil {
		_ = fr.Close()
		_ = idx.Close()
		return nil, err
	}
	return NewLogSegment(fr, idx, tidx, start, c.IndexInterval, c.RandomSegmentJitter(), time, logger), nil
}
