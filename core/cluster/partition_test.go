package cluster

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// fakeReplicaManager is the seam with a real LogManager and recorded purgatory pokes.
type fakeReplicaManager struct {
	lm        *log.LogManager
	logConfig *log.LogConfig
	cfg       *config.KafkaConfig
	cps       map[string]*log.OffsetCheckpoint

	mu         sync.Mutex
	produces   int
	fetches    int
	isrChanges []common.TopicPartition
}

func (f *fakeReplicaManager) LogManager() *log.LogManager                 { return f.lm }
func (f *fakeReplicaManager) LogConfigFor(string) (*log.LogConfig, error) { return f.logConfig, nil }
func (f *fakeReplicaManager) HighWatermarkCheckpoints() map[string]*log.OffsetCheckpoint {
	return f.cps
}
func (f *fakeReplicaManager) Config() *config.KafkaConfig { return f.cfg }
func (f *fakeReplicaManager) ZkUtils() *zkutils.ZkUtils   { return nil }
func (f *fakeReplicaManager) TryCompleteDelayedProduce(purgatory.DelayedOperationKey) {
	f.mu.Lock()
	f.produces++
	f.mu.Unlock()
}
func (f *fakeReplicaManager) TryCompleteDelayedFetch(purgatory.DelayedOperationKey) {
	f.mu.Lock()
	f.fetches++
	f.mu.Unlock()
}
func (f *fakeReplicaManager) RecordIsrChange(tp common.TopicPartition) {
	f.mu.Lock()
	f.isrChanges = append(f.isrChanges, tp)
	f.mu.Unlock()
}

func quietLogger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

func newFakeRM(t *testing.T, clock common.Time, logProps map[string]string) *fakeReplicaManager {
	t.Helper()
	dir := t.TempDir()
	lc, err := log.FromProps(log.LogConfigDefaultsMap(), logProps)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := log.NewLogManager(log.LogManagerConfig{LogDirs: []string{dir}, DefaultConfig: lc, IOThreads: 1},
		utils.NewMockScheduler(clock), nil, clock, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lm.Shutdown() })
	cp, err := log.NewOffsetCheckpoint(dir + "/" + log.ReplicationOffsetCheckpointFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.FromProps(map[string]string{"zookeeper.connect": "localhost:2181", "replica.lag.time.max.ms": "10000"})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeReplicaManager{lm: lm, logConfig: lc, cfg: cfg, cps: map[string]*log.OffsetCheckpoint{lm.LogDirs()[0]: cp}}
}

