package timer

import (
	"math"
	"sync"
	"sync/atomic"
)

// TimingWheel is one level of the hierarchical timing wheel: wheelSize buckets of tickMs each,
// covering interval = tickMs*wheelSize from currentTime. Tasks beyond the interval go to an
// overflow wheel (tick = this interval), created the first time it is needed.
//
// Worked example (tickMs 1, wheelSize 3, start c): level 1 holds [c], [c+1], [c+2]; level 2 holds
// [c..c+2], [c+3..c+5], [c+6..c+8]; a task due at c+7 sits in level 2 until c+6, when its bucket is
// flushed and the task drops into level 1's bucket for c+7. A bucket is due at the start of its
// range, so the coarse bucket always expires before any of its tasks.
//
// Not safe for concurrent Add and advanceClock: SystemTimer holds a read lock for add (adds may
// run concurrently with each other) and the write lock for advanceClock.
//
// Kafka 0.10.2: kafka.utils.timer.TimingWheel.
type TimingWheel struct {
	tickMs      int64
	wheelSize   int64
	interval    int64 // tickMs*wheelSize, saturated at MaxInt64 for absurd delays
	taskCounter *atomic.Int32
	queue       *DelayQueue
	buckets     []*TimerTaskList

	// currentTime is a multiple of tickMs: the start of the bucket that is "now". It changes only
	// in advanceClock (under the timer's write lock) and is read by add (under the read lock).
	currentTime int64

	overflowMu    sync.Mutex // creating the overflow wheel (double-checked, as in Kafka)
	overflowWheel atomic.Pointer[TimingWheel]
}

func newTimingWheel(tickMs int64, wheelSize int, startMs int64, taskCounter *atomic.Int32, queue *DelayQueue) *TimingWheel {
	w := &TimingWheel{
		tickMs:      tickMs,
		wheelSize:   int64(wheelSize),
		interval:    math.MaxInt64,
		taskCounter: taskCounter,
		queue:       queue,
		buckets:     make([]*TimerTaskList, wheelSize),
		currentTime: startMs - floorMod(startMs, tickMs),
	}
	if tickMs <= math.MaxInt64/int64(wheelSize) {
		w.interval = tickMs * int64(wheelSize)
	}
	for i := range w.buckets {
		w.buckets[i] = newTimerTaskList(taskCounter)
	}
	return w
}

func (w *TimingWheel) addOverflowWheel() *TimingWheel {
	w.overflowMu.Lock()
	defer w.overflowMu.Unlock()
	if o := w.overflowWheel.Load(); o != nil {
		return o
	}
	o := newTimingWheel(w.interval, int(w.wheelSize), w.currentTime, w.taskCounter, w.queue)
	w.overflowWheel.Store(o)
	return o
}

// add puts the entry in its bucket (here or in an overflow wheel) and reports true, or reports
// false if the entry is cancelled or already due, in which case the caller runs it (or drops it).
// The comparisons are written as differences so that huge delays cannot overflow int64.
func (w *TimingWheel) add(e *TimerTaskEntry) bool {
	expiration := e.expirationMs
	switch {
	case e.cancelled():
		return false
	case expiration-w.currentTime < w.tickMs:
		return false // already expired
	case w.interval == math.MaxInt64 || expiration-w.currentTime < w.interval:
		// (A saturated interval is the top of the hierarchy: it takes everything.)
		virtualID := expiration / w.tickMs
		bucket := w.buckets[floorMod(virtualID, w.wheelSize)]
		bucket.add(e)
		// The bucket is queued only when its expiration changes, i.e. when it is first used in
		// this revolution of the wheel; later adds to the same bucket leave it queued once.
		if bucket.setExpiration(virtualID * w.tickMs) {
			w.queue.offer(bucket)
		}
		return true
	default:
		o := w.overflowWheel.Load()
		if o == nil {
			o = w.addOverflowWheel()
		}
		return o.add(e)
	}
}

// advanceClock moves currentTime to timeMs (rounded down to a tick), if that is at least a tick
// ahead, and lets the overflow wheels follow.
func (w *TimingWheel) advanceClock(timeMs int64) {
	if timeMs-w.currentTime >= w.tickMs {
		w.currentTime = timeMs - floorMod(timeMs, w.tickMs)
		if o := w.overflowWheel.Load(); o != nil {
			o.advanceClock(w.currentTime)
		}
	}
}

// floorMod is a modulo that is never negative, so a negative time cannot index outside the wheel.
func floorMod(x, m int64) int64 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}
