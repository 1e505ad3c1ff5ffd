package log

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/utils"
)

// Log is one partition replica's log on disk: a sequence of LogSegments ordered by base offset,
// the last of which (the active segment) takes appends.
//
// Concurrency, as in Kafka: one writer at a time holds mu (appends, rolls, truncation, segment
// deletion and replacement); readers never take mu. Readers see the segment list through an
// atomically swapped, copy-on-write slice (Kafka's ConcurrentSkipListMap) and the log end through
// the atomically published nextOffsetMetadata, whose position bounds what they may read of the
// active segment. Go's mutex is not reentrant: methods ending in Locked expect mu held, and the
// scheduler is only called in ways that cannot re-enter mu.
//
// Kafka 0.10.2: kafka.log.Log
type Log struct {
	mu        sync.Mutex
	dir       atomic.Pointer[string]
	config    atomic.Pointer[LogConfig]
	scheduler utils.Scheduler
	time      common.Time
	logger    *logrus.Entry

	recoveryPoint      atomic.Int64
	lastFlushedTime    atomic.Int64
	nextOffsetMetadata atomic.Pointer[LogOffsetMetadata]
	segments           atomic.Pointer[[]*LogSegment] // sorted by base offset; replaced, never mutated

	topicPartition common.TopicPartition
	closed         bool          // guarded by mu
	pending        []pendingTask // tasks to hand to the scheduler once mu is released; guarded by mu

	flushTimer atomic.Pointer[metrics.Timer] // LogFlushRateAndTimeMs (nil: none; log_metrics.go)

	// leaderEpochCache is the epoch history (leader_epoch_file_cache.go), set once after loading
	// when zkafka.leader.epoch.truncation.enable is on; nil otherwise.
	leaderEpochCache atomic.Pointer[LeaderEpochFileCache]
}

// pendingTask is a scheduler call deferred until mu is released. A scheduler may run due tasks
// inside Schedule (utils.MockScheduler does, and runs every due task, not only the new one), and
// such a task may be a LogManager job that takes mu again; Go's mutex is not reentrant, so the log
// never calls Schedule while holding mu.
type pendingTask struct {
	name  string
	fn    func()
	delay time.Duration
}

// lock takes mu; unlock releases it and then schedules what was queued while it was held.
func (l *Log) lock() { l.mu.Lock() }

func (l *Log) unlock() {
	tasks := l.pending
	l.pending = nil
	l.mu.Unlock()
	l.schedule(tasks)
}

func (l *Log) schedule(tasks []pendingTask) {
	for _, t := range tasks {
		l.scheduler.Schedule(t.name, t.fn, t.delay, 0)
	}
}

// NewLog opens the log in dir (creating the directory if needed), loading its segments: leftover
// .deleted/.cleaned files are removed, an interrupted swap is completed, missing or corrupt indexes
// are rebuilt, and — unless the parent directory holds .kafka_cleanshutdown — every segment from
// the one holding recoveryPoint on is recovered (Kafka's recoverLog).
func NewLog(dir string, config *LogConfig, recoveryPoint int64, scheduler utils.Scheduler, time common.Time,
	logger *logrus.Entry) (*Log, error) {
	tp, err := ParseTopicPartitionName(dir)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = orNopLogger(nil)
	}
	l := &Log{scheduler: scheduler, time: time, topicPartition: tp,
		logger: logger.WithField("log", filepath.Base(dir))}
	l.dir.Store(&dir)
	l.config.Store(config)
	l.recoveryPoint.Store(recoveryPoint)
	l.lastFlushedTime.Store(time.Milliseconds())
	empty := []*LogSegment{}
	l.segments.Store(&empty)
	start := time.Milliseconds()
	if err := l.loadSegments(); err != nil {
		l.closeSegmentsQuietly()
		return nil, err
	}
	active := l.ActiveSegment()
	next, err := active.NextOffset()
	if err != nil {
		l.closeSegmentsQuietly()
		return nil, err
	}
	l.nextOffsetMetadata.Store(&LogOffsetMetadata{MessageOffset: next, SegmentBaseOffset: active.BaseOffset(),
		RelativePositionInSegment: int32(active.Size())})
	// Deletions decided while loading (recovery, swaps) are scheduled now that loading is done.
	tasks := l.pending
	l.pending = nil
	l.schedule(tasks)
	l.logger.Infof("Completed load of log %s with %d log segments and log end offset %d in %d ms",
		l.Name(), l.NumberOfSegments(), l.LogEndOffset(), time.Milliseconds()-start)
	return l, nil
}

