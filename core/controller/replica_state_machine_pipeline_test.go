package controller

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// conflictHook rewrites one partition's state znode (as another writer would: the
// ISR reordered, the version bumped) when the controller logs that it is about to
// take a replica of that partition out of the ISR: in the pipelined path that is
// after the read, so the conditional write loses and the removal must re-read.
type conflictHook struct {
	t    *testing.T
	zk   *zkutils.ZkUtils
	tp   common.TopicPartition
	done bool
}

func (h *conflictHook) Levels() []logrus.Level { return []logrus.Level{logrus.DebugLevel} }

func (h *conflictHook) Fire(e *logrus.Entry) error {
	if h.done || !strings.HasPrefix(e.Message, "Removing replica 1 from ISR") || !strings.HasSuffix(e.Message, tpString(h.tp)+".") {
		return nil
	}
	h.done = true
	path := zkutils.TopicPartitionLeaderAndIsrPath(h.tp.Topic, h.tp.Partition)
	cur, ok, err := h.zk.GetLeaderIsrAndEpochForPartition(h.tp.Topic, h.tp.Partition)
	if err != nil || !ok {
		h.t.Errorf("read %s: %v %v", path, ok, err)
		return nil
	}
	other := cur.LeaderAndIsr
	other.Isr = []int32{3, 1}
	if ok, _ := h.zk.ConditionalUpdatePersistentPath(path, zkutils.LeaderAndIsrZkData(other, 1), cur.LeaderAndIsr.ZkVersion, nil); !ok {
		h.t.Error("could not write the conflicting state")
	}
	return nil
}

