package log

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
)

// LogCleaningState is the state of a partition the cleaner is working on or kept away from.
//
// Kafka 0.10.2: kafka.log.LogCleaningState (LogCleaningInProgress, LogCleaningAborted,
// LogCleaningPaused). A partition absent from the in-progress map is idle.
type LogCleaningState int

const (
	// LogCleaningInProgress: a cleaner thread (or the compact+delete retention pass) owns it.
	LogCleaningInProgress LogCleaningState = iota + 1
	// LogCleaningAborted: an abort was requested; the thread stops at its next check and
	// moves the partition to Paused.
	LogCleaningAborted
	// LogCleaningPaused: no cleaning until resumeCleaning.
	LogCleaningPaused
)

func (s LogCleaningState) String() string {
	switch s {
	case LogCleaningInProgress:
		return "LogCleaningInProgress"
	case LogCleaningAborted:
		return "LogCleaningAborted"
	case LogCleaningPaused:
		return "LogCleaningPaused"
	}
	return fmt.Sprintf("LogCleaningState(%d)", int(s))
}

// ErrLogCleaningAborted is kafka.log.LogCleaningAbortedException: the cleaning of a
// partition was aborted (truncation, deletion) while a thread was working on it.
var ErrLogCleaningAborted = errors.New("log cleaning aborted")

// LogToClean is a candidate for cleaning with its clean/cleanable byte counts.
//
// Kafka 0.10.2: kafka.log.LogToClean. The byte counts are segment sizes: clean = segments
// before the first dirty offset, cleanable = segments from there to the first uncleanable
// segment (the active segment at the latest).
type LogToClean struct {
	TopicPartition         common.TopicPartition
	Log                    *Log
	FirstDirtyOffset       int64
	FirstUncleanableOffset int64
	CleanBytes             int64
	CleanableBytes         int64
	TotalBytes             int64
	CleanableRatio         float64
}

// NewLogToClean computes the byte counts for log with the given first dirty offset and
// uncleanable offset (rounded down to the base offset of the segment holding it).
func NewLogToClean(tp common.TopicPartition, log *Log, firstDirtyOffset, uncleanableOffset int64) LogToClean {
	ltc := LogToClean{TopicPartition: tp, Log: log, FirstDirtyOffset: firstDirtyOffset}
	for _, s := range log.LogSegmentsRange(-1, firstDirtyOffset) {
		ltc.CleanBytes += int64(s.Size())
	}
	active := log.ActiveSegment()
	firstUncleanable := active
	if segs := log.LogSegmentsRange(uncleanableOffset, active.BaseOffset()); len(segs) > 0 {
		firstUncleanable = segs[0]
	}
	ltc.FirstUncleanableOffset = firstUncleanable.BaseOffset()
	for _, s := range log.LogSegmentsRange(firstDirtyOffset, max(firstDirtyOffset, ltc.FirstUncleanableOffset)) {
		ltc.CleanableBytes += int64(s.Size())
	}
	ltc.TotalBytes = ltc.CleanBytes + ltc.CleanableBytes
	if ltc.TotalBytes > 0 {
		ltc.CleanableRatio = float64(ltc.CleanableBytes) / float64(ltc.TotalBytes)
	}
	return ltc
}

// LogCleanerManager tracks which partitions are being cleaned, paused or aborted, picks the
// dirtiest compacted log, and owns the cleaner-offset-checkpoint file of each log directory.
//
// Kafka 0.10.2: kafka.log.LogCleanerManager. Kafka's ReentrantLock with a condition becomes
// a sync.Mutex with a sync.Cond; every exported method takes the lock once at entry and
// the internal helpers expect it held (the lock is not reentrant).
type LogCleanerManager struct {
	logDirs     []string
	logs        *logPool
	time        common.Time
	logger      *logrus.Entry
	checkpoints map[string]*OffsetCheckpoint

	mu         sync.Mutex
	pausedCond *sync.Cond
	inProgress map[common.TopicPartition]LogCleaningState

	dirtiestLogCleanableRatio atomic.Uint64 // float64 bits, for the max-dirty-percent gauge
	timeOfLastRun             atomic.Int64
}

