package purgatory

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/utils/timer"
	"github.com/zkafka/zkafka/zk/zktest"
)

// mockDelayedOperation is Kafka's MockDelayedOperation: completable on demand, and it signals its
// completion on a channel.
type mockDelayedOperation struct {
	DelayedOperation
	completable  atomic.Bool
	completions  atomic.Int32
	expirations  atomic.Int32
	tryCalls     atomic.Int32
	completedCh  chan struct{}
	onTryHook    func(call int32) // optional, runs inside TryComplete
	onCompleteFn func()           // optional, runs inside OnComplete
}

func newMockOp(delayMs int64) *mockDelayedOperation {
	op := &mockDelayedOperation{completedCh: make(chan struct{})}
	op.Init(delayMs, op)
	return op
}

func (m *mockDelayedOperation) TryComplete() bool {
	call := m.tryCalls.Add(1)
	if m.onTryHook != nil {
		m.onTryHook(call)
	}
	if m.completable.Load() {
		return m.ForceComplete()
	}
	return false
}

func (m *mockDelayedOperation) OnExpiration() { m.expirations.Add(1) }

func (m *mockDelayedOperation) OnComplete() {
	if m.completions.Add(1) == 1 {
		close(m.completedCh)
	}
	if m.onCompleteFn != nil {
		m.onCompleteFn()
	}
}

func keys(names ...string) []DelayedOperationKey {
	ks := make([]DelayedOperationKey, len(names))
	for i, n := range names {
		ks[i] = TopicKey{Topic: n}
	}
	return ks
}

func newTestPurgatory(t *testing.T, purgeInterval int) *DelayedOperationPurgatory[*mockDelayedOperation] {
	t.Helper()
	p := NewDelayedOperationPurgatory[*mockDelayedOperation]("mock", 0, purgeInterval, common.SystemTime{}, nil)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return p
}

func (p *DelayedOperationPurgatory[T]) numWatcherLists() int {
	n := 0
	p.watchersForKey.Range(func(_, _ any) bool { n++; return true })
	return n
}

// TestRequestSatisfaction ports DelayedOperationTest.testRequestSatisfaction.
func TestRequestSatisfaction(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	r1 := newMockOp(100000)
	r2 := newMockOp(100000)
	if n := p.CheckAndComplete(TopicKey{"test1"}); n != 0 {
		t.Fatalf("with no waiting requests, nothing should be satisfied: %d", n)
	}
	if p.TryCompleteElseWatch(r1, keys("test1")) {
		t.Fatal("r1 not satisfied and hence watched")
	}
	if n := p.CheckAndComplete(TopicKey{"test1"}); n != 0 {
		t.Fatalf("still nothing satisfied: %d", n)
	}
	if p.TryCompleteElseWatch(r2, keys("test2")) {
		t.Fatal("r2 not satisfied and hence watched")
	}
	if n := p.CheckAndComplete(TopicKey{"test2"}); n != 0 {
		t.Fatalf("still nothing satisfied: %d", n)
	}
	r1.completable.Store(true)
	if n := p.CheckAndComplete(TopicKey{"test1"}); n != 1 {
		t.Fatalf("r1 satisfied: %d", n)
	}
	if n := p.CheckAndComplete(TopicKey{"test1"}); n != 0 {
		t.Fatalf("nothing satisfied: %d", n)
	}
	r2.completable.Store(true)
	if n := p.CheckAndComplete(TopicKey{"test2"}); n != 1 {
		t.Fatalf("r2 satisfied: %d", n)
	}
	if n := p.CheckAndComplete(TopicKey{"test2"}); n != 0 {
		t.Fatalf("nothing satisfied: %d", n)
	}
	if r1.expirations.Load() != 0 || r2.expirations.Load() != 0 {
		t.Fatal("completed operations must not expire")
	}
}

// TestRequestExpiry ports DelayedOperationTest.testRequestExpiry.
func TestRequestExpiry(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	const expiration = 20
	start := time.Now()
	r1 := newMockOp(expiration)
	r2 := newMockOp(200000)
	if p.TryCompleteElseWatch(r1, keys("test1")) || p.TryCompleteElseWatch(r2, keys("test2")) {
		t.Fatal("r1 and r2 not satisfied and hence watched")
	}
	select {
	case <-r1.completedCh:
	case <-time.After(30 * time.Second):
		t.Fatal("r1 did not expire")
	}
	elapsed := time.Since(start)
	// The expiry path calls OnComplete (which closed completedCh) and then OnExpiration, on the
	// reaper's goroutine: wait for the second call rather than expect it already made.
	if !r1.IsCompleted() || !zktest.PollUntil(func() bool { return r1.expirations.Load() == 1 }, 30*time.Second) {
		t.Fatalf("r1 completed due to expiration: completed %v, expirations %d", r1.IsCompleted(), r1.expirations.Load())
	}
	if r2.IsCompleted() {
		t.Fatal("r2 hasn't completed")
	}
	if elapsed < (expiration-1)*time.Millisecond { // the wheel works in whole ms: up to one tick early
		t.Fatalf("time for expiration %v should be at least %d ms", elapsed, expiration)
	}
}

