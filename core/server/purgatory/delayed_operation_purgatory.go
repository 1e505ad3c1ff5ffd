package purgatory

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/utils/timer"
)

// Gauge names of a purgatory (group kafka.server, type DelayedOperationPurgatory, tag
// delayedOperation=<purgatoryName>).
const (
	PurgatorySizeMetricName        = "PurgatorySize"        // value: Watched()
	NumDelayedOperationsMetricName = "NumDelayedOperations" // value: Delayed()
)

// reaperPollMs is how long one round of the reaper waits for a bucket (Kafka: advanceClock(200L)).
const reaperPollMs = 200

// purgeYieldEvery is how many watcher lists a purge cleans between yields of the processor.
const purgeYieldEvery = 128

// purgeRestFactor bounds a background purge's share of one CPU at 1/(1+purgeRestFactor).
const purgeRestFactor = 9

// DelayedOperationPurgatory keeps delayed operations of one kind: it watches each under its keys
// until CheckAndComplete completes it, and expires it through the timer otherwise.
//
// Kafka 0.10.2: kafka.server.DelayedOperationPurgatory.
type DelayedOperationPurgatory[T Operation] struct {
	purgatoryName string
	timeoutTimer  timer.Timer
	brokerID      int32
	purgeInterval int
	reaperEnabled bool
	log           *logrus.Entry

	// watchersForKey maps a DelayedOperationKey to its *Watchers[T] (Kafka: a Pool).
	watchersForKey sync.Map
	// removeWatchersLock: read-held to look up or watch, write-held to drop an empty list.
	removeWatchersLock sync.RWMutex

	// estimatedTotalOperations counts operations put on watch lists since the last purge.
	estimatedTotalOperations atomic.Int64

	expirationReaper *ExpiredOperationReaper
	purging          atomic.Bool    // a reaper-started purge is running
	purges           sync.WaitGroup // reaper-started purges, awaited by Shutdown
}

// NewDelayedOperationPurgatory makes a purgatory with its own SystemTimer (named after the
// purgatory) and starts its reaper. purgeInterval is the purge.interval.requests setting (Kafka's
// default is 1000).
//
// Kafka 0.10.2: object DelayedOperationPurgatory.apply.
func NewDelayedOperationPurgatory[T Operation](purgatoryName string, brokerID int32, purgeInterval int, clock common.Time, log *logrus.Entry) *DelayedOperationPurgatory[T] {
	if log == nil {
		log = discardLogger()
	}
	t := timer.NewSystemTimer(purgatoryName, timer.SystemTimerConfig{Time: clock, Logger: log})
	return NewDelayedOperationPurgatoryWithTimer[T](purgatoryName, t, brokerID, purgeInterval, true, log)
}

// NewDelayedOperationPurgatoryWithTimer is the full constructor. Tests pass a timer.MockTimer and
// reaperEnabled=false, then drive time with the MockTimer. The purgatory owns timeoutTimer and
// shuts it down.
func NewDelayedOperationPurgatoryWithTimer[T Operation](purgatoryName string, timeoutTimer timer.Timer, brokerID int32, purgeInterval int, reaperEnabled bool, log *logrus.Entry) *DelayedOperationPurgatory[T] {
	if log == nil {
		log = discardLogger()
	}
	p := &DelayedOperationPurgatory[T]{
		purgatoryName: purgatoryName,
		timeoutTimer:  timeoutTimer,
		brokerID:      brokerID,
		purgeInterval: purgeInterval,
		reaperEnabled: reaperEnabled,
		log:           log.WithField("purgatory", purgatoryName),
	}
	p.expirationReaper = newExpiredOperationReaper(fmt.Sprintf("ExpirationReaper-%d", brokerID), p.log,
		p.reaperDoWork)
	if reaperEnabled {
		p.expirationReaper.start()
	}
	return p
}

