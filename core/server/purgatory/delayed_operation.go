package purgatory

import (
	"sync"
	"sync/atomic"

	"github.com/zkafka/zkafka/core/utils/timer"
)

// DelayedOperationHooks are the methods a concrete delayed operation supplies.
//
// Kafka 0.10.2: the abstract methods of kafka.server.DelayedOperation.
type DelayedOperationHooks interface {
	// TryComplete checks whether the operation can be completed now and, if so, calls
	// ForceComplete and returns its result. It is called under the operation's lock (see
	// SafeTryComplete).
	TryComplete() bool
	// OnComplete does the completion work (usually sending the response). It is called exactly
	// once, by whichever of TryComplete and expiry wins.
	OnComplete()
	// OnExpiration is called after OnComplete when the operation completed because it timed out.
	OnExpiration()
}

// Operation is what a purgatory holds: a type that embeds DelayedOperation and implements
// DelayedOperationHooks. A type may shadow SafeTryComplete when it provides its own locking.
//
// Kafka 0.10.2: the bound T <: DelayedOperation of DelayedOperationPurgatory[T].
type Operation interface {
	timer.Task
	DelayedOperationHooks
	ForceComplete() bool
	IsCompleted() bool
	SafeTryComplete() bool
	Cancel()
}

// DelayedOperation is the state and the concrete behaviour every delayed operation shares: the
// timer task (its delay), the completed flag, and the expire path. Embed it, implement
// DelayedOperationHooks, and call Init before using the operation:
//
//	type DelayedJoin struct {
//		purgatory.DelayedOperation
//		...
//	}
//	op := &DelayedJoin{...}
//	op.Init(rebalanceTimeoutMs, op)
//
// Kafka 0.10.2: kafka.server.DelayedOperation. Go's embedding cannot call the embedding type's
// methods, hence the hooks value given to Init.
type DelayedOperation struct {
	timer.TimerTask

	hooks         DelayedOperationHooks
	completed     atomic.Bool
	tryCompleteMu sync.Mutex // SafeTryComplete (Scala: the operation's monitor)
}

// Init sets the delay and the hooks (normally the embedding operation itself).
func (o *DelayedOperation) Init(delayMs int64, hooks DelayedOperationHooks) {
	o.DelayMs = delayMs
	o.hooks = hooks
}

// ForceComplete completes the operation unless it already is: it cancels the timeout and calls
// OnComplete. Of all concurrent callers exactly one gets true (the one that did the completion).
func (o *DelayedOperation) ForceComplete() bool {
	if !o.completed.CompareAndSwap(false, true) {
		return false
	}
	o.Cancel()
	o.mustHooks().OnComplete()
	return true
}

// IsCompleted reports whether the operation has been completed (by anyone).
func (o *DelayedOperation) IsCompleted() bool { return o.completed.Load() }

// SafeTryComplete calls TryComplete with the operation's lock held, so that two goroutines
// checking the same operation (for two of its keys) do not run its check concurrently.
func (o *DelayedOperation) SafeTryComplete() bool {
	o.tryCompleteMu.Lock()
	defer o.tryCompleteMu.Unlock()
	return o.mustHooks().TryComplete()
}

// Run is the timer task: the expire path. If the timeout wins the race to complete the
// operation, OnComplete and then OnExpiration are called. Do not shadow it.
func (o *DelayedOperation) Run() {
	if o.ForceComplete() {
		o.hooks.OnExpiration()
	}
}

func (o *DelayedOperation) mustHooks() DelayedOperationHooks {
	if o.hooks == nil {
		panic("purgatory: DelayedOperation used before Init")
	}
	return o.hooks
}
