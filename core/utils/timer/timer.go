package timer

import (
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
)

// Timer runs tasks after their delay. The purgatory depends on this interface so its tests can
// drive time with MockTimer.
//
// Kafka 0.10.2: kafka.utils.timer.Timer.
type Timer interface {
	// Add schedules task to run DelayMs after now. Adding a task that is already scheduled
	// reschedules it.
	Add(task Task)
	// AdvanceClock runs every task whose time has come, waiting up to timeoutMs for the first one
	// to come due. It reports whether any bucket expired.
	AdvanceClock(timeoutMs int64) bool
	// Size is the number of tasks waiting to run.
	Size() int
	// Shutdown stops the timer; tasks that have not expired yet never run.
	Shutdown()
}

// Defaults of SystemTimer, as in Kafka.
const (
	DefaultTickMs    = 1
	DefaultWheelSize = 20
)

// SystemTimerConfig tunes a SystemTimer; the zero value gives Kafka's defaults.
//
// Kafka 0.10.2: the constructor parameters of kafka.utils.timer.SystemTimer (tickMs = 1,
// wheelSize = 20; startMs is always "now" on the injected clock), plus the executor size, the
// clock and the logger that Kafka took from globals.
type SystemTimerConfig struct {
	TickMs    int64         // bucket width of the finest wheel; 0 means 1
	WheelSize int           // buckets per wheel; 0 means 20
	Executors int           // goroutines running expired tasks; 0 means 1, as in Kafka
	Time      common.Time   // nil means common.SystemTime{}
	Logger    *logrus.Entry // nil discards
}

// SystemTimer is the hierarchical timing wheel driven by a DelayQueue: Add files tasks into the
// wheel and AdvanceClock, called in a loop by one goroutine (the purgatory's reaper), waits for
// the next bucket, advances the wheels and hands due tasks to the executor goroutines.
//
// Kafka 0.10.2: kafka.utils.timer.SystemTimer.
type SystemTimer struct {
	executorName string
	clock        common.Time
	log          *logrus.Entry

	taskExecutor *taskExecutor
	delayQueue   *DelayQueue
	taskCounter  atomic.Int32
	timingWheel  *TimingWheel

	// lock is Kafka's readWriteLock: any number of Adds may run together (each bucket has its own
	// lock), but none while AdvanceClock moves the wheels' clocks and flushes buckets.
	lock     sync.RWMutex
	reinsert func(*TimerTaskEntry) // addTimerTaskEntry, bound once (Kafka: val reinsert)

	shutdownOnce sync.Once
}

// NewSystemTimer starts a timer whose executor goroutines are named (in logs) "executor-<name>".
func NewSystemTimer(executorName string, cfg SystemTimerConfig) *SystemTimer {
	if cfg.TickMs <= 0 {
		cfg.TickMs = DefaultTickMs
	}
	if cfg.WheelSize <= 0 {
		cfg.WheelSize = DefaultWheelSize
	}
	if cfg.Executors <= 0 {
		cfg.Executors = 1
	}
	if cfg.Time == nil {
		cfg.Time = common.SystemTime{}
	}
	if cfg.Logger == nil {
		cfg.Logger = discardLogger()
	}
	t := &SystemTimer{
		executorName: executorName,
		clock:        cfg.Time,
		log:          cfg.Logger,
		delayQueue:   newDelayQueue(cfg.Time),
	}
	t.timingWheel = newTimingWheel(cfg.TickMs, cfg.WheelSize, t.hiResClockMs(), &t.taskCounter, t.delayQueue)
	t.reinsert = t.addTimerTaskEntry
	t.taskExecutor = newTaskExecutor(executorName, cfg.Executors, cfg.Logger)
	return t
}

// hiResClockMs is the monotonic clock in milliseconds (Kafka: Time.hiResClockMs).
func (t *SystemTimer) hiResClockMs() int64 {
	return t.clock.Nanoseconds() / int64(time.Millisecond)
}

// Add implements Timer.
func (t *SystemTimer) Add(task Task) {
	t.lock.RLock()
	defer t.lock.RUnlock()
	t.addTimerTaskEntry(newTimerTaskEntry(task, saturatingAdd(task.timerTask().DelayMs, t.hiResClockMs())))
}

func (t *SystemTimer) addTimerTaskEntry(e *TimerTaskEntry) {
	if !t.timingWheel.add(e) {
		// Already due, or cancelled: run it now unless it was cancelled.
		if !e.cancelled() {
			t.taskExecutor.submit(e.timerTask)
		}
	}
}

// AdvanceClock implements Timer. It waits up to timeoutMs for a bucket; once one is due it takes
// the write lock and processes that bucket and every other bucket already due.
func (t *SystemTimer) AdvanceClock(timeoutMs int64) bool {
	bucket := t.delayQueue.pollTimeout(timeoutMs)
	if bucket == nil {
		return false
	}
	t.lock.Lock()
	defer t.lock.Unlock()
	for bucket != nil {
		t.timingWheel.advanceClock(bucket.getExpiration())
		bucket.flush(t.reinsert)
		bucket = t.delayQueue.poll()
	}
	return true
}

// Size implements Timer.
func (t *SystemTimer) Size() int { return int(t.taskCounter.Load()) }

// Shutdown implements Timer: it wakes a goroutine blocked in AdvanceClock, lets tasks already
// handed to the executor finish, and waits for the executor goroutines to exit. It is idempotent
// and must not be called from a task.
func (t *SystemTimer) Shutdown() {
	t.shutdownOnce.Do(func() {
		t.delayQueue.close()
		t.taskExecutor.shutdownAndWait()
	})
}

// saturatingAdd adds two int64s, pinning the result at the int64 limits instead of wrapping.
func saturatingAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

func discardLogger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}
