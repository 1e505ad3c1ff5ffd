package coordinator

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/core/utils/timer"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeReplicaManager is the coordinator.ReplicaManager seam over real core/log Logs in a temp
// dir: appends go to the log at once and the high watermark is the log end offset (a
// one-replica ISR). Errors can be injected, and callbacks held back to model acks=-1 waits.
type fakeReplicaManager struct {
	t     testing.TB
	dir   string
	time  common.Time
	mu    sync.Mutex
	logs  map[common.TopicPartition]*log.Log
	err   error // answered for every append while set
	hold  bool  // park callbacks in held instead of calling them
	held  []func()
	acks  []int16
	magic int8
}

func newFakeReplicaManager(t testing.TB, clock common.Time) *fakeReplicaManager {
	return &fakeReplicaManager{t: t, dir: t.TempDir(), time: clock, logs: map[common.TopicPartition]*log.Log{}, magic: record.MagicValueV1}
}

func (f *fakeReplicaManager) addPartition(p int32) *log.Log {
	f.t.Helper()
	tp := offsetsTopicPartition(p)
	cfg, err := log.NewLogConfig(map[string]string{"cleanup.policy": "compact", "segment.bytes": "104857600", "compression.type": "producer"})
	if err != nil {
		f.t.Fatal(err)
	}
	dir := filepath.Join(f.dir, tp.String())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	l, err := log.NewLog(dir, cfg, 0, utils.NewMockScheduler(f.time), f.time, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = l.Close() })
	f.mu.Lock()
	f.logs[tp] = l
	f.mu.Unlock()
	return l
}

// removePartition forgets the log (this broker no longer has a replica); it stays open.
func (f *fakeReplicaManager) removePartition(p int32) {
	f.mu.Lock()
	delete(f.logs, offsetsTopicPartition(p))
	f.mu.Unlock()
}