// TryCompleteElseWatch completes the operation now if it can; otherwise it watches it under every
// key and hands it to the timer. It reports whether this call completed the operation.
//
// An operation may complete after it was put on the lists of some keys but not others; it is then
// not added to the remaining lists, and the reaper later purges it from the lists it is on.
// watchKeys must not be empty (Kafka asserts this; here it panics, as for any programming error).
func (p *DelayedOperationPurgatory[T]) TryCompleteElseWatch(operation T, watchKeys []DelayedOperationKey) bool {
	if len(watchKeys) == 0 {
		panic("purgatory: the watch key list can't be empty")
	}

	// Checking once per key would cost as much as the number of keys. Instead: check, watch under
	// all keys, check again. After the second check fails, any event that could complete the
	// operation will find it on a watch list. If another goroutine completes it between the two
	// checks, it is watched needlessly until the next purge; that is the price.
	if operation.SafeTryComplete() {
		return true
	}

	watchCreated := false
	for _, key := range watchKeys {
		if operation.IsCompleted() {
			return false // completed by someone else meanwhile; stop watching more keys
		}
		p.watchForOperation(key, operation)
		if !watchCreated {
			watchCreated = true
			p.estimatedTotalOperations.Add(1)
		}
	}

	if operation.SafeTryComplete() {
		return true
	}

	// Still not completable and watched everywhere: time it out eventually.
	if !operation.IsCompleted() {
		p.timeoutTimer.Add(operation)
		if operation.IsCompleted() {
			// Completed while being added: make sure the timer forgets it.
			operation.Cancel()
		}
	}
	return false
}

// CheckAndComplete tries to complete every operation watched under key and returns how many it
// completed.
func (p *DelayedOperationPurgatory[T]) CheckAndComplete(key DelayedOperationKey) int {
	p.removeWatchersLock.RLock()
	w, ok := p.watchersForKey.Load(key)
	p.removeWatchersLock.RUnlock()
	if !ok {
		return 0
	}
	return w.(*Watchers[T]).tryCompleteWatched()
}

// Watched is the total length of all watch lists (the PurgatorySize gauge). An operation watched
// under several keys counts several times, and completed operations count until purged, so this
// can exceed the number of live operations.
func (p *DelayedOperationPurgatory[T]) Watched() int {
	n := 0
	for _, w := range p.allWatchers() {
		n += w.countWatched()
	}
	return n
}

// Delayed is the number of operations waiting in the timer (the NumDelayedOperations gauge).
func (p *DelayedOperationPurgatory[T]) Delayed() int { return p.timeoutTimer.Size() }

// MetricTags are the tags of this purgatory's gauges.
func (p *DelayedOperationPurgatory[T]) MetricTags() map[string]string {
	return map[string]string{"delayedOperation": p.purgatoryName}
}

// allWatchers snapshots the current watcher lists; some may be removed concurrently.
func (p *DelayedOperationPurgatory[T]) allWatchers() []*Watchers[T] {
	p.removeWatchersLock.RLock()
	defer p.removeWatchersLock.RUnlock()
	var ws []*Watchers[T]
	p.watchersForKey.Range(func(_, v any) bool {
		ws = append(ws, v.(*Watchers[T]))
		return true
	})
	return ws
}

// watchForOperation adds the operation to key's list, creating the list if needed. The read lock
// keeps removeKeyIfEmpty from discarding the list between the lookup and the add.
func (p *DelayedOperationPurgatory[T]) watchForOperation(key DelayedOperationKey, operation T) {
	p.removeWatchersLock.RLock()
	defer p.removeWatchersLock.RUnlock()
	w, ok := p.watchersForKey.Load(key)
	if !ok {
		w, _ = p.watchersForKey.LoadOrStore(key, newWatchers(p, key))
	}
	w.(*Watchers[T]).watch(operation)
}

