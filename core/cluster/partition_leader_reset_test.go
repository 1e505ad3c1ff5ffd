package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// TestNewLeaderGivesIsrFollowersAFullLagWindow (Partition.makeLeader's resetLastCaughtUpTime):
// right after becoming leader, the ISR followers count as caught up now, so the first ISR
// expiration run does not drop followers that simply have not fetched from the new leader yet;
// a follower outside the ISR has no such credit.
func TestNewLeaderGivesIsrFollowersAFullLagWindow(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	if _, err := p.MakeLeader(0, leaderState(1, []int32{0, 1}, []int32{0, 1, 2}), 1); err != nil {
		t.Fatal(err)
	}
	if got := p.GetReplica(1).LastCaughtUpTimeMs(); got != clock.Milliseconds() {
		t.Fatalf("ISR follower caught up at %d, want now (%d)", got, clock.Milliseconds())
	}
	if got := p.GetReplica(2).LastCaughtUpTimeMs(); got != 0 {
		t.Fatalf("non-ISR follower caught up at %d, want 0", got)
	}
	clock.Sleep(50 * time.Millisecond)
	if err := p.MaybeShrinkIsr(100); err != nil {
		t.Fatal(err)
	}
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0, 1}) {
		t.Fatalf("ISR %v 50 ms after becoming leader, want [0 1]", isr)
	}
	clock.Sleep(60 * time.Millisecond)
	if err := p.MaybeShrinkIsr(100); err != nil {
		t.Fatal(err)
	}
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0}) {
		t.Fatalf("ISR %v 110 ms after becoming leader without a fetch, want [0]", isr)
	}
}
