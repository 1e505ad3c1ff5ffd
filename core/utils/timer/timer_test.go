package timer

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zktest"
)

// latchTask is Kafka's TimerTest.TestTask: it records its id once and counts down a latch.
type latchTask struct {
	TimerTask
	id        int
	completed atomic.Bool
	latch     *sync.WaitGroup
	mu        *sync.Mutex
	output    *[]int
}

func (k *latchTask) Run() {
	if k.completed.CompareAndSwap(false, true) {
		k.mu.Lock()
		*k.output = append(*k.output, k.id)
		k.mu.Unlock()
		k.latch.Done()
	}
}

func waitGroupWithin(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// TestAlreadyExpiredTask ports TimerTest.testAlreadyExpiredTask: tasks with negative delays run at
// once, without waiting for a tick.
func TestAlreadyExpiredTask(t *testing.T) {
	timer := NewSystemTimer("test", SystemTimerConfig{TickMs: 1, WheelSize: 3})
	defer timer.Shutdown()
	var (
		mu     sync.Mutex
		output []int
		latch  sync.WaitGroup
	)
	for i := -5; i < 0; i++ {
		latch.Add(1)
		timer.Add(&latchTask{TimerTask: TimerTask{DelayMs: int64(i)}, id: i, latch: &latch, mu: &mu, output: &output})
	}
	timer.AdvanceClock(0)
	if !waitGroupWithin(&latch, 3*time.Second) {
		t.Fatal("already expired tasks should run immediately")
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Ints(output)
	if !slices.Equal(output, []int{-5, -4, -3, -2, -1}) {
		t.Fatalf("output of already expired tasks = %v", output)
	}
}

// TestTaskExpiration ports TimerTest.testTaskExpiration: 990 tasks with delays 0..499 ms (some
// twice) on a 3-slot wheel, so most of them travel down through several overflow wheels; they
// must run in order of delay.
func TestTaskExpiration(t *testing.T) {
	timer := NewSystemTimer("test", SystemTimerConfig{TickMs: 1, WheelSize: 3})
	defer timer.Shutdown()
	var (
		mu     sync.Mutex
		output []int
		latch  sync.WaitGroup
		tasks  []*latchTask
		ids    []int
	)
	mk := func(i int) {
		latch.Add(1)
		tasks = append(tasks, &latchTask{TimerTask: TimerTask{DelayMs: int64(i)}, id: i, latch: &latch, mu: &mu, output: &output})
		ids = append(ids, i)
	}
	for i := 0; i < 5; i++ {
		mk(i)
	}
	for i := 10; i < 100; i++ {
		mk(i)
		mk(i)
	}
	for i := 100; i < 500; i++ {
		mk(i)
	}
	for _, task := range tasks {
		timer.Add(task)
	}
	for timer.AdvanceClock(2000) {
	}
	if !waitGroupWithin(&latch, 10*time.Second) {
		t.Fatal("not every task ran")
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Ints(ids)
	if !slices.Equal(output, ids) {
		t.Fatalf("output should match the ids in order of delay;\n got %v\nwant %v", output, ids)
	}
	if timer.Size() != 0 {
		t.Fatalf("size after all ran = %d", timer.Size())
	}
}

// recordingTask records the clock reading at which it ran.
type recordingTask struct {
	TimerTask
	clock *common.MockTime
	ranAt atomic.Int64
	runs  atomic.Int32
	total *atomic.Int32
}

func newRecordingTask(delay int64, clock *common.MockTime, total *atomic.Int32) *recordingTask {
	r := &recordingTask{TimerTask: TimerTask{DelayMs: delay}, clock: clock, total: total}
	r.ranAt.Store(-1)
	return r
}

func (r *recordingTask) Run() {
	r.ranAt.Store(r.clock.Milliseconds())
	r.runs.Add(1)
	r.total.Add(1)
}

func waitCount(t *testing.T, c *atomic.Int32, want int32) {
	t.Helper()
	zktest.WaitUntilTrue(t, func() bool { return c.Load() >= want }, fmt.Sprintf("fewer than %d tasks ran", want), 5*time.Second)
}

// TestTimingWheelExpiresAtDeadline drives a SystemTimer with a MockTime one millisecond at a
// time: every task, whatever wheel level it starts in, must run exactly at the tick of its
// expiration, not before and not after.
func TestTimingWheelExpiresAtDeadline(t *testing.T) {
	clock := common.NewMockTime(0)
	timer := NewSystemTimer("wheel", SystemTimerConfig{TickMs: 1, WheelSize: 3, Time: clock})
	defer timer.Shutdown()

	var total atomic.Int32
	delays := []int64{0, 1, 2, 3, 4, 5, 8, 9, 10, 26, 27, 28, 80, 81, 82, 100, 242, 243, 244, 500, 728, 729, 730, 1000}
	var tasks []*recordingTask
	for _, d := range delays {
		task := newRecordingTask(d, clock, &total)
		tasks = append(tasks, task)
		timer.Add(task)
	}
	// 1000 ms needs wheels of interval 3, 9, 27, 81, 243, 729 and 2187.
	if got := timer.timingWheel.levels(); got != 7 {
		t.Fatalf("levels = %d, want 7", got)
	}
	waitCount(t, &total, 1) // delay 0 is due at once
	if timer.Size() != len(delays)-1 {
		t.Fatalf("size = %d, want %d", timer.Size(), len(delays)-1)
	}

	for now := int64(1); now <= 1001; now++ {
		clock.Advance(time.Millisecond)
		timer.AdvanceClock(0)
		due := int32(0)
		for _, d := range delays {
			if d <= now {
				due++
			}
		}
		waitCount(t, &total, due)
		if got := total.Load(); got != due {
			t.Fatalf("at %d ms %d tasks ran, want %d", now, got, due)
		}
	}
	for _, task := range tasks {
		if task.runs.Load() != 1 || task.ranAt.Load() != task.DelayMs {
			t.Errorf("task delay %d ran %d times, at %d ms", task.DelayMs, task.runs.Load(), task.ranAt.Load())
		}
	}
	if timer.Size() != 0 {
		t.Fatalf("size = %d", timer.Size())
	}
}

func TestOverflowWheelCreatedLazily(t *testing.T) {
	clock := common.NewMockTime(0)
	timer := NewSystemTimer("lazy", SystemTimerConfig{TickMs: 1, WheelSize: 20, Time: clock})
	defer timer.Shutdown()
	var total atomic.Int32
	timer.Add(newRecordingTask(19, clock, &total))
	if got := timer.timingWheel.levels(); got != 1 {
		t.Fatalf("levels = %d, want 1 (19 ms fits the first wheel)", got)
	}
	timer.Add(newRecordingTask(20, clock, &total))
	if got := timer.timingWheel.levels(); got != 2 {
		t.Fatalf("levels = %d, want 2", got)
	}
	timer.Add(newRecordingTask(400, clock, &total))
	if got := timer.timingWheel.levels(); got != 3 {
		t.Fatalf("levels = %d, want 3", got)
	}
}

func TestHugeDelayDoesNotOverflow(t *testing.T) {
	clock := common.NewMockTime(0)
	timer := NewSystemTimer("huge", SystemTimerConfig{Time: clock})
	defer timer.Shutdown()
	var total atomic.Int32
	clock.Advance(5 * time.Millisecond)
	timer.Add(newRecordingTask(math.MaxInt64, clock, &total))
	timer.Add(newRecordingTask(math.MaxInt64-3, clock, &total))
	if timer.Size() != 2 {
		t.Fatalf("size = %d", timer.Size())
	}
	clock.Advance(time.Hour)
	timer.AdvanceClock(0)
	time.Sleep(10 * time.Millisecond)
	if total.Load() != 0 {
		t.Fatal("a task with a huge delay ran")
	}
}

func TestCancelRemovesTask(t *testing.T) {
	clock := common.NewMockTime(0)
	timer := NewSystemTimer("cancel", SystemTimerConfig{Time: clock})
	defer timer.Shutdown()
	var total atomic.Int32
	var tasks []*recordingTask
	for i := 0; i < 100; i++ {
		task := newRecordingTask(int64(1+i%40), clock, &total)
		tasks = append(tasks, task)
		timer.Add(task)
	}
	for i := 0; i < 100; i += 2 {
		tasks[i].Cancel()
		tasks[i].Cancel() // idempotent
	}
	if timer.Size() != 50 {
		t.Fatalf("size after cancelling half = %d", timer.Size())
	}
	clock.Advance(100 * time.Millisecond)
	for timer.AdvanceClock(0) {
	}
	waitCount(t, &total, 50)
	time.Sleep(10 * time.Millisecond)
	for i, task := range tasks {
		if want := int32(i % 2); task.runs.Load() != want {
			t.Fatalf("task %d ran %d times, want %d", i, task.runs.Load(), want)
		}
	}
}

// TestReAddMovesTask: adding a task that is already scheduled reschedules it.
func TestReAddMovesTask(t *testing.T) {
	clock := common.NewMockTime(0)
	timer := NewSystemTimer("readd", SystemTimerConfig{Time: clock})
	defer timer.Shutdown()
	var total atomic.Int32
	task := newRecordingTask(10, clock, &total)
	timer.Add(task)
	task.DelayMs = 30
	timer.Add(task)
	if timer.Size() != 1 {
		t.Fatalf("size = %d, want 1", timer.Size())
	}
	clock.Advance(15 * time.Millisecond)
	timer.AdvanceClock(0)
	time.Sleep(10 * time.Millisecond)
	if total.Load() != 0 {
		t.Fatal("the first schedule fired")
	}
	clock.Advance(15 * time.Millisecond)
	timer.AdvanceClock(0)
	waitCount(t, &total, 1)
	if task.ranAt.Load() != 30 {
		t.Fatalf("ran at %d", task.ranAt.Load())
	}
}

// TestConcurrentCancelAndExpire races Cancel against expiry: every task runs at most once, and
// the counter never goes negative or leaves stale entries.
func TestConcurrentCancelAndExpire(t *testing.T) {
	timer := NewSystemTimer("race", SystemTimerConfig{})
	defer timer.Shutdown()
	clock := common.NewMockTime(0)
	var total atomic.Int32
	const n = 2000
	tasks := make([]*recordingTask, n)
	for i := range tasks {
		tasks[i] = newRecordingTask(int64(i%20), clock, &total)
		timer.Add(tasks[i])
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				timer.AdvanceClock(5)
			}
		}
	}()
	for i := 0; i < n; i += 3 {
		tasks[i].Cancel()
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	for i, task := range tasks {
		if r := task.runs.Load(); r > 1 || (i%3 != 0 && r != 1) {
			t.Fatalf("task %d ran %d times", i, r)
		}
	}
	if timer.Size() != 0 {
		t.Fatalf("size = %d", timer.Size())
	}
}

type panicTask struct{ TimerTask }

func (*panicTask) Run() { panic("boom") }

func TestExecutorRecoversPanic(t *testing.T) {
	logger, hook := logtest.NewNullLogger()
	timer := NewSystemTimer("panic", SystemTimerConfig{Logger: logrus.NewEntry(logger)})
	defer timer.Shutdown()
	var total atomic.Int32
	// A delay-0 task runs at once only while the wheel's clock is within a tick of the wall
	// clock; on a slow machine it lands in a bucket instead, which only AdvanceClock (the
	// purgatory's reaper, in the broker) flushes. So the test drives the clock as the reaper does.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				timer.AdvanceClock(5)
			}
		}
	}()
	timer.Add(&panicTask{})
	timer.Add(newRecordingTask(0, common.NewMockTime(0), &total))
	waitCount(t, &total, 1)
	if e := hook.LastEntry(); e == nil || e.Level != logrus.ErrorLevel {
		t.Fatalf("the panic was not logged: %v", hook.AllEntries())
	}
}