func (f *fakeReplicaManager) AppendRecords(timeoutMs int64, requiredAcks int16, internalTopicsAllowed bool,
	records map[common.TopicPartition]*record.MemoryRecords, cb func(map[common.TopicPartition]error)) {
	f.mu.Lock()
	f.acks = append(f.acks, requiredAcks)
	out := map[common.TopicPartition]error{}
	for tp, r := range records {
		l := f.logs[tp]
		switch {
		case f.err != nil:
			out[tp] = f.err
		case l == nil:
			out[tp] = protocol.ErrNotLeaderForPartition
		default:
			if _, err := l.Append(r, true); err != nil {
				out[tp] = err
			}
		}
	}
	if f.hold {
		f.held = append(f.held, func() { cb(out) })
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	cb(out)
}

func (f *fakeReplicaManager) release() {
	f.mu.Lock()
	held := f.held
	f.held, f.hold = nil, false
	f.mu.Unlock()
	for _, fn := range held {
		fn()
	}
}

func (f *fakeReplicaManager) GetLog(tp common.TopicPartition) (*log.Log, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.logs[tp]
	return l, ok
}

func (f *fakeReplicaManager) GetHighWatermark(tp common.TopicPartition) (int64, bool) {
	l, ok := f.GetLog(tp)
	if !ok {
		return -1, false
	}
	return l.LogEndOffset(), true
}

func (f *fakeReplicaManager) GetMagic(tp common.TopicPartition) (int8, bool) {
	if _, ok := f.GetLog(tp); !ok {
		return 0, false
	}
	return f.magic, true
}

// harness is a coordinator on one __consumer_offsets partition (0), with MockTime, one
// MockTimer behind both purgatories and a MockScheduler.
type harness struct {
	t     testing.TB
	time  *common.MockTime
	timer *timer.MockTimer
	sched *utils.MockScheduler
	rm    *fakeReplicaManager
	mgr   *GroupMetadataManager
	c     *GroupCoordinator
}

const (
	testSession   = 10000
	testRebalance = 30000
	testGroup     = "g"
)

func newHarness(t testing.TB) *harness {
	t.Helper()
	h := &harness{t: t, time: common.NewMockTime(1_000_000)}
	h.timer = timer.NewMockTimer(h.time)
	h.sched = utils.NewMockScheduler(h.time)
	h.rm = newFakeReplicaManager(t, h.time)
	h.rm.addPartition(0)
	h.newCoordinator()
	h.mgr.AddPartitionOwnership(0)
	return h
}

func (h *harness) newCoordinator() {
	cfg := DefaultOffsetConfig()
	cfg.OffsetsTopicNumPartitions = 1
	h.mgr = NewGroupMetadataManager(GroupMetadataManagerConfig{BrokerID: 0, Config: cfg, GroupMetadataValueVersion: 1,
		ReplicaManager: h.rm, Time: h.time, Scheduler: h.sched})
	h.c = NewGroupCoordinator(GroupCoordinatorConfig{BrokerID: 0, OffsetConfig: cfg, GroupManager: h.mgr, Timer: h.timer, Time: h.time,
		GroupConfig: GroupConfig{GroupMinSessionTimeoutMs: 6000, GroupMaxSessionTimeoutMs: 300000}})
	h.c.Startup(false)
	h.t.Cleanup(h.c.Shutdown)
}

func (h *harness) advance(ms int64) { h.timer.AdvanceClock(ms) }

type joinFuture struct{ ch chan JoinGroupResult }

func (f *joinFuture) done() bool { return len(f.ch) > 0 }

func (f *joinFuture) get(t testing.TB) JoinGroupResult {
	t.Helper()
	select {
	case r := <-f.ch:
		return r
	default:
		t.Fatal("JoinGroup has not been answered")
		return JoinGroupResult{}
	}
}

// testAssignment is a ConsumerProtocol assignment of t-0.
var testAssignment = (&protocol.ConsumerProtocolAssignment{Partitions: []common.TopicPartition{{Topic: "t", Partition: 0}},
	UserData: []byte{}}).AppendTo(nil)

var rangeProto = []Protocol{{Name: "range", Metadata: []byte{0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 0}}}

func (h *harness) join(group, memberID string, protocols []Protocol) *joinFuture {
	f := &joinFuture{ch: make(chan JoinGroupResult, 1)}
	h.c.HandleJoinGroup(group, memberID, "client", "/127.0.0.1", testRebalance, testSession, "consumer", protocols,
		func(r JoinGroupResult) { f.ch <- r })
	return f
}

type syncFuture struct {
	ch chan syncResult
}

type syncResult struct {
	assignment []byte
	code       int16
}

func (f *syncFuture) done() bool { return len(f.ch) > 0 }

func (f *syncFuture) get(t testing.TB) syncResult {
	t.Helper()
	select {
	case r := <-f.ch:
		return r
	default:
		t.Fatal("SyncGroup has not been answered")
		return syncResult{}
	}
}

func (h *harness) sync(group string, generation int32, memberID string, assignment map[string][]byte) *syncFuture {
	f := &syncFuture{ch: make(chan syncResult, 1)}
	h.c.HandleSyncGroup(group, generation, memberID, assignment, func(a []byte, code int16) { f.ch <- syncResult{a, code} })
	return f
}

func (h *harness) heartbeat(group, memberID string, generation int32) int16 {
	var code int16 = -100
	h.c.HandleHeartbeat(group, memberID, generation, func(c int16) { code = c })
	return code
}

func (h *harness) leave(group, memberID string) int16 {
	var code int16 = -100
	h.c.HandleLeaveGroup(group, memberID, func(c int16) { code = c })
	return code
}

func tp(topic string, p int32) common.TopicPartition {
	return common.TopicPartition{Topic: topic, Partition: p}
}

func (h *harness) commit(group, memberID string, generation int32, offsets map[common.TopicPartition]int64) map[common.TopicPartition]int16 {
	in := map[common.TopicPartition]OffsetAndMetadata{}
	now := h.time.Milliseconds()
	for k, o := range offsets {
		in[k] = OffsetAndMetadata{Offset: o, CommitTimestamp: now, ExpireTimestamp: now + h.c.offsetConfig.OffsetsRetentionMs}
	}
	var out map[common.TopicPartition]int16
	h.c.HandleCommitOffsets(group, memberID, generation, in, func(m map[common.TopicPartition]int16) { out = m })
	return out
}

// commitCode commits one offset (t-0) and returns its code (-100 if not answered).
func (h *harness) commitCode(group, memberID string, generation int32) int16 {
	r := h.commit(group, memberID, generation, map[common.TopicPartition]int64{tp("t", 0): 5})
	if r == nil {
		return -100
	}
	return r[tp("t", 0)]
}

func (h *harness) state(group string) string {
	g := h.mgr.GetGroup(group)
	if g == nil {
		return "<none>"
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state.String()
}

func (h *harness) generation(group string) int32 {
	g := h.mgr.GetGroup(group)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.generationID
}

// joinAndSync makes a one-member Stable group and returns the member id.
func (h *harness) joinAndSync(group string) string {
	h.t.Helper()
	r := h.join(group, "", rangeProto).get(h.t)
	if r.ErrorCode != 0 || r.LeaderID != r.MemberID {
		h.t.Fatalf("first join: %+v", r)
	}
	s := h.sync(group, r.GenerationID, r.MemberID, map[string][]byte{r.MemberID: testAssignment}).get(h.t)
	if s.code != 0 || !bytes.Equal(s.assignment, testAssignment) {
		h.t.Fatalf("leader sync: %+v", s)
	}
	return r.MemberID
}

func codeName(c int16) string {
	if c == -100 {
		return "<no answer>"
	}
	if c == 0 {
		return "NONE"
	}
	return fmt.Sprint(protocol.ErrorForCode(c))
}
func pendingOr(t *testing.T, f *joinFuture) int16 {
	if f.done() {
		return f.get(t).ErrorCode
	}
	return pending
}

const pending int16 = -100 // the request was parked, not answered
