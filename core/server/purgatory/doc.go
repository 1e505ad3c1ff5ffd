// Package purgatory holds requests that cannot be answered yet — a produce waiting for acks, a
// fetch waiting for bytes, a join waiting for the group — until they can be completed or their
// timeout passes.
//
// Kafka 0.10.2: kafka.server (core/src/main/scala/kafka/server/DelayedOperation.scala,
// DelayedOperationKey.scala). The classes moved out of core/server so the coordinator and
// cluster packages, which core/server imports, can use them (docs/design.md §1.2 row 3).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.4.3 DelayedOperation, §4.4.4 DelayedOperationPurgatory;
// 《Kafka技术内幕》 §6.3.1-6.3.3; 《深入理解Kafka》 §6.3 延时操作. DelayedProduce and DelayedFetch
// live in core/server, next to the ReplicaManager they need.
//
// # How it works
//
// A delayed operation is completed exactly once, by whichever comes first: a caller that finds
// it completable (TryComplete, usually from CheckAndComplete when something changes for one of its
// keys), or the timer when its delay runs out (Run, the expire path, which also calls
// OnExpiration). The race between the two is settled by a compare-and-swap on the operation's
// completed flag in ForceComplete; the winner cancels the timer task and calls OnComplete.
//
// TryCompleteElseWatch checks an operation, puts it on the watch list of every key, checks it
// again, and only then gives it to the timer. The second check closes the window in which the
// event that makes it completable happens after the first check but before the operation is on
// the watch lists (the event's CheckAndComplete would have found nothing to complete).
//
// Completed operations are not unlinked from the watch lists of other keys at once. The
// ExpiredOperationReaper goroutine, besides driving the timer, has them purged when the estimated
// number of completed-but-still-watched operations exceeds purgeInterval
// (producer.purgatory.purge.interval.requests / fetch.purgatory.purge.interval.requests).
//
// # Go-specific choices
//
//   - Scala's abstract class becomes an embedded struct plus a hooks interface: embed
//     DelayedOperation, implement DelayedOperationHooks (TryComplete, OnComplete, OnExpiration)
//     and call Init(delayMs, self) once, because an embedded Go struct cannot call methods of
//     the type that embeds it.
//   - Scala's synchronized blocks are reentrant; Go's mutexes are not. Watchers therefore never
//     hold their lock while calling an operation's hooks: they take a snapshot of the list, try
//     each operation with no lock held, and then remove the completed ones. An OnComplete may
//     thus call back into the purgatory (the coordinator does).
//   - Kafka's reaper purges inline, between two timer rounds, so every expiry due during a purge
//     waits for it. A purge reads every watched operation (about 12 ms for 200,000 entries on a
//     busy 2-core machine); the 100,000-operation test measured expiries hundreds of milliseconds
//     late that way. Here the reaper hands a due purge to a helper goroutine (at most one at a
//     time, awaited by Shutdown) and goes straight back to the timer; the purge yields the CPU
//     every 128 lists, drops all emptied lists under one write lock instead of one each, and
//     after finishing rests nine times as long as it took before another may start, so purging
//     uses at most a tenth of a CPU (Kafka's cost grows with the square of the load: every purge
//     reads every watched operation, and more completions trigger more purges). The trigger and
//     the estimate are Kafka's. A direct AdvanceClock call (tests) purges inline, unthrottled.
//   - Watchers.tryCompleteWatched removes every completed operation it sees, not only those it
//     completed itself; the others would be purged later anyway.
//   - Kafka's Pool (a ConcurrentHashMap) becomes a sync.Map; removeWatchersLock keeps Kafka's
//     role: watching takes it for reading, removing an empty watcher list takes it for writing,
//     so an operation is never added to a list that is being thrown away.
//   - Keys are DelayedOperationKey values used as map keys; they must be comparable (the four
//     key types are structs of strings and ints). A TopicKey and a GroupKey with the same string
//     are different keys, as distinct Scala case classes are.
//   - core/metrics does not exist yet, so the gauges PurgatorySize and NumDelayedOperations
//     (kafka.server:type=DelayedOperationPurgatory,name=...,delayedOperation=<purgatoryName>) are
//     exposed as Watched and Delayed plus MetricTags, for core/metrics to register.
//
// # Goroutines
//
// The reaper ("ExpirationReaper-<brokerID>"), at most one purge helper, and the timer's executor
// goroutine ("executor-<purgatoryName>") which runs expired operations. Shutdown stops all three.
//
// # Lock order
//
//	DelayedOperation.tryCompleteMu (SafeTryComplete; Scala: the operation's monitor)
//	  -> the timer's locks (ForceComplete cancels the timer task)
//	removeWatchersLock -> Watchers.mu
//	No purgatory lock is held while an operation's hooks run.
package purgatory
