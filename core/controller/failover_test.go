package controller

import (
	"slices"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestAddPartitions: partitions added to /brokers/topics/<t> are brought
// online by the PartitionModificationsListener.
func TestAddPartitions(t *testing.T) {
	cl := newCluster(t, 1, 2)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	cl.createTopic("t", map[int32][]int32{0: {1, 2}})
	waitOnline(t, cl, "t", 1)
	if err := cl.admin.UpdatePersistentPath(zkutils.TopicPath("t"), zkutils.ReplicaAssignmentZkData(map[int32][]int32{0: {1, 2}, 1: {2, 1}})); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return cl.rawState("t", 1) == stateJSON(1, 2, 0, []int32{2, 1}) }, "added partition not online", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool {
		_, ok := cl.brokers[1].leaderAndIsrStates()[common.TopicPartition{Topic: "t", Partition: 1}]
		return ok
	}, "follower not told", waitTimeout)
	if l, _ := cl.state("t", 0); l.LeaderAndIsr.LeaderEpoch != 0 {
		t.Errorf("existing partition touched: %s", l)
	}
}

// TestControllerFailoverKeepsLeaders: a new controller loads the cluster from
// ZooKeeper, tells every broker the live brokers and leaders (UpdateMetadata
// v3 with listener names) and LeaderAndIsr with its epoch, without changing
// any leader.
func TestControllerFailoverKeepsLeaders(t *testing.T) {
	cl := newCluster(t, 1, 2, 3)
	z1 := newZk(t, cl.connect)
	scl, _ := stateChangeLogger(t)
	c1 := NewKafkaController(testConfig(t, 1, nil), z1, nil, common.SystemTime{}, nil,
		logrus.NewEntry(newLogger(t, logrus.WarnLevel)), logrus.NewEntry(scl))
	if err := c1.Startup(); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, c1.IsActive, "c1 not active", waitTimeout)
	assignment := rrAssignment(4, []int32{1, 2, 3}, 2)
	cl.createTopic("t", assignment)
	waitOnline(t, cl, "t", 4)
	before := map[int32]string{}
	for p := int32(0); p < 4; p++ {
		before[p] = cl.rawState("t", p)
	}
	c2 := startController(t, cl.connect, 2, nil)
	for _, b := range cl.brokers {
		b.reset()
	}
	c1.Shutdown()
	z1.Close() // the session goes, and /controller with it
	waitActive(t, c2)
	if c2.Epoch() != 2 {
		t.Fatalf("epoch %d", c2.Epoch())
	}
	zktest.WaitUntilTrue(t, func() bool {
		for _, b := range cl.brokers {
			if len(b.leaderAndIsrStates()) == 0 || len(b.updateMetadataStates()) != 4 {
				return false
			}
		}
		return true
	}, "brokers not told by the new controller", waitTimeout)
	for p := int32(0); p < 4; p++ {
		if got := cl.rawState("t", p); got != before[p] {
			t.Errorf("partition %d changed on failover: %s -> %s", p, before[p], got)
		}
	}
	for id, b := range cl.brokers {
		for _, r := range b.snapshot() {
			switch m := r.msg.(type) {
			case *protocol.UpdateMetadataRequest:
				if m.ControllerEpoch != 2 || m.ControllerID != 2 || m.Version != 3 || len(m.LiveBrokers) != 3 {
					t.Fatalf("broker %d UpdateMetadata %+v", id, m)
				}
				lb := m.LiveBrokers[0]
				if lb.ID != 1 || len(lb.EndPoints) != 1 || lb.EndPoints[0].ListenerName != "PLAINTEXT" || lb.EndPoints[0].Port != cl.brokers[1].port() || lb.Rack != nil {
					t.Fatalf("live broker %+v", lb)
				}
			case *protocol.LeaderAndIsrRequest:
				if m.ControllerEpoch != 2 {
					t.Fatalf("LeaderAndIsr epoch %d", m.ControllerEpoch)
				}
				for _, s := range m.PartitionStates {
					if !slices.Contains(assignment[s.Partition], id) {
						t.Errorf("broker %d told about %s-%d it does not host", id, s.Topic, s.Partition)
					}
				}
			}
		}
	}
}

