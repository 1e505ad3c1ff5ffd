package controller

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func waitOnline(t *testing.T, cl *cluster, topic string, partitions int32) {
	t.Helper()
	zktest.WaitUntilTrue(t, func() bool {
		for p := int32(0); p < partitions; p++ {
			if _, ok := cl.state(topic, p); !ok {
				return false
			}
		}
		return true
	}, "topic "+topic+" not online", waitTimeout)
}

// setIsr rewrites a partition's ISR in ZooKeeper as its leader would
// (Partition.updateIsr: same leader and epoch, conditional on the version).
func setIsr(t *testing.T, cl *cluster, topic string, p int32, isr []int32) {
	t.Helper()
	for {
		l, ok := cl.state(topic, p)
		if !ok {
			t.Fatalf("no state for %s-%d", topic, p)
		}
		next := zkutils.LeaderAndIsr{Leader: l.LeaderAndIsr.Leader, LeaderEpoch: l.LeaderAndIsr.LeaderEpoch, Isr: isr}
		if ok, _ := cl.admin.UpdateLeaderAndIsr(topic, p, next, l.ControllerEpoch, l.LeaderAndIsr.ZkVersion); ok {
			return
		}
	}
}

// waitSeen waits until the session z reads the ISR: ZooKeeper servers may lag
// behind each other, so a write by one session is not at once visible to
// another one reading without a watch.
func waitSeen(t *testing.T, z *zkutils.ZkUtils, topic string, p int32, isr []int32) {
	t.Helper()
	zktest.WaitUntilTrue(t, func() bool {
		l, ok, err := z.GetLeaderIsrAndEpochForPartition(topic, p)
		return err == nil && ok && slices.Equal(l.LeaderAndIsr.Isr, isr)
	}, "controller session does not see the ISR", waitTimeout)
}

