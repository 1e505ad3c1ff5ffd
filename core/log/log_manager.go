package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/utils"
)

// LockFile is the per-directory lock file LogManager holds with flock while it runs.
const LockFile = ".lock"

// InitialTaskDelay is the delay before the first run of each background task.
const InitialTaskDelay = 30 * time.Second

// ErrLogDirLocked is returned when another LogManager (in this or another process) holds a
// log directory's .lock.
var ErrLogDirLocked = errors.New("log directory is locked")

// LogManagerConfig gathers LogManager's constructor parameters (Kafka passes them one by one).
type LogManagerConfig struct {
	// LogDirs are the data directories (log.dirs).
	LogDirs []string
	// TopicConfigs are per-topic LogConfigs (from ZooKeeper); others get DefaultConfig.
	TopicConfigs map[string]*LogConfig
	// DefaultConfig is the broker-level LogConfig.
	DefaultConfig *LogConfig
	// CleanerConfig configures compaction; EnableCleaner false means no cleaner.
	CleanerConfig CleanerConfig
	// IOThreads is num.recovery.threads.per.data.dir.
	IOThreads int
	// FlushCheck is log.flush.scheduler.interval.ms.
	FlushCheck time.Duration
	// FlushCheckpoint is log.flush.offset.checkpoint.interval.ms.
	FlushCheckpoint time.Duration
	// RetentionCheck is log.retention.check.interval.ms.
	RetentionCheck time.Duration
	// Metrics receives the per-log gauges and the flush timer (nil: none; log_metrics.go).
	Metrics *metrics.Registry
	// LeaderEpochCache gives every log a leader-epoch-checkpoint (zkafka.leader.epoch.truncation.enable,
	// a zkafka extension); off, RemoveLeaderEpochCheckpoints deletes those of an earlier run.
	LeaderEpochCache bool
}

// BrokerStateRecorder receives LogManager's broker-state change (RecoveringFromUncleanShutdown);
// core/server/brokerstate's BrokerState satisfies it. nil is allowed.
type BrokerStateRecorder interface {
	RecoveringFromUncleanShutdown()
}

// LogManager owns every log on the broker: it locks and loads the data directories at
// startup (recovering after an unclean shutdown), creates and deletes logs, and runs the
// background tasks for retention, flushing, recovery-point checkpoints and deleting
// removed logs.
//
// Kafka 0.10.2: kafka.log.LogManager. Lock order: LogManager.createOrDeleteMu → logPool.mu;
// LogManager never holds its own locks while calling into LogCleaner.
type LogManager struct {
	logDirs       []string
	topicConfigs  map[string]*LogConfig
	defaultConfig *LogConfig
	cleanerConfig CleanerConfig
	ioThreads     int
	flushCheck    time.Duration
	checkpointInt time.Duration
	retentionInt  time.Duration
	scheduler     utils.Scheduler
	brokerState   BrokerStateRecorder
	time          common.Time
	logger        *logrus.Entry

	createOrDeleteMu sync.Mutex
	logs             *logPool

	deleteMu        sync.Mutex
	logsToBeDeleted []*Log

	shutdownMu sync.Mutex
	shutDown   bool

	dirLocks                 []*utils.FileLock
	recoveryPointCheckpoints map[string]*OffsetCheckpoint

	// Cleaner is nil unless the cleaner is enabled.
	Cleaner *LogCleaner

	metrics    *metrics.Registry // nil: no metrics
	flushTimer *metrics.Timer

	leaderEpochCache bool
}