// TestTopicDeletionRetried: a replica that fails to delete makes the topic
// ineligible; when its broker comes back the deletion is retried and finishes.
func TestTopicDeletionRetried(t *testing.T) {
	cl := newCluster(t, 1, 2)
	c := startController(t, cl.connect, 1, map[string]string{"delete.topic.enable": "true"})
	waitActive(t, c)
	cl.createTopic("d", map[int32][]int32{0: {1, 2}})
	waitOnline(t, cl, "d", 1)
	cl.brokers[1].mu.Lock()
	cl.brokers[1].stopReplicaError = -1
	cl.brokers[1].mu.Unlock()
	if err := cl.admin.CreatePersistentPath(zkutils.DeleteTopicPath("d"), nil); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		_, ok := c.stateChange.find("replica 1 for partition [d,0] from ReplicaDeletionStarted to ReplicaDeletionIneligible")
		return ok
	}, "failed deletion not marked", waitTimeout)
	if !cl.exists(zkutils.TopicPath("d")) {
		t.Fatal("topic deleted although a replica failed")
	}
	cl.brokers[1].mu.Lock()
	cl.brokers[1].stopReplicaError = 0
	cl.brokers[1].mu.Unlock()
	cl.deregister(1)
	cl.register(1)
	zktest.WaitUntilTrue(t, func() bool { return !cl.exists(zkutils.TopicPath("d")) && !cl.exists(zkutils.DeleteTopicPath("d")) },
		"deletion not retried", waitTimeout)
	if n := len(cl.brokers[1].stopReplicas(true)); n < 2 {
		t.Errorf("broker 1 got %d StopReplica(delete), want a retry", n)
	}
}

// TestFailedFailoverResigns: a failover that fails (here an unreadable topic
// znode) leaves nothing running and gives up /controller, so the election is
// run again; once the cause is gone the controller comes up.
func TestFailedFailoverResigns(t *testing.T) {
	cl := newCluster(t, 1)
	if err := cl.admin.CreatePersistentPath(zkutils.TopicPath("bad"), []byte("not json")); err != nil {
		t.Fatal(err)
	}
	c := startController(t, cl.connect, 1, nil)
	// The epoch is written before the context is loaded: once it exists
	// the failover has run (under controllerLock) and failed.
	zktest.WaitUntilTrue(t, func() bool { return cl.exists(zkutils.ControllerEpochPath) }, "no failover attempted", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool {
		c.controllerLock.Lock()
		defer c.controllerLock.Unlock()
		return c.channelManager == nil && c.Epoch() == 0 && c.replicaStateMachine.hasStarted == false
	}, "failed failover left state behind", waitTimeout)
	if c.IsActive() {
		t.Fatal("active after a failed failover")
	}
	if _, err := cl.admin.DeletePath(zkutils.TopicPath("bad")); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, c.IsActive, "controller not elected after the cause was removed", waitTimeout)
}

// TestSessionExpiryResignsAndReelects: a lone controller whose session
// expires resigns (its ephemeral /controller is gone) and is elected again
// with the next epoch, and keeps working.
func TestSessionExpiryResignsAndReelects(t *testing.T) {
	cl := newCluster(t, 1)
	capture := zktest.NewSessionCapture()
	c := startController(t, cl.connect, 1, nil, zkclient.WithDialer(capture.Dial))
	waitActive(t, c)
	zktest.ExpireSession(t, capture)
	zktest.WaitUntilTrue(t, func() bool { return c.IsActive() && c.Epoch() == 2 }, "not re-elected with epoch 2", waitTimeout)
	cl.createTopic("after", map[int32][]int32{0: {1}})
	zktest.WaitUntilTrue(t, func() bool { return cl.rawState("after", 0) == stateJSON(2, 1, 0, []int32{1}) }, "re-elected controller does not work", waitTimeout)
}