// TestRequestPurge ports DelayedOperationTest.testRequestPurge.
func TestRequestPurge(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	r1 := newMockOp(100000)
	r2 := newMockOp(100000)
	r3 := newMockOp(100000)
	p.TryCompleteElseWatch(r1, keys("test1"))
	p.TryCompleteElseWatch(r2, keys("test1", "test2"))
	p.TryCompleteElseWatch(r3, keys("test1", "test2", "test3"))

	if d := p.Delayed(); d != 3 {
		t.Fatalf("purgatory should have 3 total delayed operations, has %d", d)
	}
	if w := p.Watched(); w != 6 {
		t.Fatalf("purgatory should have 6 watched elements, has %d", w)
	}

	// Completing an operation takes it out of the timer at once.
	r2.completable.Store(true)
	r2.TryComplete()
	if d := p.Delayed(); d != 2 {
		t.Fatalf("purgatory should have 2 total delayed operations instead of %d", d)
	}
	r3.completable.Store(true)
	r3.TryComplete()
	if d := p.Delayed(); d != 1 {
		t.Fatalf("purgatory should have 1 total delayed operations instead of %d", d)
	}

	// Checking a key purges its watch list.
	p.CheckAndComplete(TopicKey{"test1"})
	if w := p.Watched(); w != 4 {
		t.Fatalf("purgatory should have 4 watched elements instead of %d", w)
	}
	p.CheckAndComplete(TopicKey{"test2"})
	if w := p.Watched(); w != 2 {
		t.Fatalf("purgatory should have 2 watched elements instead of %d", w)
	}
	p.CheckAndComplete(TopicKey{"test3"})
	if w := p.Watched(); w != 1 {
		t.Fatalf("purgatory should have 1 watched elements instead of %d", w)
	}
}

func TestTryCompleteElseWatchCompletesAtOnce(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	op := newMockOp(100000)
	op.completable.Store(true)
	if !p.TryCompleteElseWatch(op, keys("a", "b")) {
		t.Fatal("a completable operation is completed by the caller")
	}
	if p.Watched() != 0 || p.Delayed() != 0 || p.numWatcherLists() != 0 {
		t.Fatalf("watched %d delayed %d lists %d", p.Watched(), p.Delayed(), p.numWatcherLists())
	}
	if op.completions.Load() != 1 || op.tryCalls.Load() != 1 {
		t.Fatalf("completions %d tryCalls %d", op.completions.Load(), op.tryCalls.Load())
	}
}

// TestSecondCheckCompletes: the event that makes the operation completable happens after the
// first check; the second check (after watching) must catch it, and the timer is never used.
func TestSecondCheckCompletes(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	op := newMockOp(100000)
	op.onTryHook = func(call int32) {
		if call == 2 {
			op.completable.Store(true)
		}
	}
	if !p.TryCompleteElseWatch(op, keys("a")) {
		t.Fatal("the second check should complete the operation")
	}
	if p.Delayed() != 0 {
		t.Fatalf("delayed = %d, want 0", p.Delayed())
	}
	if p.Watched() != 1 {
		t.Fatalf("watched = %d: the completed operation stays watched until purged", p.Watched())
	}
	if p.estimatedTotalOperations.Load() != 1 {
		t.Fatalf("estimate = %d", p.estimatedTotalOperations.Load())
	}
}

// TestCompletedElsewhereIsNotWatched: an operation completed by another goroutine after the
// first check is not put on any (further) watch list or into the timer, and the call reports false
// because it did not complete the operation itself.
func TestCompletedElsewhereIsNotWatched(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	op := newMockOp(100000)
	op.onTryHook = func(call int32) {
		if call == 1 {
			go op.ForceComplete() // "another thread" completes it...
			// ...before we get to watch it. The completed flag is set before OnComplete
			// runs, so wait for OnComplete itself, not for IsCompleted.
			for op.completions.Load() == 0 {
				time.Sleep(10 * time.Microsecond)
			}
		}
	}
	if p.TryCompleteElseWatch(op, keys("k1", "k2", "k3")) {
		t.Fatal("an operation completed by someone else is not completed by me")
	}
	if p.numWatcherLists() != 0 || p.Watched() != 0 || p.Delayed() != 0 {
		t.Fatalf("lists %d watched %d delayed %d", p.numWatcherLists(), p.Watched(), p.Delayed())
	}
	if op.completions.Load() != 1 {
		t.Fatalf("completions %d", op.completions.Load())
	}
}

