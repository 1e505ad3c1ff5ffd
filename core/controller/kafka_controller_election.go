package controller

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// This file holds KafkaController's preferred replica election and the auto
// rebalance task. Every method except autoRebalanceTask: caller holds
// controllerLock.

// initializePreferredReplicaElection loads /admin/preferred_replica_election,
// dropping partitions already led by their preferred replica or whose topic
// is gone.
func (c *KafkaController) initializePreferredReplicaElection() error {
	pending, err := c.zkUtils.GetPartitionsUndergoingPreferredReplicaElection()
	if err != nil {
		return err
	}
	for tp := range pending {
		ar, ok := c.ctx.PartitionReplicaAssignment[tp]
		if !ok {
			continue
		}
		if l, ok := c.ctx.PartitionLeadershipInfo[tp]; ok && len(ar) > 0 && l.LeaderAndIsr.Leader == ar[0] {
			continue
		}
		c.ctx.PartitionsUndergoingPreferredReplicaElection[tp] = struct{}{}
	}
	return nil
}

// onPreferredReplicaElection moves leadership of the partitions to their
// preferred replicas; unless triggered by the rebalance task it then deletes
// /admin/preferred_replica_election.
func (c *KafkaController) onPreferredReplicaElection(partitions []common.TopicPartition, isTriggeredByAutoRebalance bool) {
	c.log.Infof("Starting preferred replica leader election for partitions %v", partitions)
	var topics []string
	for _, tp := range partitions {
		c.ctx.PartitionsUndergoingPreferredReplicaElection[tp] = struct{}{}
		topics = append(topics, tp.Topic)
	}
	c.deleteTopicManager.MarkTopicIneligibleForDeletion(topics)
	if err := c.partitionStateMachine.HandleStateChanges(partitions, OnlinePartition, c.preferredReplicaPartitionLeaderSelector); err != nil {
		c.log.WithError(err).Errorf("Error completing preferred replica leader election for partitions %v", partitions)
	}
	c.removePartitionsFromPreferredReplicaElection(partitions, isTriggeredByAutoRebalance)
	c.deleteTopicManager.ResumeDeletionForTopics(topics)
}

func (c *KafkaController) removePartitionsFromPreferredReplicaElection(partitions []common.TopicPartition, isTriggeredByAutoRebalance bool) {
	for _, tp := range partitions {
		leader := c.ctx.PartitionLeadershipInfo[tp].LeaderAndIsr.Leader
		ar := c.ctx.PartitionReplicaAssignment[tp]
		if len(ar) > 0 && leader == ar[0] {
			c.log.Infof("Partition %s completed preferred replica leader election. New leader is %d", tpString(tp), leader)
		} else {
			c.log.Warnf("Partition %s failed to complete preferred replica leader election. Leader is %d", tpString(tp), leader)
		}
	}
	if !isTriggeredByAutoRebalance {
		if _, err := c.zkUtils.DeletePath(zkutils.PreferredReplicaLeaderElectionPath); err != nil {
			c.log.WithError(err).Warn("cannot delete the preferred replica election node")
		}
	}
	for _, tp := range partitions {
		delete(c.ctx.PartitionsUndergoingPreferredReplicaElection, tp)
	}
}

// autoRebalanceTask is the scheduled entry point of the rebalance check.
func (c *KafkaController) autoRebalanceTask() {
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	c.checkAndTriggerPartitionRebalance()
}

// checkAndTriggerPartitionRebalance: for each broker, the share of the
// partitions it prefers that it does not lead; above
// leader.imbalance.per.broker.percentage, a preferred election for each.
func (c *KafkaController) checkAndTriggerPartitionRebalance() {
	if !c.isActive() {
		return
	}
	c.log.Trace("checking need to trigger partition rebalance")
	byBroker := map[int32][]common.TopicPartition{}
	for tp, ar := range c.ctx.PartitionReplicaAssignment {
		if len(ar) == 0 || c.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) {
			continue
		}
		byBroker[ar[0]] = append(byBroker[ar[0]], tp)
	}
	threshold := float64(c.config.LeaderImbalancePerBrokerPercentage) / 100
	for _, broker := range sortedKeys(byBroker) {
		tps := byBroker[broker]
		var notLed []common.TopicPartition
		for _, tp := range tps {
			if l, ok := c.ctx.PartitionLeadershipInfo[tp]; ok && l.LeaderAndIsr.Leader != broker {
				notLed = append(notLed, tp)
			}
		}
		ratio := float64(len(notLed)) / float64(len(tps))
		c.log.Tracef("leader imbalance ratio for broker %d is %f", broker, ratio)
		if ratio <= threshold {
			continue
		}
		sortTPs(notLed)
		for _, tp := range notLed {
			_, topicExists := c.ctx.AllTopics[tp.Topic]
			if c.ctx.isLive(broker) && len(c.ctx.PartitionsBeingReassigned) == 0 &&
				len(c.ctx.PartitionsUndergoingPreferredReplicaElection) == 0 &&
				!c.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) && topicExists {
				c.onPreferredReplicaElection([]common.TopicPartition{tp}, true)
			}
		}
	}
}
