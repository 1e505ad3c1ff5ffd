package log

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/utils"
)

// ErrThreadShutdown is Kafka's ThreadShutdownException: the cleaner thread is stopping and
// abandons the current cleaning.
var ErrThreadShutdown = errors.New("cleaner thread shutting down")

// CleanerStats counts one cleaning's work for the cleaner's log line and gauges.
//
// Kafka 0.10.2: kafka.log.CleanerStats.
type CleanerStats struct {
	StartTime, MapCompleteTime, EndTime int64
	BytesRead, BytesWritten             int64
	MapBytesRead, MapMessagesRead       int64
	MessagesRead, InvalidMessagesRead   int64
	MessagesWritten                     int64
	BufferUtilization                   float64
}

func newCleanerStats(t common.Time) *CleanerStats {
	return &CleanerStats{StartTime: t.Milliseconds(), MapCompleteTime: -1, EndTime: -1}
}

// ElapsedSecs is the whole cleaning's duration.
func (s *CleanerStats) ElapsedSecs() float64 { return float64(s.EndTime-s.StartTime) / 1000 }

// ElapsedIndexSecs is the time spent building the offset map.
func (s *CleanerStats) ElapsedIndexSecs() float64 {
	return float64(s.MapCompleteTime-s.StartTime) / 1000
}

// Cleaner compacts one log at a time: it maps the latest offset of every key in the dirty
// section, then rewrites the segments up to the map's end keeping only each key's latest
// message (and tombstones younger than delete.retention.ms).
//
// Kafka 0.10.2: kafka.log.Cleaner. Reads and writes go through the LogCleaner's shared
// throttler (log.cleaner.io.max.bytes.per.second); a Cleaner built alone is unthrottled.
type Cleaner struct {
	id                  int
	offsetMap           OffsetMap
	ioBufferSize        int
	maxIoBufferSize     int
	dupBufferLoadFactor float64
	time                common.Time
	checkDone           func(common.TopicPartition) error
	logger              *logrus.Entry
	throttler           *utils.Throttler

	readBuffer  []byte
	writeBuffer []byte

	// afterCleanedWritten, when set (tests only), runs after the .cleaned files of a group
	// are complete and before the swap starts; an error abandons the group as a crash would.
	afterCleanedWritten func(cleaned *LogSegment) error
}

// NewCleaner builds a cleaner. checkDone is called between chunks of work and returns an
// error to stop (abort or shutdown).
func NewCleaner(id int, offsetMap OffsetMap, ioBufferSize, maxIoBufferSize int, dupBufferLoadFactor float64,
	time common.Time, checkDone func(common.TopicPartition) error, logger *logrus.Entry) (*Cleaner, error) {
	if float64(offsetMap.Slots())*dupBufferLoadFactor <= 1 {
		return nil, fmt.Errorf("%w: offset map is too small to fit in even a single message, so log cleaning will never make progress. You can increase log.cleaner.dedupe.buffer.size or decrease log.cleaner.threads", ErrIllegalArgument)
	}
	if checkDone == nil {
		checkDone = func(common.TopicPartition) error { return nil }
	}
	return &Cleaner{
		id: id, offsetMap: offsetMap, ioBufferSize: ioBufferSize, maxIoBufferSize: maxIoBufferSize,
		dupBufferLoadFactor: dupBufferLoadFactor, time: time, checkDone: checkDone,
		logger:     orNopLogger(logger).WithField("prefix", fmt.Sprintf("Cleaner %d: ", id)),
		readBuffer: make([]byte, ioBufferSize), writeBuffer: make([]byte, 0, ioBufferSize),
	}, nil
}

