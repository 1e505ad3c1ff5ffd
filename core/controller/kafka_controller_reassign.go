package controller

import (
	"fmt"
	"slices"
	"sort"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// This file holds KafkaController's partition reassignment (RAR/OAR). Every
// method: caller holds controllerLock.

// initializePartitionReassignment loads /admin/reassign_partitions, dropping
// partitions already done or whose topic is gone.
func (c *KafkaController) initializePartitionReassignment() error {
	being, err := c.zkUtils.GetPartitionsBeingReassigned()
	if err != nil {
		return err
	}
	for _, tp := range sortedPartitionKeys(being) {
		target := being[tp]
		ar, ok := c.ctx.PartitionReplicaAssignment[tp]
		if !ok || slices.Equal(ar, target) {
			c.removePartitionFromReassignedPartitions(tp)
			continue
		}
		c.ctx.PartitionsBeingReassigned[tp] = &ReassignedPartitionsContext{NewReplicas: target}
	}
	return nil
}

func (c *KafkaController) maybeTriggerPartitionReassignment() {
	for _, tp := range sortedPartitionKeys(c.ctx.PartitionsBeingReassigned) {
		c.initiateReassignReplicasForTopicPartition(tp, c.ctx.PartitionsBeingReassigned[tp])
	}
}

// initiateReassignReplicasForTopicPartition starts one reassignment: watch the
// partition's ISR, record it, and run the first phase. A partition that does
// not exist or already has the target replicas is dropped from the admin node.
func (c *KafkaController) initiateReassignReplicasForTopicPartition(tp common.TopicPartition, rc *ReassignedPartitionsContext) {
	err := func() error {
		ar, ok := c.ctx.PartitionReplicaAssignment[tp]
		if !ok {
			return fmt.Errorf("Attempt to reassign partition %s that doesn't exist", tpString(tp))
		}
		if slices.Equal(ar, rc.NewReplicas) {
			return fmt.Errorf("Partition %s to be reassigned is already assigned to replicas %s. Ignoring request for partition reassignment",
				tpString(tp), joinIDs(rc.NewReplicas))
		}
		c.log.Infof("Handling reassignment of partition %s to new replicas %s", tpString(tp), joinIDs(rc.NewReplicas))
		if err := c.watchIsrChangesForReassignedPartition(tp, rc); err != nil {
			return err
		}
		c.ctx.PartitionsBeingReassigned[tp] = rc
		c.deleteTopicManager.MarkTopicIneligibleForDeletion([]string{tp.Topic})
		return c.onPartitionReassignment(tp, rc)
	}()
	if err != nil {
		c.log.WithError(err).Errorf("Error completing reassignment of partition %s", tpString(tp))
		c.removePartitionFromReassignedPartitions(tp)
	}
}

func (c *KafkaController) watchIsrChangesForReassignedPartition(tp common.TopicPartition, rc *ReassignedPartitionsContext) error {
	if rc.isrChangeListener != nil {
		return nil
	}
	rc.isrChangeListener = &ReassignedPartitionsIsrChangeListener{c: c, tp: tp, reassignedReplicas: slices.Clone(rc.NewReplicas)}
	return c.zkUtils.ZkClient.SubscribeDataChanges(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition), rc.isrChangeListener)
}