// NewLogManager validates and locks the log directories and loads every log in them.
func NewLogManager(cfg LogManagerConfig, scheduler utils.Scheduler, brokerState BrokerStateRecorder,
	time common.Time, logger *logrus.Entry) (*LogManager, error) {
	logger = orNopLogger(logger).WithField("logger", "kafka.log.LogManager")
	m := &LogManager{
		topicConfigs:  cfg.TopicConfigs,
		defaultConfig: cfg.DefaultConfig,
		cleanerConfig: cfg.CleanerConfig,
		ioThreads:     max(cfg.IOThreads, 1),
		flushCheck:    cfg.FlushCheck,
		checkpointInt: cfg.FlushCheckpoint,
		retentionInt:  cfg.RetentionCheck,
		scheduler:     scheduler,
		brokerState:   brokerState,
		time:          time,
		logger:        logger,
		logs:          newLogPool(),
		metrics:       cfg.Metrics,

		leaderEpochCache: cfg.LeaderEpochCache,
	}
	m.initMetrics()
	if m.defaultConfig == nil {
		m.defaultConfig = DefaultLogConfig()
	}
	dirs, err := createAndValidateLogDirs(cfg.LogDirs, logger)
	if err != nil {
		return nil, err
	}
	m.logDirs = dirs
	if err := m.lockLogDirs(); err != nil {
		return nil, err
	}
	m.recoveryPointCheckpoints = make(map[string]*OffsetCheckpoint, len(dirs))
	for _, dir := range dirs {
		cp, err := NewOffsetCheckpoint(filepath.Join(dir, RecoveryPointCheckpointFile))
		if err != nil {
			m.unlockLogDirs()
			return nil, err
		}
		m.recoveryPointCheckpoints[dir] = cp
	}
	if err := m.loadLogs(); err != nil {
		m.closeAllLogs()
		m.unlockLogDirs()
		return nil, err
	}
	if m.cleanerConfig.EnableCleaner {
		m.Cleaner, err = NewLogCleaner(m.cleanerConfig, m.logDirs, m.logs, time, logger)
		if err != nil {
			m.closeAllLogs()
			m.unlockLogDirs()
			return nil, err
		}
		m.Cleaner.RegisterMetrics(m.metrics)
	}
	return m, nil
}

// createAndValidateLogDirs rejects duplicates (after making paths absolute and clean: the
// canonical path of Kafka) and creates missing directories.
func createAndValidateLogDirs(dirs []string, logger *logrus.Entry) ([]string, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no log directory", ErrIllegalArgument)
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKafkaStorage, err)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if seen[abs] {
			return nil, fmt.Errorf("%w: Duplicate log directory found: %v", ErrKafkaStorage, dirs)
		}
		seen[abs] = true
		out = append(out, abs)
	}
	for _, dir := range out {
		st, err := os.Stat(dir)
		if os.IsNotExist(err) {
			logger.Infof("Log directory '%s' not found, creating it.", dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("%w: Failed to create data directory %s: %w", ErrKafkaStorage, dir, err)
			}
			continue
		}
		if err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w: %s is not a readable log directory.", ErrKafkaStorage, dir)
		}
	}
	return out, nil
}

// lockLogDirs takes each directory's .lock.
func (m *LogManager) lockLogDirs() error {
	for _, dir := range m.logDirs {
		lock, err := utils.NewFileLock(filepath.Join(dir, LockFile))
		if err != nil {
			m.unlockLogDirs()
			return fmt.Errorf("%w: %w", ErrKafkaStorage, err)
		}
		ok, err := lock.TryLock()
		if err != nil || !ok {
			_ = lock.Destroy()
			m.unlockLogDirs()
			if err != nil {
				return fmt.Errorf("%w: %w", ErrKafkaStorage, err)
			}
			return fmt.Errorf("%w: Failed to acquire lock on file .lock in %s. A Kafka instance in another process or thread is using this directory.", ErrLogDirLocked, dir)
		}
		m.dirLocks = append(m.dirLocks, lock)
	}
	return nil
}

func (m *LogManager) unlockLogDirs() {
	for _, l := range m.dirLocks {
		_ = l.Destroy()
	}
	m.dirLocks = nil
}

func (m *LogManager) closeAllLogs() {
	for _, l := range m.logs.snapshot() {
		_ = l.Close()
	}
}

// LogDirs are the (absolute) data directories.
func (m *LogManager) LogDirs() []string { return m.logDirs }

// configFor returns the topic's LogConfig or the default.
func (m *LogManager) configFor(topic string) *LogConfig {
	if c, ok := m.topicConfigs[topic]; ok && c != nil {
		return c
	}
	return m.defaultConfig
}

