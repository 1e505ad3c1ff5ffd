package controller

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// stateJSON is the exact partition state znode 0.10.2 writes.
func stateJSON(controllerEpoch, leader, leaderEpoch int32, isr []int32) string {
	return fmt.Sprintf(`{"controller_epoch":%d,"leader":%d,"version":1,"leader_epoch":%d,"isr":[%s]}`,
		controllerEpoch, leader, leaderEpoch, joinIDs(isr))
}

// TestControllerElection: three controllers on three sessions, exactly one is
// active, /controller and /controller_epoch hold 0.10.2's bytes; expiring the
// active one's session makes a controller with epoch+1 within the session
// timeout (usually another one; the expired one on its new session can win).
func TestControllerElection(t *testing.T) {
	cl := newCluster(t)
	var cs []*testController
	captures := map[int32]func(){}
	for id := int32(1); id <= 3; id++ {
		capture := zktest.NewSessionCapture()
		captures[id] = func() { zktest.ExpireSession(t, capture) }
		cs = append(cs, startController(t, cl.connect, id, nil, zkclient.WithDialer(capture.Dial)))
	}
	first := waitActive(t, cs...)
	data, _, _ := cl.admin.ZkClient.ReadData(zkutils.ControllerPath)
	re := regexp.MustCompile(fmt.Sprintf(`^\{"version":1,"brokerid":%d,"timestamp":"\d{13}"\}$`, first.config.BrokerID))
	if !re.Match(data) {
		t.Fatalf("/controller = %s", data)
	}
	epoch, _, _ := cl.admin.ZkClient.ReadData(zkutils.ControllerEpochPath)
	if string(epoch) != "1" || first.Epoch() != 1 {
		t.Fatalf("/controller_epoch = %q, cached %d", epoch, first.Epoch())
	}

	start := time.Now()
	captures[first.config.BrokerID]()
	var second *testController
	// The expired controller races the others on its new session and may win again (the
	// others' deletion events can come later on a busy machine): any controller with epoch 2.
	zktest.WaitUntilTrue(t, func() bool {
		for _, c := range cs {
			if c.IsActive() && c.Epoch() == 2 {
				second = c
				return true
			}
		}
		return false
	}, "no new controller with epoch 2", waitTimeout)
	took := time.Since(start)
	t.Logf("controller %d -> %d in %v", first.config.BrokerID, second.config.BrokerID, took)
	if took > testSessionTimeout {
		t.Fatalf("failover took %v, more than the session timeout %v", took, testSessionTimeout)
	}
	epoch, _, _ = cl.admin.ZkClient.ReadData(zkutils.ControllerEpochPath)
	if string(epoch) != "2" {
		t.Fatalf("/controller_epoch = %q after failover", epoch)
	}
	if second != first {
		zktest.WaitUntilTrue(t, func() bool { return !first.IsActive() }, "expired controller still active", waitTimeout)
	}
	waitActive(t, cs...)
}