// TestPipelinedIsrRemovalsMatchOneAtATime: HandleStateChanges(..., OfflineReplica)
// with its ISR removals pipelined leaves the same znodes, replica states, cached
// leaders and ISRs, queued LeaderAndIsr and StopReplica requests and failures as
// handleStateChange for one replica after the other — with a replica that leads
// (leader -1), one that follows, one not in the ISR, one that is the whole ISR, a
// partition without a state znode, one without leader information, a conditional
// write that loses to another writer, two replicas of one partition, and a replica
// listed twice.
func TestPipelinedIsrRemovalsMatchOneAtATime(t *testing.T) {
	const n = 100
	type run struct {
		znodes   map[common.TopicPartition]string
		states   map[PartitionAndReplica]ReplicaState
		leaders  map[common.TopicPartition]zkutils.LeaderIsrAndControllerEpoch
		lai      map[int32]map[common.TopicPartition]PartitionStateInfo
		stops    string
		errs     int
		conflict bool
	}
	var replicas []PartitionAndReplica
	for p := int32(0); p < n; p++ {
		replicas = append(replicas, PartitionAndReplica{"t", p, 1})
	}
	replicas = append(replicas, PartitionAndReplica{"t", 5, 2}, PartitionAndReplica{"t", 6, 2}, PartitionAndReplica{"t", 9, 1})
	setup := func(pipelined bool) run {
		c, _, zk := newOfflineController(t)
		c.controllerLock.Lock()
		defer c.controllerLock.Unlock()
		hook := &conflictHook{t: t, zk: zk, tp: common.TopicPartition{Topic: "t", Partition: 20}}
		logger := logrus.New()
		logger.SetOutput(io.Discard)
		logger.SetLevel(logrus.DebugLevel)
		logger.AddHook(hook)
		c.log = logrus.NewEntry(logger)
		for p := int32(0); p < n; p++ {
			tp := common.TopicPartition{Topic: "t", Partition: p}
			c.ctx.PartitionReplicaAssignment[tp] = []int32{1, 2, 3}
			for _, id := range []int32{1, 2, 3} {
				c.replicaStateMachine.replicaState[PartitionAndReplica{"t", p, id}] = OnlineReplica
			}
			leader, isr := int32(1), []int32{1, 2, 3}
			switch p % 4 {
			case 1:
				leader = 2
			case 2:
				leader, isr = 2, []int32{2, 3}
			case 3:
				isr = []int32{1}
			}
			if p == 13 {
				c.ctx.PartitionLeadershipInfo[tp] = zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: zkutils.NewLeaderAndIsr(leader, isr), ControllerEpoch: 1}
				continue // no state znode
			}
			if p == 14 {
				continue // no leader information either
			}
			l := zkutils.NewLeaderAndIsr(leader, isr)
			if err := zk.CreatePersistentPath(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition), zkutils.LeaderAndIsrZkData(l, 1)); err != nil {
				t.Fatal(err)
			}
			c.ctx.PartitionLeadershipInfo[tp] = zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: l, ControllerEpoch: 1}
		}
		m := c.replicaStateMachine
		if err := m.brokerRequestBatch.NewBatch(); err != nil {
			t.Fatal(err)
		}
		var errs []error
		if pipelined {
			errs = m.handleOfflineStateChanges(replicas)
		} else {
			for _, r := range replicas {
				if err := m.handleStateChange(r, OfflineReplica, nil); err != nil {
					errs = append(errs, err)
				}
			}
		}
		out := run{znodes: map[common.TopicPartition]string{}, states: map[PartitionAndReplica]ReplicaState{},
			leaders: c.ctx.PartitionLeadershipInfo, lai: m.brokerRequestBatch.leaderAndIsrRequestMap,
			stops: fmt.Sprint(m.brokerRequestBatch.stopReplicaRequestMap), errs: len(errs), conflict: hook.done}
		for p := int32(0); p < n; p++ {
			tp := common.TopicPartition{Topic: "t", Partition: p}
			out.znodes[tp] = znode(t, zk, tp)
			for _, id := range []int32{1, 2, 3} {
				r := PartitionAndReplica{"t", p, id}
				out.states[r] = m.State(r)
			}
		}
		return out
	}
	one, pipe := setup(false), setup(true)

	if !one.conflict || !pipe.conflict {
		t.Fatal("the conflicting write was not made")
	}
	tp := func(p int32) common.TopicPartition { return common.TopicPartition{Topic: "t", Partition: p} }
	// What one at a time gives, checked on its own.
	if got := one.leaders[tp(0)].LeaderAndIsr; got.Leader != zkutils.NoLeader || !reflect.DeepEqual(got.Isr, []int32{2, 3}) || got.LeaderEpoch != 1 {
		t.Fatalf("partition 0 (replica 1 led): %+v", got)
	}
	if got := one.leaders[tp(20)].LeaderAndIsr; !reflect.DeepEqual(got.Isr, []int32{3}) || got.ZkVersion != 2 {
		t.Fatalf("partition 20 (written by someone else between read and write): %+v", got)
	}
	if got := one.leaders[tp(5)].LeaderAndIsr; !reflect.DeepEqual(got.Isr, []int32{3}) || got.Leader != zkutils.NoLeader || got.LeaderEpoch != 2 {
		t.Fatalf("partition 5 (replicas 1 and 2 out): %+v", got)
	}
	if one.errs != 2 { // 13: no state znode; 14: no leader information
		t.Fatalf("one at a time: %d failures, want 2", one.errs)
	}

	if pipe.errs != one.errs || pipe.stops != one.stops {
		t.Errorf("failures %d / %d; StopReplica batches\npipelined   %s\none at time %s", pipe.errs, one.errs, pipe.stops, one.stops)
	}
	for p := int32(0); p < n; p++ {
		if pipe.znodes[tp(p)] != one.znodes[tp(p)] {
			t.Errorf("%s znode: pipelined %s, one at a time %s", tpString(tp(p)), pipe.znodes[tp(p)], one.znodes[tp(p)])
		}
		if !reflect.DeepEqual(pipe.leaders[tp(p)], one.leaders[tp(p)]) {
			t.Errorf("%s cached: pipelined %+v, one at a time %+v", tpString(tp(p)), pipe.leaders[tp(p)], one.leaders[tp(p)])
		}
	}
	if !reflect.DeepEqual(pipe.states, one.states) {
		t.Error("replica states differ")
	}
	if len(pipe.lai) != len(one.lai) {
		t.Errorf("LeaderAndIsr to %d brokers pipelined, %d one at a time", len(pipe.lai), len(one.lai))
	}
	for broker, want := range one.lai {
		for p, w := range want {
			if g, ok := pipe.lai[broker][p]; !ok || !reflect.DeepEqual(g, w) {
				t.Errorf("broker %d %s: pipelined %s, one at a time %s", broker, tpString(p), fmt.Sprint(g), fmt.Sprint(w))
			}
		}
		if len(pipe.lai[broker]) != len(want) {
			t.Errorf("broker %d: %d entries pipelined, %d one at a time", broker, len(pipe.lai[broker]), len(want))
		}
	}
}
