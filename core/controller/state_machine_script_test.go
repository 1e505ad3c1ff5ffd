package controller

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestStateMachineScripts runs the partition and replica state machine scripts of
// testdata/state_machines (etcd/raft's datadriven format): each file drives one offline
// controller (brokers 1-3 live, epoch 1, a real ZooKeeper) through events and compares, after
// each, the outcome, the state, the state.change.logger lines, the partition's znode and the
// requests the controller would send. Rewrite the expected outputs with
// `go test ./core/controller -run TestStateMachineScripts -rewrite` and review the diff.
//
// Commands (partitions are written topic-partition, lists comma-separated):
//
//	partition t-0 [state=OnlinePartition] [replicas=1,2,3] [leader=1 isr=1,2,3]
//	    sets up a partition: its assignment, its leader and ISR (cached and written to ZooKeeper)
//	    and its state in the partition state machine
//	replica t-0 id=1 [state=OnlineReplica]
//	    sets a replica's state in the replica state machine
//	brokers live=1,2,3 [shutting-down=1]
//	partition-change t-0 to=OnlinePartition [selector=offline|reassigned|preferred|controlled-shutdown|noop]
//	replica-change t-0 id=1 to=OfflineReplica
//	    run one transition and print: ok or the error, the state after, the state-change lines,
//	    the znode (when the transition wrote it), and the requests batched for the brokers
//	not-started
//	    marks both state machines as not started
func TestStateMachineScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/state_machines", func(t *testing.T, path string) {
		c, logs, zk := newOfflineController(t)
		c.controllerLock.Lock()
		defer c.controllerLock.Unlock()
		seen := 0
		newLines := func() []string {
			logs.mu.Lock()
			defer logs.mu.Unlock()
			out := append([]string(nil), logs.lines[seen:]...)
			seen = len(logs.lines)
			return out
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			newLines()
			switch d.Cmd {
			case "partition":
				tp := scriptTP(t, d)
				if d.HasArg("replicas") {
					c.ctx.PartitionReplicaAssignment[tp] = scriptIDs(t, d, "replicas")
				}
				if d.HasArg("leader") {
					var leader int
					d.ScanArgs(t, "leader", &leader)
					l := zkutils.NewLeaderAndIsr(int32(leader), scriptIDs(t, d, "isr"))
					path := zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition)
					if err := zk.CreatePersistentPath(path, zkutils.LeaderAndIsrZkData(l, 1)); err != nil {
						t.Fatal(err)
					}
					c.ctx.PartitionLeadershipInfo[tp] = zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: l, ControllerEpoch: 1}
				}
				if d.HasArg("state") {
					var s string
					d.ScanArgs(t, "state", &s)
					c.partitionStateMachine.partitionState[tp] = parsePartitionState(t, s)
				}
				return ""
			case "replica":
				r := scriptReplica(t, d)
				var s string
				d.ScanArgs(t, "state", &s)
				c.replicaStateMachine.replicaState[r] = parseReplicaState(t, s)
				return ""
			case "brokers":
				var bs []zkutils.BrokerInfo
				for _, id := range scriptIDs(t, d, "live") {
					bs = append(bs, zkutils.NewBrokerInfo(id, 4, nil, -1, "", 0))
				}
				c.ctx.SetLiveBrokers(bs)
				c.ctx.ShuttingDownBrokerIds = map[int32]struct{}{}
				if d.HasArg("shutting-down") {
					for _, id := range scriptIDs(t, d, "shutting-down") {
						c.ctx.ShuttingDownBrokerIds[id] = struct{}{}
					}
				}
				return ""
			case "not-started":
				c.partitionStateMachine.hasStarted = false
				c.replicaStateMachine.hasStarted = false
				return ""
			case "partition-change":
				tp := scriptTP(t, d)
				var to string
				d.ScanArgs(t, "to", &to)
				selector := PartitionLeaderSelector(c.offlinePartitionSelector)
				if d.HasArg("selector") {
					var s string
					d.ScanArgs(t, "selector", &s)
					selector = scriptSelector(t, c, s)
				}
				before := znode(t, zk, tp)
				err := c.partitionStateMachine.handleStateChange(tp, parsePartitionState(t, to), selector)
				return c.outcome(err, c.partitionStateMachine.State(tp).String(), newLines(), before, znode(t, zk, tp))
			case "replica-change":
				r := scriptReplica(t, d)
				tp := common.TopicPartition{Topic: r.Topic, Partition: r.Partition}
				var to string
				d.ScanArgs(t, "to", &to)
				before := znode(t, zk, tp)
				err := c.replicaStateMachine.handleStateChange(r, parseReplicaState(t, to), nil)
				out := c.outcome(err, c.replicaStateMachine.State(r).String(), newLines(), before, znode(t, zk, tp))
				if ar, ok := c.ctx.PartitionReplicaAssignment[tp]; ok {
					out += fmt.Sprintf("assignment: %v\n", ar)
				}
				return out
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// outcome renders one transition and clears the request batch.
func (c *KafkaController) outcome(err error, state string, lines []string, before, after string) string {
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	} else {
		b.WriteString("ok\n")
	}
	fmt.Fprintf(&b, "state: %s\n", state)
	for _, l := range lines {
		fmt.Fprintf(&b, "state-change: %s\n", l)
	}
	if after != before {
		fmt.Fprintf(&b, "znode: %s\n", after)
	}
	batch := c.partitionStateMachine.brokerRequestBatch
	if c.replicaStateMachine.brokerRequestBatch != batch {
		batch.merge(c.replicaStateMachine.brokerRequestBatch)
	}
	b.WriteString(batch.render())
	c.partitionStateMachine.brokerRequestBatch.clear()
	c.replicaStateMachine.brokerRequestBatch.clear()
	return b.String()
}

