package timer

import (
	"sync"
	"sync/atomic"
)

// TimerTask is the state a timer needs in every task: the delay and the entry that currently holds
// the task in a bucket. Embed it (by value) in a type that has a Run method; that type is a Task.
//
// Kafka 0.10.2: kafka.utils.timer.TimerTask (the trait's state and concrete methods; the abstract
// run() is the Run method of the embedding type).
type TimerTask struct {
	// DelayMs is how long after Add the task expires. Set it before Add; it is read once by Add.
	DelayMs int64

	mu sync.Mutex // serialises Cancel and setTimerTaskEntry (Scala: this.synchronized)
	// entry is the entry that owns this task, nil when the task is not scheduled. It is read
	// without mu by TimerTaskEntry.cancelled, hence atomic.
	entry atomic.Pointer[TimerTaskEntry]
}

// Task is what a Timer schedules: a type that embeds TimerTask and has a Run method. Run is called
// once, on an executor goroutine, when the task expires without having been cancelled.
//
// Kafka 0.10.2: kafka.utils.timer.TimerTask as the Timer sees it (the trait, with the run() it
// inherits from java.lang.Runnable).
type Task interface {
	Run()
	timerTask() *TimerTask
}

func (t *TimerTask) timerTask() *TimerTask { return t }

// Cancel removes the task from the timer. It is cheap (O(1)) and safe to call at any time, any
// number of times; a cancelled task does not run unless it is added again.
func (t *TimerTask) Cancel() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.entry.Load(); e != nil {
		e.remove()
	}
	t.entry.Store(nil)
}

// setTimerTaskEntry makes e the entry that owns the task. An older entry is unlinked from its
// bucket first, so re-adding a task moves it rather than scheduling it twice.
func (t *TimerTask) setTimerTaskEntry(e *TimerTaskEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.entry.Load(); old != nil && old != e {
		old.remove()
	}
	t.entry.Store(e)
}

func (t *TimerTask) getTimerTaskEntry() *TimerTaskEntry { return t.entry.Load() }