func records(t *testing.T, n int) *record.MemoryRecords {
	t.Helper()
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, 0, 0)
	for i := 0; i < n; i++ {
		if _, err := b.AppendWithOffset(int64(i), 1000+int64(i), nil, []byte(fmt.Sprintf("v%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func leaderState(leaderEpoch int32, isr, replicas []int32) protocol.LeaderAndIsrRequestPartitionState {
	return protocol.LeaderAndIsrRequestPartitionState{Topic: "t", Partition: 0, ControllerEpoch: 1, Leader: 0,
		LeaderEpoch: leaderEpoch, Isr: isr, ZkVersion: 0, Replicas: replicas}
}

// followerFetch is what the leader records when follower id fetched up to offset.
func followerFetch(p *Partition, id int32, offset int64, now int64) error {
	leo := p.LocalReplica().LogEndOffset().MessageOffset
	return p.UpdateReplicaLogReadResult(id, LogReadResult{
		Info: log.FetchDataInfo{FetchOffsetMetadata: log.NewMessageOffsetOnly(offset)}, HW: 0,
		LeaderLogEndOffset: leo, FetchTimeMs: now})
}

func TestHighWatermarkFollowsSlowestInSyncReplica(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	isNew, err := p.MakeLeader(0, leaderState(0, []int32{0, 1}, []int32{0, 1, 2}), 1)
	if err != nil || !isNew {
		t.Fatalf("MakeLeader = %v, %v", isNew, err)
	}
	if _, err := p.AppendRecordsToLeader(records(t, 10), 1); err != nil {
		t.Fatal(err)
	}
	leader := p.LeaderReplicaIfLocal()
	if got := leader.LogEndOffset().MessageOffset; got != 10 {
		t.Fatalf("LEO = %d", got)
	}
	// Follower 1 (in the ISR) has fetched nothing yet: the HW stays.
	if hw := leader.HighWatermark().MessageOffset; hw != 0 {
		t.Fatalf("HW = %d before any follower fetch, want 0", hw)
	}
	if err := followerFetch(p, 1, 5, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if hw := leader.HighWatermark().MessageOffset; hw != 5 {
		t.Fatalf("HW = %d after follower 1 reached 5, want 5", hw)
	}
	// Replica 2 is outside the ISR and was never caught up: it does not hold the HW back.
	if err := followerFetch(p, 1, 10, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if hw := leader.HighWatermark().MessageOffset; hw != 10 {
		t.Fatalf("HW = %d, want 10", hw)
	}
	if got := p.InSyncReplicas(); fmt.Sprint(got) != "[0 1]" {
		t.Fatalf("ISR = %v", got)
	}
	// Replica 2 catches up to the HW: it joins the ISR (recorded as an ISR change).
	if err := followerFetch(p, 2, 10, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if got := p.InSyncReplicas(); fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("ISR = %v after replica 2 caught up", got)
	}
	if len(rm.isrChanges) != 1 {
		t.Fatalf("ISR changes recorded: %v", rm.isrChanges)
	}
	// A replica caught up recently but not yet in the ISR holds the HW back.
	if _, err := p.AppendRecordsToLeader(records(t, 5), 1); err != nil {
		t.Fatal(err)
	}
	if err := followerFetch(p, 1, 15, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if hw := leader.HighWatermark().MessageOffset; hw != 10 {
		t.Fatalf("HW = %d while replica 2 (in ISR) is at 10, want 10", hw)
	}
	if err := followerFetch(p, 2, 15, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if hw := leader.HighWatermark().MessageOffset; hw != 15 {
		t.Fatalf("HW = %d, want 15", hw)
	}
	if ok, err := p.CheckEnoughReplicasReachOffset(15); !ok || err != nil {
		t.Fatalf("CheckEnoughReplicasReachOffset(15) = %v, %v", ok, err)
	}
	if ok, err := p.CheckEnoughReplicasReachOffset(16); ok || err != nil {
		t.Fatalf("CheckEnoughReplicasReachOffset(16) = %v, %v", ok, err)
	}
	// An unknown follower is an error, not a panic.
	if err := followerFetch(p, 7, 1, clock.Milliseconds()); err == nil {
		t.Fatal("fetch from an unassigned replica accepted")
	}
}

func TestSingleReplicaHighWatermarkMovesOnAppend(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	if _, err := p.MakeLeader(0, leaderState(0, []int32{0}, []int32{0}), 1); err != nil {
		t.Fatal(err)
	}
	info, err := p.AppendRecordsToLeader(records(t, 3), -1)
	if err != nil {
		t.Fatal(err)
	}
	if info.FirstOffset != 0 || info.LastOffset != 2 {
		t.Fatalf("append info %+v", info)
	}
	if hw := p.LeaderReplicaIfLocal().HighWatermark().MessageOffset; hw != 3 {
		t.Fatalf("HW = %d, want 3", hw)
	}
	if rm.produces == 0 || rm.fetches == 0 {
		t.Fatalf("purgatories not poked: produce %d fetch %d", rm.produces, rm.fetches)
	}
}

func TestAppendBelowMinInsyncReplicas(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, map[string]string{"min.insync.replicas": "2"})
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	if _, err := p.MakeLeader(0, leaderState(0, []int32{0}, []int32{0, 1}), 1); err != nil {
		t.Fatal(err)
	}
	_, err := p.AppendRecordsToLeader(records(t, 3), -1)
	if !errors.Is(err, protocol.ErrNotEnoughReplicas) {
		t.Fatalf("acks=-1 with ISR 1 < min.insync 2: %v, want NOT_ENOUGH_REPLICAS", err)
	}
	if leo := p.LocalReplica().LogEndOffset().MessageOffset; leo != 0 {
		t.Fatalf("refused append wrote: LEO %d", leo)
	}
	if _, err := p.AppendRecordsToLeader(records(t, 3), 1); err != nil {
		t.Fatalf("acks=1 is not subject to min.insync.replicas: %v", err)
	}
	// Replica 1 is outside the ISR and not caught up: the HW reaches 3 at once, but the ISR is
	// below min.insync.replicas: NOT_ENOUGH_REPLICAS_AFTER_APPEND for a waiting acks=-1 produce.
	ok, err := p.CheckEnoughReplicasReachOffset(3)
	if !ok || !errors.Is(err, protocol.ErrNotEnoughReplicasAfterAppend) {
		t.Fatalf("CheckEnoughReplicasReachOffset(3) = %v, %v; want true, NOT_ENOUGH_REPLICAS_AFTER_APPEND", ok, err)
	}
	// Once replica 1 catches up it joins the ISR and the check passes.
	if err := followerFetch(p, 1, 3, clock.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if ok, err := p.CheckEnoughReplicasReachOffset(3); !ok || err != nil {
		t.Fatalf("after ISR expansion: %v, %v", ok, err)
	}
}

func TestNotLeader(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	st := leaderState(0, []int32{1, 0}, []int32{1, 0})
	st.Leader = 1
	changed, err := p.MakeFollower(0, st, 1)
	if err != nil || !changed {
		t.Fatalf("MakeFollower = %v, %v", changed, err)
	}
	if p.LeaderReplicaIfLocal() != nil || p.LeaderReplicaID() != 1 {
		t.Fatal("follower reports itself leader")
	}
	if _, err := p.AppendRecordsToLeader(records(t, 1), 1); !errors.Is(err, protocol.ErrNotLeaderForPartition) {
		t.Fatalf("append on follower: %v", err)
	}
	if _, err := p.CheckEnoughReplicasReachOffset(1); !errors.Is(err, protocol.ErrNotLeaderForPartition) {
		t.Fatalf("CheckEnoughReplicasReachOffset on follower: %v", err)
	}
	if changed, _ := p.MakeFollower(0, st, 2); changed {
		t.Fatal("same leader reported as a change")
	}
}

func TestHighWatermarkRestoredFromCheckpointCappedAtLEO(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	if _, err := p.MakeLeader(0, leaderState(0, []int32{0}, []int32{0}), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AppendRecordsToLeader(records(t, 4), 1); err != nil {
		t.Fatal(err)
	}
	tp := common.TopicPartition{Topic: "t", Partition: 0}
	for _, cp := range rm.cps {
		if err := cp.Write(map[common.TopicPartition]int64{tp: 100}); err != nil {
			t.Fatal(err)
		}
	}
	p2 := NewPartition("t", 0, 0, clock, rm, nil, nil)
	r, err := p2.GetOrCreateReplica(0)
	if err != nil {
		t.Fatal(err)
	}
	if hw := r.HighWatermark().MessageOffset; hw != 4 {
		t.Fatalf("restored HW = %d, want min(100, LEO 4) = 4", hw)
	}
	for _, cp := range rm.cps {
		_ = cp.Write(map[common.TopicPartition]int64{tp: 2})
	}
	p3 := NewPartition("t", 0, 0, clock, rm, nil, nil)
	r3, _ := p3.GetOrCreateReplica(0)
	if hw := r3.HighWatermark().MessageOffset; hw != 2 {
		t.Fatalf("restored HW = %d, want 2", hw)
	}
}

func TestReplicaLastCaughtUpTime(t *testing.T) {
	r := NewReplica(1, common.TopicPartition{Topic: "t"}, common.NewMockTime(0), 0, nil)
	fetch := func(offset, leaderLEO, at int64) {
		if err := r.UpdateLogReadResult(LogReadResult{Info: log.FetchDataInfo{FetchOffsetMetadata: log.NewMessageOffsetOnly(offset)},
			LeaderLogEndOffset: leaderLEO, FetchTimeMs: at}); err != nil {
			t.Fatal(err)
		}
	}
	fetch(5, 10, 100) // behind
	if r.LastCaughtUpTimeMs() != 0 {
		t.Fatalf("caught up at %d while behind", r.LastCaughtUpTimeMs())
	}
	fetch(10, 12, 200) // reached the previous fetch's leader LEO: caught up as of that fetch
	if r.LastCaughtUpTimeMs() != 100 {
		t.Fatalf("lastCaughtUpTime = %d, want 100", r.LastCaughtUpTimeMs())
	}
	fetch(12, 12, 300)
	if r.LastCaughtUpTimeMs() != 300 {
		t.Fatalf("lastCaughtUpTime = %d, want 300", r.LastCaughtUpTimeMs())
	}
	if r.LogEndOffset().MessageOffset != 12 {
		t.Fatalf("LEO = %d", r.LogEndOffset().MessageOffset)
	}
	if err := r.SetHighWatermark(log.NewMessageOffsetOnly(1)); err == nil {
		t.Fatal("HW set on a remote replica")
	}
}

// TestConcurrentAppendsNeverMoveHWBack: appends hold the partition lock only shared, so several
// may advance the HW at once; it must never go backwards and must end at the LEO.
func TestConcurrentAppendsNeverMoveHWBack(t *testing.T) {
	clock := common.NewMockTime(1_000_000)
	rm := newFakeRM(t, clock, nil)
	p := NewPartition("t", 0, 0, clock, rm, nil, nil)
	if _, err := p.MakeLeader(0, leaderState(0, []int32{0}, []int32{0}), 1); err != nil {
		t.Fatal(err)
	}
	leader := p.LeaderReplicaIfLocal()
	done := make(chan struct{})
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		last := int64(0)
		for {
			select {
			case <-done:
				return
			default:
			}
			hw := leader.HighWatermark().MessageOffset
			if hw < last {
				t.Errorf("HW went back from %d to %d", last, hw)
				return
			}
			last = hw
		}
	}()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		sets := make([]*record.MemoryRecords, 50) // built here: Append rewrites offsets in place
		for i := range sets {
			sets[i] = records(t, 2)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, set := range sets {
				if _, err := p.AppendRecordsToLeader(set, 1); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	watch.Wait()
	if hw, leo := leader.HighWatermark().MessageOffset, leader.LogEndOffset().MessageOffset; hw != leo || leo != 400 {
		t.Fatalf("HW %d, LEO %d; want both 400", hw, leo)
	}
}
