package timer

import (
	"sync"
	"sync/atomic"
)

// TimerTaskList is one bucket of a TimingWheel: a circular doubly linked list of entries around a
// sentinel root, with the time at which the bucket is due. All wheels of one timer share a task
// counter, so the timer's Size is the number of linked entries.
//
// Kafka 0.10.2: kafka.utils.timer.TimerTaskList. Java's DelayQueue needed it to implement Delayed;
// here the DelayQueue reads getExpiration directly.
type TimerTaskList struct {
	taskCounter *atomic.Int32

	mu   sync.Mutex     // guards the links (root and every member's next/prev)
	root TimerTaskEntry // sentinel: root.next is the head, root.prev the tail

	expiration atomic.Int64 // when the bucket is due (ms); -1 when it is not in use
}

func newTimerTaskList(taskCounter *atomic.Int32) *TimerTaskList {
	l := &TimerTaskList{taskCounter: taskCounter}
	l.root.expirationMs = -1
	l.root.next = &l.root
	l.root.prev = &l.root
	l.expiration.Store(-1)
	return l
}

// setExpiration sets the bucket's due time and reports whether it changed. A change means the
// bucket was idle (or belonged to an earlier revolution of the wheel) and must be (re)queued.
func (l *TimerTaskList) setExpiration(expirationMs int64) bool {
	if l.expiration.Load() == expirationMs {
		return false // the common case: the bucket is already set for this revolution; no write
	}
	return l.expiration.Swap(expirationMs) != expirationMs
}

func (l *TimerTaskList) getExpiration() int64 { return l.expiration.Load() }

// foreach calls f with every live (not cancelled) task in the bucket. f runs after the bucket's
// lock is released, so it may cancel tasks (Kafka's test does exactly that).
func (l *TimerTaskList) foreach(f func(Task)) {
	l.mu.Lock()
	var tasks []Task
	for e := l.root.next; e != &l.root; e = e.next {
		if !e.cancelled() {
			tasks = append(tasks, e.timerTask)
		}
	}
	l.mu.Unlock()
	for _, t := range tasks {
		f(t)
	}
}

// add links e at the tail. An entry lives in at most one list, so it is first removed from any
// list it is in; that removal happens outside this list's lock (locking two lists at once could
// deadlock), and is retried until, under both locks, the entry is seen to belong to no list.
func (l *TimerTaskList) add(e *TimerTaskEntry) {
	for {
		e.remove()

		l.mu.Lock()
		e.mu.Lock()
		done := e.list.Load() == nil
		if done {
			tail := l.root.prev
			e.next = &l.root
			e.prev = tail
			e.list.Store(l)
			tail.next = e
			l.root.prev = e
			l.taskCounter.Add(1)
		}
		e.mu.Unlock()
		l.mu.Unlock()
		if done {
			return
		}
	}
}

// remove unlinks e if it is (still) in this list.
func (l *TimerTaskList) remove(e *TimerTaskEntry) {
	l.mu.Lock()
	l.removeLocked(e)
	l.mu.Unlock()
}

func (l *TimerTaskList) removeLocked(e *TimerTaskEntry) {
	e.mu.Lock()
	if e.list.Load() == l {
		e.next.prev = e.prev
		e.prev.next = e.next
		e.next = nil
		e.prev = nil
		e.list.Store(nil)
		l.taskCounter.Add(-1)
	}
	e.mu.Unlock()
}

// flush empties the bucket, marks it unused (expiration -1) and then hands each removed entry to
// f, which re-adds it to the timer. Kafka calls f while holding the list's (reentrant) lock; here
// the whole chain is unhooked under the lock and f runs after the lock is released. That is safe
// because nothing else links an entry that belongs to no list (the timer's write lock keeps Adds
// out during a flush), and a task cancelled between unhooking and f is seen as cancelled by f,
// exactly as it would be in Kafka. The unhooked chain is walked in place, without allocating: the
// flush runs on the timer's critical path, where a garbage-collector assist would delay expiries.
func (l *TimerTaskList) flush(f func(*TimerTaskEntry)) {
	l.mu.Lock()
	head := l.root.next
	n := int32(0)
	for e := head; e != &l.root; e = e.next {
		e.mu.Lock()
		e.list.Store(nil)
		e.mu.Unlock()
		n++
	}
	if n > 0 {
		l.root.prev.next = nil // terminate the private chain
		l.root.next = &l.root
		l.root.prev = &l.root
		l.taskCounter.Add(-n)
	} else {
		head = nil
	}
	l.expiration.Store(-1)
	l.mu.Unlock()

	for e := head; e != nil; {
		next := e.next
		e.next = nil
		e.prev = nil
		f(e)
		e = next
	}
}

// TimerTaskEntry is the link between a task and the bucket that holds it, with the task's
// absolute expiration time. Adding a task creates a new entry and retires the old one.
//
// Kafka 0.10.2: kafka.utils.timer.TimerTaskEntry.
type TimerTaskEntry struct {
	timerTask    Task
	expirationMs int64

	mu   sync.Mutex                    // guards the check-and-set of list (inside the list's lock)
	list atomic.Pointer[TimerTaskList] // the list holding this entry, nil if none
	next *TimerTaskEntry               // guarded by list.mu
	prev *TimerTaskEntry               // guarded by list.mu
}

// newTimerTaskEntry makes the entry the owner of task, retiring any entry the task had.
func newTimerTaskEntry(task Task, expirationMs int64) *TimerTaskEntry {
	e := &TimerTaskEntry{timerTask: task, expirationMs: expirationMs}
	task.timerTask().setTimerTaskEntry(e)
	return e
}

// cancelled reports whether the task has been cancelled or re-added since this entry was made.
func (e *TimerTaskEntry) cancelled() bool {
	return e.timerTask.timerTask().getTimerTaskEntry() != e
}

// remove unlinks the entry from whatever list holds it. A concurrent flush may move the entry
// from one list to another while we look, so we retry until the entry belongs to no list.
func (e *TimerTaskEntry) remove() {
	for l := e.list.Load(); l != nil; l = e.list.Load() {
		l.remove(e)
	}
}
