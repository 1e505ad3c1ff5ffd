// Package timer is Kafka's hierarchical timing wheel: the timeout service behind the purgatory.
//
// Kafka 0.10.2: kafka.utils.timer (core/src/main/scala/kafka/utils/timer)
//
// Bookmap: 《Apache Kafka源码剖析》 §4.4.1 TimingWheel, §4.4.2 SystemTimer; 《深入理解Kafka》 §6.2
// 时间轮; 《Kafka技术内幕》 §6.3.1 (TimerTask as the base of DelayedOperation).
//
// # The design
//
// A TimingWheel is a ring of wheelSize buckets (TimerTaskList), each covering tickMs of time. A
// task due within one revolution (tickMs*wheelSize) goes into the bucket of its expiration; a task
// due later goes up into an overflow wheel whose tick is the whole interval of the wheel below. The
// overflow wheels are created only when a task needs them. Inserting costs one step per level, and
// cancelling costs O(1) because a bucket is a doubly linked list and the entry knows its list.
//
// The wheel itself never looks at the clock. Instead, each non-empty bucket is put into a DelayQueue
// ordered by the bucket's expiration, so the thread that drives the timer sleeps until the earliest
// non-empty bucket is due, however far away, rather than ticking every millisecond. When a bucket
// comes out of the queue, SystemTimer.AdvanceClock moves every wheel's current time forward and
// "flushes" the bucket: each entry is added again, which either drops it one level down (an
// overflow bucket covers a long span; its entries now fit a finer wheel) or, if its time has come,
// hands its task to the executor.
//
// # Go-specific choices
//
//   - Java has java.util.concurrent.DelayQueue; Go has none. DelayQueue here is a small binary
//     min-heap of buckets keyed by expiration, guarded by a mutex. A blocked poll waits on a
//     time.Timer for min(timeout, time until the head is due) and on a "wake" channel that offer
//     closes when a new bucket becomes the head (sync.Cond cannot wait with a timeout). close wakes
//     every poller so a shutdown does not wait out the poll timeout. With a MockTime the waits are
//     real time for mock differences, so drive a MockTime-based SystemTimer with AdvanceClock(0)
//     after moving the clock (or use MockTimer).
//   - Scala's TimerTask is a trait with state and an abstract run(). Here the state is the
//     TimerTask struct, to embed, and the Timer accepts any Task: a type that embeds TimerTask and
//     has a Run method.
//   - Java's intrinsic locks are reentrant; Go's mutexes are not. TimerTaskList.flush and foreach
//     therefore take the entries out (flush unhooks the whole chain, without allocating) under
//     the list's lock and call the function after releasing it (the function may cancel a task,
//     which locks the list again).
//   - The executor is a small goroutine pool with an unbounded FIFO queue, as
//     Executors.newFixedThreadPool's queue is unbounded: submit never blocks, which matters
//     because it is called while the timer's lock is held. A panic in a task is recovered and
//     logged, much as Java's ExecutorService.submit swallows a task's exception.
//   - The clock is an injected common.Time; the wheel's milliseconds are Nanoseconds()/1e6, the
//     monotonic reading Kafka calls hiResClockMs. MockTimer (Kafka's test MockTimer) lives here,
//     not in a _test file, so the purgatory's and the coordinator's tests can use it.
//
// # Invariants
//
//   - A task is in at most one bucket: TimerTask.entry names the entry that currently owns it, and
//     an entry whose task has moved on (re-added or cancelled) is "cancelled" and is dropped the
//     next time its bucket is flushed.
//   - taskCounter (Size) counts entries that sit in a bucket; cancel decrements it at once.
//   - A bucket is in the DelayQueue at most once: setExpiration reports a change only when a bucket
//     is reused for a new revolution, and only then is it offered.
//   - A task never runs before its bucket is due; buckets are due at the start of their tick, so
//     with tickMs = 1 a task runs within [deadline - 1 ms, deadline + scheduling delay].
//
// # Lock order
//
//	SystemTimer.lock (read: Add; write: AdvanceClock while flushing)
//	  -> TimerTask.mu -> TimerTaskList.mu -> TimerTaskEntry.mu
//	DelayQueue.mu, TimingWheel.overflowMu and the executor's mutex are leaves: no other lock is
//	taken while one of them is held, and no task code runs under any of these locks.
package timer