func assignmentJSON(t *testing.T, cl *cluster, topic string) string {
	t.Helper()
	data, _, _, err := cl.admin.ReadDataMaybeNull(zkutils.TopicPath(topic))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestScalaSetOrder(t *testing.T) {
	// docs/formats.md §1.3: RAR {4,5,6} ++ OAR {1,2,3} is written as [5,1,6,2,3,4].
	if got := scalaSetOrder([]int32{4, 5, 6, 1, 2, 3}); !slices.Equal(got, []int32{5, 1, 6, 2, 3, 4}) {
		t.Fatalf("got %v", got)
	}
	if got := scalaSetOrder([]int32{3, 4, 1, 4, 2}); !slices.Equal(got, []int32{3, 4, 1, 2}) {
		t.Fatalf("small set keeps insertion order: %v", got)
	}
}

// TestPartitionReassignment follows the RAR/OAR procedure for OAR [1,2] ->
// RAR [3,4]: AR grows to RAR+OAR with a leader epoch bump and the new replicas
// are started; once the (test-played) leader reports them in the ISR the
// leader moves into RAR, the old replicas are stopped and deleted, AR becomes
// RAR and the admin node is deleted.
func TestPartitionReassignment(t *testing.T) {
	cl := newCluster(t, 1, 2, 3, 4)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	cl.createTopic("r", map[int32][]int32{0: {1, 2}})
	waitOnline(t, cl, "r", 1)
	for _, b := range cl.brokers {
		b.reset()
	}
	if err := cl.admin.CreatePersistentPath(zkutils.ReassignPartitionsPath,
		[]byte(`{"version":1,"partitions":[{"topic":"r","partition":0,"replicas":[3,4]}]}`)); err != nil {
		t.Fatal(err)
	}
	// Phase A: AR = RAR ++ OAR, leader epoch bumped, 3 and 4 start following.
	zktest.WaitUntilTrue(t, func() bool {
		return assignmentJSON(t, cl, "r") == `{"version":1,"partitions":{"0":[3,4,1,2]}}` &&
			cl.rawState("r", 0) == stateJSON(1, 1, 1, []int32{1, 2}) &&
			len(cl.brokers[1].leaderAndIsrStates()) == 1 && len(cl.brokers[2].leaderAndIsrStates()) == 1 &&
			len(cl.brokers[3].leaderAndIsrStates()) == 1 && len(cl.brokers[4].leaderAndIsrStates()) == 1
	}, "phase A not done", waitTimeout)
	tp := common.TopicPartition{Topic: "r", Partition: 0}
	for _, id := range []int32{1, 2, 3, 4} {
		s, ok := cl.brokers[id].leaderAndIsrStates()[tp]
		if !ok || s.Leader != 1 || s.LeaderEpoch != 1 || !slices.Equal(s.Replicas, []int32{3, 4, 1, 2}) {
			t.Errorf("broker %d: LeaderAndIsr %+v (ok %v)", id, s, ok)
		}
	}
	if !cl.exists(zkutils.ReassignPartitionsPath) {
		t.Fatal("admin node deleted before the new replicas caught up")
	}

	// The leader reports 3 and 4 in sync.
	setIsr(t, cl, "r", 0, []int32{1, 2, 3, 4})
	zktest.WaitUntilTrue(t, func() bool { return !cl.exists(zkutils.ReassignPartitionsPath) }, "admin node not deleted", waitTimeout)
	if got := assignmentJSON(t, cl, "r"); got != `{"version":1,"partitions":{"0":[3,4]}}` {
		t.Errorf("AR after reassignment: %s", got)
	}
	// Leader moved to 3 (epoch 2), then 1 and 2 left the ISR (epochs 3, 4).
	if got, want := cl.rawState("r", 0), stateJSON(1, 3, 4, []int32{3, 4}); got != want {
		t.Errorf("state %s, want %s", got, want)
	}
	for _, id := range []int32{1, 2} {
		zktest.WaitUntilTrue(t, func() bool { return slices.Equal(cl.brokers[id].stopReplicas(true), []common.TopicPartition{tp}) },
			fmt.Sprintf("broker %d not told to delete its replica", id), waitTimeout)
	}
	for _, id := range []int32{3, 4} {
		if len(cl.brokers[id].stopReplicas(true)) != 0 {
			t.Errorf("broker %d told to delete its replica", id)
		}
	}
	zktest.WaitUntilTrue(t, func() bool {
		s, ok := cl.brokers[4].updateMetadataStates()[tp]
		return ok && s.Leader == 3 && slices.Equal(s.Replicas, []int32{3, 4})
	}, "no final UpdateMetadata", waitTimeout)
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if len(c.ctx.PartitionsBeingReassigned) != 0 || !slices.Equal(c.ctx.PartitionReplicaAssignment[tp], []int32{3, 4}) {
		t.Errorf("context: being reassigned %v, AR %v", c.ctx.PartitionsBeingReassigned, c.ctx.PartitionReplicaAssignment[tp])
	}
	for _, id := range []int32{1, 2} {
		if st := c.replicaStateMachine.State(PartitionAndReplica{"r", 0, id}); st != NonExistentReplica {
			t.Errorf("old replica %d is %s", id, st)
		}
	}
}

// TestPreferredReplicaElection: after a failover moved a leader away,
// /admin/preferred_replica_election gives it back to the preferred replica
// and the node is deleted.
func TestPreferredReplicaElection(t *testing.T) {
	cl := newCluster(t, 1, 2)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	cl.createTopic("p", map[int32][]int32{0: {1, 2}, 1: {2, 1}})
	waitOnline(t, cl, "p", 2)
	cl.deregister(1)
	zktest.WaitUntilTrue(t, func() bool { l, _ := cl.state("p", 0); return l.LeaderAndIsr.Leader == 2 }, "no failover", waitTimeout)
	cl.brokers[1].reset()
	cl.register(1)
	zktest.WaitUntilTrue(t, func() bool { return len(cl.brokers[1].leaderAndIsrStates()) == 2 }, "broker 1 not back", waitTimeout)
	setIsr(t, cl, "p", 0, []int32{2, 1})
	if l, _ := cl.state("p", 0); l.LeaderAndIsr.Leader != 2 {
		t.Fatalf("leader moved before the election: %s", l)
	}
	before1, _ := cl.state("p", 1)
	cl.brokers[1].reset()
	if err := cl.admin.CreatePersistentPath(zkutils.PreferredReplicaLeaderElectionPath,
		zkutils.PreferredReplicaElectionZkData([]common.TopicPartition{{Topic: "p", Partition: 0}, {Topic: "p", Partition: 1}})); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		l, _ := cl.state("p", 0)
		return l.LeaderAndIsr.Leader == 1 && !cl.exists(zkutils.PreferredReplicaLeaderElectionPath)
	}, "preferred leader not restored", waitTimeout)
	l, _ := cl.state("p", 0)
	if !slices.Equal(l.LeaderAndIsr.Isr, []int32{2, 1}) {
		t.Errorf("ISR changed: %s", l)
	}
	if l1, _ := cl.state("p", 1); l1.LeaderAndIsr.Leader != 2 || l1.LeaderAndIsr.LeaderEpoch != before1.LeaderAndIsr.LeaderEpoch {
		t.Errorf("partition already led by its preferred replica was touched: %s", l1)
	}
	zktest.WaitUntilTrue(t, func() bool {
		s, ok := cl.brokers[1].leaderAndIsrStates()[common.TopicPartition{Topic: "p", Partition: 0}]
		return ok && s.Leader == 1
	}, "new leader not told", waitTimeout)
}