// clean compacts cleanable and returns the next first dirty offset (one past the last offset
// put into the map) with the statistics.
//
// Kafka 0.10.2: Cleaner.clean.
func (c *Cleaner) clean(cleanable LogToClean) (int64, *CleanerStats, error) {
	stats := newCleanerStats(c.time)
	log := cleanable.Log
	c.logger.Infof("Beginning cleaning of log %s.", log.Name())
	c.logger.Infof("Building offset map for %s...", log.Name())
	upperBoundOffset := cleanable.FirstUncleanableOffset
	if err := c.buildOffsetMap(log, cleanable.FirstDirtyOffset, upperBoundOffset, c.offsetMap, stats); err != nil {
		return 0, stats, err
	}
	endOffset := c.offsetMap.LatestOffset() + 1
	stats.MapCompleteTime = c.time.Milliseconds()

	// Tombstones are kept while their segment is younger than delete.retention.ms, measured
	// from the last modification of the newest segment of the clean section.
	var deleteHorizonMs int64
	if clean := log.LogSegmentsRange(0, cleanable.FirstDirtyOffset); len(clean) > 0 {
		deleteHorizonMs = clean[len(clean)-1].LastModified() - log.Config().DeleteRetentionMs
	}
	c.logger.Infof("Cleaning log %s (discarding tombstones prior to %s)...", log.Name(), time.UnixMilli(deleteHorizonMs).UTC())
	groups := groupSegmentsBySize(log.LogSegmentsRange(0, endOffset), log.Config().SegmentSize,
		log.Config().MaxIndexSize, cleanable.FirstUncleanableOffset)
	for _, group := range groups {
		if err := c.cleanSegments(log, group, c.offsetMap, deleteHorizonMs, stats); err != nil {
			return 0, stats, err
		}
	}
	stats.BufferUtilization = c.offsetMap.Utilization()
	stats.EndTime = c.time.Milliseconds()
	return endOffset, stats, nil
}

// cleanSegments rewrites a group of segments into one segment at the group's first base
// offset, written to .cleaned files and then swapped in with Log.replaceSegments.
//
// Kafka 0.10.2: Cleaner.cleanSegments.
func (c *Cleaner) cleanSegments(log *Log, segments []*LogSegment, m OffsetMap, deleteHorizonMs int64, stats *CleanerStats) error {
	first := segments[0]
	logFile := first.Log().File() + CleanedFileSuffix
	indexFile := first.Index().File() + CleanedFileSuffix
	timeIndexFile := first.TimeIndex().File() + CleanedFileSuffix
	for _, f := range []string{logFile, indexFile, timeIndexFile} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("%w: %w", ErrKafkaStorage, err)
		}
	}
	cfg := log.Config()
	records, err := record.OpenFileRecords(logFile, record.FileRecordsOptions{InitFileSize: log.initFileSize(), Preallocate: cfg.Preallocate})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKafkaStorage, err)
	}
	index, err := NewOffsetIndex(indexFile, first.BaseOffset(), first.Index().MaxIndexSize(), c.logger)
	if err != nil {
		_ = records.Delete()
		return err
	}
	timeIndex, err := NewTimeIndex(timeIndexFile, first.BaseOffset(), first.TimeIndex().MaxIndexSize(), c.logger)
	if err != nil {
		_ = records.Delete()
		_ = index.Delete()
		return err
	}
	cleaned := NewLogSegment(records, index, timeIndex, first.BaseOffset(), cfg.IndexInterval, first.RollJitterMs(), c.time, c.logger)

	err = func() error {
		for _, old := range segments {
			retainDeletes := old.LastModified() > deleteHorizonMs
			what := "discarding"
			if retainDeletes {
				what = "retaining"
			}
			c.logger.Infof("Cleaning segment %d in log %s (largest timestamp %s) into %d, %s deletes.",
				old.BaseOffset(), log.Name(), time.UnixMilli(old.LargestTimestamp()).UTC(), cleaned.BaseOffset(), what)
			if err := c.cleanInto(log.TopicPartition(), old, cleaned, m, retainDeletes, cfg.MaxMessageSize, stats); err != nil {
				return err
			}
		}
		if err := index.TrimToValidSize(); err != nil {
			return err
		}
		if err := cleaned.OnBecomeInactiveSegment(); err != nil {
			return err
		}
		if err := timeIndex.TrimToValidSize(); err != nil {
			return err
		}
		if err := cleaned.Flush(); err != nil {
			return err
		}
		// The cleaned segment takes the age of the newest segment it replaces, so retention
		// and the delete horizon see the same age as before.
		if err := cleaned.SetLastModified(segments[len(segments)-1].LastModified()); err != nil {
			return err
		}
		if c.afterCleanedWritten != nil {
			if err := c.afterCleanedWritten(cleaned); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		// Kafka deletes the .cleaned files only on abort; any failure leaves nothing usable,
		// and the startup scan would delete them anyway.
		_ = cleaned.Delete()
		return err
	}
	bases := make([]int64, len(segments))
	for i, s := range segments {
		bases[i] = s.BaseOffset()
	}
	c.logger.Infof("Swapping in cleaned segment %d for segment(s) %v in log %s.", cleaned.BaseOffset(), bases, log.Name())
	return log.ReplaceSegments(cleaned, segments, false)
}