// loadLogs opens every partition directory, num.recovery.threads.per.data.dir at a time per
// data directory, then removes each directory's clean-shutdown marker.
//
// Kafka 0.10.2: LogManager.loadLogs. Log does the recovery itself when it opens: from the
// checkpointed recovery point, or not at all when the marker says the last shutdown was clean.
func (m *LogManager) loadLogs() error {
	m.logger.Info("Loading logs.")
	start := m.time.Milliseconds()
	type dirJob struct {
		marker string
		errs   chan error
	}
	var jobs []dirJob
	var wg sync.WaitGroup
	for _, dir := range m.logDirs {
		marker := filepath.Join(dir, CleanShutdownFile)
		cleanShutdown := fileExists(marker)
		if cleanShutdown {
			m.logger.Debugf("Found clean shutdown file. Skipping recovery for all logs in data directory: %s", dir)
		} else if m.brokerState != nil {
			m.brokerState.RecoveringFromUncleanShutdown()
		}
		recoveryPoints, err := m.recoveryPointCheckpoints[dir].Read()
		if err != nil {
			m.logger.WithError(err).Warnf("Error occured while reading recovery-point-offset-checkpoint file of directory %s", dir)
			m.logger.Warn("Resetting the recovery checkpoint to 0")
			recoveryPoints = map[common.TopicPartition]int64{}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			wg.Wait() // let the loaders of earlier directories finish before failing
			return fmt.Errorf("%w: %w", ErrKafkaStorage, err)
		}
		var logDirs []string
		for _, e := range entries {
			if e.IsDir() {
				logDirs = append(logDirs, filepath.Join(dir, e.Name()))
			}
		}
		work := make(chan string)
		errs := make(chan error, len(logDirs))
		for i := 0; i < m.ioThreads; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for logDir := range work {
					errs <- m.loadLog(logDir, recoveryPoints)
				}
			}()
		}
		go func() {
			for _, d := range logDirs {
				work <- d
			}
			close(work)
		}()
		jobs = append(jobs, dirJob{marker: marker, errs: errs})
	}
	wg.Wait()
	var firstErr error
	for _, j := range jobs {
		close(j.errs)
		failed := false
		for err := range j.errs {
			if err != nil {
				failed = true
				if firstErr == nil {
					firstErr = err
				}
			}
		}
		if !failed && firstErr == nil {
			_ = os.Remove(j.marker)
		}
	}
	if firstErr != nil {
		m.logger.WithError(firstErr).Error("There was an error in one of the threads during logs loading")
		return firstErr
	}
	m.logger.Infof("Logs loading complete in %d ms.", m.time.Milliseconds()-start)
	return nil
}

// loadLog opens one partition directory.
func (m *LogManager) loadLog(logDir string, recoveryPoints map[common.TopicPartition]int64) error {
	m.logger.Debugf("Loading log '%s'", filepath.Base(logDir))
	tp, err := ParseTopicPartitionName(logDir)
	if err != nil {
		return err
	}
	log, err := NewLog(logDir, m.configFor(tp.Topic), recoveryPoints[tp], m.scheduler, m.time, m.logger)
	if err != nil {
		return err
	}
	if isDeleteDir(logDir) {
		// A topic deletion interrupted by a restart: finish it. Nothing reads this log, so it
		// is closed now and its directory removed by the kafka-delete-logs task.
		_ = log.Close()
		m.deleteMu.Lock()
		m.logsToBeDeleted = append(m.logsToBeDeleted, log)
		m.deleteMu.Unlock()
		return nil
	}
	if err := log.initializeLeaderEpochCache(m.leaderEpochCache); err != nil {
		_ = log.Close()
		return err
	}
	if prev := m.logs.putIfAbsent(tp, log); prev != nil {
		_ = log.Close()
		return fmt.Errorf("%w: Duplicate log directories found: %s, %s!", ErrIllegalArgument, log.Dir(), prev.Dir())
	}
	m.registerLogMetrics(log)
	return nil
}