func (l *Log) closeSegmentsQuietly() {
	for _, s := range l.LogSegments() {
		_ = s.Close()
	}
}

// Dir is the log's directory.
func (l *Log) Dir() string { return *l.dir.Load() }

// SetDir records a new directory path (after the caller renamed it, e.g. to a -delete name).
func (l *Log) SetDir(dir string) { l.dir.Store(&dir) }

// Name is the directory's base name (topic-partition).
func (l *Log) Name() string { return filepath.Base(l.Dir()) }

// TopicPartition is the partition parsed from the directory name.
func (l *Log) TopicPartition() common.TopicPartition { return l.topicPartition }

// Config is the current configuration.
func (l *Log) Config() *LogConfig { return l.config.Load() }

// SetConfig swaps in a new configuration (a dynamic topic config change).
func (l *Log) SetConfig(c *LogConfig) { l.config.Store(c) }

// RecoveryPoint is the first offset not known to be flushed to disk.
func (l *Log) RecoveryPoint() int64 { return l.recoveryPoint.Load() }

// LastFlushTime is the wall-clock ms of the last flush.
func (l *Log) LastFlushTime() int64 { return l.lastFlushedTime.Load() }

func (l *Log) initFileSize() int {
	if c := l.Config(); c.Preallocate {
		return c.SegmentSize
	}
	return 0
}

func (l *Log) newSegment(baseOffset int64, fileAlreadyExists bool) (*LogSegment, error) {
	c := l.Config()
	return OpenLogSegment(l.Dir(), baseOffset, c.IndexInterval, c.MaxIndexSize, c.RandomSegmentJitter(), l.time,
		fileAlreadyExists, l.initFileSize(), c.Preallocate && !fileAlreadyExists, l.logger)
}

// NumberOfSegments is the number of segments.
func (l *Log) NumberOfSegments() int { return len(*l.segments.Load()) }

// LogSegments returns a snapshot of all segments in offset order.
func (l *Log) LogSegments() []*LogSegment { return *l.segments.Load() }

// LogSegmentsRange returns the segments that may hold offsets in [from, to): the one holding from
// (the greatest base <= from, if any) and every later one whose base is below to.
func (l *Log) LogSegmentsRange(from, to int64) []*LogSegment {
	segs := l.LogSegments()
	startIdx := sort.Search(len(segs), func(i int) bool { return segs[i].BaseOffset() > from }) - 1
	if startIdx < 0 {
		startIdx = 0
	}
	var out []*LogSegment
	for _, s := range segs[startIdx:] {
		if s.BaseOffset() >= to {
			break
		}
		out = append(out, s)
	}
	return out
}

// ActiveSegment is the last segment, the one that takes appends.
func (l *Log) ActiveSegment() *LogSegment {
	segs := l.LogSegments()
	return segs[len(segs)-1]
}

// floorSegment returns the index in segs of the segment with the greatest base <= offset, or -1.
func floorSegment(segs []*LogSegment, offset int64) int {
	return sort.Search(len(segs), func(i int) bool { return segs[i].BaseOffset() > offset }) - 1
}

// addSegment inserts seg, replacing a segment with the same base offset; it returns the replaced
// one (nil if none). Caller holds mu (or is loading).
func (l *Log) addSegment(seg *LogSegment) *LogSegment {
	old := l.LogSegments()
	segs := make([]*LogSegment, 0, len(old)+1)
	var prev *LogSegment
	inserted := false
	for _, s := range old {
		if !inserted && s.BaseOffset() >= seg.BaseOffset() {
			segs = append(segs, seg)
			inserted = true
			if s.BaseOffset() == seg.BaseOffset() {
				prev = s
				continue
			}
		}
		segs = append(segs, s)
	}
	if !inserted {
		segs = append(segs, seg)
	}
	l.segments.Store(&segs)
	return prev
}

