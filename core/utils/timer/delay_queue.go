package timer

import (
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// DelayQueue holds the non-empty buckets of all the wheels of one timer, ordered by expiration,
// and lets the driving goroutine block until the earliest one is due. A bucket is "due" when the
// clock's monotonic millisecond reading (Nanoseconds()/1e6) reaches its expiration.
//
// Kafka 0.10.2: java.util.concurrent.DelayQueue[TimerTaskList] inside SystemTimer. Go has no
// DelayQueue, so this is a mutex-guarded min-heap plus a wake channel; see the package doc.
type DelayQueue struct {
	clock common.Time

	mu     sync.Mutex
	heap   priorityQueue[delayedBucket]
	wake   chan struct{} // closed (and replaced) when the head changes or the queue closes
	closed bool
}

// delayedBucket keeps the expiration the bucket had when it was offered, so the heap's order
// cannot be disturbed by a later setExpiration (which in any case only happens after a poll).
type delayedBucket struct {
	expirationMs int64
	list         *TimerTaskList
}

func newDelayQueue(clock common.Time) *DelayQueue {
	return &DelayQueue{
		clock: clock,
		heap: priorityQueue[delayedBucket]{less: func(a, b delayedBucket) bool {
			return a.expirationMs < b.expirationMs
		}},
		wake: make(chan struct{}),
	}
}

// offer queues a bucket. If it becomes the earliest, a blocked poller is woken to re-plan its wait.
func (q *DelayQueue) offer(l *TimerTaskList) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.heap.push(delayedBucket{expirationMs: l.getExpiration(), list: l})
	if q.heap.peek().list == l {
		q.wakeLocked()
	}
}

func (q *DelayQueue) wakeLocked() {
	close(q.wake)
	q.wake = make(chan struct{})
}

// poll returns the earliest bucket if it is due, or nil, without waiting.
func (q *DelayQueue) poll() *TimerTaskList {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pollLocked(q.clock.Nanoseconds())
}

func (q *DelayQueue) pollLocked(nowNs int64) *TimerTaskList {
	if q.heap.len() > 0 && q.heap.peek().expirationMs*int64(time.Millisecond) <= nowNs {
		return q.heap.pop().list
	}
	return nil
}

// pollTimeout waits up to timeoutMs for a bucket to become due and returns it, or nil on timeout
// or once the queue is closed.
func (q *DelayQueue) pollTimeout(timeoutMs int64) *TimerTaskList {
	deadline := q.clock.Nanoseconds() + timeoutMs*int64(time.Millisecond)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()

	q.mu.Lock()
	for {
		if q.closed {
			q.mu.Unlock()
			return nil
		}
		now := q.clock.Nanoseconds()
		if l := q.pollLocked(now); l != nil {
			q.mu.Unlock()
			return l
		}
		wait := deadline - now
		if wait <= 0 {
			q.mu.Unlock()
			return nil
		}
		if q.heap.len() > 0 {
			if untilHead := q.heap.peek().expirationMs*int64(time.Millisecond) - now; untilHead < wait {
				wait = untilHead
			}
		}
		wake := q.wake
		q.mu.Unlock()

		if timer == nil {
			timer = time.NewTimer(time.Duration(wait))
		} else {
			timer.Reset(time.Duration(wait))
		}
		select {
		case <-wake:
		case <-timer.C:
		}
		q.mu.Lock()
	}
}

// size is the number of queued buckets.
func (q *DelayQueue) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.heap.len()
}

// close makes every current and future pollTimeout return nil at once.
func (q *DelayQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		q.wakeLocked()
	}
}
