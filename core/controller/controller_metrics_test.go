package controller

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestControllerMetrics: the KafkaController gauges count from the controller context (dead
// leaders, leaders other than the preferred replica, leaving out topics queued for deletion),
// read 0 when the controller is not active, and the ControllerStats meters count unclean
// elections and timed leader elections.
func TestControllerMetrics(t *testing.T) {
	c, _, _ := newOfflineController(t) // brokers 1-3 live
	reg := metrics.NewRegistry(nil)
	c.RegisterMetrics(reg)
	gauge := func(name string) float64 {
		t.Helper()
		v, ok := reg.GaugeValue("kafka.controller:type=KafkaController,name=" + name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		return v
	}
	leader := func(id int32) zkutils.LeaderIsrAndControllerEpoch {
		return zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: zkutils.LeaderAndIsr{Leader: id, Isr: []int32{id}}, ControllerEpoch: 1}
	}
	tp := func(topic string, p int32) common.TopicPartition {
		return common.TopicPartition{Topic: topic, Partition: p}
	}
	c.controllerLock.Lock()
	for p, x := range map[common.TopicPartition]struct {
		replicas []int32
		leader   int32
	}{
		tp("t", 0): {[]int32{1, 2}, 1}, // preferred leader, live
		tp("t", 1): {[]int32{2, 1}, 1}, // live, not preferred
		tp("t", 2): {[]int32{3, 4}, 4}, // broker 4 is dead: offline and not preferred
		tp("d", 0): {[]int32{1}, 5},    // dead and not preferred, but queued for deletion
	} {
		c.ctx.PartitionReplicaAssignment[p] = x.replicas
		c.ctx.PartitionLeadershipInfo[p] = leader(x.leader)
	}
	c.deleteTopicManager.enabled = true
	c.deleteTopicManager.topicsToBeDeleted["d"] = struct{}{}
	c.controllerLock.Unlock()

	if v := gauge("ActiveControllerCount"); v != 1 {
		t.Errorf("ActiveControllerCount = %v, want 1", v)
	}
	if v := gauge("OfflinePartitionsCount"); v != 1 {
		t.Errorf("OfflinePartitionsCount = %v, want 1", v)
	}
	if v := gauge("PreferredReplicaImbalanceCount"); v != 2 {
		t.Errorf("PreferredReplicaImbalanceCount = %v, want 2", v)
	}

	c.markUncleanLeaderElection()
	if m := reg.Meter("kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec"); m == nil || m.Count() != 1 {
		t.Errorf("UncleanLeaderElectionsPerSec not marked once: %v", m)
	}
	if c.UncleanLeaderElections.Load() != 1 {
		t.Errorf("UncleanLeaderElections = %d", c.UncleanLeaderElections.Load())
	}
	c.timeLeaderElection()()
	if tm := reg.Timer("kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs"); tm == nil || tm.Count() != 1 {
		t.Errorf("LeaderElectionRateAndTimeMs not updated once: %v", tm)
	}

	// A broker that is not the controller reports zeros.
	c.controllerLock.Lock()
	cm := c.channelManager
	c.channelManager = nil
	c.controllerLock.Unlock()
	for _, n := range []string{"ActiveControllerCount", "OfflinePartitionsCount", "PreferredReplicaImbalanceCount"} {
		if v := gauge(n); v != 0 {
			t.Errorf("inactive controller: %s = %v, want 0", n, v)
		}
	}
	c.controllerLock.Lock()
	c.channelManager = cm
	c.controllerLock.Unlock()
}