// AddSegment is addSegment for the cleaner; the caller holds no lock.
func (l *Log) AddSegment(seg *LogSegment) *LogSegment {
	l.lock()
	defer l.unlock()
	return l.addSegment(seg)
}

func (l *Log) removeSegment(baseOffset int64) {
	old := l.LogSegments()
	segs := make([]*LogSegment, 0, len(old))
	for _, s := range old {
		if s.BaseOffset() != baseOffset {
			segs = append(segs, s)
		}
	}
	l.segments.Store(&segs)
}

// LogStartOffset is the base offset of the first segment (0.10.2 keeps no separate start offset).
func (l *Log) LogStartOffset() int64 { return l.LogSegments()[0].BaseOffset() }

// LogEndOffsetMetadata is the published log end: offset, active segment base and its size.
func (l *Log) LogEndOffsetMetadata() LogOffsetMetadata { return *l.nextOffsetMetadata.Load() }

// LogEndOffset is the offset the next appended message will get.
func (l *Log) LogEndOffset() int64 { return l.nextOffsetMetadata.Load().MessageOffset }

// Size is the total size of the segments' .log files.
func (l *Log) Size() int64 {
	var n int64
	for _, s := range l.LogSegments() {
		n += s.Size()
	}
	return n
}

func (l *Log) updateLogEndOffset(messageOffset int64) {
	active := l.ActiveSegment()
	l.nextOffsetMetadata.Store(&LogOffsetMetadata{MessageOffset: messageOffset, SegmentBaseOffset: active.BaseOffset(),
		RelativePositionInSegment: int32(active.Size())})
}

