package log

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
)

// TestLogManagerLogMetrics: a LogManager with a registry registers the four kafka.log:type=Log
// gauges of each log it creates or loads, with the log's live values; Flush feeds
// LogFlushRateAndTimeMs; AsyncDelete removes the gauges.
func TestLogManagerLogMetrics(t *testing.T) {
	e := newLMEnv(t)
	dir := t.TempDir()
	reg := metrics.NewRegistry(nil)
	newManager := func(reg *metrics.Registry) *LogManager {
		m, err := NewLogManager(LogManagerConfig{LogDirs: []string{dir}, DefaultConfig: lmConfig(t, nil),
			IOThreads: 1, FlushCheck: time.Hour, FlushCheckpoint: time.Hour, RetentionCheck: time.Hour, Metrics: reg},
			e.sched, nil, e.time, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := newManager(reg)
	m.Startup()
	tp := common.TopicPartition{Topic: lmTopic, Partition: 3}
	l, err := m.CreateLog(tp, lmConfig(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	// Segments of 1024 bytes: 40 single messages roll a few times.
	for i := 0; i < 40; i++ {
		mustAppend(t, l, singletonRecords(t, nil, []byte(fmt.Sprintf("value %d", i))), true)
	}
	name := func(n string) string {
		return fmt.Sprintf("kafka.log:type=Log,name=%s,topic=%s,partition=3", n, lmTopic)
	}
	check := func(reg *metrics.Registry, l *Log) {
		t.Helper()
		for n, want := range map[string]int64{"NumLogSegments": int64(l.NumberOfSegments()),
			"LogStartOffset": l.LogStartOffset(), "LogEndOffset": 40, "Size": l.Size()} {
			got, ok := reg.GaugeValue(name(n))
			if !ok || int64(got) != want {
				t.Errorf("%s = %v (registered %v), want %d", name(n), got, ok, want)
			}
		}
	}
	if l.NumberOfSegments() < 2 {
		t.Fatalf("expected rolled segments, have %d", l.NumberOfSegments())
	}
	check(reg, l)

	timer := reg.Timer("kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs")
	if timer == nil {
		t.Fatal("no LogFlushRateAndTimeMs timer")
	}
	before := timer.Count()
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if timer.Count() <= before {
		t.Errorf("flush not timed: count %d -> %d", before, timer.Count())
	}

	// A log loaded at startup is registered too.
	if err := m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	reg2 := metrics.NewRegistry(nil)
	m2 := newManager(reg2)
	m2.Startup()
	t.Cleanup(func() { _ = m2.Shutdown() })
	check(reg2, m2.GetLog(tp))

	if err := m2.AsyncDelete(tp); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"NumLogSegments", "LogStartOffset", "LogEndOffset", "Size"} {
		if _, ok := reg2.GaugeValue(name(n)); ok {
			t.Errorf("%s still registered after the log was deleted", name(n))
		}
	}
}

// TestLogCleanerMetrics: with the cleaner enabled, the LogCleaner and LogCleanerManager gauges
// are registered and, after a compaction, report it: some of the offset map used, less copied
// than read, and a last run that is recent. (max-dirty-percent is that of the last selection,
// which may already be the pass after the cleaning: only its range is checked.)
func TestLogCleanerMetrics(t *testing.T) {
	e := newLMEnv(t)
	reg := metrics.NewRegistry(nil)
	config := lmConfig(t, map[string]string{CleanupPolicyProp: Compact, SegmentBytesProp: "512"})
	cc := NewCleanerConfig()
	cc.DedupeBufferSize = 1024 // a few dozen slots: 10 keys fill a visible share of them
	cc.IOBufferSize = 64 << 10
	cc.BackOff = 10 * time.Millisecond
	m, err := NewLogManager(LogManagerConfig{LogDirs: []string{t.TempDir()}, DefaultConfig: config, CleanerConfig: cc,
		IOThreads: 1, FlushCheck: time.Hour, FlushCheckpoint: time.Hour, RetentionCheck: time.Hour, Metrics: reg},
		e.sched, nil, e.time, nil)
	if err != nil {
		t.Fatal(err)
	}
	gauge := func(typ, name string) float64 {
		t.Helper()
		v, ok := reg.GaugeValue("kafka.log:type=" + typ + ",name=" + name)
		if !ok {
			t.Fatalf("%s %s not registered", typ, name)
		}
		return v
	}
	if v := gauge("LogCleaner", "max-buffer-utilization-percent"); v != 0 {
		t.Errorf("max-buffer-utilization-percent %v before any cleaning", v)
	}
	tp := common.TopicPartition{Topic: "compacted"}
	l, err := m.CreateLog(tp, config)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; l.NumberOfSegments() < 8; i++ {
		mustAppend(t, l, intRecord(t, i%10, i), true)
	}
	activeBase := l.ActiveSegment().BaseOffset()
	m.Startup()
	t.Cleanup(func() { _ = m.Shutdown() })
	if !m.Cleaner.AwaitCleaned(tp, activeBase, 20*time.Second) {
		t.Fatal("log not cleaned in time")
	}
	if v := gauge("LogCleaner", "max-buffer-utilization-percent"); v <= 0 || v > 100 {
		t.Errorf("max-buffer-utilization-percent %v after cleaning", v)
	}
	if v := gauge("LogCleaner", "cleaner-recopy-percent"); v <= 0 || v >= 100 {
		t.Errorf("cleaner-recopy-percent %v: a log of 10 keys rewritten should keep some but not all", v)
	}
	if v := gauge("LogCleaner", "max-clean-time-secs"); v < 0 {
		t.Errorf("max-clean-time-secs %v", v)
	}
	if v := gauge("LogCleanerManager", "max-dirty-percent"); v < 0 || v > 100 {
		t.Errorf("max-dirty-percent %v", v)
	}
	if v := gauge("LogCleanerManager", "time-since-last-run-ms"); v < 0 || v > 60_000 {
		t.Errorf("time-since-last-run-ms %v", v)
	}
}