func isDeleteDir(dir string) bool {
	return deleteDirPattern.MatchString(filepath.Base(dir))
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Startup schedules the background tasks and starts the cleaner.
func (m *LogManager) Startup() {
	if m.scheduler != nil {
		m.logger.Infof("Starting log cleanup with a period of %d ms.", m.retentionInt.Milliseconds())
		m.scheduler.Schedule("kafka-log-retention", m.CleanupLogs, InitialTaskDelay, m.retentionInt)
		m.logger.Infof("Starting log flusher with a default period of %d ms.", m.flushCheck.Milliseconds())
		m.scheduler.Schedule("kafka-log-flusher", m.flushDirtyLogs, InitialTaskDelay, m.flushCheck)
		m.scheduler.Schedule("kafka-recovery-point-checkpoint", func() {
			if err := m.CheckpointRecoveryPointOffsets(); err != nil {
				m.logger.WithError(err).Error("Error writing recovery point checkpoints")
			}
		}, InitialTaskDelay, m.checkpointInt)
		m.scheduler.Schedule("kafka-delete-logs", m.deleteLogs, InitialTaskDelay,
			time.Duration(m.defaultConfig.FileDeleteDelayMs)*time.Millisecond)
	}
	if m.Cleaner != nil {
		m.Cleaner.Startup()
	}
}

// Shutdown stops the cleaner, flushes and closes every log, writes the recovery points and
// the clean-shutdown marker of each directory, and releases the directory locks.
func (m *LogManager) Shutdown() error {
	m.shutdownMu.Lock()
	defer m.shutdownMu.Unlock()
	if m.shutDown {
		return nil
	}
	m.shutDown = true
	m.logger.Info("Shutting down.")
	defer m.unlockLogDirs()
	if m.Cleaner != nil {
		m.Cleaner.Shutdown()
	}
	byDir := m.logsByDir()
	var firstErr error
	for _, dir := range m.logDirs {
		m.logger.Debugf("Flushing and closing logs at %s", dir)
		logs := byDir[dir]
		errs := make(chan error, len(logs))
		work := make(chan *Log)
		var wg sync.WaitGroup
		for i := 0; i < m.ioThreads; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for l := range work {
					err := l.Flush()
					if cerr := l.Close(); err == nil {
						err = cerr
					}
					errs <- err
				}
			}()
		}
		for _, l := range logs {
			work <- l
		}
		close(work)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}
		if firstErr != nil {
			break
		}
		m.logger.Debugf("Updating recovery points at %s", dir)
		if err := m.checkpointLogsInDir(dir, byDir[dir]); err != nil {
			firstErr = err
			break
		}
		m.logger.Debugf("Writing clean shutdown marker at %s", dir)
		if f, err := os.OpenFile(filepath.Join(dir, CleanShutdownFile), os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_ = f.Close()
		}
	}
	if firstErr != nil {
		m.logger.WithError(firstErr).Error("There was an error in one of the threads during LogManager shutdown")
		return firstErr
	}
	m.logger.Info("Shutdown complete.")
	return nil
}

// TruncateTo truncates each listed log to its offset (a follower's log after a leader change),
// pausing the cleaner on logs whose truncation reaches below the active segment, then writes
// the recovery points.
func (m *LogManager) TruncateTo(partitionOffsets map[common.TopicPartition]int64) error {
	for tp, truncateOffset := range partitionOffsets {
		log := m.logs.get(tp)
		if log == nil {
			continue
		}
		needToStopCleaner := truncateOffset < log.ActiveSegment().BaseOffset()
		if needToStopCleaner && m.Cleaner != nil {
			if err := m.Cleaner.AbortAndPauseCleaning(tp); err != nil {
				return err
			}
		}
		if err := log.TruncateTo(truncateOffset); err != nil {
			return err
		}
		if needToStopCleaner && m.Cleaner != nil {
			if err := m.Cleaner.MaybeTruncateCheckpoint(log.parentDir(), tp, log.ActiveSegment().BaseOffset()); err != nil {
				return err
			}
			if err := m.Cleaner.ResumeCleaning(tp); err != nil {
				return err
			}
		}
	}
	return m.CheckpointRecoveryPointOffsets()
}

