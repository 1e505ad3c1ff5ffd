package server

import (
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/controller"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestReplicationWithRealController runs the brokers' replication under core/controller
// instead of the test controller: a topic created as AdminUtils does (8 partitions, RF 3) gets
// leaders, the followers replicate (acks=-1 with min.insync.replicas=2 succeeds everywhere);
// the leader of a partition stops, a follower from the ISR takes over, acks=-1 produces go on
// without losing what was acknowledged, and the old leader, restarted, rejoins the ISR.
//
// Until KafkaServer hosts the controller itself, the test starts one per broker (and stops it
// with its broker).
func TestReplicationWithRealController(t *testing.T) {
	c := newReplicationCluster(t, 3, map[string]string{"min.insync.replicas": "2"})
	ctls := map[int32]*controller.KafkaController{}
	startCtl := func(id int32) {
		if c.servers[id].Controller != nil {
			return // the broker hosts its own
		}
		kc := c.servers[id].newKafkaController()
		if err := kc.Startup(); err != nil {
			t.Fatal(err)
		}
		ctls[id] = kc
	}
	stopBroker := func(id int32) {
		if kc := ctls[id]; kc != nil {
			kc.Shutdown()
			delete(ctls, id)
		}
		c.stop(id)
	}
	t.Cleanup(func() {
		for id := range ctls {
			stopBroker(id)
		}
	})
	for id := range c.servers {
		startCtl(int32(id))
	}
	const topic = "T"
	if err := admin.NewAdminUtils(c.servers[0].ZkUtils(), nil, nil).CreateTopic(topic, 8, 3, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	leaderOf := func(tp common.TopicPartition) int32 {
		for id, s := range c.servers {
			if s == nil {
				continue
			}
			if p := s.ReplicaManager().GetPartition(tp); p != nil && p.LeaderReplicaIfLocal() != nil {
				return int32(id)
			}
		}
		return -1
	}
	acked := map[common.TopicPartition]int64{}
	for p := int32(0); p < 8; p++ {
		tp := tpOf(topic, p)
		zktest.WaitUntilTrue(t, func() bool { return leaderOf(tp) >= 0 }, "a leader for "+tp.String(), 10*time.Second)
		leader := leaderOf(tp)
		zktest.WaitUntilTrue(t, func() bool {
			code, _ := c.produce(leader, tp, -1, 10)
			return code == 0
		}, "acks=-1 produce to "+tp.String(), 5*time.Second)
		acked[tp] = 10
		for id := range c.servers {
			if leo, _ := c.replica(int32(id), tp); leo < 10 {
				t.Fatalf("broker %d has LEO %d for %s after an acks=-1 ack", id, leo, tp)
			}
		}
	}

	// The leader of T-0 goes away.
	tp := tpOf(topic, 0)
	old := leaderOf(tp)
	stopBroker(old)
	start := time.Now()
	var leader int32
	zktest.WaitUntilTrue(t, func() bool { leader = leaderOf(tp); return leader >= 0 }, "a new leader for T-0", 20*time.Second)
	t.Logf("new leader %d for %s %s after broker %d stopped", leader, tp, time.Since(start), old)
	if leo, _ := c.replica(leader, tp); leo < acked[tp] {
		t.Fatalf("new leader's LEO %d below the acknowledged %d", leo, acked[tp])
	}
	zktest.WaitUntilTrue(t, func() bool {
		code, _ := c.produce(leader, tp, -1, 10)
		return code == 0
	}, "acks=-1 produce to the new leader", 5*time.Second)

	// The old leader comes back as a follower and rejoins the ISR.
	c.start(old)
	startCtl(old)
	zktest.WaitUntilTrue(t, func() bool { return len(c.zkIsr(tp)) == 3 }, "broker back in the ISR of T-0", 20*time.Second)
	zktest.WaitUntilTrue(t, func() bool {
		l, _ := c.replica(leader, tp)
		f, _ := c.replica(old, tp)
		return f == l
	}, "restarted broker caught up", 5*time.Second)
}
