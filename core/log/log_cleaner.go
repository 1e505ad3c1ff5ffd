package log

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/utils"
)

// LogCleaner runs the cleaner threads that compact logs with cleanup.policy=compact.
//
// Kafka 0.10.2: kafka.log.LogCleaner. Each CleanerThread (a ShutdownableThread in Kafka) is a
// goroutine here, owned by the LogCleaner and waited for by Shutdown. Its work loop is
// cleanOrSleep: pick the dirtiest log (LogCleanerManager), clean it, record the new first
// dirty offset in cleaner-offset-checkpoint, run retention on compact+delete logs, and sleep
// log.cleaner.backoff.ms when there was nothing to clean.
//
// The cleaner logs to the separate "kafka.log.LogCleaner" logger (log-cleaner.log).
type LogCleaner struct {
	config  CleanerConfig
	manager *LogCleanerManager
	time    common.Time
	logger  *logrus.Entry
	threads []*cleanerThread
	// throttler limits the I/O of all cleaner threads together (checked every 300 ms).
	throttler *utils.Throttler
}

// cleanerThrottleCheckInterval is how often the cleaner's I/O rate is checked.
const cleanerThrottleCheckInterval = 300 * time.Millisecond

// NewLogCleaner builds the cleaner over the logs of logDirs (shared with the LogManager).
func NewLogCleaner(config CleanerConfig, logDirs []string, logs *logPool, time common.Time, logger *logrus.Entry) (*LogCleaner, error) {
	logger = orNopLogger(logger).WithField("logger", "kafka.log.LogCleaner")
	manager, err := newLogCleanerManager(logDirs, logs, time, logger)
	if err != nil {
		return nil, err
	}
	lc := &LogCleaner{config: config, manager: manager, time: time, logger: logger,
		throttler: utils.NewThrottler(config.MaxIOBytesPerSecond, cleanerThrottleCheckInterval, true, time)}
	for i := 0; i < config.NumThreads; i++ {
		t, err := lc.newCleanerThread(i)
		if err != nil {
			return nil, err
		}
		lc.threads = append(lc.threads, t)
	}
	return lc, nil
}

// Manager is the cleaner's LogCleanerManager.
func (lc *LogCleaner) Manager() *LogCleanerManager { return lc.manager }

// Startup starts the cleaner goroutines.
func (lc *LogCleaner) Startup() {
	lc.logger.Info("Starting the log cleaner")
	for _, t := range lc.threads {
		t.start()
	}
}

// Shutdown stops the cleaner goroutines and waits for them; a cleaning in progress is
// abandoned at its next check (its .cleaned files are removed).
func (lc *LogCleaner) Shutdown() {
	lc.logger.Info("Shutting down the log cleaner.")
	for _, t := range lc.threads {
		t.shutdown()
	}
}

// AbortCleaning stops and forgets any cleaning of tp (the log is being deleted).
func (lc *LogCleaner) AbortCleaning(tp common.TopicPartition) error {
	return lc.manager.AbortCleaning(tp)
}

// UpdateCheckpoints drops deleted logs from dataDir's cleaner checkpoint.
func (lc *LogCleaner) UpdateCheckpoints(dataDir string) error {
	return lc.manager.UpdateCheckpoints(dataDir, nil)
}

// MaybeTruncateCheckpoint lowers tp's checkpoint to offset after a truncation.
func (lc *LogCleaner) MaybeTruncateCheckpoint(dataDir string, tp common.TopicPartition, offset int64) error {
	return lc.manager.MaybeTruncateCheckpoint(dataDir, tp, offset)
}

// AbortAndPauseCleaning stops cleaning of tp until ResumeCleaning.
func (lc *LogCleaner) AbortAndPauseCleaning(tp common.TopicPartition) error {
	return lc.manager.AbortAndPauseCleaning(tp)
}

// ResumeCleaning ends a pause.
func (lc *LogCleaner) ResumeCleaning(tp common.TopicPartition) error {
	return lc.manager.ResumeCleaning(tp)
}

