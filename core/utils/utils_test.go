package utils

import (
	"math"
	"path/filepath"
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
