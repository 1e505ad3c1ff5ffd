package log

import (
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
)

// The log layer's metrics: four gauges per log under kafka.log:type=Log (tagged with the topic
// and the partition) and one broker-wide timer, LogFlushRateAndTimeMs, under
// kafka.log:type=LogFlushStats.
//
// Kafka 0.10.2 registers the gauges in Log's constructor and drops them in Log.delete, through
// the process-wide Yammer registry. Here a Log does not know the broker's registry, so its owner
// does it: LogManager registers them once a log is in its pool (loaded at startup or created)
// and removes them when the log leaves the pool for deletion. Logs made by NewLog outside a
// LogManager (tools, tests) therefore have no metrics.

// logMetricsGroup is kafka.log:type=Log.
func (m *LogManager) logMetricsGroup() metrics.KafkaMetricsGroup {
	return metrics.NewKafkaMetricsGroup(m.metrics, "kafka.log", "Log")
}

func logMetricTags(tp common.TopicPartition) []metrics.Tag {
	return metrics.Tags("topic", tp.Topic, "partition", strconv.Itoa(int(tp.Partition)))
}

// initMetrics creates the flush timer (one for the broker, as Kafka's LogFlushStats object).
func (m *LogManager) initMetrics() {
	if m.metrics == nil {
		return
	}
	m.flushTimer = metrics.NewKafkaMetricsGroup(m.metrics, "kafka.log", "LogFlushStats").
		NewTimer("LogFlushRateAndTimeMs", time.Millisecond, time.Second)
}

// registerLogMetrics registers l's gauges and hands it the flush timer.
func (m *LogManager) registerLogMetrics(l *Log) {
	if m.metrics == nil {
		return
	}
	l.flushTimer.Store(m.flushTimer)
	g := m.logMetricsGroup()
	tags := logMetricTags(l.TopicPartition())
	g.NewGauge("NumLogSegments", func() int64 { return int64(l.NumberOfSegments()) }, tags...)
	g.NewGauge("LogStartOffset", l.LogStartOffset, tags...)
	g.NewGauge("LogEndOffset", l.LogEndOffset, tags...)
	g.NewGauge("Size", l.Size, tags...)
}

// removeLogMetrics drops the gauges of tp's log.
func (m *LogManager) removeLogMetrics(tp common.TopicPartition) {
	if m.metrics == nil {
		return
	}
	g := m.logMetricsGroup()
	tags := logMetricTags(tp)
	for _, name := range []string{"NumLogSegments", "LogStartOffset", "LogEndOffset", "Size"} {
		g.RemoveMetric(name, tags...)
	}
}

// flushSegment fsyncs one segment, timing it on LogFlushRateAndTimeMs when the log has the
// timer (Kafka times LogSegment.flush: the log file and both indexes).
func (l *Log) flushSegment(s *LogSegment) error {
	t := l.flushTimer.Load()
	if t == nil {
		return s.Flush()
	}
	start := time.Now()
	err := s.Flush()
	t.UpdateSince(start)
	return err
}

// RegisterMetrics registers the cleaner's gauges: max-buffer-utilization-percent,
// cleaner-recopy-percent and max-clean-time-secs under kafka.log:type=LogCleaner, and
// max-dirty-percent and time-since-last-run-ms under kafka.log:type=LogCleanerManager. A nil
// registry registers nothing.
//
// Kafka 0.10.2: the newGauge calls of kafka.log.LogCleaner and kafka.log.LogCleanerManager.
func (lc *LogCleaner) RegisterMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.log", "LogCleaner")
	g.NewGauge("max-buffer-utilization-percent", func() int64 { return int64(lc.MaxBufferUtilizationPercent()) })
	g.NewGauge("cleaner-recopy-percent", func() int64 { return int64(lc.CleanerRecopyPercent()) })
	g.NewGauge("max-clean-time-secs", func() int64 { return int64(lc.MaxCleanTimeSecs()) })
	mg := metrics.NewKafkaMetricsGroup(reg, "kafka.log", "LogCleanerManager")
	mg.NewGauge("max-dirty-percent", func() int64 { return int64(100 * lc.manager.DirtiestLogCleanableRatio()) })
	mg.NewGauge("time-since-last-run-ms", lc.manager.TimeSinceLastRunMs)
}