// cleanInto copies source's retained messages into dest, a read buffer at a time.
//
// Kafka 0.10.2: Cleaner.cleanInto.
func (c *Cleaner) cleanInto(tp common.TopicPartition, source, dest *LogSegment, m OffsetMap, retainDeletes bool,
	maxLogMessageSize int, stats *CleanerStats) error {
	retain := func(e record.LogEntry) bool { return shouldRetainMessage(m, retainDeletes, e, stats) }
	position := 0
	for position < int(source.Size()) {
		if err := c.checkDone(tp); err != nil {
			return err
		}
		n, err := source.Log().ReadInto(c.readBuffer, position)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrKafkaStorage, err)
		}
		c.throttler.MaybeThrottle(float64(n))
		result, err := filterTo(c.readBuffer[:n], retain, c.writeBuffer[:0])
		if err != nil {
			return err
		}
		c.writeBuffer = result.output[:0]
		stats.MessagesRead += int64(result.messagesRead)
		stats.BytesRead += int64(result.bytesRead)
		stats.MessagesWritten += int64(result.messagesRetained)
		stats.BytesWritten += int64(result.bytesRetained)
		position += result.bytesRead
		if len(result.output) > 0 {
			retained := record.NewMemoryRecords(result.output)
			firstOffset := int64(-1)
			for e, err := range retained.DeepEntries() {
				if err != nil {
					return err
				}
				firstOffset = e.Offset
				break
			}
			if err := dest.Append(firstOffset, result.maxOffset, result.maxTimestamp, result.shallowOffsetOfMaxTimestamp, retained); err != nil {
				return err
			}
			c.throttler.MaybeThrottle(float64(len(result.output)))
		}
		if n > 0 && result.messagesRead == 0 {
			if err := c.growBuffers(maxLogMessageSize); err != nil {
				return err
			}
		}
	}
	c.restoreBuffers()
	return nil
}

// shouldRetainMessage is the compaction rule for one message.
//
// Kafka 0.10.2: Cleaner.shouldRetainMessage. A message past the map's last offset was not
// seen when the map was built and is kept; a keyless message is dropped (and counted as
// invalid); a message whose key has a newer offset is dropped; a tombstone is dropped once
// its segment is older than the delete horizon.
func shouldRetainMessage(m OffsetMap, retainDeletes bool, e record.LogEntry, stats *CleanerStats) bool {
	if e.Offset > m.LatestOffset() {
		return true
	}
	if !e.Record.HasKey() {
		stats.InvalidMessagesRead++
		return false
	}
	foundOffset := m.Get(e.Record.Key())
	redundant := foundOffset >= 0 && e.Offset < foundOffset
	obsoleteDelete := !retainDeletes && e.Record.HasNullValue()
	return !redundant && !obsoleteDelete
}

// growBuffers doubles the I/O buffers (up to the largest message size) when a message does
// not fit in them.
func (c *Cleaner) growBuffers(maxLogMessageSize int) error {
	maxBufferSize := max(maxLogMessageSize, c.maxIoBufferSize)
	if len(c.readBuffer) >= maxBufferSize || cap(c.writeBuffer) >= maxBufferSize {
		return fmt.Errorf("%w: This log contains a message larger than maximum allowable size of %d.", ErrIllegalState, maxBufferSize)
	}
	newSize := min(len(c.readBuffer)*2, maxBufferSize)
	c.logger.Infof("Growing cleaner I/O buffers from %dbytes to %d bytes.", len(c.readBuffer), newSize)
	c.readBuffer = make([]byte, newSize)
	c.writeBuffer = make([]byte, 0, newSize)
	return nil
}

// restoreBuffers shrinks grown buffers back to the configured size.
func (c *Cleaner) restoreBuffers() {
	if len(c.readBuffer) > c.ioBufferSize {
		c.readBuffer = make([]byte, c.ioBufferSize)
	}
	if cap(c.writeBuffer) > c.ioBufferSize {
		c.writeBuffer = make([]byte, 0, c.ioBufferSize)
	}
}

