package utils

import (
	"sort"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// MockScheduler runs tasks only when Tick is called, at the times a common.Time says.
//
// Kafka 0.10.2: kafka.utils.MockScheduler (core test sources). Kafka's MockTime ticks
// its scheduler on sleep; common.MockTime has no such hook, so tests advance the clock
// and then call Tick (or use AdvanceAndTick).
type MockScheduler struct {
	time common.Time

	mu      sync.Mutex
	seq     int
	tasks   []*mockTask
	ticking bool
}

type mockTask struct {
	name          string
	fn            func()
	nextExecution int64
	period        int64
	seq           int
}

// NewMockScheduler returns a scheduler driven by t.
func NewMockScheduler(t common.Time) *MockScheduler { return &MockScheduler{time: t} }

// Startup implements Scheduler (no-op).
func (s *MockScheduler) Startup() {}

// IsStarted implements Scheduler (always true, as in Kafka).
func (s *MockScheduler) IsStarted() bool { return true }

// Shutdown implements Scheduler: every pending task runs once, then all are dropped.
func (s *MockScheduler) Shutdown() {
	s.mu.Lock()
	tasks := s.tasks
	s.tasks = nil
	s.mu.Unlock()
	for _, t := range tasks {
		t.fn()
	}
}

// Schedule implements Scheduler and then ticks, so a task due now runs before it returns.
func (s *MockScheduler) Schedule(name string, fn func(), delay, period time.Duration) {
	s.mu.Lock()
	s.seq++
	p := int64(-1)
	if period > 0 {
		p = period.Milliseconds()
	}
	s.tasks = append(s.tasks, &mockTask{name: name, fn: fn, nextExecution: s.time.Milliseconds() + delay.Milliseconds(), period: p, seq: s.seq})
	s.mu.Unlock()
	s.Tick()
}

// Tick runs, in time order, every task due at the clock's current time; periodic tasks
// are re-queued at their next time (and run again if that is also due).
//
// Go difference: a Tick (or Schedule) issued while a tick is already running does not run
// tasks itself; the running tick picks the new due tasks up after the current task returns.
// Kafka's MockScheduler nests (its monitor is reentrant), but with Go's non-reentrant mutexes
// a nested run could re-enter a lock the scheduling task holds.
func (s *MockScheduler) Tick() {
	s.mu.Lock()
	if s.ticking {
		s.mu.Unlock()
		return
	}
	s.ticking = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.ticking = false
		s.mu.Unlock()
	}()
	for {
		s.mu.Lock()
		now := s.time.Milliseconds()
		sort.SliceStable(s.tasks, func(i, j int) bool {
			if s.tasks[i].nextExecution != s.tasks[j].nextExecution {
				return s.tasks[i].nextExecution < s.tasks[j].nextExecution
			}
			return s.tasks[i].seq < s.tasks[j].seq
		})
		if len(s.tasks) == 0 || s.tasks[0].nextExecution > now {
			s.mu.Unlock()
			return
		}
		t := s.tasks[0]
		s.tasks = s.tasks[1:]
		if t.period > 0 {
			t.nextExecution += t.period
			s.tasks = append(s.tasks, t)
		}
		s.mu.Unlock()
		t.fn()
	}
}

// Pending returns the names of the queued tasks, soonest first.
func (s *MockScheduler) Pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.tasks))
	for _, t := range s.tasks {
		names = append(names, t.name)
	}
	return names
}