// merge adds another batch's requests (the two state machines may hold separate batches).
func (b *ControllerBrokerRequestBatch) merge(o *ControllerBrokerRequestBatch) {
	for id, m := range o.leaderAndIsrRequestMap {
		if b.leaderAndIsrRequestMap[id] == nil {
			b.leaderAndIsrRequestMap[id] = map[common.TopicPartition]PartitionStateInfo{}
		}
		for tp, s := range m {
			b.leaderAndIsrRequestMap[id][tp] = s
		}
	}
	for id, rs := range o.stopReplicaRequestMap {
		b.stopReplicaRequestMap[id] = append(b.stopReplicaRequestMap[id], rs...)
	}
	for id := range o.updateMetadataRequestBrokerSet {
		b.updateMetadataRequestBrokerSet[id] = struct{}{}
	}
	for tp, s := range o.updateMetadataRequestPartitionInfoMap {
		b.updateMetadataRequestPartitionInfoMap[tp] = s
	}
}

// render lists the batched requests, broker by broker, partitions sorted.
func (b *ControllerBrokerRequestBatch) render() string {
	var out strings.Builder
	info := func(s PartitionStateInfo) string {
		l := s.LeaderIsrAndControllerEpoch
		return fmt.Sprintf("leader=%d leaderEpoch=%d isr=%v zkVersion=%d replicas=%v controllerEpoch=%d",
			l.LeaderAndIsr.Leader, l.LeaderAndIsr.LeaderEpoch, l.LeaderAndIsr.Isr, l.LeaderAndIsr.ZkVersion, s.AllReplicas, l.ControllerEpoch)
	}
	for _, id := range sortedBrokerIDs(b.leaderAndIsrRequestMap) {
		for _, tp := range sortedPartitionKeys(b.leaderAndIsrRequestMap[id]) {
			fmt.Fprintf(&out, "LeaderAndIsr to %d: %s %s\n", id, tpString(tp), info(b.leaderAndIsrRequestMap[id][tp]))
		}
	}
	for _, id := range sortedBrokerIDs(b.stopReplicaRequestMap) {
		for _, r := range b.stopReplicaRequestMap[id] {
			fmt.Fprintf(&out, "StopReplica to %d: %s delete=%v\n", id, tpString(common.TopicPartition{Topic: r.Replica.Topic, Partition: r.Replica.Partition}), r.DeletePartition)
		}
	}
	if len(b.updateMetadataRequestBrokerSet) > 0 {
		ids := sortedBrokerIDs(b.updateMetadataRequestBrokerSet)
		for _, tp := range sortedPartitionKeys(b.updateMetadataRequestPartitionInfoMap) {
			fmt.Fprintf(&out, "UpdateMetadata to %v: %s %s\n", ids, tpString(tp), info(b.updateMetadataRequestPartitionInfoMap[tp]))
		}
		if len(b.updateMetadataRequestPartitionInfoMap) == 0 {
			fmt.Fprintf(&out, "UpdateMetadata to %v: no partitions\n", ids)
		}
	}
	return out.String()
}