// newLogCleanerManager opens (creating if needed) each directory's cleaner checkpoint.
func newLogCleanerManager(logDirs []string, logs *logPool, time common.Time, logger *logrus.Entry) (*LogCleanerManager, error) {
	m := &LogCleanerManager{
		logDirs:     logDirs,
		logs:        logs,
		time:        time,
		logger:      logger,
		checkpoints: make(map[string]*OffsetCheckpoint, len(logDirs)),
		inProgress:  map[common.TopicPartition]LogCleaningState{},
	}
	m.pausedCond = sync.NewCond(&m.mu)
	m.timeOfLastRun.Store(time.Milliseconds())
	for _, dir := range logDirs {
		cp, err := NewOffsetCheckpoint(filepath.Join(dir, CleanerOffsetCheckpointFile))
		if err != nil {
			return nil, err
		}
		m.checkpoints[dir] = cp
	}
	return m, nil
}

// AllCleanerCheckpoints merges the cleaner checkpoints of every log directory.
func (m *LogCleanerManager) AllCleanerCheckpoints() (map[common.TopicPartition]int64, error) {
	all := map[common.TopicPartition]int64{}
	for _, dir := range m.logDirs {
		offsets, err := m.checkpoints[dir].Read()
		if err != nil {
			return nil, err
		}
		for tp, o := range offsets {
			all[tp] = o
		}
	}
	return all, nil
}

// DirtiestLogCleanableRatio is the ratio of the dirtiest log at the last selection (the
// max-dirty-percent gauge divided by 100).
func (m *LogCleanerManager) DirtiestLogCleanableRatio() float64 {
	return math.Float64frombits(m.dirtiestLogCleanableRatio.Load())
}

// TimeSinceLastRunMs is the time-since-last-run-ms gauge.
func (m *LogCleanerManager) TimeSinceLastRunMs() int64 {
	return m.time.Milliseconds() - m.timeOfLastRun.Load()
}

// grabFilthiestCompactedLog picks the compacted log with the highest cleanable ratio above
// its min.cleanable.dirty.ratio, marks it in progress and returns it; ok is false when no log
// needs cleaning.
func (m *LogCleanerManager) grabFilthiestCompactedLog() (LogToClean, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.time.Milliseconds()
	m.timeOfLastRun.Store(now)
	lastClean, err := m.AllCleanerCheckpoints()
	if err != nil {
		return LogToClean{}, false, err
	}
	var dirtiest, filthiest *LogToClean
	for tp, log := range m.logs.snapshot() {
		if !log.Config().Compact {
			continue
		}
		if _, busy := m.inProgress[tp]; busy {
			continue
		}
		firstDirty, firstUncleanable := cleanableOffsets(log, tp, lastClean, now, m.logger)
		ltc := NewLogToClean(tp, log, firstDirty, firstUncleanable)
		if ltc.TotalBytes <= 0 {
			continue
		}
		if dirtiest == nil || ltc.CleanableRatio > dirtiest.CleanableRatio {
			c := ltc
			dirtiest = &c
		}
		if ltc.CleanableRatio > log.Config().MinCleanableRatio && (filthiest == nil || ltc.CleanableRatio > filthiest.CleanableRatio) {
			c := ltc
			filthiest = &c
		}
	}
	ratio := 0.0
	if dirtiest != nil {
		ratio = dirtiest.CleanableRatio
	}
	m.dirtiestLogCleanableRatio.Store(math.Float64bits(ratio))
	if filthiest == nil {
		return LogToClean{}, false, nil
	}
	m.inProgress[filthiest.TopicPartition] = LogCleaningInProgress
	return *filthiest, true, nil
}