// TestNewTopicGetsLeaders: a topic written straight into /brokers/topics (8
// partitions, RF 3, 3 fake brokers) gets a leader and full ISR for every
// partition, with the exact state JSON, and the brokers receive LeaderAndIsr
// and UpdateMetadata, all within 5 s.
func TestNewTopicGetsLeaders(t *testing.T) {
	cl := newCluster(t, 1, 2, 3)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	assignment := rrAssignment(8, []int32{1, 2, 3}, 3)
	start := time.Now()
	cl.createTopic("t", assignment)
	ok := zktest.PollUntil(func() bool {
		for p := int32(0); p < 8; p++ {
			if cl.rawState("t", p) != stateJSON(1, assignment[p][0], 0, assignment[p]) {
				return false
			}
		}
		for _, b := range cl.brokers {
			if len(b.leaderAndIsrStates()) != 8 || len(b.updateMetadataStates()) != 8 {
				return false
			}
		}
		return true
	}, 5*time.Second)
	if !ok {
		for p := int32(0); p < 8; p++ {
			t.Logf("partition %d: %s", p, cl.rawState("t", p))
		}
		t.Fatal("topic not online within 5 s")
	}
	t.Logf("8 partitions online in %v", time.Since(start))
	for id, b := range cl.brokers {
		for tp, s := range b.leaderAndIsrStates() {
			ar := assignment[tp.Partition]
			if s.Leader != ar[0] || !slices.Equal(s.Isr, ar) || s.LeaderEpoch != 0 || s.ControllerEpoch != 1 || s.ZkVersion != 0 || !slices.Equal(s.Replicas, ar) {
				t.Errorf("broker %d got LeaderAndIsr %+v for %v", id, s, tp)
			}
		}
		for _, r := range b.snapshot() {
			if r.msg.GetVersion() != 0 && r.key != 6 {
				t.Errorf("broker %d got %v v%d", id, r.key, r.msg.GetVersion())
			}
			if r.key == 6 && r.msg.GetVersion() != 3 {
				t.Errorf("UpdateMetadata v%d, want v3 for 0.10.2", r.msg.GetVersion())
			}
		}
	}
	if l, ok := c.stateChange.find("changed partition [t,0] from NewPartition to OnlinePartition with leader 1"); !ok {
		t.Error("no state change line for [t,0]")
	} else {
		t.Log(l)
	}
	if _, ok := c.stateChange.find("sending become-leader LeaderAndIsr request (Leader:1,ISR:1,2,3,LeaderEpoch:0,ControllerEpoch:1) to broker 1 for partition [t,0]"); !ok {
		t.Error("no become-leader line")
	}
	if _, ok := c.stateChange.find("sending become-follower LeaderAndIsr request (Leader:1,ISR:1,2,3,LeaderEpoch:0,ControllerEpoch:1) to broker 2 for partition [t,0]"); !ok {
		t.Error("no become-follower line")
	}
}

// TestBrokerFailureAndReturn: deleting a broker's registration elects new
// leaders for the partitions it led and shrinks every ISR it was in; its return
// brings its replicas back online with UpdateMetadata.
func TestBrokerFailureAndReturn(t *testing.T) {
	cl := newCluster(t, 1, 2, 3)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	assignment := rrAssignment(6, []int32{1, 2, 3}, 3)
	cl.createTopic("t", assignment)
	zktest.WaitUntilTrue(t, func() bool {
		for p := int32(0); p < 6; p++ {
			if _, ok := cl.state("t", p); !ok {
				return false
			}
		}
		for _, b := range cl.brokers {
			if len(b.leaderAndIsrStates()) != 6 || len(b.updateMetadataStates()) != 6 {
				return false
			}
		}
		return true
	}, "topic not online", waitTimeout)

	for _, b := range cl.brokers {
		b.reset()
	}
	cl.deregister(2)
	zktest.WaitUntilTrue(t, func() bool {
		for p := int32(0); p < 6; p++ {
			l, ok := cl.state("t", p)
			if !ok || l.LeaderAndIsr.Leader == 2 || slices.Contains(l.LeaderAndIsr.Isr, 2) {
				return false
			}
		}
		return true
	}, "broker 2 still leads or is in an ISR", waitTimeout)
	for p := int32(0); p < 6; p++ {
		l, _ := cl.state("t", p)
		ar := assignment[p]
		wantIsr := filterIDs(ar, func(r int32) bool { return r != 2 })
		wantLeader := ar[0]
		if wantLeader == 2 {
			wantLeader = ar[1]
		}
		if l.LeaderAndIsr.Leader != wantLeader || !slices.Equal(l.LeaderAndIsr.Isr, wantIsr) {
			t.Errorf("partition %d: %s, want leader %d isr %v", p, l, wantLeader, wantIsr)
		}
	}
	// Broker 1 leads or follows every partition: it learns every new state.
	zktest.WaitUntilTrue(t, func() bool {
		got := cl.brokers[1].leaderAndIsrStates()
		for p := int32(0); p < 6; p++ {
			l, _ := cl.state("t", p)
			s, ok := got[common.TopicPartition{Topic: "t", Partition: p}]
			if !ok || s.Leader != l.LeaderAndIsr.Leader || s.LeaderEpoch != l.LeaderAndIsr.LeaderEpoch || !slices.Equal(s.Isr, l.LeaderAndIsr.Isr) {
				return false
			}
		}
		return len(cl.brokers[3].updateMetadataStates()) == 6
	}, "brokers not told about the new leaders", waitTimeout)
	if len(cl.brokers[2].snapshot()) != 0 {
		t.Errorf("the dead broker received %d requests", len(cl.brokers[2].snapshot()))
	}
	if _, ok := c.stateChange.find("changed partition [t,1] from OfflinePartition to OnlinePartition with leader 3"); !ok {
		t.Error("no state change line for the failover of [t,1]")
	}
	if _, ok := c.stateChange.find("changed state of replica 2 for partition [t,0] from OnlineReplica to OfflineReplica"); !ok {
		t.Error("no replica state change line")
	}

	// Broker 2 returns: it gets LeaderAndIsr for all its replicas (as a
	// follower) and UpdateMetadata.
	for _, b := range cl.brokers {
		b.reset()
	}
	cl.register(2)
	zktest.WaitUntilTrue(t, func() bool {
		return len(cl.brokers[2].leaderAndIsrStates()) == 6 && len(cl.brokers[2].updateMetadataStates()) == 6 &&
			len(cl.brokers[1].updateMetadataStates()) == 6
	}, "returning broker not brought online", waitTimeout)
	for tp, s := range cl.brokers[2].leaderAndIsrStates() {
		if s.Leader == 2 {
			t.Errorf("returning broker made leader of %v", tp)
		}
	}
	c.controllerLock.Lock()
	for p := int32(0); p < 6; p++ {
		if st := c.replicaStateMachine.State(PartitionAndReplica{"t", p, 2}); st != OnlineReplica {
			t.Errorf("replica 2 of partition %d is %s", p, st)
		}
	}
	c.controllerLock.Unlock()
}

