package controller

import (
	"time"

	"github.com/zkafka/zkafka/core/metrics"
)

// controllerStats holds the controller's meters.
//
// Kafka 0.10.2: kafka.controller.ControllerStats (an object: one per JVM). Here one per
// KafkaController, registered on its broker's registry.
type controllerStats struct {
	uncleanLeaderElectionRate *metrics.Meter
	leaderElectionTimer       *metrics.Timer
}

// RegisterMetrics registers the controller's gauges under kafka.controller:type=KafkaController
// (ActiveControllerCount, OfflinePartitionsCount, PreferredReplicaImbalanceCount) and its
// ControllerStats (UncleanLeaderElectionsPerSec, LeaderElectionRateAndTimeMs). A nil registry
// registers nothing. It may be called before or after Startup.
//
// The two partition counts take controllerLock, as Kafka's gauges do, and are 0 on a broker
// that is not the active controller. A reader of the gauges therefore waits while the
// controller handles an event.
func (c *KafkaController) RegisterMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.controller", "KafkaController")
	g.NewGauge("ActiveControllerCount", func() int64 {
		if c.IsActive() {
			return 1
		}
		return 0
	})
	g.NewGauge("OfflinePartitionsCount", c.offlinePartitionsCount)
	g.NewGauge("PreferredReplicaImbalanceCount", c.preferredReplicaImbalanceCount)
	s := metrics.NewKafkaMetricsGroup(reg, "kafka.controller", "ControllerStats")
	c.stats.Store(&controllerStats{
		uncleanLeaderElectionRate: s.NewMeter("UncleanLeaderElectionsPerSec", "elections", time.Second),
		leaderElectionTimer:       s.NewTimer("LeaderElectionRateAndTimeMs", time.Millisecond, time.Second),
	})
}

// offlinePartitionsCount counts the partitions whose leader is not a live (or shutting down)
// broker, leaving out topics queued for deletion.
func (c *KafkaController) offlinePartitionsCount() int64 {
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() {
		return 0
	}
	var n int64
	for tp, info := range c.ctx.PartitionLeadershipInfo {
		if !c.ctx.isLiveOrShuttingDown(info.LeaderAndIsr.Leader) && !c.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) {
			n++
		}
	}
	return n
}

// preferredReplicaImbalanceCount counts the partitions not led by their preferred (first
// assigned) replica, leaving out topics queued for deletion.
func (c *KafkaController) preferredReplicaImbalanceCount() int64 {
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() {
		return 0
	}
	var n int64
	for tp, replicas := range c.ctx.PartitionReplicaAssignment {
		if len(replicas) == 0 || c.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) {
			continue
		}
		if info, ok := c.ctx.PartitionLeadershipInfo[tp]; ok && info.LeaderAndIsr.Leader != replicas[0] {
			n++
		}
	}
	return n
}

// markUncleanLeaderElection counts one unclean election (the OfflinePartitionLeaderSelector
// chose a leader outside the ISR).
func (c *KafkaController) markUncleanLeaderElection() {
	c.UncleanLeaderElections.Add(1)
	if s := c.stats.Load(); s != nil {
		s.uncleanLeaderElectionRate.Mark(1)
	}
}

// timeLeaderElection starts timing a leader election on LeaderElectionRateAndTimeMs and returns
// the function that stops it (Kafka times the broker-change handling this way).
func (c *KafkaController) timeLeaderElection() func() {
	s := c.stats.Load()
	if s == nil {
		return func() {}
	}
	start := time.Now()
	return func() { s.leaderElectionTimer.UpdateSince(start) }
}