func TestShutdownWakesAdvanceClockAndDropsLateTasks(t *testing.T) {
	timer := NewSystemTimer("shutdown", SystemTimerConfig{})
	returned := make(chan bool)
	go func() { returned <- timer.AdvanceClock(60_000) }()
	time.Sleep(10 * time.Millisecond)
	start := time.Now()
	timer.Shutdown()
	select {
	case got := <-returned:
		if got {
			t.Fatal("AdvanceClock reported an expiry on shutdown")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown did not wake AdvanceClock")
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("shutdown took %v", el)
	}
	var total atomic.Int32
	timer.Add(newRecordingTask(-1, common.NewMockTime(0), &total))
	timer.Shutdown() // idempotent
	time.Sleep(10 * time.Millisecond)
	if total.Load() != 0 {
		t.Fatal("a task ran after shutdown")
	}
}

func TestMockTimer(t *testing.T) {
	m := NewMockTimer(common.NewMockTime(1000))
	var total atomic.Int32
	now := newRecordingTask(0, m.Time, &total)
	m.Add(now)
	if now.runs.Load() != 1 || m.Size() != 0 {
		t.Fatal("a task with no delay must run inside Add")
	}
	a := newRecordingTask(10, m.Time, &total)
	b := newRecordingTask(20, m.Time, &total)
	c := newRecordingTask(15, m.Time, &total)
	m.Add(a)
	m.Add(b)
	m.Add(c)
	c.Cancel()
	if m.Size() != 3 {
		t.Fatalf("size = %d (cancelled tasks count until their time passes, as in Kafka)", m.Size())
	}
	if m.AdvanceClock(10) {
		t.Fatal("at exactly the expiration nothing runs (Kafka's MockTimer compares strictly)")
	}
	if !m.AdvanceClock(1) || a.runs.Load() != 1 || a.ranAt.Load() != 1011 {
		t.Fatalf("a: runs %d at %d", a.runs.Load(), a.ranAt.Load())
	}
	if m.AdvanceClock(5) {
		t.Fatal("only the cancelled task was due")
	}
	if !m.AdvanceClock(10) || b.runs.Load() != 1 || c.runs.Load() != 0 {
		t.Fatalf("b runs %d, cancelled c runs %d", b.runs.Load(), c.runs.Load())
	}
	if m.Size() != 0 {
		t.Fatalf("size = %d", m.Size())
	}
}

// levels is the number of wheels in the hierarchy, w included.
func (w *TimingWheel) levels() int {
	n := 1
	for o := w.overflowWheel.Load(); o != nil; o = o.overflowWheel.Load() {
		n++
	}
	return n
}
