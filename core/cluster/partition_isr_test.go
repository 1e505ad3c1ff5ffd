package cluster

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/config"
)

// Ports of kafka.server.ISRExpirationTest (0.10.2): replica.lag.time.max.ms = 100.
const isrTestLagMs = 100

// partitionWithAllReplicasInIsr is a leader on broker 0 with replicas {0,1,2} all in the ISR,
// the followers having fetched offset 0 when the leader's LEO was 0 (caught up now).
func partitionWithAllReplicasInIsr(t *testing.T, clock *common.MockTime, logProps map[string]string) (*Partition, *fakeReplicaManager) {
	t.Helper()
	rm := newFakeRM(t, clock, logProps)
	cfg, err := config.FromProps(map[string]string{"zookeeper.connect": "localhost:2181", "replica.lag.time.max.ms": "100",
		"replica.fetch.wait.max.ms": "50"})
	if err != nil {
		t.Fatal(err)
	}
	rm.cfg = cfg
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	if _, err := p.MakeLeader(0, leaderState(1, []int32{0, 1, 2}, []int32{0, 1, 2}), 1); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int32{1, 2} {
		if err := followerFetch(p, id, 0, clock.Milliseconds()); err != nil {
			t.Fatal(err)
		}
	}
	return p, rm
}

func outOfSync(p *Partition) []int32 {
	p.leaderIsrUpdateLock.RLock()
	defer p.leaderIsrUpdateLock.RUnlock()
	return p.getOutOfSyncReplicas(p.LocalReplica(), isrTestLagMs)
}

// fetchAt records a fetch of follower id at offset when the leader's LEO was leaderLEO.
func fetchAt(t *testing.T, p *Partition, id int32, offset, leaderLEO, now int64) {
	t.Helper()
	r := p.GetReplica(id)
	if err := r.UpdateLogReadResult(LogReadResult{Info: log.FetchDataInfo{FetchOffsetMetadata: log.NewMessageOffsetOnly(offset)},
		HW: offset, LeaderLogEndOffset: leaderLEO, FetchTimeMs: now, ReadSize: -1}); err != nil {
		t.Fatal(err)
	}
}

func TestIsrExpirationForStuckFollowers(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	p, _ := partitionWithAllReplicasInIsr(t, clock, nil)
	for _, id := range []int32{1, 2} {
		fetchAt(t, p, id, 15, 15, clock.Milliseconds())
	}
	if osr := outOfSync(p); len(osr) != 0 {
		t.Fatalf("caught-up followers out of sync: %v", osr)
	}
	clock.Sleep(150 * time.Millisecond) // no more fetches: stuck
	if osr := outOfSync(p); !slices.Equal(osr, []int32{1, 2}) {
		t.Fatalf("out of sync %v, want [1 2]", osr)
	}
}

func TestIsrExpirationIfNoFetchRequestMade(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	p, _ := partitionWithAllReplicasInIsr(t, clock, nil)
	clock.Sleep(150 * time.Millisecond)
	if osr := outOfSync(p); !slices.Equal(osr, []int32{1, 2}) {
		t.Fatalf("out of sync %v, want [1 2]", osr)
	}
}

func TestIsrExpirationForSlowFollowers(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	p, _ := partitionWithAllReplicasInIsr(t, clock, nil)
	// fetching, but behind the leader's LEO of 15
	for _, id := range []int32{1, 2} {
		fetchAt(t, p, id, 10, 15, clock.Milliseconds())
	}
	if osr := outOfSync(p); len(osr) != 0 {
		t.Fatalf("out of sync right away: %v", osr)
	}
	clock.Sleep(75 * time.Millisecond)
	for _, id := range []int32{1, 2} {
		fetchAt(t, p, id, 11, 15, clock.Milliseconds())
	}
	if osr := outOfSync(p); len(osr) != 0 {
		t.Fatalf("out of sync after 75 ms: %v", osr)
	}
	clock.Sleep(75 * time.Millisecond)
	if osr := outOfSync(p); !slices.Equal(osr, []int32{1, 2}) {
		t.Fatalf("slow followers in sync after 150 ms: %v", osr)
	}
	// a fetch that reaches the leader's LEO puts them back in sync
	for _, id := range []int32{1, 2} {
		fetchAt(t, p, id, 15, 15, clock.Milliseconds())
	}
	if osr := outOfSync(p); len(osr) != 0 {
		t.Fatalf("caught-up followers out of sync: %v", osr)
	}
}