// onPartitionReassignment runs the RAR/OAR procedure (docs/formats.md §1.3):
// while some target replica is not in the ISR, grow AR to RAR+OAR, bump the
// leader epoch and start the new replicas; once all are in the ISR, move the
// leader into RAR if needed, stop and delete the old replicas, write AR = RAR
// and drop the partition from /admin/reassign_partitions.
func (c *KafkaController) onPartitionReassignment(tp common.TopicPartition, rc *ReassignedPartitionsContext) error {
	rar := rc.NewReplicas
	inIsr, err := c.areReplicasInIsr(tp, rar)
	if err != nil {
		return err
	}
	if !inIsr {
		c.log.Infof("New replicas %s for partition %s being reassigned not yet caught up with the leader", joinIDs(rar), tpString(tp))
		oar := c.ctx.PartitionReplicaAssignment[tp]
		newNotOld := filterIDs(rar, func(r int32) bool { return !containsID(oar, r) })
		newAndOld := scalaSetOrder(append(slices.Clone(rar), oar...))
		// 1. AR = RAR + OAR in ZooKeeper.
		if err := c.updateAssignedReplicasForPartition(tp, newAndOld); err != nil {
			return err
		}
		// 2. LeaderAndIsr with the bigger AR to every replica in it.
		if err := c.updateLeaderEpochAndSendRequest(tp, c.ctx.PartitionReplicaAssignment[tp], newAndOld); err != nil {
			return err
		}
		// 3. RAR - OAR -> NewReplica: they start following.
		for _, r := range newNotOld {
			_ = c.replicaStateMachine.HandleStateChanges([]PartitionAndReplica{{tp.Topic, tp.Partition, r}}, NewReplica, nil)
		}
		c.log.Infof("Waiting for new replicas %s for partition %s being reassigned to catch up with the leader", joinIDs(rar), tpString(tp))
		return nil
	}
	// 4. Every RAR member is in the ISR.
	oldReplicas := filterIDs(c.ctx.PartitionReplicaAssignment[tp], func(r int32) bool { return !containsID(rar, r) })
	// 5. RAR -> OnlineReplica.
	for _, r := range rar {
		_ = c.replicaStateMachine.HandleStateChanges([]PartitionAndReplica{{tp.Topic, tp.Partition, r}}, OnlineReplica, nil)
	}
	// 6-7. AR = RAR in memory; a leader outside RAR (or dead) is replaced.
	if err := c.moveReassignedPartitionLeaderIfRequired(tp, rc); err != nil {
		return err
	}
	// 8-9. OAR - RAR -> Offline -> deleted.
	c.stopOldReplicasOfReassignedPartition(tp, oldReplicas)
	// 10. AR = RAR in ZooKeeper.
	if err := c.updateAssignedReplicasForPartition(tp, rar); err != nil {
		return err
	}
	// 11. Done: out of /admin/reassign_partitions.
	c.removePartitionFromReassignedPartitions(tp)
	c.log.Infof("Removed partition %s from the list of reassigned partitions in zookeeper", tpString(tp))
	delete(c.ctx.PartitionsBeingReassigned, tp)
	// 12. Brokers learn the new replicas and ISR.
	_ = c.sendUpdateMetadataRequest(c.ctx.LiveOrShuttingDownBrokerIds(), []common.TopicPartition{tp})
	c.deleteTopicManager.ResumeDeletionForTopics([]string{tp.Topic})
	return nil
}

func (c *KafkaController) areReplicasInIsr(tp common.TopicPartition, replicas []int32) (bool, error) {
	l, ok, err := c.zkUtils.GetLeaderAndIsrForPartition(tp.Topic, tp.Partition)
	if err != nil || !ok {
		return false, err
	}
	for _, r := range replicas {
		if !containsID(l.Isr, r) {
			return false, nil
		}
	}
	return true, nil
}

func (c *KafkaController) moveReassignedPartitionLeaderIfRequired(tp common.TopicPartition, rc *ReassignedPartitionsContext) error {
	rar := rc.NewReplicas
	currentLeader := c.ctx.PartitionLeadershipInfo[tp].LeaderAndIsr.Leader
	oldAndNew := c.ctx.PartitionReplicaAssignment[tp]
	// The leader must see only RAR, so that it does not add old replicas back
	// to the ISR.
	c.ctx.PartitionReplicaAssignment[tp] = slices.Clone(rar)
	switch {
	case !containsID(rar, currentLeader):
		c.log.Infof("Leader %d for partition %s being reassigned, is not in the new list of replicas %s. Re-electing leader", currentLeader, tpString(tp), joinIDs(rar))
		return c.partitionStateMachine.HandleStateChanges([]common.TopicPartition{tp}, OnlinePartition, c.reassignedPartitionLeaderSelector)
	case c.ctx.isLive(currentLeader):
		c.log.Infof("Leader %d for partition %s being reassigned, is already in the new list of replicas %s and is alive", currentLeader, tpString(tp), joinIDs(rar))
		return c.updateLeaderEpochAndSendRequest(tp, oldAndNew, rar)
	default:
		c.log.Infof("Leader %d for partition %s being reassigned, is already in the new list of replicas %s but is dead", currentLeader, tpString(tp), joinIDs(rar))
		return c.partitionStateMachine.HandleStateChanges([]common.TopicPartition{tp}, OnlinePartition, c.reassignedPartitionLeaderSelector)
	}
}

func (c *KafkaController) stopOldReplicasOfReassignedPartition(tp common.TopicPartition, oldReplicas []int32) {
	var rs []PartitionAndReplica
	for _, r := range oldReplicas {
		rs = append(rs, PartitionAndReplica{tp.Topic, tp.Partition, r})
	}
	_ = c.replicaStateMachine.HandleStateChanges(rs, OfflineReplica, nil)
	_ = c.replicaStateMachine.HandleStateChanges(rs, ReplicaDeletionStarted, nil)
	// Reassignment does not wait for the deletion responses (as in 0.10.2).
	_ = c.replicaStateMachine.HandleStateChanges(rs, ReplicaDeletionSuccessful, nil)
	_ = c.replicaStateMachine.HandleStateChanges(rs, NonExistentReplica, nil)
}