// AwaitCleaned polls the cleaner checkpoint until tp is cleaned up to offset or maxWait passes.
func (lc *LogCleaner) AwaitCleaned(tp common.TopicPartition, offset int64, maxWait time.Duration) bool {
	deadline := time.Now().Add(maxWait)
	for {
		if cps, err := lc.manager.AllCleanerCheckpoints(); err == nil && cps[tp] >= offset {
			if _, ok := cps[tp]; ok {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(min(100*time.Millisecond, time.Until(deadline)))
	}
}

// MaxBufferUtilizationPercent is the max-buffer-utilization-percent gauge.
func (lc *LogCleaner) MaxBufferUtilizationPercent() int {
	m := 0.0
	for _, t := range lc.threads {
		m = math.Max(m, 100*t.stats().BufferUtilization)
	}
	return int(m)
}

// CleanerRecopyPercent is the cleaner-recopy-percent gauge.
func (lc *LogCleaner) CleanerRecopyPercent() int {
	var written, read int64
	for _, t := range lc.threads {
		s := t.stats()
		written += s.BytesWritten
		read += s.BytesRead
	}
	return int(100 * float64(written) / float64(max(read, 1)))
}

// MaxCleanTimeSecs is the max-clean-time-secs gauge.
func (lc *LogCleaner) MaxCleanTimeSecs() int {
	m := 0.0
	for _, t := range lc.threads {
		m = math.Max(m, t.stats().ElapsedSecs())
	}
	return int(m)
}

// cleanerThread is one "kafka-log-cleaner-thread-N".
//
// Kafka 0.10.2: LogCleaner.CleanerThread.
type cleanerThread struct {
	lc        *LogCleaner
	id        int
	cleaner   *Cleaner
	logger    *logrus.Entry
	running   atomic.Bool
	stop      chan struct{}
	done      chan struct{}
	startOnce sync.Once
	stopOnce  sync.Once
	lastStats atomic.Pointer[CleanerStats]
}

func (lc *LogCleaner) newCleanerThread(id int) (*cleanerThread, error) {
	cfg := lc.config
	memory := cfg.DedupeBufferSize / int64(max(cfg.NumThreads, 1))
	if memory > math.MaxInt32 {
		lc.logger.Warn("Cannot use more than 2G of cleaner buffer space per cleaner thread, ignoring excess buffer space...")
		memory = math.MaxInt32
	}
	offsetMap, err := NewSkimpyOffsetMap(int(memory), cfg.HashAlgorithm)
	if err != nil {
		return nil, err
	}
	t := &cleanerThread{lc: lc, id: id, stop: make(chan struct{}), done: make(chan struct{}),
		logger: lc.logger.WithField("thread", fmt.Sprintf("kafka-log-cleaner-thread-%d", id))}
	t.running.Store(true)
	t.lastStats.Store(newCleanerStats(lc.time))
	ioBuffer := cfg.IOBufferSize / max(cfg.NumThreads, 1) / 2
	t.cleaner, err = NewCleaner(id, offsetMap, ioBuffer, cfg.MaxMessageSize, cfg.DedupeBufferLoadFactor, lc.time, t.checkDone, t.logger)
	if err != nil {
		return nil, err
	}
	t.cleaner.throttler = lc.throttler
	return t, nil
}

func (t *cleanerThread) stats() *CleanerStats { return t.lastStats.Load() }

func (t *cleanerThread) start() {
	t.startOnce.Do(func() {
		go func() {
			defer close(t.done)
			for t.running.Load() {
				t.cleanOrSleep()
			}
		}()
	})
}

func (t *cleanerThread) shutdown() {
	t.stopOnce.Do(func() {
		t.running.Store(false)
		close(t.stop)
	})
	t.startOnce.Do(func() { close(t.done) }) // never started: nothing to wait for
	<-t.done
}

// checkDone stops a cleaning when the thread is shutting down or the partition's cleaning
// was aborted.
func (t *cleanerThread) checkDone(tp common.TopicPartition) error {
	if !t.running.Load() {
		return ErrThreadShutdown
	}
	return t.lc.manager.checkCleaningAborted(tp)
}

// cleanOrSleep is one turn of the thread's loop.
func (t *cleanerThread) cleanOrSleep() {
	m := t.lc.manager
	cleanable, found, err := m.grabFilthiestCompactedLog()
	if err != nil {
		t.logger.WithError(err).Error("Failed to choose a log to clean")
	}
	if found {
		endOffset := cleanable.FirstDirtyOffset
		next, stats, err := t.cleaner.clean(cleanable)
		switch {
		case err == nil:
			t.recordStats(cleanable.Log.Name(), cleanable.FirstDirtyOffset, next, stats)
			endOffset = next
		case errors.Is(err, ErrLogCleaningAborted), errors.Is(err, ErrThreadShutdown):
			// the cleaning was abandoned on purpose
		default:
			t.logger.WithError(err).Errorf("Error cleaning log %s", cleanable.Log.Name())
		}
		if err := m.doneCleaning(cleanable.TopicPartition, cleanable.Log.parentDir(), endOffset); err != nil {
			t.logger.WithError(err).Error("Error finishing a cleaning")
		}
	}
	for tp, log := range m.deletableLogs() {
		if _, err := log.DeleteOldSegments(); err != nil {
			t.logger.WithError(err).Errorf("Error deleting old segments of %s", log.Name())
		}
		m.doneDeleting(tp)
	}
	if !found {
		select {
		case <-t.stop:
		case <-time.After(t.lc.config.BackOff):
		}
	}
}

// recordStats logs the summary of one cleaning.
func (t *cleanerThread) recordStats(name string, from, to int64, s *CleanerStats) {
	t.lastStats.Store(s)
	mb := func(b float64) float64 { return b / (1024 * 1024) }
	elapsed := math.Max(s.ElapsedSecs(), 0.001)
	t.logger.Infof("Log cleaner thread %d cleaned log %s (dirty section = [%d, %d]): "+
		"%.1f MB of log processed in %.1f seconds (%.1f MB/sec); indexed %.1f MB in %.1f seconds; "+
		"buffer utilization %.1f%%; start size %.1f MB (%d messages); end size %.1f MB (%d messages)",
		t.id, name, from, to, mb(float64(s.BytesRead)), s.ElapsedSecs(), mb(float64(s.BytesRead))/elapsed,
		mb(float64(s.MapBytesRead)), s.ElapsedIndexSecs(), 100*s.BufferUtilization,
		mb(float64(s.BytesRead)), s.MessagesRead, mb(float64(s.BytesWritten)), s.MessagesWritten)
	if s.InvalidMessagesRead > 0 {
		t.logger.Warnf("Found %d invalid messages during compaction.", s.InvalidMessagesRead)
	}
}