func TestMaybeShrinkIsrAdvancesHighWatermark(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	p, rm := partitionWithAllReplicasInIsr(t, clock, map[string]string{"min.insync.replicas": "2"})
	if _, err := p.AppendRecordsToLeader(records(t, 10), -1); err != nil {
		t.Fatal(err)
	}
	// follower 1 keeps up, follower 2 is stuck at 0: the HW waits for 2
	fetchAt(t, p, 1, 10, 10, clock.Milliseconds())
	if hw := p.LocalReplica().HighWatermark().MessageOffset; hw != 0 {
		t.Fatalf("HW %d before shrink, want 0", hw)
	}
	clock.Sleep(80 * time.Millisecond)
	fetchAt(t, p, 1, 10, 10, clock.Milliseconds())
	clock.Sleep(80 * time.Millisecond) // 2 last caught up 160 ms ago, 1 only 80 ms ago
	produces := rm.produces
	if err := p.MaybeShrinkIsr(isrTestLagMs); err != nil {
		t.Fatal(err)
	}
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0, 1}) {
		t.Fatalf("ISR %v, want [0 1]", isr)
	}
	if !slices.Equal(rm.isrChanges, []common.TopicPartition{{Topic: "t", Partition: 0}}) {
		t.Fatalf("ISR changes recorded: %v", rm.isrChanges)
	}
	if hw := p.LocalReplica().HighWatermark().MessageOffset; hw != 10 {
		t.Fatalf("HW %d after shrink, want 10", hw)
	}
	if rm.produces == produces {
		t.Fatal("waiting produces not poked after the HW moved")
	}
	if ok, err := p.CheckEnoughReplicasReachOffset(10); !ok || err != nil {
		t.Fatalf("CheckEnoughReplicasReachOffset(10) = %v, %v with ISR of 2 and min.insync.replicas 2", ok, err)
	}
	// shrinking once more below min.insync.replicas: acks=-1 is refused before the append
	clock.Sleep(200 * time.Millisecond)
	if err := p.MaybeShrinkIsr(isrTestLagMs); err != nil {
		t.Fatal(err)
	}
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0}) {
		t.Fatalf("ISR %v, want [0]", isr)
	}
	if _, err := p.AppendRecordsToLeader(records(t, 1), -1); !errors.Is(err, protocol.ErrNotEnoughReplicas) {
		t.Fatalf("append with ISR [0] and min.insync.replicas 2: %v", err)
	}
	if ok, err := p.CheckEnoughReplicasReachOffset(10); !ok || !errors.Is(err, protocol.ErrNotEnoughReplicasAfterAppend) {
		t.Fatalf("CheckEnoughReplicasReachOffset(10) = %v, %v, want NotEnoughReplicasAfterAppend", ok, err)
	}
}

func TestMaybeShrinkIsrOnFollowerIsNoOp(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 1, clock, rm, nil, nil) // broker 1 follows leader 0
	if _, err := p.MakeFollower(0, leaderState(1, []int32{0, 1}, []int32{0, 1}), 1); err != nil {
		t.Fatal(err)
	}
	clock.Sleep(time.Hour)
	if err := p.MaybeShrinkIsr(isrTestLagMs); err != nil {
		t.Fatal(err)
	}
	if len(rm.isrChanges) != 0 {
		t.Fatalf("a follower changed the ISR: %v", rm.isrChanges)
	}
}

func TestIsrExpandsWhenFollowerReachesHighWatermark(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	if _, err := p.MakeLeader(0, leaderState(1, []int32{0}, []int32{0, 1}), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AppendRecordsToLeader(records(t, 10), 1); err != nil {
		t.Fatal(err)
	}
	if hw := p.LocalReplica().HighWatermark().MessageOffset; hw != 10 {
		t.Fatalf("HW %d with ISR [0], want 10", hw)
	}
	if err := followerFetch(p, 1, 5, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0}) {
		t.Fatalf("ISR %v after a fetch below the HW", isr)
	}
	if err := followerFetch(p, 1, 10, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0, 1}) {
		t.Fatalf("ISR %v after catching up, want [0 1]", isr)
	}
	if len(rm.isrChanges) != 1 {
		t.Fatalf("ISR changes recorded: %v", rm.isrChanges)
	}
}