func znode(t *testing.T, zk *zkutils.ZkUtils, tp common.TopicPartition) string {
	data, _, exists, err := zk.ReadDataMaybeNull(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition))
	if err != nil {
		t.Fatal(err)
	}
	if !exists {
		return "(none)"
	}
	return string(data)
}

func scriptTP(t *testing.T, d *datadriven.TestData) common.TopicPartition {
	t.Helper()
	if len(d.CmdArgs) == 0 || len(d.CmdArgs[0].Vals) > 0 {
		t.Fatalf("%s: the first argument is the partition (t-0)", d.Pos)
	}
	s := d.CmdArgs[0].Key
	i := strings.LastIndexByte(s, '-')
	p, err := strconv.Atoi(s[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("%s: bad partition %q", d.Pos, s)
	}
	return common.TopicPartition{Topic: s[:i], Partition: int32(p)}
}

func scriptReplica(t *testing.T, d *datadriven.TestData) PartitionAndReplica {
	tp := scriptTP(t, d)
	var id int
	d.ScanArgs(t, "id", &id)
	return PartitionAndReplica{tp.Topic, tp.Partition, int32(id)}
}

func scriptIDs(t *testing.T, d *datadriven.TestData, key string) []int32 {
	var ids []int32
	for _, a := range d.CmdArgs {
		if a.Key != key {
			continue
		}
		for _, v := range a.Vals {
			for _, s := range strings.Split(v, ",") {
				if s == "" {
					continue
				}
				n, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("%s: %s=%q", d.Pos, key, v)
				}
				ids = append(ids, int32(n))
			}
		}
	}
	return ids
}

func parsePartitionState(t *testing.T, s string) PartitionState {
	for _, st := range []PartitionState{NonExistentPartition, NewPartition, OnlinePartition, OfflinePartition} {
		if st.String() == s {
			return st
		}
	}
	t.Fatalf("unknown partition state %q", s)
	return 0
}

func parseReplicaState(t *testing.T, s string) ReplicaState {
	for _, st := range []ReplicaState{NewReplica, OnlineReplica, OfflineReplica, ReplicaDeletionStarted,
		ReplicaDeletionSuccessful, ReplicaDeletionIneligible, NonExistentReplica} {
		if st.String() == s {
			return st
		}
	}
	t.Fatalf("unknown replica state %q", s)
	return 0
}

func scriptSelector(t *testing.T, c *KafkaController, s string) PartitionLeaderSelector {
	switch s {
	case "offline":
		return c.offlinePartitionSelector
	case "reassigned":
		return &ReassignedPartitionLeaderSelector{c.ctx}
	case "preferred":
		return &PreferredReplicaPartitionLeaderSelector{c.ctx, c.log}
	case "controlled-shutdown":
		return &ControlledShutdownLeaderSelector{c.ctx, c.log}
	case "noop":
		return &NoOpLeaderSelector{c.ctx, c.log}
	}
	t.Fatalf("unknown selector %q", s)
	return nil
}