// removeKeyIfEmpty drops key's list if it is still the registered one and is empty.
func (p *DelayedOperationPurgatory[T]) removeKeyIfEmpty(key DelayedOperationKey, watchers *Watchers[T]) {
	p.removeWatchersLock.Lock()
	defer p.removeWatchersLock.Unlock()
	p.removeKeyIfEmptyLocked(key, watchers)
}

// removeKeysIfEmpty is removeKeyIfEmpty for a batch of lists, under one write lock.
func (p *DelayedOperationPurgatory[T]) removeKeysIfEmpty(watchers []*Watchers[T]) {
	if len(watchers) == 0 {
		return
	}
	p.removeWatchersLock.Lock()
	defer p.removeWatchersLock.Unlock()
	for _, w := range watchers {
		p.removeKeyIfEmptyLocked(w.key, w)
	}
}

func (p *DelayedOperationPurgatory[T]) removeKeyIfEmptyLocked(key DelayedOperationKey, watchers *Watchers[T]) {
	// The key may meanwhile have been dropped and re-created with a new list: leave that alone.
	if cur, ok := p.watchersForKey.Load(key); !ok || cur.(*Watchers[T]) != watchers {
		return
	}
	if watchers.isEmpty() {
		p.watchersForKey.Delete(key)
	}
}

// AdvanceClock drives the timer for up to timeoutMs, then purges completed operations from the
// watch lists if their estimated number exceeds purgeInterval, and returns when both are done.
// Tests with the reaper disabled call it directly.
func (p *DelayedOperationPurgatory[T]) AdvanceClock(timeoutMs int64) {
	p.timeoutTimer.AdvanceClock(timeoutMs)
	if p.purgeDue() {
		p.purgeWatchLists()
	}
}

// reaperDoWork is one round of the ExpiredOperationReaper. It differs from AdvanceClock in one
// way: a due purge runs on a helper goroutine (at most one at a time) while the reaper goes back
// to the timer. A purge touches every watched operation (about 12 ms for 200,000 entries on a
// busy 2-core machine, mostly cache misses); run inline, as in Kafka, it holds up every expiry
// that falls due meanwhile, which the 100,000-operation test showed as expiries hundreds of
// milliseconds late.
func (p *DelayedOperationPurgatory[T]) reaperDoWork() {
	p.timeoutTimer.AdvanceClock(reaperPollMs)
	// Only the reaper starts background purges, so checking and then setting the flag is safe.
	if p.purging.Load() || !p.purgeDue() {
		return
	}
	p.purging.Store(true)
	p.purges.Add(1)
	go func() {
		defer p.purges.Done()
		defer p.purging.Store(false)
		start := time.Now() // real time: this is about CPU use, not about the operations' clock
		p.purgeWatchLists()
		// Keep the next purge away for purgeRestFactor times as long as this one took, so that
		// purging never takes more than 1/(1+purgeRestFactor) of a CPU. Kafka's trigger alone
		// makes the cost grow with the square of the load (each purge reads every watched
		// operation, and more completions mean more purges); a cheap purge rests only briefly.
		rest := time.NewTimer(purgeRestFactor * time.Since(start))
		defer rest.Stop()
		select {
		case <-rest.C:
		case <-p.expirationReaper.stop:
		}
	}()
}

// purgeDue reports whether more than purgeInterval completed operations are estimated to sit on
// watch lists (operations watched since the last purge minus those still in the timer) and, if
// so, resets the estimate to the pending count. Operations completing during the purge leave the
// estimate slightly high, which only brings the next purge a little earlier.
func (p *DelayedOperationPurgatory[T]) purgeDue() bool {
	delayed := int64(p.Delayed())
	if p.estimatedTotalOperations.Load()-delayed <= int64(p.purgeInterval) {
		return false
	}
	p.estimatedTotalOperations.Store(delayed)
	return true
}