// deletableLogs marks every idle compact+delete log in progress and returns them, so the
// cleaner thread can run retention on them.
func (m *LogCleanerManager) deletableLogs() map[common.TopicPartition]*Log {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[common.TopicPartition]*Log{}
	for tp, log := range m.logs.snapshot() {
		if _, busy := m.inProgress[tp]; !busy && isCompactAndDelete(log) {
			out[tp] = log
			m.inProgress[tp] = LogCleaningInProgress
		}
	}
	return out
}

// AbortCleaning stops any cleaning of tp and leaves it idle (used when a log is deleted).
func (m *LogCleanerManager) AbortCleaning(tp common.TopicPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.abortAndPauseCleaningLocked(tp); err != nil {
		return err
	}
	if err := m.resumeCleaningLocked(tp); err != nil {
		return err
	}
	m.logger.Infof("The cleaning for partition %s is aborted", tp)
	return nil
}

// AbortAndPauseCleaning stops any cleaning of tp and keeps it paused until ResumeCleaning;
// it waits for a running cleaner thread to notice.
func (m *LogCleanerManager) AbortAndPauseCleaning(tp common.TopicPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.abortAndPauseCleaningLocked(tp)
}

func (m *LogCleanerManager) abortAndPauseCleaningLocked(tp common.TopicPartition) error {
	state, ok := m.inProgress[tp]
	switch {
	case !ok:
		m.inProgress[tp] = LogCleaningPaused
	case state == LogCleaningInProgress:
		m.inProgress[tp] = LogCleaningAborted
	default:
		return fmt.Errorf("%w: Compaction for partition %s cannot be aborted and paused since it is in %s state.", ErrIllegalState, tp, state)
	}
	for m.inProgress[tp] != LogCleaningPaused {
		m.pausedCond.Wait()
	}
	m.logger.Infof("The cleaning for partition %s is aborted and paused", tp)
	return nil
}

// ResumeCleaning lets the cleaner work on a paused partition again.
func (m *LogCleanerManager) ResumeCleaning(tp common.TopicPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.resumeCleaningLocked(tp)
}

func (m *LogCleanerManager) resumeCleaningLocked(tp common.TopicPartition) error {
	state, ok := m.inProgress[tp]
	if !ok {
		return fmt.Errorf("%w: Compaction for partition %s cannot be resumed since it is not paused.", ErrIllegalState, tp)
	}
	if state != LogCleaningPaused {
		return fmt.Errorf("%w: Compaction for partition %s cannot be resumed since it is in %s state.", ErrIllegalState, tp, state)
	}
	delete(m.inProgress, tp)
	m.logger.Infof("Compaction for partition %s is resumed", tp)
	return nil
}

// State returns tp's cleaning state (false when idle).
func (m *LogCleanerManager) State(tp common.TopicPartition) (LogCleaningState, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.inProgress[tp]
	return s, ok
}

// checkCleaningAborted returns ErrLogCleaningAborted once an abort of tp was requested.
func (m *LogCleanerManager) checkCleaningAborted(tp common.TopicPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inProgress[tp] == LogCleaningAborted {
		return ErrLogCleaningAborted
	}
	return nil
}

// UpdateCheckpoints rewrites dataDir's cleaner checkpoint, dropping logs that no longer
// exist and setting update (if non-nil).
func (m *LogCleanerManager) UpdateCheckpoints(dataDir string, update *TopicPartitionOffset) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.updateCheckpointsLocked(dataDir, update)
}

// TopicPartitionOffset is one checkpoint entry.
type TopicPartitionOffset struct {
	TopicPartition common.TopicPartition
	Offset         int64
}