// TruncateFullyAndStartAt empties tp's log and restarts it at newOffset.
func (m *LogManager) TruncateFullyAndStartAt(tp common.TopicPartition, newOffset int64) error {
	log := m.logs.get(tp)
	if log != nil {
		if m.Cleaner != nil {
			if err := m.Cleaner.AbortAndPauseCleaning(tp); err != nil {
				return err
			}
		}
		if err := log.TruncateFullyAndStartAt(newOffset); err != nil {
			return err
		}
		if m.Cleaner != nil {
			if err := m.Cleaner.MaybeTruncateCheckpoint(log.parentDir(), tp, log.ActiveSegment().BaseOffset()); err != nil {
				return err
			}
			if err := m.Cleaner.ResumeCleaning(tp); err != nil {
				return err
			}
		}
	}
	return m.CheckpointRecoveryPointOffsets()
}

// RemoveLeaderEpochCheckpoints deletes the leader-epoch-checkpoint of every log, when the mode
// is off (a no-op otherwise). The broker calls it once it knows it may start, before any
// replication.
func (m *LogManager) RemoveLeaderEpochCheckpoints() {
	if m.leaderEpochCache {
		return
	}
	for _, l := range m.AllLogs() {
		l.removeLeaderEpochCheckpoint()
	}
}

// GetLog returns tp's log, or nil.
func (m *LogManager) GetLog(tp common.TopicPartition) *Log { return m.logs.get(tp) }

// CreateLog returns tp's log, creating it (in the data directory with the fewest logs) if
// it does not exist.
func (m *LogManager) CreateLog(tp common.TopicPartition, config *LogConfig) (*Log, error) {
	m.createOrDeleteMu.Lock()
	defer m.createOrDeleteMu.Unlock()
	if l := m.logs.get(tp); l != nil {
		return l, nil
	}
	dataDir := m.nextLogDir()
	dir := filepath.Join(dataDir, tp.String())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKafkaStorage, err)
	}
	log, err := NewLog(dir, config, 0, m.scheduler, m.time, m.logger)
	if err != nil {
		return nil, err
	}
	if err := log.initializeLeaderEpochCache(m.leaderEpochCache); err != nil {
		_ = log.Close()
		return nil, err
	}
	m.logs.putIfAbsent(tp, log)
	m.registerLogMetrics(log)
	m.logger.Infof("Created log for partition [%s,%d] in %s with properties {%s}.", tp.Topic, tp.Partition, dataDir, formatOriginals(config))
	return log, nil
}

func formatOriginals(c *LogConfig) string {
	keys := make([]string, 0, len(c.Originals))
	for k := range c.Originals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += k + " -> " + c.Originals[k]
	}
	return s
}

// nextLogDir is the data directory with the fewest logs (the first such, in log.dirs order).
func (m *LogManager) nextLogDir() string {
	if len(m.logDirs) == 1 {
		return m.logDirs[0]
	}
	counts := map[string]int{}
	for _, l := range m.logs.snapshot() {
		counts[l.parentDir()]++
	}
	best := m.logDirs[0]
	for _, d := range m.logDirs[1:] {
		if counts[d] < counts[best] {
			best = d
		}
	}
	return best
}

// AllLogs lists every live log, ordered by topic and partition.
func (m *LogManager) AllLogs() []*Log {
	snap := m.logs.snapshot()
	tps := make([]common.TopicPartition, 0, len(snap))
	for tp := range snap {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	out := make([]*Log, len(tps))
	for i, tp := range tps {
		out[i] = snap[tp]
	}
	return out
}

// LogsByTopicPartition is a snapshot of the live logs.
func (m *LogManager) LogsByTopicPartition() map[common.TopicPartition]*Log { return m.logs.snapshot() }

// logsByDir groups the live logs by data directory.
func (m *LogManager) logsByDir() map[string]map[common.TopicPartition]*Log {
	out := map[string]map[common.TopicPartition]*Log{}
	for tp, l := range m.logs.snapshot() {
		d := l.parentDir()
		if out[d] == nil {
			out[d] = map[common.TopicPartition]*Log{}
		}
		out[d][tp] = l
	}
	return out
}
