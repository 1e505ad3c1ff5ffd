package controller

import (
	"github.com/zkafka/zkafka/clients/common"
)

// This file holds KafkaController's reactions to brokers coming and going,
// and the UpdateMetadata it sends. Every method: caller holds controllerLock.

// sendUpdateMetadataRequest sends UpdateMetadata of partitions (all when
// empty) to brokers. A batch in an illegal state makes the controller resign.
func (c *KafkaController) sendUpdateMetadataRequest(brokers []int32, partitions []common.TopicPartition) error {
	if err := c.brokerRequestBatch.NewBatch(); err != nil {
		c.log.WithError(err).Error("Forcing the controller to resign")
		c.controllerElector.Resign()
		return err
	}
	c.brokerRequestBatch.AddUpdateMetadataRequestForBrokers(brokers, partitions)
	c.brokerRequestBatch.SendRequestsToBrokers(c.ctx.Epoch)
	return nil
}

// onBrokerStartup reacts to newly registered brokers (sorted ids).
func (c *KafkaController) onBrokerStartup(newBrokers []int32) {
	c.log.Infof("New broker startup callback for %s", joinIDs(newBrokers))
	_ = c.sendUpdateMetadataRequest(c.ctx.LiveOrShuttingDownBrokerIds(), nil)
	replicas := c.ctx.ReplicasOnBrokers(newBrokers)
	_ = c.replicaStateMachine.HandleStateChanges(replicas, OnlineReplica, nil)
	c.partitionStateMachine.TriggerOnlinePartitionStateChange()
	for _, tp := range sortedPartitionKeys(c.ctx.PartitionsBeingReassigned) {
		rc := c.ctx.PartitionsBeingReassigned[tp]
		for _, r := range rc.NewReplicas {
			if containsID(newBrokers, r) {
				if err := c.onPartitionReassignment(tp, rc); err != nil {
					c.log.WithError(err).Errorf("Error resuming reassignment of partition %s", tpString(tp))
				}
				break
			}
		}
	}
	var topics []string
	for _, r := range replicas {
		if c.deleteTopicManager.IsTopicQueuedUpForDeletion(r.Topic) {
			topics = append(topics, r.Topic)
		}
	}
	if len(topics) > 0 {
		c.log.Infof("Some replicas %v for topics scheduled for deletion %v are on the newly restarted brokers %s. Signaling restart of topic deletion for these topics",
			replicas, topics, joinIDs(newBrokers))
		c.deleteTopicManager.ResumeDeletionForTopics(topics)
	}
}

// onBrokerFailure reacts to brokers whose registration disappeared.
func (c *KafkaController) onBrokerFailure(deadBrokers []int32) {
	c.log.Infof("Broker failure callback for %s", joinIDs(deadBrokers))
	var wereShuttingDown []int32
	for _, id := range deadBrokers {
		if _, ok := c.ctx.ShuttingDownBrokerIds[id]; ok {
			delete(c.ctx.ShuttingDownBrokerIds, id)
			wereShuttingDown = append(wereShuttingDown, id)
		}
	}
	c.log.Infof("Removed %v from list of shutting down brokers.", wereShuttingDown)
	var withoutLeader []common.TopicPartition
	for tp, l := range c.ctx.PartitionLeadershipInfo {
		if containsID(deadBrokers, l.LeaderAndIsr.Leader) && !c.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) {
			withoutLeader = append(withoutLeader, tp)
		}
	}
	sortTPs(withoutLeader)
	_ = c.partitionStateMachine.HandleStateChanges(withoutLeader, OfflinePartition, nil)
	c.partitionStateMachine.TriggerOnlinePartitionStateChange()
	all := c.ctx.ReplicasOnBrokers(deadBrokers)
	var active, deleting []PartitionAndReplica
	for _, r := range all {
		if c.deleteTopicManager.IsTopicQueuedUpForDeletion(r.Topic) {
			deleting = append(deleting, r)
		} else {
			active = append(active, r)
		}
	}
	_ = c.replicaStateMachine.HandleStateChanges(active, OfflineReplica, nil)
	if len(deleting) > 0 {
		c.deleteTopicManager.FailReplicaDeletion(deleting)
	}
	if len(withoutLeader) == 0 {
		_ = c.sendUpdateMetadataRequest(c.ctx.LiveOrShuttingDownBrokerIds(), nil)
	}
}