// groupSegmentsBySize groups consecutive segments whose combined log and index sizes fit in
// one segment and whose offsets fit relative to the group's base offset.
//
// Kafka 0.10.2: Cleaner.groupSegmentsBySize (with the KAFKA-5413 offset-range bound).
func groupSegmentsBySize(segments []*LogSegment, maxSize, maxIndexSize int, firstUncleanableOffset int64) [][]*LogSegment {
	var grouped [][]*LogSegment
	segs := segments
	for len(segs) > 0 {
		group := []*LogSegment{segs[0]}
		logSize := segs[0].Size()
		indexSize := int64(segs[0].Index().SizeInBytes())
		timeIndexSize := int64(segs[0].TimeIndex().SizeInBytes())
		segs = segs[1:]
		for len(segs) > 0 &&
			logSize+segs[0].Size() <= int64(maxSize) &&
			indexSize+int64(segs[0].Index().SizeInBytes()) <= int64(maxIndexSize) &&
			timeIndexSize+int64(segs[0].TimeIndex().SizeInBytes()) <= int64(maxIndexSize) &&
			lastOffsetForFirstSegment(segs, firstUncleanableOffset)-group[0].BaseOffset() <= maxInt32 {
			group = append(group, segs[0])
			logSize += segs[0].Size()
			indexSize += int64(segs[0].Index().SizeInBytes())
			timeIndexSize += int64(segs[0].TimeIndex().SizeInBytes())
			segs = segs[1:]
		}
		grouped = append(grouped, group)
	}
	return grouped
}

const maxInt32 = 1<<31 - 1

// lastOffsetForFirstSegment bounds the last offset of segs[0] without reading it: the next
// segment's base minus one, or the first uncleanable offset minus one for the last.
func lastOffsetForFirstSegment(segs []*LogSegment, firstUncleanableOffset int64) int64 {
	if len(segs) > 1 {
		return segs[1].BaseOffset() - 1
	}
	return firstUncleanableOffset - 1
}

// buildOffsetMap fills m with the latest offset of every key in [start, end), stopping early
// when the map reaches its load factor.
//
// Kafka 0.10.2: Cleaner.buildOffsetMap.
func (c *Cleaner) buildOffsetMap(log *Log, start, end int64, m OffsetMap, stats *CleanerStats) error {
	m.Clear()
	dirty := log.LogSegmentsRange(start, end)
	c.logger.Infof("Building offset map for log %s for %d segments in offset range [%d, %d).", log.Name(), len(dirty), start, end)
	for i, segment := range dirty {
		if err := c.checkDone(log.TopicPartition()); err != nil {
			return err
		}
		full, err := c.buildOffsetMapForSegment(log.TopicPartition(), segment, m, start, log.Config().MaxMessageSize, stats)
		if err != nil {
			return err
		}
		if full {
			c.logger.Debugf("Offset map is full, %d segments fully mapped, segment with base offset %d is partially mapped", i, segment.BaseOffset())
			break
		}
	}
	c.logger.Infof("Offset map for log %s complete.", log.Name())
	return nil
}

// buildOffsetMapForSegment adds one segment's keys; true means the map is full.
func (c *Cleaner) buildOffsetMapForSegment(tp common.TopicPartition, segment *LogSegment, m OffsetMap, start int64,
	maxLogMessageSize int, stats *CleanerStats) (bool, error) {
	position := int(segment.Index().Lookup(start).Position)
	maxDesiredMapSize := int(float64(m.Slots()) * c.dupBufferLoadFactor)
	for position < int(segment.Size()) {
		if err := c.checkDone(tp); err != nil {
			return false, err
		}
		n, err := segment.Log().ReadInto(c.readBuffer, position)
		if err != nil {
			return false, fmt.Errorf("%w: %w", ErrKafkaStorage, err)
		}
		records := record.NewMemoryRecords(c.readBuffer[:n])
		c.throttler.MaybeThrottle(float64(n))
		startPosition := position
		for e, err := range records.DeepEntries() {
			if err != nil {
				return false, err
			}
			if e.Record.HasKey() && e.Offset >= start {
				if m.Size() >= maxDesiredMapSize {
					return true, nil
				}
				if err := m.Put(e.Record.Key(), e.Offset); err != nil {
					return false, err
				}
			}
			stats.MapMessagesRead++
		}
		bytesRead := records.ValidBytes()
		position += bytesRead
		stats.MapBytesRead += int64(bytesRead)
		if position == startPosition {
			if err := c.growBuffers(maxLogMessageSize); err != nil {
				return false, err
			}
		}
	}
	c.restoreBuffers()
	return false, nil
}
