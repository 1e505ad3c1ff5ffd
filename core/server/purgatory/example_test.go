package purgatory_test

import (
	"context"
	"fmt"

	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/core/utils/timer"
)

// delayedJoin is a toy delayed operation: it completes once enough members have joined, or
// when its timeout runs out.
type delayedJoin struct {
	purgatory.DelayedOperation
	joined, needed int
}

func (d *delayedJoin) TryComplete() bool {
	if d.joined >= d.needed {
		return d.ForceComplete()
	}
	return false
}

func (d *delayedJoin) OnComplete() {
	fmt.Printf("complete with %d of %d members\n", d.joined, d.needed)
}
func (d *delayedJoin) OnExpiration() { fmt.Println("expired") }

// Example shows the life of two operations in a purgatory driven by a MockTimer, as a
// coordinator test would: one completed through CheckAndComplete, one expired by the timer
// (expiry runs OnComplete, then OnExpiration).
func Example() {
	mockTimer := timer.NewMockTimer(nil)
	p := purgatory.NewDelayedOperationPurgatoryWithTimer[*delayedJoin]("Rebalance", mockTimer, 0, 1000, false, nil)
	defer p.Shutdown(context.Background())

	key := []purgatory.DelayedOperationKey{purgatory.GroupKey{GroupID: "g1"}}
	first := &delayedJoin{needed: 2}
	first.Init(5000, first)
	fmt.Println("completed at once:", p.TryCompleteElseWatch(first, key))

	first.joined = 2 // the second member arrives
	fmt.Println("completed by CheckAndComplete:", p.CheckAndComplete(key[0]))

	second := &delayedJoin{needed: 3}
	second.Init(5000, second)
	p.TryCompleteElseWatch(second, key)
	mockTimer.AdvanceClock(5001)
	fmt.Println("delayed:", p.Delayed())

	// Output:
	// completed at once: false
	// complete with 2 of 2 members
	// completed by CheckAndComplete: 1
	// complete with 0 of 3 members
	// expired
	// delayed: 0
}