func TestForceCompleteExactlyOnce(t *testing.T) {
	op := newMockOp(100000)
	var winners atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if op.ForceComplete() {
				winners.Add(1)
			}
			op.Run() // the expire path racing too
		}()
	}
	close(start)
	wg.Wait()
	if winners.Load() != 1 || op.completions.Load() != 1 || op.expirations.Load() != 0 || !op.IsCompleted() {
		t.Fatalf("winners %d completions %d expirations %d", winners.Load(), op.completions.Load(), op.expirations.Load())
	}
}

func TestExpirePathAfterCompletion(t *testing.T) {
	op := newMockOp(10)
	op.Run()
	if op.completions.Load() != 1 || op.expirations.Load() != 1 {
		t.Fatalf("expire path: completions %d expirations %d", op.completions.Load(), op.expirations.Load())
	}
	op.Run()
	if op.ForceComplete() || op.completions.Load() != 1 || op.expirations.Load() != 1 {
		t.Fatal("a completed operation cannot complete or expire again")
	}
}

func TestUninitialisedOperationPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("using an operation before Init should panic with a clear message")
		}
	}()
	var op mockDelayedOperation
	op.SafeTryComplete()
}

// TestReaperPurgesCompleted: operations completed by ForceComplete (not via CheckAndComplete) stay
// on their watch lists until the reaper sees more than purgeInterval of them.
func TestReaperPurgesCompleted(t *testing.T) {
	p := newTestPurgatory(t, 3)
	var ops []*mockDelayedOperation
	for i := 0; i < 10; i++ {
		op := newMockOp(100000)
		ops = append(ops, op)
		p.TryCompleteElseWatch(op, keys("x", "y"))
	}
	for _, op := range ops[:3] {
		op.ForceComplete()
	}
	// 3 completed is not more than purgeInterval 3: no purge.
	time.Sleep(450 * time.Millisecond) // > two reaper rounds of 200 ms
	if w := p.Watched(); w != 20 {
		t.Fatalf("watched = %d, want 20 (no purge yet)", w)
	}
	ops[3].ForceComplete()
	zktest.WaitUntilTrue(t, func() bool { return p.Watched() == 12 }, "watched != 12: the reaper did not purge the 4 completed operations", 5*time.Second)
	if e := p.estimatedTotalOperations.Load(); e != 6 {
		t.Fatalf("estimate after purge = %d, want 6 (the delayed count)", e)
	}
}

func TestEmptyWatchersRemoved(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	op := newMockOp(100000)
	p.TryCompleteElseWatch(op, keys("a", "b"))
	if p.numWatcherLists() != 2 {
		t.Fatalf("lists = %d", p.numWatcherLists())
	}
	op.completable.Store(true)
	if n := p.CheckAndComplete(TopicKey{"a"}); n != 1 {
		t.Fatalf("completed %d", n)
	}
	if p.numWatcherLists() != 1 {
		t.Fatalf("list a should be gone, lists = %d", p.numWatcherLists())
	}
	if n := p.CheckAndComplete(TopicKey{"b"}); n != 0 {
		t.Fatalf("completed %d", n)
	}
	if p.numWatcherLists() != 0 || p.Watched() != 0 {
		t.Fatalf("lists %d watched %d", p.numWatcherLists(), p.Watched())
	}
	// A fresh watch after removal creates a new list.
	op2 := newMockOp(100000)
	p.TryCompleteElseWatch(op2, keys("a"))
	if p.numWatcherLists() != 1 || p.Watched() != 1 {
		t.Fatalf("lists %d watched %d", p.numWatcherLists(), p.Watched())
	}
}

// TestMockTimerDrivesExpiry is how the coordinator's tests use a purgatory: a MockTimer, no reaper.
func TestMockTimerDrivesExpiry(t *testing.T) {
	mt := timer.NewMockTimer(common.NewMockTime(0))
	p := NewDelayedOperationPurgatoryWithTimer[*mockDelayedOperation]("Heartbeat", mt, 1, 0, false, nil)
	defer p.Shutdown(context.Background())
	a, b := newMockOp(100), newMockOp(300)
	p.TryCompleteElseWatch(a, []DelayedOperationKey{MemberKey{"g", "m1"}})
	p.TryCompleteElseWatch(b, []DelayedOperationKey{MemberKey{"g", "m2"}})
	mt.AdvanceClock(100)
	if a.IsCompleted() {
		t.Fatal("MockTimer expires strictly after the deadline")
	}
	p.AdvanceClock(1) // timer and purge (purgeInterval 0: purge whenever anything completed)
	if a.expirations.Load() != 1 || b.IsCompleted() {
		t.Fatalf("a expirations %d, b completed %v", a.expirations.Load(), b.IsCompleted())
	}
	if p.Watched() != 1 || p.numWatcherLists() != 1 {
		t.Fatalf("watched %d lists %d: the expired operation should be purged", p.Watched(), p.numWatcherLists())
	}
	mt.AdvanceClock(200)
	if b.expirations.Load() != 1 || p.Delayed() != 0 {
		t.Fatalf("b expirations %d delayed %d", b.expirations.Load(), p.Delayed())
	}
}

