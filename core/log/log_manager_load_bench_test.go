package log

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
)

// BenchmarkLogManagerLoadAfterCleanShutdown times NewLogManager's loadLogs over 2,000
// partition logs (one segment each, a message in it) left by a clean shutdown, with one
// loader per directory (num.recovery.threads.per.data.dir=1, 0.10.2's default): the
// per-log cost of a broker's start (docs/performance.md, bench-scale's start time).
func BenchmarkLogManagerLoadAfterCleanShutdown(b *testing.B) {
	logs := 2000
	if testing.Short() {
		logs = 200
	}
	dir := b.TempDir()
	config, err := NewLogConfig(map[string]string{})
	if err != nil {
		b.Fatal(err)
	}
	open := func() *LogManager {
		m, err := NewLogManager(LogManagerConfig{
			LogDirs: []string{dir}, DefaultConfig: config, CleanerConfig: CleanerConfig{EnableCleaner: false},
			IOThreads: 1, FlushCheck: time.Second, FlushCheckpoint: time.Minute, RetentionCheck: time.Minute,
			Metrics: metrics.NewRegistry(nil), // the per-log gauges a broker registers
		}, nil, nil, common.SystemTime{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	m := open()
	for p := 0; p < logs; p++ {
		l, err := m.CreateLog(common.TopicPartition{Topic: "bench", Partition: int32(p)}, config)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Append(singletonRecords(b, nil, []byte(fmt.Sprint(p))), true); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Shutdown(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		m := open()
		b.StopTimer()
		if n := len(m.AllLogs()); n != logs {
			b.Fatalf("%d logs loaded", n)
		}
		if err := m.Shutdown(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*logs), "µs/log")
}
