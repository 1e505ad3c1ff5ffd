package controller

import (
	"fmt"
	"slices"
	"sort"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// PartitionAndReplica names one replica of one partition.
//
// Kafka 0.10.2: kafka.controller.PartitionAndReplica.
type PartitionAndReplica struct {
	Topic     string
	Partition int32
	Replica   int32
}

// TopicPartition is the partition the replica belongs to.
func (p PartitionAndReplica) TopicPartition() common.TopicPartition {
	return common.TopicPartition{Topic: p.Topic, Partition: p.Partition}
}

// String is Kafka's rendering, as it appears in state-change log lines.
func (p PartitionAndReplica) String() string {
	return fmt.Sprintf("[Topic=%s,Partition=%d,Replica=%d]", p.Topic, p.Partition, p.Replica)
}

// tpString renders a partition as Scala's TopicAndPartition does: [topic,0].
func tpString(tp common.TopicPartition) string {
	return fmt.Sprintf("[%s,%d]", tp.Topic, tp.Partition)
}

// ReassignedPartitionsContext is one partition reassignment in progress: the
// target replicas and the listener watching the partition's state znode.
//
// Kafka 0.10.2: kafka.controller.ReassignedPartitionsContext.
type ReassignedPartitionsContext struct {
	NewReplicas       []int32
	isrChangeListener *ReassignedPartitionsIsrChangeListener
}

// ControllerContext is the controller's in-memory view of the cluster, loaded
// from ZooKeeper at failover and kept current by the listeners.
//
// Kafka 0.10.2: kafka.controller.ControllerContext. Kafka keeps the controller
// lock and the channel manager here too; in Go the lock belongs to
// KafkaController and the channel manager is a field of the controller, so the
// context is plain data. Every method: caller holds controllerLock.
type ControllerContext struct {
	Epoch          int32
	EpochZkVersion int32

	ShuttingDownBrokerIds map[int32]struct{}
	// liveBrokers are the registered brokers (live or shutting down).
	liveBrokers map[int32]zkutils.BrokerInfo
	// LiveBrokerEpochs is the czxid of each live broker's registration as last seen (0: not
	// known); a larger one under the same id is a broker that restarted unseen.
	LiveBrokerEpochs map[int32]int64

	AllTopics                                    map[string]struct{}
	PartitionReplicaAssignment                   map[common.TopicPartition][]int32
	PartitionLeadershipInfo                      map[common.TopicPartition]zkutils.LeaderIsrAndControllerEpoch
	PartitionsBeingReassigned                    map[common.TopicPartition]*ReassignedPartitionsContext
	PartitionsUndergoingPreferredReplicaElection map[common.TopicPartition]struct{}
}

// NewControllerContext is an empty context.
func NewControllerContext() *ControllerContext {
	return &ControllerContext{
		ShuttingDownBrokerIds:      map[int32]struct{}{},
		liveBrokers:                map[int32]zkutils.BrokerInfo{},
		LiveBrokerEpochs:           map[int32]int64{},
		AllTopics:                  map[string]struct{}{},
		PartitionReplicaAssignment: map[common.TopicPartition][]int32{},
		PartitionLeadershipInfo:    map[common.TopicPartition]zkutils.LeaderIsrAndControllerEpoch{},
		PartitionsBeingReassigned:  map[common.TopicPartition]*ReassignedPartitionsContext{},
		PartitionsUndergoingPreferredReplicaElection: map[common.TopicPartition]struct{}{},
	}
}

// SetLiveBrokers replaces the registered brokers.
func (c *ControllerContext) SetLiveBrokers(brokers []zkutils.BrokerInfo) {
	c.liveBrokers = make(map[int32]zkutils.BrokerInfo, len(brokers))
	for _, b := range brokers {
		c.liveBrokers[b.ID] = b
	}
}

// LiveBrokers are the registered brokers that are not shutting down, by id.
func (c *ControllerContext) LiveBrokers() []zkutils.BrokerInfo {
	var out []zkutils.BrokerInfo
	for _, id := range c.LiveBrokerIds() {
		out = append(out, c.liveBrokers[id])
	}
	return out
}

// LiveOrShuttingDownBrokers are all registered brokers, by id.
func (c *ControllerContext) LiveOrShuttingDownBrokers() []zkutils.BrokerInfo {
	var out []zkutils.BrokerInfo
	for _, id := range c.LiveOrShuttingDownBrokerIds() {
		out = append(out, c.liveBrokers[id])
	}
	return out
}

// LiveBrokerIds are the registered brokers that are not shutting down, sorted.
func (c *ControllerContext) LiveBrokerIds() []int32 {
	var out []int32
	for id := range c.liveBrokers {
		if _, down := c.ShuttingDownBrokerIds[id]; !down {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// LiveOrShuttingDownBrokerIds are all registered broker ids, sorted.
func (c *ControllerContext) LiveOrShuttingDownBrokerIds() []int32 {
	out := make([]int32, 0, len(c.liveBrokers))
	for id := range c.liveBrokers {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// isLive reports whether broker id is registered and not shutting down.
func (c *ControllerContext) isLive(id int32) bool {
	if _, ok := c.liveBrokers[id]; !ok {
		return false
	}
	_, down := c.ShuttingDownBrokerIds[id]
	return !down
}

// isLiveOrShuttingDown reports whether broker id is registered.
func (c *ControllerContext) isLiveOrShuttingDown(id int32) bool {
	_, ok := c.liveBrokers[id]
	return ok
}

// broker returns a registered broker.
func (c *ControllerContext) broker(id int32) (zkutils.BrokerInfo, bool) {
	b, ok := c.liveBrokers[id]
	return b, ok
}

// sortedPartitions sorts partitions by topic then partition, so that loops over
// maps act in a stable order (Kafka iterated Scala sets; any order is valid).
func sortedPartitions(m map[common.TopicPartition]struct{}) []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sortTPs(out)
	return out
}

func sortTPs(tps []common.TopicPartition) {
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
}

func sortReplicas(rs []PartitionAndReplica) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Replica < b.Replica
	})
}

// PartitionsOnBroker are the partitions with a replica on brokerID.
func (c *ControllerContext) PartitionsOnBroker(brokerID int32) []common.TopicPartition {
	var out []common.TopicPartition
	for tp, replicas := range c.PartitionReplicaAssignment {
		if slices.Contains(replicas, brokerID) {
			out = append(out, tp)
		}
	}
	sortTPs(out)
	return out
}

// ReplicasOnBrokers are the replicas hosted on brokerIDs.
func (c *ControllerContext) ReplicasOnBrokers(brokerIDs []int32) []PartitionAndReplica {
	var out []PartitionAndReplica
	for tp, replicas := range c.PartitionReplicaAssignment {
		for _, r := range replicas {
			if slices.Contains(brokerIDs, r) {
				out = append(out, PartitionAndReplica{tp.Topic, tp.Partition, r})
			}
		}
	}
	sortReplicas(out)
	return out
}

// ReplicasForTopic are every replica of topic.
func (c *ControllerContext) ReplicasForTopic(topic string) []PartitionAndReplica {
	var out []PartitionAndReplica
	for tp, replicas := range c.PartitionReplicaAssignment {
		if tp.Topic == topic {
			for _, r := range replicas {
				out = append(out, PartitionAndReplica{tp.Topic, tp.Partition, r})
			}
		}
	}
	sortReplicas(out)
	return out
}

// PartitionsForTopic are the partitions of topic.
func (c *ControllerContext) PartitionsForTopic(topic string) []common.TopicPartition {
	var out []common.TopicPartition
	for tp := range c.PartitionReplicaAssignment {
		if tp.Topic == topic {
			out = append(out, tp)
		}
	}
	sortTPs(out)
	return out
}

// AllLiveReplicas are the replicas on live brokers.
func (c *ControllerContext) AllLiveReplicas() []PartitionAndReplica {
	return c.ReplicasOnBrokers(c.LiveBrokerIds())
}

// ReplicasForPartition are the replicas of the given partitions.
func (c *ControllerContext) ReplicasForPartition(partitions []common.TopicPartition) []PartitionAndReplica {
	var out []PartitionAndReplica
	for _, tp := range partitions {
		for _, r := range c.PartitionReplicaAssignment[tp] {
			out = append(out, PartitionAndReplica{tp.Topic, tp.Partition, r})
		}
	}
	sortReplicas(out)
	return out
}

// RemoveTopic forgets a deleted topic.
func (c *ControllerContext) RemoveTopic(topic string) {
	for tp := range c.PartitionLeadershipInfo {
		if tp.Topic == topic {
			delete(c.PartitionLeadershipInfo, tp)
		}
	}
	for tp := range c.PartitionReplicaAssignment {
		if tp.Topic == topic {
			delete(c.PartitionReplicaAssignment, tp)
		}
	}
	delete(c.AllTopics, topic)
}

// allPartitions are every partition in the assignment cache, sorted.
func (c *ControllerContext) allPartitions() []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(c.PartitionReplicaAssignment))
	for tp := range c.PartitionReplicaAssignment {
		out = append(out, tp)
	}
	sortTPs(out)
	return out
}