// Close closes every segment (trimming their indexes); the log is unusable afterwards.
func (l *Log) Close() error {
	l.lock()
	defer l.unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	l.logger.Debugf("Closing log %s", l.Name())
	var first error
	for _, s := range l.LogSegments() {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// UnflushedMessages is LEO - recovery point.
func (l *Log) UnflushedMessages() int64 { return l.LogEndOffset() - l.recoveryPoint.Load() }

// Flush flushes everything up to the log end offset.
func (l *Log) Flush() error { return l.FlushTo(l.LogEndOffset()) }

// FlushTo fsyncs the segments holding offsets in [recoveryPoint, offset) and advances the recovery
// point to offset. It does not take mu (the roll schedules it, and a MockScheduler may run it at
// once); the recovery point only ever moves forward here.
func (l *Log) FlushTo(offset int64) error {
	rp := l.recoveryPoint.Load()
	if offset <= rp {
		return nil
	}
	l.logger.Debugf("Flushing log %s up to offset %d, last flushed: %d current time: %d unflushed = %d",
		l.Name(), offset, l.LastFlushTime(), l.time.Milliseconds(), l.UnflushedMessages())
	for _, s := range l.LogSegmentsRange(rp, offset) {
		if err := l.flushSegment(s); err != nil {
			return err
		}
	}
	for {
		cur := l.recoveryPoint.Load()
		if offset <= cur {
			return nil
		}
		if l.recoveryPoint.CompareAndSwap(cur, offset) {
			l.lastFlushedTime.Store(l.time.Milliseconds())
			return nil
		}
	}
}

// Delete removes every segment and the directory.
func (l *Log) Delete() error {
	l.lock()
	defer l.unlock()
	var first error
	for _, s := range l.LogSegments() {
		if err := s.Delete(); err != nil && first == nil {
			first = err
		}
	}
	empty := []*LogSegment{}
	l.segments.Store(&empty)
	if err := os.RemoveAll(l.Dir()); err != nil && first == nil {
		first = fmt.Errorf("delete %s: %w: %w", l.Dir(), ErrKafkaStorage, err)
	}
	return first
}

// Roll closes the active segment to appends and starts a new one at max(expectedNextOffset, LEO).
func (l *Log) Roll(expectedNextOffset int64) (*LogSegment, error) {
	l.lock()
	defer l.unlock()
	return l.rollLocked(expectedNextOffset)
}

func (l *Log) rollLocked(expectedNextOffset int64) (*LogSegment, error) {
	start := l.time.Nanoseconds()
	newOffset := max(expectedNextOffset, l.LogEndOffset())
	dir := l.Dir()
	for _, f := range []string{LogFilename(dir, newOffset), IndexFilename(dir, newOffset), TimeIndexFilename(dir, newOffset)} {
		if _, err := os.Stat(f); err == nil {
			l.logger.Warnf("Newly rolled segment file %s already exists; deleting it first", filepath.Base(f))
			_ = os.Remove(f)
		}
	}
	if segs := l.LogSegments(); len(segs) > 0 {
		prev := segs[len(segs)-1]
		if err := prev.OnBecomeInactiveSegment(); err != nil {
			return nil, err
		}
		if err := prev.Index().TrimToValidSize(); err != nil {
			return nil, err
		}
		if err := prev.TimeIndex().TrimToValidSize(); err != nil {
			return nil, err
		}
		if err := prev.Log().Trim(); err != nil {
			return nil, fmt.Errorf("trim %s: %w: %w", prev.Log().File(), ErrKafkaStorage, err)
		}
	}
	seg, err := l.newSegment(newOffset, false)
	if err != nil {
		return nil, err
	}
	if prev := l.addSegment(seg); prev != nil {
		return nil, fmt.Errorf("trying to roll a new log segment for %s with start offset %d while it already exists: %w",
			l.Name(), newOffset, ErrIllegalState)
	}
	l.updateLogEndOffset(l.LogEndOffset())
	l.pending = append(l.pending, pendingTask{name: "flush-log", fn: func() {
		if err := l.FlushTo(newOffset); err != nil {
			l.logger.Errorf("Error flushing log %s up to %d: %v", l.Name(), newOffset, err)
		}
	}})
	l.logger.Infof("Rolled new log segment for '%s' in %.0f ms.", l.Name(), float64(l.time.Nanoseconds()-start)/1e6)
	return seg, nil
}

// deleteSegmentLocked removes seg from the log and schedules its files for deletion.
func (l *Log) deleteSegmentLocked(seg *LogSegment) error {
	l.logger.Infof("Scheduling log segment %d for log %s for deletion.", seg.BaseOffset(), l.Name())
	l.removeSegment(seg.BaseOffset())
	return l.asyncDeleteSegment(seg)
}

// asyncDeleteSegment renames the files to .deleted now and deletes them after file.delete.delay.ms.
func (l *Log) asyncDeleteSegment(seg *LogSegment) error {
	if err := seg.ChangeFileSuffixes("", DeletedFileSuffix); err != nil {
		return err
	}
	l.pending = append(l.pending, pendingTask{name: "delete-file", fn: func() {
		l.logger.Infof("Deleting segment %d from log %s.", seg.BaseOffset(), l.Name())
		if err := seg.Delete(); err != nil {
			l.logger.Errorf("Error deleting segment %d of log %s: %v", seg.BaseOffset(), l.Name(), err)
		}
	}, delay: time.Duration(l.Config().FileDeleteDelayMs) * time.Millisecond})
	return nil
}

// ReplaceSegments swaps newSegment (files suffixed .cleaned, or .swap when isRecoveredSwapFile) in
// for oldSegments: rename .cleaned → .swap, insert it, schedule the old segments' deletion, then drop
// the .swap suffix. A crash at any point leaves files loadSegments can finish or undo.
func (l *Log) ReplaceSegments(newSegment *LogSegment, oldSegments []*LogSegment, isRecoveredSwapFile bool) error {
	l.lock()
	defer l.unlock()
	if !isRecoveredSwapFile {
		if err := newSegment.ChangeFileSuffixes(CleanedFileSuffix, SwapFileSuffix); err != nil {
			return err
		}
	}
	l.addSegment(newSegment)
	for _, s := range oldSegments {
		if s.BaseOffset() != newSegment.BaseOffset() {
			l.removeSegment(s.BaseOffset())
		}
		if err := l.asyncDeleteSegment(s); err != nil {
			return err
		}
	}
	return newSegment.ChangeFileSuffixes(SwapFileSuffix, "")
}

// String is "Log(<dir>)".
func (l *Log) String() string { return "Log(" + l.Dir() + ")" }
