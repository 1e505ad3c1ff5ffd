package controller

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// conflictingSelector is the offline selector, except that the first time it
// selects for the partition conflictOn it first rewrites that partition's state
// znode as another writer would (same leader, ISR reordered), so that the
// controller's conditional write loses and its election must re-read and retry.
type conflictingSelector struct {
	inner      PartitionLeaderSelector
	zk         *zkutils.ZkUtils
	t          *testing.T
	conflictOn common.TopicPartition
	done       bool
}

func (s *conflictingSelector) SelectLeader(tp common.TopicPartition, current zkutils.LeaderAndIsr) (zkutils.LeaderAndIsr, []int32, error) {
	if tp == s.conflictOn && !s.done {
		s.done = true
		other := current
		other.Isr = []int32{3, 1} // broker 2 dropped by "someone else": the retry must see it
		path := zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition)
		if ok, _ := s.zk.ConditionalUpdatePersistentPath(path, zkutils.LeaderAndIsrZkData(other, 1), current.ZkVersion, nil); !ok {
			s.t.Fatal("could not write the conflicting state")
		}
	}
	return s.inner.SelectLeader(tp, current)
}

// TestPipelinedElectionsMatchOneAtATime: handleOnlineStateChanges (the ZooKeeper reads
// and writes of many elections in flight together) leaves the same znodes, states,
// cached leaders, queued LeaderAndIsr requests and failures as handleStateChange
// called for one partition after the other (0.10.2's path) — including a partition
// whose conditional write loses to another writer, one without a state znode, one
// written by a newer controller, one without a live replica, one New, one already led
// by a live broker and one listed twice.
func TestPipelinedElectionsMatchOneAtATime(t *testing.T) {
	const n = 150
	type run struct {
		znodes  map[common.TopicPartition]string
		states  map[common.TopicPartition]PartitionState
		leaders map[common.TopicPartition]zkutils.LeaderIsrAndControllerEpoch
		batch   map[int32]map[common.TopicPartition]PartitionStateInfo
		errs    int
	}
	var tps []common.TopicPartition
	for p := int32(0); p < n; p++ {
		tps = append(tps, common.TopicPartition{Topic: "t", Partition: p})
	}
	tps = append(tps, tps[7]) // listed twice
	setup := func(pipelined bool) run {
		c, _, zk := newOfflineController(t)
		c.controllerLock.Lock()
		defer c.controllerLock.Unlock()
		var live []zkutils.BrokerInfo
		for _, id := range []int32{2, 3} { // broker 1 is dead
			live = append(live, zkutils.NewBrokerInfo(id, 4, nil, -1, "", 0))
		}
		c.ctx.SetLiveBrokers(live)
		for p := int32(0); p < n; p++ {
			tp := common.TopicPartition{Topic: "t", Partition: p}
			ar := []int32{1, 2, 3}
			isr := []int32{1, 2, 3}
			leader := int32(1)
			state := OfflinePartition
			switch p % 5 {
			case 1:
				ar, isr = []int32{1, 3, 2}, []int32{1, 3}
			case 2:
				ar, isr = []int32{3, 1, 2}, []int32{3, 1, 2}
				leader, state = 3, OnlinePartition // a live leader: no election needed
			case 3:
				ar, isr = []int32{1}, []int32{1} // no live replica at all
			}
			c.ctx.PartitionReplicaAssignment[tp] = ar
			c.partitionStateMachine.partitionState[tp] = state
			epoch := int32(1)
			if p == 11 {
				epoch = 2 // written by a newer controller
			}
			l := zkutils.NewLeaderAndIsr(leader, isr)
			if p == 14 {
				continue // no state znode
			}
			if p == 17 {
				c.partitionStateMachine.partitionState[tp] = NewPartition
				continue
			}
			if err := zk.CreatePersistentPath(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition), zkutils.LeaderAndIsrZkData(l, epoch)); err != nil {
				t.Fatal(err)
			}
			c.ctx.PartitionLeadershipInfo[tp] = zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: l, ControllerEpoch: epoch}
		}
		sel := &conflictingSelector{inner: c.offlinePartitionSelector, zk: zk, t: t, conflictOn: common.TopicPartition{Topic: "t", Partition: 20}}
		m := c.partitionStateMachine
		if err := m.brokerRequestBatch.NewBatch(); err != nil {
			t.Fatal(err)
		}
		var errs []error
		if pipelined {
			errs = m.handleOnlineStateChanges(tps, sel)
		} else {
			for _, tp := range tps {
				if err := m.handleStateChange(tp, OnlinePartition, sel); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if !sel.done {
			t.Fatal("the conflicting write was not made")
		}
		r := run{znodes: map[common.TopicPartition]string{}, states: map[common.TopicPartition]PartitionState{},
			leaders: c.ctx.PartitionLeadershipInfo, batch: m.brokerRequestBatch.leaderAndIsrRequestMap, errs: len(errs)}
		for p := int32(0); p < n; p++ {
			tp := common.TopicPartition{Topic: "t", Partition: p}
			r.znodes[tp] = znode(t, zk, tp)
			r.states[tp] = m.State(tp)
		}
		return r
	}
	one, pipe := setup(false), setup(true)

	// What one-at-a-time gives, checked on its own so that two equally wrong paths fail.
	p20 := common.TopicPartition{Topic: "t", Partition: 20}
	if got := one.leaders[p20].LeaderAndIsr; got.Leader != 3 || !reflect.DeepEqual(got.Isr, []int32{3}) {
		t.Fatalf("partition 20 after the conflicting write: %+v, want leader 3 ISR [3]", got)
	}
	p0 := common.TopicPartition{Topic: "t", Partition: 0}
	if got := one.leaders[p0].LeaderAndIsr; got.Leader != 2 || !reflect.DeepEqual(got.Isr, []int32{2, 3}) || got.LeaderEpoch != 1 {
		t.Fatalf("partition 0: %+v", got)
	}
	// failures: 30 without a live replica (p%5==3) plus 11, 14 (17 is New: created)
	if one.errs != n/5+2 {
		t.Fatalf("one at a time: %d failures, want %d", one.errs, n/5+2)
	}
	for _, p := range []int32{3, 11, 14} {
		if st := one.states[common.TopicPartition{Topic: "t", Partition: p}]; st != OfflinePartition && st != NonExistentPartition {
			t.Fatalf("partition %d: %s", p, st)
		}
	}

	if pipe.errs != one.errs {
		t.Errorf("failures: pipelined %d, one at a time %d", pipe.errs, one.errs)
	}
	for p := int32(0); p < n; p++ {
		tp := common.TopicPartition{Topic: "t", Partition: p}
		if pipe.znodes[tp] != one.znodes[tp] {
			t.Errorf("%s znode: pipelined %s, one at a time %s", tpString(tp), pipe.znodes[tp], one.znodes[tp])
		}
		if pipe.states[tp] != one.states[tp] {
			t.Errorf("%s state: pipelined %s, one at a time %s", tpString(tp), pipe.states[tp], one.states[tp])
		}
		if !reflect.DeepEqual(pipe.leaders[tp], one.leaders[tp]) {
			t.Errorf("%s cached: pipelined %+v, one at a time %+v", tpString(tp), pipe.leaders[tp], one.leaders[tp])
		}
	}
	if len(pipe.batch) != len(one.batch) {
		t.Errorf("LeaderAndIsr to %d brokers pipelined, %d one at a time", len(pipe.batch), len(one.batch))
	}
	for broker, want := range one.batch {
		got := pipe.batch[broker]
		if len(got) != len(want) {
			t.Errorf("broker %d: %d LeaderAndIsr entries pipelined, %d one at a time", broker, len(got), len(want))
		}
		for tp, w := range want {
			if g, ok := got[tp]; !ok || !reflect.DeepEqual(g, w) {
				t.Errorf("broker %d %s: pipelined %s, one at a time %s", broker, tpString(tp), fmt.Sprint(g), fmt.Sprint(w))
			}
		}
	}
}
