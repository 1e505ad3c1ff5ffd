package utils

import (
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMockSchedulerRunsDueTasksInOrder(t *testing.T) {
	tm := common.NewMockTime(1000)
	s := NewMockScheduler(tm)
	var got []string
	s.Schedule("once", func() { got = append(got, "once") }, 10*time.Millisecond, 0)
	s.Schedule("periodic", func() { got = append(got, "periodic") }, 5*time.Millisecond, 5*time.Millisecond)
	s.Schedule("now", func() { got = append(got, "now") }, 0, 0)
	if len(got) != 1 || got[0] != "now" {
		t.Fatalf("after schedule: %v", got)
	}
	tm.Advance(10 * time.Millisecond)
	s.Tick()
	want := []string{"now", "periodic", "once", "periodic"}
	if len(got) != len(want) {
		t.Fatalf("got %v want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v want %v", got, want)
		}
	}
	if p := s.Pending(); len(p) != 1 || p[0] != "periodic" {
		t.Fatalf("pending %v", p)
	}
	s.Shutdown()
	if len(got) != 5 || len(s.Pending()) != 0 {
		t.Fatalf("shutdown should run pending once: %v", got)
	}
}

func TestKafkaSchedulerPeriodicAndShutdown(t *testing.T) {
	s := NewKafkaScheduler(2, nil)
	var once, periodic atomic.Int32
	s.Schedule("dropped", func() { once.Add(100) }, 0, 0) // not started: dropped
	s.Startup()
	if !s.IsStarted() {
		t.Fatal("not started")
	}
	s.Schedule("once", func() { once.Add(1) }, 0, 0)
	s.Schedule("periodic", func() { periodic.Add(1) }, time.Millisecond, time.Millisecond)
	s.Schedule("panics", func() { panic("boom") }, 0, 0)
	zktest.PollUntil(func() bool { return periodic.Load() >= 3 && once.Load() >= 1 }, 5*time.Second)
	s.Shutdown()
	if once.Load() != 1 || periodic.Load() < 3 {
		t.Fatalf("once=%d periodic=%d", once.Load(), periodic.Load())
	}
	n := periodic.Load()
	time.Sleep(5 * time.Millisecond)
	if periodic.Load() != n || s.IsStarted() {
		t.Fatal("task ran after shutdown")
	}
}

func TestFileLockExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".lock")
	a, err := NewFileLock(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewFileLock(p)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := a.TryLock(); !ok || err != nil {
		t.Fatalf("first lock: %v %v", ok, err)
	}
	if ok, err := b.TryLock(); ok || err != nil {
		t.Fatalf("second lock must fail: %v %v", ok, err)
	}
	if err := a.Destroy(); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(); !ok || err != nil {
		t.Fatalf("lock after release: %v %v", ok, err)
	}
	_ = b.Destroy()
	if _, err := b.TryLock(); err == nil {
		t.Fatal("TryLock after Destroy should fail")
	}
}

func TestMockSchedulerNestedScheduleDoesNotReenter(t *testing.T) {
	tm := common.NewMockTime(0)
	s := NewMockScheduler(tm)
	var order []string
	inTask := false
	s.Schedule("outer", func() {
		inTask = true
		s.Schedule("inner", func() {
			if inTask {
				t.Error("inner task ran inside the outer one")
			}
			order = append(order, "inner")
		}, 0, 0)
		order = append(order, "outer")
		inTask = false
	}, time.Millisecond, 0)
	tm.Advance(time.Millisecond)
	s.Tick()
	if len(order) != 2 || order[0] != "outer" || order[1] != "inner" {
		t.Fatalf("order %v", order)
	}
}

func TestThrottlerSleepsToDesiredRate(t *testing.T) {
	tm := common.NewMockTime(0)
	th := NewThrottler(1000, 100*time.Millisecond, true, tm) // 1000 units/s
	th.MaybeThrottle(500)                                    // within the first interval: no check
	if tm.Milliseconds() != 0 {
		t.Fatal("slept before the check interval")
	}
	tm.Advance(200 * time.Millisecond)
	th.MaybeThrottle(500) // 1000 units in 200 ms = 5000/s: sleep until 1000 ms in total
	if got := tm.Milliseconds(); got != 1000 {
		t.Fatalf("clock at %d ms, want 1000", got)
	}
	tm.Advance(2 * time.Second)
	th.MaybeThrottle(10) // far below the rate: no sleep
	if got := tm.Milliseconds(); got != 3000 {
		t.Fatalf("clock at %d ms, want 3000", got)
	}
	unlimited := NewThrottler(math.MaxFloat64, 0, true, tm)
	tm.Advance(time.Millisecond)
	unlimited.MaybeThrottle(1e12)
	if got := tm.Milliseconds(); got != 3001 {
		t.Fatal("an unlimited throttler slept")
	}
}

// TestKafkaSchedulerOneThreadIsFIFO: tasks scheduled back to back on a one-thread scheduler run
// in the order they were scheduled, one at a time (a goroutine per task reordered 1,980 of 2,000
// pairs), and a task due earlier runs before one scheduled before it but due later.
func TestKafkaSchedulerOneThreadIsFIFO(t *testing.T) {
	s := NewKafkaScheduler(1, nil)
	s.Startup()
	defer s.Shutdown()
	const n = 4000
	var mu sync.Mutex
	var order []int
	running := 0
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		s.Schedule(fmt.Sprint(i), func() {
			mu.Lock()
			running++
			if running != 1 {
				t.Errorf("%d tasks running at once on a one-thread scheduler", running)
			}
			order = append(order, i)
			mu.Unlock()
			mu.Lock()
			running--
			if len(order) == n {
				close(done)
			}
			mu.Unlock()
		}, 0, 0)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("tasks did not all run")
	}
	mu.Lock()
	defer mu.Unlock()
	for i, v := range order {
		if v != i {
			t.Fatalf("task %d ran in position %d (first misplaced of %d)", v, i, n)
		}
	}

	late, early := make(chan time.Time, 1), make(chan time.Time, 1)
	s.Schedule("late", func() { late <- time.Now() }, 300*time.Millisecond, 0)
	s.Schedule("early", func() { early <- time.Now() }, 0, 0)
	if e, l := <-early, <-late; !e.Before(l) {
		t.Errorf("the task due first ran at %v, after the later one at %v", e, l)
	}
}

// TestKafkaSchedulerThreadsRunConcurrently: a pool of three runs three blocking tasks at once.
func TestKafkaSchedulerThreadsRunConcurrently(t *testing.T) {
	s := NewKafkaScheduler(3, nil)
	s.Startup()
	defer s.Shutdown()
	var wg sync.WaitGroup
	wg.Add(3)
	release := make(chan struct{})
	for i := 0; i < 3; i++ {
		s.Schedule("block", func() { wg.Done(); <-release }, 0, 0)
	}
	ok := make(chan struct{})
	go func() { wg.Wait(); close(ok) }()
	select {
	case <-ok:
	case <-time.After(10 * time.Second):
		t.Fatal("three tasks did not start together on three threads")
	}
	close(release)
}
