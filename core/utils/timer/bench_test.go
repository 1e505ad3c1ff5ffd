package timer

import (
	"testing"
)

type benchTask struct{ TimerTask }

func (*benchTask) Run() {}

func reportOpsPerSec(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "ops/s")
	}
}

// BenchmarkTimerAdd measures one Add plus one Cancel (what the purgatory does for an operation
// completed before its timeout), with delays spread over 0..2 s so several wheel levels are used.
func BenchmarkTimerAdd(b *testing.B) {
	timer := NewSystemTimer("bench", SystemTimerConfig{})
	defer timer.Shutdown()
	tasks := make([]benchTask, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		task := &tasks[i%len(tasks)]
		task.DelayMs = int64(1000 + (i*7919)%1000)
		timer.Add(task)
		task.Cancel()
	}
	b.StopTimer()
	reportOpsPerSec(b)
}

// BenchmarkTimerAddParallel is BenchmarkTimerAdd from GOMAXPROCS goroutines (Adds share the
// timer's read lock, and each bucket has its own lock).
func BenchmarkTimerAddParallel(b *testing.B) {
	timer := NewSystemTimer("bench", SystemTimerConfig{})
	defer timer.Shutdown()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var task benchTask
		i := 0
		for pb.Next() {
			task.DelayMs = int64(1000 + (i*7919)%1000)
			timer.Add(&task)
			task.Cancel()
			i++
		}
	})
	b.StopTimer()
	reportOpsPerSec(b)
}

// BenchmarkTimerAddExpire measures adding tasks that are already due: Add hands them straight to
// the executor goroutine.
func BenchmarkTimerAddExpire(b *testing.B) {
	timer := NewSystemTimer("bench", SystemTimerConfig{})
	tasks := make([]benchTask, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range tasks {
		timer.Add(&tasks[i])
	}
	timer.Shutdown() // waits for the executor to run them all
	b.StopTimer()
	reportOpsPerSec(b)
}