// TestLeaderElectionTime1000Partitions measures how long it takes to elect new
// leaders for 1,000 partitions after a broker failure.
func TestLeaderElectionTime1000Partitions(t *testing.T) {
	const n = 1000
	cl := newCluster(t, 1, 2, 3)
	c := startController(t, cl.connect, 1, nil)
	waitActive(t, c)
	assignment := rrAssignment(n, []int32{1, 2, 3}, 2)
	start := time.Now()
	cl.createTopic("big", assignment)
	leaders := func(cond func(zkutils.LeaderIsrAndControllerEpoch) bool) func() bool {
		return func() bool {
			c.controllerLock.Lock()
			defer c.controllerLock.Unlock()
			for p := int32(0); p < n; p++ {
				l, ok := c.ctx.PartitionLeadershipInfo[common.TopicPartition{Topic: "big", Partition: p}]
				if !ok || !cond(l) {
					return false
				}
			}
			return true
		}
	}
	zktest.WaitUntilTrue(t, leaders(func(zkutils.LeaderIsrAndControllerEpoch) bool { return true }), "topic not online", 2*time.Minute)
	t.Logf("created %d partitions in %v", n, time.Since(start))
	led := 0
	for p := 0; p < n; p++ {
		if assignment[int32(p)][0] == 2 {
			led++
		}
	}
	start = time.Now()
	cl.deregister(2)
	zktest.WaitUntilTrue(t, leaders(func(l zkutils.LeaderIsrAndControllerEpoch) bool {
		return l.LeaderAndIsr.Leader != 2 && !slices.Contains(l.LeaderAndIsr.Isr, 2)
	}), "leaders not moved", 2*time.Minute)
	t.Logf("broker failure: new leaders for %d partitions (and ISR shrink for %d more) in %v", led, 2*n/3-led, time.Since(start))
	for p := int32(0); p < n; p += 97 {
		if l, _ := cl.state("big", p); l.LeaderAndIsr.Leader == 2 {
			t.Fatalf("partition %d still led by 2 in ZooKeeper", p)
		}
	}
}