// TestHooksMayReenterPurgatory: OnComplete may watch or check other operations in the same
// purgatory (the coordinator does this), which would deadlock if a Watchers lock were held.
func TestHooksMayReenterPurgatory(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	next := newMockOp(100000)
	first := newMockOp(100000)
	first.onCompleteFn = func() {
		p.TryCompleteElseWatch(next, keys("k"))
		p.CheckAndComplete(TopicKey{"k"})
	}
	p.TryCompleteElseWatch(first, keys("k"))
	first.completable.Store(true)
	done := make(chan int)
	go func() { done <- p.CheckAndComplete(TopicKey{"k"}) }()
	select {
	case n := <-done:
		if n != 1 {
			t.Fatalf("completed %d", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("deadlock: a hook re-entered the purgatory")
	}
	if next.IsCompleted() || p.Watched() != 1 || p.Delayed() != 1 {
		t.Fatalf("next completed %v watched %d delayed %d", next.IsCompleted(), p.Watched(), p.Delayed())
	}
}

func TestKeys(t *testing.T) {
	tp := NewTopicPartitionOperationKey(common.TopicPartition{Topic: "foo", Partition: 3})
	cases := []struct {
		key  DelayedOperationKey
		want string
	}{
		{tp, "foo-3"},
		{MemberKey{GroupID: "g", ConsumerID: "c-1"}, "g-c-1"},
		{GroupKey{GroupID: "g"}, "g"},
		{TopicKey{Topic: "t"}, "t"},
	}
	for _, c := range cases {
		if got := c.key.KeyLabel(); got != c.want {
			t.Errorf("%#v.KeyLabel() = %q, want %q", c.key, got, c.want)
		}
	}
	// Keys are compared by type and value, like Scala case classes.
	p := newTestPurgatory(t, 1000)
	op := newMockOp(100000)
	p.TryCompleteElseWatch(op, []DelayedOperationKey{TopicKey{"x"}})
	op.completable.Store(true)
	if n := p.CheckAndComplete(GroupKey{"x"}); n != 0 {
		t.Fatal("GroupKey{x} must not match TopicKey{x}")
	}
	if n := p.CheckAndComplete(TopicKey{"x"}); n != 1 {
		t.Fatal("an equal TopicKey value must match")
	}
}

func TestEmptyKeysPanics(t *testing.T) {
	p := newTestPurgatory(t, 1000)
	defer func() {
		if recover() == nil {
			t.Fatal("an empty watch key list is a programming error")
		}
	}()
	p.TryCompleteElseWatch(newMockOp(1), nil)
}

// TestShutdownIsPromptAndIdempotent: the reaper waits up to 200 ms per round; Shutdown wakes it.
func TestShutdownIsPromptAndIdempotent(t *testing.T) {
	p := NewDelayedOperationPurgatory[*mockDelayedOperation]("shutdown", 0, 1000, nil, nil)
	op := newMockOp(100000)
	p.TryCompleteElseWatch(op, keys("a"))
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 150*time.Millisecond {
		t.Fatalf("shutdown took %v", el)
	}
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if op.IsCompleted() {
		t.Fatal("pending operations are left alone on shutdown")
	}
}

func TestShutdownHonoursContext(t *testing.T) {
	blocker := make(chan struct{})
	slow := &slowTimer{Timer: timer.NewMockTimer(nil), block: blocker, entered: make(chan struct{})}
	p := NewDelayedOperationPurgatoryWithTimer[*mockDelayedOperation]("slow", slow, 0, 1000, true, nil)
	<-slow.entered
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Fatalf("err = %v, want DeadlineExceeded while the reaper is stuck", err)
	}
	close(blocker)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// slowTimer blocks in AdvanceClock until block is closed.
type slowTimer struct {
	timer.Timer
	block   chan struct{}
	entered chan struct{}
	once    sync.Once
}

func (s *slowTimer) AdvanceClock(int64) bool {
	s.once.Do(func() { close(s.entered) })
	<-s.block
	return false
}