// TestAutoRebalance: checkAndTriggerPartitionRebalance moves leadership back
// to the preferred replica once the imbalance is above the threshold, without
// touching /admin/preferred_replica_election.
func TestAutoRebalance(t *testing.T) {
	cl := newCluster(t, 1, 2)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	cl.createTopic("a", map[int32][]int32{0: {1, 2}, 1: {2, 1}})
	waitOnline(t, cl, "a", 2)
	cl.deregister(1)
	zktest.WaitUntilTrue(t, func() bool { l, _ := cl.state("a", 0); return l.LeaderAndIsr.Leader == 2 }, "no failover", waitTimeout)
	cl.brokers[1].reset()
	cl.register(1)
	zktest.WaitUntilTrue(t, func() bool { return len(cl.brokers[1].leaderAndIsrStates()) >= 2 }, "broker 1 not back", waitTimeout)
	setIsr(t, cl, "a", 0, []int32{2, 1})
	waitSeen(t, c.zk, "a", 0, []int32{2, 1})
	c.autoRebalanceTask()
	// Read through the controller's session, which has seen its own writes.
	if l, _, _ := c.zk.GetLeaderIsrAndEpochForPartition("a", 0); l.LeaderAndIsr.Leader != 1 {
		t.Fatalf("rebalance did not restore the preferred leader: %s", l)
	}
}

// TestTopicDeletion: with delete.topic.enable=true, /admin/delete_topics/T
// sends StopReplica(delete=true) to every replica and removes the topic's
// znodes; a topic with a replica on a dead broker waits until it returns.
func TestTopicDeletion(t *testing.T) {
	cl := newCluster(t, 1, 2, 3)
	c := startController(t, cl.connect, 1, map[string]string{"delete.topic.enable": "true"})
	waitActive(t, c)
	cl.createTopic("d", rrAssignment(2, []int32{1, 2, 3}, 3))
	if _, err := cl.admin.ChangeEntityConfig(zkutils.ConfigTypeTopic, "d", map[string]string{"retention.ms": "1000"}); err != nil {
		t.Fatal(err)
	}
	waitOnline(t, cl, "d", 2)
	if err := cl.admin.CreatePersistentPath(zkutils.DeleteTopicPath("d"), nil); err != nil {
		t.Fatal(err)
	}
	gone := func(topic string) func() bool {
		return func() bool {
			return !cl.exists(zkutils.TopicPath(topic)) && !cl.exists(zkutils.DeleteTopicPath(topic)) &&
				!cl.exists(zkutils.EntityConfigPath(zkutils.ConfigTypeTopic, topic))
		}
	}
	zktest.WaitUntilTrue(t, gone("d"), "topic d not deleted", waitTimeout)
	want := []common.TopicPartition{{Topic: "d", Partition: 0}, {Topic: "d", Partition: 1}}
	for id, b := range cl.brokers {
		got := b.stopReplicas(true)
		sortTPs(got)
		if !slices.Equal(got, want) {
			t.Errorf("broker %d StopReplica(delete) %v", id, got)
		}
	}
	c.controllerLock.Lock()
	if _, ok := c.ctx.AllTopics["d"]; ok || len(c.ctx.PartitionsForTopic("d")) != 0 {
		t.Error("topic d still in the context")
	}
	c.controllerLock.Unlock()

	// A replica on a dead broker makes the topic wait.
	cl.createTopic("e", map[int32][]int32{0: {1, 3}})
	waitOnline(t, cl, "e", 1)
	cl.deregister(3)
	zktest.WaitUntilTrue(t, func() bool { l, _ := cl.state("e", 0); return !slices.Contains(l.LeaderAndIsr.Isr, 3) }, "3 still in ISR", waitTimeout)
	cl.brokers[3].reset()
	if err := cl.admin.CreatePersistentPath(zkutils.DeleteTopicPath("e"), nil); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return slices.Contains(cl.brokers[1].stopReplicas(true), common.TopicPartition{Topic: "e", Partition: 0})
	}, "live replica not deleted", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool {
		_, ok := c.stateChange.find("replica 1 for partition [e,0] from ReplicaDeletionStarted to ReplicaDeletionSuccessful")
		return ok
	}, "no deletion success", waitTimeout)
	if !cl.exists(zkutils.TopicPath("e")) {
		t.Fatal("topic e deleted while a replica was down")
	}
	cl.register(3)
	zktest.WaitUntilTrue(t, gone("e"), "topic e not deleted after its broker returned", waitTimeout)
	if got := cl.brokers[3].stopReplicas(true); !slices.Equal(got, []common.TopicPartition{{Topic: "e", Partition: 0}}) {
		t.Errorf("returning broker StopReplica(delete) %v", got)
	}
}

