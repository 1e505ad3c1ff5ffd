package coordinator

import (
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestRealTimersConcurrentMembers runs three members on their own goroutines against a
// coordinator with real SystemTimers (short session timeouts): it exercises the expiry path
// on the timer's goroutine against concurrent requests (run with -race). One member stops
// heartbeating; the two others see the rebalance and form generation 3 without it.
func TestRealTimersConcurrentMembers(t *testing.T) {
	clock := common.SystemTime{}
	rm := newFakeReplicaManager(t, clock)
	rm.addPartition(0)
	cfg := DefaultOffsetConfig()
	cfg.OffsetsTopicNumPartitions = 1
	mgr := NewGroupMetadataManager(GroupMetadataManagerConfig{Config: cfg, GroupMetadataValueVersion: 1, ReplicaManager: rm,
		Time: clock, Scheduler: utils.NewMockScheduler(clock)})
	c := NewGroupCoordinator(GroupCoordinatorConfig{OffsetConfig: cfg, GroupManager: mgr, Time: clock,
		GroupConfig: GroupConfig{GroupMinSessionTimeoutMs: 10, GroupMaxSessionTimeoutMs: 10000}})
	c.Startup(false)
	defer c.Shutdown()
	mgr.AddPartitionOwnership(0)

	const session = 300
	type state struct {
		id  string
		gen int32
	}
	var mu sync.Mutex
	gens := map[int]int32{}
	// runMember joins, syncs, and heartbeats every 50 ms until stop; it rejoins when told to.
	runMember := func(i int, stop <-chan struct{}, wg *sync.WaitGroup) {
		defer wg.Done()
		var st state
		rejoin := true
		for {
			select {
			case <-stop:
				return
			default:
			}
			if rejoin {
				ch := make(chan JoinGroupResult, 1)
				c.HandleJoinGroup(testGroup, st.id, "c", "/h", 2000, session, "consumer", rangeProto, func(r JoinGroupResult) { ch <- r })
				var r JoinGroupResult
				select {
				case r = <-ch:
				case <-stop:
					return
				}
				if r.ErrorCode == protocol.ErrUnknownMemberID.Code {
					st = state{}
					continue
				}
				st = state{id: r.MemberID, gen: r.GenerationID}
				var assignment map[string][]byte
				if r.LeaderID == r.MemberID {
					assignment = map[string][]byte{}
					for _, m := range r.Members {
						assignment[m.MemberID] = []byte{1}
					}
				}
				sch := make(chan int16, 1)
				c.HandleSyncGroup(testGroup, st.gen, st.id, assignment, func(_ []byte, code int16) { sch <- code })
				select {
				case code := <-sch:
					if code != 0 {
						continue // rejoin
					}
				case <-stop:
					return
				}
				rejoin = false
				mu.Lock()
				gens[i] = st.gen
				mu.Unlock()
			}
			time.Sleep(50 * time.Millisecond)
			var code int16
			c.HandleHeartbeat(testGroup, st.id, st.gen, func(cd int16) { code = cd })
			switch code {
			case 0:
			case protocol.ErrUnknownMemberID.Code, protocol.ErrIllegalGeneration.Code:
				st, rejoin = state{}, true
			default:
				rejoin = true
			}
		}
	}
	stopAll, stopOne := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	go runMember(0, stopAll, &wg)
	go runMember(1, stopAll, &wg)
	go runMember(2, stopOne, &wg)
	waitFor := func(cond func() bool, what string) {
		t.Helper()
		if !zktest.PollUntil(cond, 10*time.Second) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("timed out waiting for %s; gens %v", what, gens)
		}
	}
	members := func() int {
		g := mgr.GetGroup(testGroup)
		if g == nil {
			return 0
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if !g.Is(Stable) {
			return -1
		}
		return len(g.members)
	}
	waitFor(func() bool { return members() == 3 }, "three stable members")
	close(stopOne)
	waitFor(func() bool { return members() == 2 }, "the silent member to expire and the others to restabilize")
	close(stopAll)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if gens[0] != gens[1] || gens[0] <= gens[2] {
		t.Fatalf("generations %v", gens)
	}
}
