package coordinator

import "github.com/zkafka/zkafka/core/server/purgatory"

// DelayedJoin waits, in PreparingRebalance, until every member has rejoined or the rebalance
// timeout (the largest of the members') runs out; completing it ends the rebalance.
//
// Kafka 0.10.2: kafka.coordinator.DelayedJoin. Kafka's tryComplete and onComplete take the
// group's (reentrant) monitor. Here TryComplete is only ever reached from coordinator code
// already holding the group's lock, so it completes the join in place; the expiry path
// (OnExpiration, on the timer's goroutine) takes the lock itself. OnComplete does nothing, so
// the work happens exactly once, on whichever path won ForceComplete.
type DelayedJoin struct {
	purgatory.DelayedOperation
	coordinator *GroupCoordinator
	group       *GroupMetadata
}

func newDelayedJoin(c *GroupCoordinator, g *GroupMetadata, rebalanceTimeoutMs int64) *DelayedJoin {
	d := &DelayedJoin{coordinator: c, group: g}
	d.Init(max(rebalanceTimeoutMs, 1), d) // a 0 delay would run the expiry inline, under the group lock
	return d
}

// TryComplete implements purgatory.DelayedOperationHooks; the caller holds the group's lock.
func (d *DelayedJoin) TryComplete() bool {
	// A Dead (unloaded) group's join completes at once; see GroupCoordinator.onGroupUnloaded.
	if !d.group.Is(Dead) && len(d.group.notYetRejoinedMembers()) > 0 {
		return false
	}
	if d.ForceComplete() {
		d.coordinator.onCompleteJoinLocked(d.group)
		return true
	}
	return false
}

// OnComplete implements purgatory.DelayedOperationHooks (see the type comment).
func (d *DelayedJoin) OnComplete() {}

// OnExpiration implements purgatory.DelayedOperationHooks: the rebalance timed out.
func (d *DelayedJoin) OnExpiration() {
	d.group.mu.Lock()
	d.coordinator.onCompleteJoinLocked(d.group)
	d.coordinator.unlockGroup(d.group)
}
