package log

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/zkafka/zkafka/clients/common"
)

// The LogManager's background tasks (scheduled by Startup) and topic deletion.

// deleteLogs deletes the logs queued by AsyncDelete (and -delete directories found at
// startup); failures are retried on the next run.
func (m *LogManager) deleteLogs() {
	m.deleteMu.Lock()
	queue := m.logsToBeDeleted
	m.logsToBeDeleted = nil
	m.deleteMu.Unlock()
	var failed []*Log
	for _, l := range queue {
		// Every queued log is closed already; its segment files go with the directory.
		if err := os.RemoveAll(l.Dir()); err != nil {
			m.logger.WithError(err).Errorf("Exception in deleting %s. Moving it to the end of the queue.", l.Name())
			failed = append(failed, l)
			continue
		}
		m.logger.Infof("Deleted log for partition %s in %s.", l.TopicPartition(), l.Dir())
	}
	if len(failed) > 0 {
		m.deleteMu.Lock()
		m.logsToBeDeleted = append(m.logsToBeDeleted, failed...)
		m.deleteMu.Unlock()
	}
}

// AsyncDelete removes tp's log from the manager, renames its directory to
// <topic>-<partition>.<uuid>-delete and queues it for deletion by the kafka-delete-logs task.
func (m *LogManager) AsyncDelete(tp common.TopicPartition) error {
	m.createOrDeleteMu.Lock()
	removed := m.logs.remove(tp)
	m.createOrDeleteMu.Unlock()
	if removed == nil {
		return nil
	}
	m.removeLogMetrics(tp)
	if m.Cleaner != nil {
		if err := m.Cleaner.AbortCleaning(tp); err != nil {
			return err
		}
		if err := m.Cleaner.UpdateCheckpoints(removed.parentDir()); err != nil {
			return err
		}
	}
	if err := removed.Close(); err != nil {
		return err
	}
	renamed := filepath.Join(removed.parentDir(), LogDeleteDirName(removed.Name()))
	if err := removed.renameDir(renamed); err != nil {
		return fmt.Errorf("%w: Failed to rename log directory from %s to %s: %w", ErrKafkaStorage, removed.Dir(), renamed, err)
	}
	m.deleteMu.Lock()
	m.logsToBeDeleted = append(m.logsToBeDeleted, removed)
	m.deleteMu.Unlock()
	m.logger.Infof("Log for partition %s is renamed to %s and is scheduled for deletion", tp, renamed)
	return nil
}

// CleanupLogs runs retention (deleteOldSegments) on every log whose policy is not compact;
// compacted logs with delete too get theirs from the cleaner thread.
func (m *LogManager) CleanupLogs() {
	m.logger.Debug("Beginning log cleanup...")
	total := 0
	start := m.time.Milliseconds()
	for _, l := range m.AllLogs() {
		if l.Config().Compact {
			continue
		}
		m.logger.Debugf("Garbage collecting '%s'", l.Name())
		n, err := l.DeleteOldSegments()
		if err != nil {
			m.logger.WithError(err).Errorf("Error deleting old segments of %s", l.Name())
		}
		total += n
	}
	m.logger.Debugf("Log cleanup completed. %d files deleted in %d seconds", total, (m.time.Milliseconds()-start)/1000)
}

// flushDirtyLogs flushes every log whose flush.ms has passed since its last flush.
func (m *LogManager) flushDirtyLogs() {
	m.logger.Debug("Checking for dirty logs to flush...")
	for tp, l := range m.logs.snapshot() {
		since := m.time.Milliseconds() - l.LastFlushTime()
		m.logger.Debugf("Checking if flush is needed on %s flush interval  %d last flushed %d time since last flush: %d",
			tp.Topic, l.Config().FlushMs, l.LastFlushTime(), since)
		if since >= l.Config().FlushMs {
			if err := l.Flush(); err != nil {
				m.logger.WithError(err).Errorf("Error flushing topic %s", tp.Topic)
			}
		}
	}
}

// CheckpointRecoveryPointOffsets writes every directory's recovery-point-offset-checkpoint.
func (m *LogManager) CheckpointRecoveryPointOffsets() error {
	byDir := m.logsByDir()
	var firstErr error
	for _, dir := range m.logDirs {
		if err := m.checkpointLogsInDir(dir, byDir[dir]); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// checkpointLogsInDir writes dir's recovery points (nothing when dir has no logs, as in Kafka).
func (m *LogManager) checkpointLogsInDir(dir string, logs map[common.TopicPartition]*Log) error {
	if len(logs) == 0 {
		return nil
	}
	points := make(map[common.TopicPartition]int64, len(logs))
	for tp, l := range logs {
		points[tp] = l.RecoveryPoint()
	}
	return m.recoveryPointCheckpoints[dir].Write(points)
}