func (m *LogCleanerManager) updateCheckpointsLocked(dataDir string, update *TopicPartitionOffset) error {
	cp, ok := m.checkpoints[dataDir]
	if !ok {
		return fmt.Errorf("%w: %s is not a log directory of this cleaner", ErrIllegalArgument, dataDir)
	}
	existing, err := cp.Read()
	if err != nil {
		return err
	}
	for tp := range existing {
		if m.logs.get(tp) == nil {
			delete(existing, tp)
		}
	}
	if update != nil {
		existing[update.TopicPartition] = update.Offset
	}
	return cp.Write(existing)
}

// MaybeTruncateCheckpoint lowers tp's cleaner checkpoint to offset if it is above it (after a
// truncation of a compacted log).
func (m *LogCleanerManager) MaybeTruncateCheckpoint(dataDir string, tp common.TopicPartition, offset int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	log := m.logs.get(tp)
	if log == nil || !log.Config().Compact {
		return nil
	}
	cp, ok := m.checkpoints[dataDir]
	if !ok {
		return fmt.Errorf("%w: %s is not a log directory of this cleaner", ErrIllegalArgument, dataDir)
	}
	existing, err := cp.Read()
	if err != nil {
		return err
	}
	if existing[tp] > offset {
		existing[tp] = offset
		return cp.Write(existing)
	}
	return nil
}

// doneCleaning ends a cleaning: on success the checkpoint moves to endOffset and tp is
// idle; after an abort tp becomes paused and the waiting aborter is woken.
func (m *LogCleanerManager) doneCleaning(tp common.TopicPartition, dataDir string, endOffset int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch state := m.inProgress[tp]; state {
	case LogCleaningInProgress:
		err := m.updateCheckpointsLocked(dataDir, &TopicPartitionOffset{tp, endOffset})
		delete(m.inProgress, tp)
		return err
	case LogCleaningAborted:
		m.inProgress[tp] = LogCleaningPaused
		m.pausedCond.Broadcast()
		return nil
	default:
		return fmt.Errorf("%w: In-progress partition %s cannot be in %s state.", ErrIllegalState, tp, state)
	}
}

// doneDeleting ends a retention pass of the cleaner thread.
func (m *LogCleanerManager) doneDeleting(tp common.TopicPartition) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inProgress[tp] == LogCleaningAborted {
		// Go addition: Kafka removes the entry unconditionally, which would lose an abort
		// requested during the pass and leave its requester waiting; treat it as done-and-paused.
		m.inProgress[tp] = LogCleaningPaused
		m.pausedCond.Broadcast()
		return
	}
	delete(m.inProgress, tp)
}

// isCompactAndDelete reports cleanup.policy=compact,delete.
func isCompactAndDelete(log *Log) bool {
	c := log.Config()
	return c.Compact && c.Delete
}

// cleanableOffsets returns the first dirty offset (the checkpoint, or the log start if the
// checkpoint is missing or below it) and the first uncleanable offset (the active segment's
// base, or earlier when min.compaction.lag.ms keeps a younger segment out).
//
// Kafka 0.10.2: LogCleanerManager.cleanableOffsets.
func cleanableOffsets(log *Log, tp common.TopicPartition, lastClean map[common.TopicPartition]int64, now int64, logger *logrus.Entry) (int64, int64) {
	segs := log.LogSegments()
	logStartOffset := segs[0].BaseOffset()
	firstDirty := logStartOffset
	if offset, ok := lastClean[tp]; ok {
		if offset < logStartOffset {
			if !isCompactAndDelete(log) {
				logger.Warnf("Resetting first dirty offset to log start offset %d since the checkpointed offset %d is invalid.", logStartOffset, offset)
			}
		} else {
			firstDirty = offset
		}
	}
	activeBase := log.ActiveSegment().BaseOffset()
	firstUncleanable := activeBase
	if lag := max(log.Config().CompactionLagMs, 0); lag > 0 {
		for _, s := range log.LogSegmentsRange(firstDirty, activeBase) {
			if s.LargestTimestamp() > now-lag {
				firstUncleanable = min(firstUncleanable, s.BaseOffset())
				break
			}
		}
	}
	return firstDirty, firstUncleanable
}
