package timer

import (
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// MockTimer is a Timer for tests: nothing happens until AdvanceClock moves its MockTime forward,
// and due tasks then run on the calling goroutine, in expiration order.
//
// Kafka 0.10.2: kafka.utils.timer.MockTimer (core/src/test). Kept outside _test files so that
// other packages' tests (purgatory, coordinator) can use it. Like Kafka's, a task with DelayMs <= 0
// runs inside Add, and a task runs only once the clock is strictly past its expiration.
type MockTimer struct {
	// Time is the clock AdvanceClock moves.
	Time *common.MockTime

	mu        sync.Mutex
	taskQueue priorityQueue[mockEntry]
	seq       uint64
}

// mockEntry orders entries by expiration, then by insertion, so runs are deterministic.
type mockEntry struct {
	entry *TimerTaskEntry
	seq   uint64
}

// NewMockTimer returns a MockTimer on clock (a new MockTime at 0 if nil).
func NewMockTimer(clock *common.MockTime) *MockTimer {
	if clock == nil {
		clock = common.NewMockTime(0)
	}
	return &MockTimer{
		Time: clock,
		taskQueue: priorityQueue[mockEntry]{less: func(a, b mockEntry) bool {
			if a.entry.expirationMs != b.entry.expirationMs {
				return a.entry.expirationMs < b.entry.expirationMs
			}
			return a.seq < b.seq
		}},
	}
}

// Add implements Timer.
func (m *MockTimer) Add(task Task) {
	delay := task.timerTask().DelayMs
	if delay <= 0 {
		task.Run()
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	m.taskQueue.push(mockEntry{entry: newTimerTaskEntry(task, saturatingAdd(delay, m.Time.Milliseconds())), seq: m.seq})
}

// AdvanceClock implements Timer: it advances Time by timeoutMs and runs, on this goroutine, every
// live task whose expiration is now in the past. Tasks may add to the timer while they run.
func (m *MockTimer) AdvanceClock(timeoutMs int64) bool {
	m.Time.Sleep(time.Duration(timeoutMs) * time.Millisecond)
	now := m.Time.Milliseconds()
	executed := false
	for {
		m.mu.Lock()
		if m.taskQueue.len() == 0 || now <= m.taskQueue.peek().entry.expirationMs {
			m.mu.Unlock()
			return executed
		}
		e := m.taskQueue.pop().entry
		m.mu.Unlock()
		if !e.cancelled() {
			e.timerTask.Run()
			executed = true
		}
	}
}

// Size implements Timer. As in Kafka, cancelled tasks still count until their time passes.
func (m *MockTimer) Size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.taskQueue.len()
}

// Shutdown implements Timer; there is nothing to stop.
func (m *MockTimer) Shutdown() {}