// TestTopicDeletionDisabled: with delete.topic.enable=false the request node
// is removed and the topic stays.
func TestTopicDeletionDisabled(t *testing.T) {
	cl := newCluster(t, 1)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	cl.createTopic("k", map[int32][]int32{0: {1}})
	waitOnline(t, cl, "k", 1)
	if err := cl.admin.CreatePersistentPath(zkutils.DeleteTopicPath("k"), nil); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return !cl.exists(zkutils.DeleteTopicPath("k")) }, "request not removed", waitTimeout)
	if !cl.exists(zkutils.TopicPath("k")) || len(cl.brokers[1].stopReplicas(true)) != 0 {
		t.Fatal("topic deleted although deletion is disabled")
	}
}

// TestControlledShutdown: ShutdownBroker moves leadership off the broker,
// takes it out of the ISRs it follows in, and returns the replicated
// partitions it still leads.
func TestControlledShutdown(t *testing.T) {
	cl := newCluster(t, 1, 2, 3)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	cl.createTopic("s", map[int32][]int32{0: {2, 1}, 1: {1, 2}, 2: {2, 3}, 3: {2, 3}, 4: {2}})
	waitOnline(t, cl, "s", 5)
	// Partition 3's ISR is only the shutting-down broker: it cannot move.
	setIsr(t, cl, "s", 3, []int32{2})
	waitSeen(t, c.zk, "s", 3, []int32{2})
	c.controllerLock.Lock()
	_ = c.updateLeaderAndIsrCache([]common.TopicPartition{{Topic: "s", Partition: 3}})
	c.controllerLock.Unlock()
	cl.brokers[2].reset()

	remaining, err := c.ShutdownBroker(2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(remaining, []common.TopicPartition{{Topic: "s", Partition: 3}}) {
		t.Fatalf("remaining %v", remaining)
	}
	for p, want := range map[int32]string{
		0: stateJSON(1, 1, 1, []int32{1}),
		1: stateJSON(1, 1, 1, []int32{1}),
		2: stateJSON(1, 3, 1, []int32{3}),
		3: stateJSON(1, 2, 0, []int32{2}),
		4: stateJSON(1, 2, 0, []int32{2}),
	} {
		data, _, _ := c.zk.ZkClient.ReadData(zkutils.TopicPartitionLeaderAndIsrPath("s", p))
		if got := string(data); got != want {
			t.Errorf("partition %d: %s, want %s", p, got, want)
		}
	}
	zktest.WaitUntilTrue(t, func() bool {
		return slices.Contains(cl.brokers[2].stopReplicas(false), common.TopicPartition{Topic: "s", Partition: 1})
	}, "follower replica not stopped", waitTimeout)
	if _, ok := c.stateChange.find("changed partition [s,0] from OnlinePartition to OnlinePartition with leader 1"); !ok {
		t.Error("no state change line for the moved leader")
	}

	if _, err := c.ShutdownBroker(99); !errors.Is(err, ErrBrokerNotAvailable) || protocol.CodeOf(err) != 8 {
		t.Errorf("unknown broker: %v", err)
	}
	other := startController(t, cl.connect, 2, nil)
	if _, err := other.ShutdownBroker(2); !errors.Is(err, ErrControllerMoved) || protocol.CodeOf(err) != 11 {
		t.Errorf("not controller: %v", err)
	}
	// The broker's registration going away ends its shutdown.
	cl.deregister(2)
	zktest.WaitUntilTrue(t, func() bool {
		c.controllerLock.Lock()
		defer c.controllerLock.Unlock()
		return len(c.ctx.ShuttingDownBrokerIds) == 0
	}, "broker still shutting down", waitTimeout)
}

// TestIsrChangeNotification: the controller reads the notification, refreshes
// its cache, sends UpdateMetadata and deletes the node.
func TestIsrChangeNotification(t *testing.T) {
	cl := newCluster(t, 1, 2)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	cl.createTopic("i", map[int32][]int32{0: {1, 2}})
	waitOnline(t, cl, "i", 1)
	setIsr(t, cl, "i", 0, []int32{1})
	cl.brokers[2].reset()
	path, err := cl.admin.PropagateIsrChanges([]common.TopicPartition{{Topic: "i", Partition: 0}})
	if err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		s, ok := cl.brokers[2].updateMetadataStates()[common.TopicPartition{Topic: "i", Partition: 0}]
		return ok && slices.Equal(s.Isr, []int32{1}) && !cl.exists(path)
	}, "ISR change not propagated", waitTimeout)
}