// updateAssignedReplicasForPartition rewrites /brokers/topics/<topic> with the
// partition's new replicas, then the cache.
func (c *KafkaController) updateAssignedReplicasForPartition(tp common.TopicPartition, replicas []int32) error {
	assignment := map[int32][]int32{}
	for p, rs := range c.ctx.PartitionReplicaAssignment {
		if p.Topic == tp.Topic {
			assignment[p.Partition] = rs
		}
	}
	assignment[tp.Partition] = replicas
	path := zkutils.TopicPath(tp.Topic)
	exists, err := c.zkUtils.PathExists(path)
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("%w: Topic %s doesn't exist", ErrIllegalState, tp.Topic)
	}
	if err := c.zkUtils.UpdatePersistentPath(path, zkutils.ReplicaAssignmentZkData(assignment)); err != nil {
		return err
	}
	c.log.Infof("Updated assigned replicas for partition %s being reassigned to %s ", tpString(tp), joinIDs(replicas))
	c.ctx.PartitionReplicaAssignment[tp] = slices.Clone(replicas)
	return nil
}

func (c *KafkaController) updateLeaderEpochAndSendRequest(tp common.TopicPartition, toReceive, newAssigned []int32) error {
	updated, err := c.updateLeaderEpoch(tp.Topic, tp.Partition)
	if err != nil {
		c.stateChangeLog.Errorf("Controller %d epoch %d failed to send LeaderAndIsr request with new assigned replica list %s to leader for partition being reassigned %s",
			c.config.BrokerID, c.ctx.Epoch, joinIDs(newAssigned), tpString(tp))
		return err
	}
	if err := c.brokerRequestBatch.NewBatch(); err != nil {
		c.log.WithError(err).Error("Forcing the controller to resign")
		c.controllerElector.Resign()
		return err
	}
	c.brokerRequestBatch.AddLeaderAndIsrRequestForBrokers(toReceive, tp, updated, newAssigned)
	c.brokerRequestBatch.SendRequestsToBrokers(c.ctx.Epoch)
	c.stateChangeLog.Tracef("Controller %d epoch %d sent LeaderAndIsr request %s with new assigned replica list %s to leader %d for partition being reassigned %s",
		c.config.BrokerID, c.ctx.Epoch, updated, joinIDs(newAssigned), updated.LeaderAndIsr.Leader, tpString(tp))
	return nil
}

// removePartitionFromReassignedPartitions stops watching the partition and
// rewrites /admin/reassign_partitions without it (deleting the node when it
// was the last).
func (c *KafkaController) removePartitionFromReassignedPartitions(tp common.TopicPartition) {
	if rc, ok := c.ctx.PartitionsBeingReassigned[tp]; ok && rc.isrChangeListener != nil {
		c.zkUtils.ZkClient.UnsubscribeDataChanges(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition), rc.isrChangeListener)
		rc.isrChangeListener = nil
	}
	being, err := c.zkUtils.GetPartitionsBeingReassigned()
	if err != nil {
		c.log.WithError(err).Error("cannot read the partitions being reassigned")
	} else {
		delete(being, tp)
		var rest []zkutils.PartitionReplicas
		for _, p := range sortedPartitionKeys(being) {
			rest = append(rest, zkutils.PartitionReplicas{TopicPartition: p, Replicas: being[p]})
		}
		if err := c.zkUtils.UpdatePartitionReassignmentData(rest); err != nil {
			c.log.WithError(err).Error("cannot update the partitions being reassigned")
		}
	}
	delete(c.ctx.PartitionsBeingReassigned, tp)
}

// scalaSetOrder is the iteration order of Scala's immutable Set built from ids
// in this order (duplicates dropped): insertion order up to 4 elements, then
// the HashSet trie order of the improved hash, lowest 5 bits first. Kafka
// writes the mid-reassignment AR (RAR ++ OAR).toSet in this order.
func scalaSetOrder(ids []int32) []int32 {
	var out []int32
	for _, id := range ids {
		if !containsID(out, id) {
			out = append(out, id)
		}
	}
	if len(out) <= 4 {
		return out
	}
	improve := func(h int32) uint32 {
		h = h + ^(h << 9)
		h ^= int32(uint32(h) >> 14)
		h += h << 4
		return uint32(h ^ int32(uint32(h)>>10))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := improve(out[i]), improve(out[j])
		for shift := 0; shift < 32; shift += 5 {
			x, y := (a>>shift)&31, (b>>shift)&31
			if x != y {
				return x < y
			}
		}
		return false
	})
	return out
}