// purgeWatchLists removes completed operations from every watch list and drops emptied lists
// (the body of Kafka's purge in advanceClock).
func (p *DelayedOperationPurgatory[T]) purgeWatchLists() {
	p.log.Debug("Begin purging watch lists")
	purged := 0
	var emptied []*Watchers[T]
	for i, w := range p.allWatchers() {
		n, empty := w.purgeCompleted()
		purged += n
		if empty {
			emptied = append(emptied, w)
		}
		if i%purgeYieldEvery == purgeYieldEvery-1 {
			// A purge is background work: step aside often, so the reaper and the timer's
			// executor get a CPU as soon as a bucket is due, even on a 2-core machine.
			runtime.Gosched()
		}
	}
	// Kafka drops each emptied list under its own write lock; one write lock for the whole
	// batch keeps a purge of thousands of keys from stalling every watcher thousands of times.
	p.removeKeysIfEmpty(emptied)
	p.log.Debugf("Purged %d elements from watch lists.", purged)
}

// Shutdown stops the reaper and the timer; operations still pending are never completed. It waits
// for the reaper (and a running purge) to exit or for ctx to end, whichever is first. It must not
// be called from an operation's hooks (the timer waits for its executor, which runs them).
func (p *DelayedOperationPurgatory[T]) Shutdown(ctx context.Context) error {
	if p.reaperEnabled {
		p.expirationReaper.initiateShutdown()
	}
	// The timer's shutdown also wakes the reaper if it is waiting for a bucket.
	p.timeoutTimer.Shutdown()
	if p.reaperEnabled {
		if err := p.expirationReaper.awaitShutdown(ctx); err != nil {
			return err
		}
	}
	// The reaper has stopped, so no purge can start any more; wait for a running one.
	purgesDone := make(chan struct{})
	go func() { p.purges.Wait(); close(purgesDone) }()
	select {
	case <-purgesDone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Watchers is the list of operations watched under one key.
//
// Kafka 0.10.2: DelayedOperationPurgatory.Watchers (an inner class around a
// ConcurrentLinkedQueue). Here a mutex-guarded slice; hooks run outside the mutex.
type Watchers[T Operation] struct {
	purgatory *DelayedOperationPurgatory[T] // the outer instance of Scala's inner class
	key       DelayedOperationKey

	mu         sync.Mutex
	operations []T
}

func newWatchers[T Operation](p *DelayedOperationPurgatory[T], key DelayedOperationKey) *Watchers[T] {
	return &Watchers[T]{purgatory: p, key: key}
}

func (w *Watchers[T]) countWatched() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.operations)
}

func (w *Watchers[T]) isEmpty() bool { return w.countWatched() == 0 }

func (w *Watchers[T]) watch(t T) {
	w.mu.Lock()
	w.operations = append(w.operations, t)
	w.mu.Unlock()
}

// tryCompleteWatched tries every watched operation that is not completed yet and returns how many
// this call completed; completed operations (by anyone) leave the list.
func (w *Watchers[T]) tryCompleteWatched() int {
	w.mu.Lock()
	snapshot := slices.Clone(w.operations)
	w.mu.Unlock()

	completed := 0
	for _, op := range snapshot {
		if !op.IsCompleted() && op.SafeTryComplete() {
			completed++
		}
	}
	if _, empty := w.purgeCompleted(); empty {
		w.purgatory.removeKeyIfEmpty(w.key, w)
	}
	return completed
}

// purgeCompleted drops completed operations and reports how many it dropped and whether the list
// is now empty. Unlike Kafka's, it leaves dropping an empty list to the caller, so that a purge can
// drop all of them under one write lock.
func (w *Watchers[T]) purgeCompleted() (removed int, empty bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	kept := w.operations[:0]
	for _, op := range w.operations {
		if op.IsCompleted() {
			removed++
		} else {
			kept = append(kept, op)
		}
	}
	clear(w.operations[len(kept):]) // drop references to completed operations
	w.operations = kept
	return removed, len(kept) == 0
}

func discardLogger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}
