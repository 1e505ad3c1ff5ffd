package controller

import (
	"slices"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Every controller ZooKeeper listener (docs/formats.md §1.3). Each runs on the
// zkclient event goroutine, takes controllerLock, and does nothing unless this
// broker is the active controller.

// BrokerChangeListener follows /brokers/ids: new registrations start brokers,
// vanished ones fail them, and a registration created anew under a known id (a
// broker restarted before the controller saw its old registration go) is a
// failure followed by a startup.
//
// Kafka 0.10.2: kafka.controller.ReplicaStateMachine.BrokerChangeListener. 0.10.2
// compares ids only, so a broker that re-registers between two reads of the
// children is never seen to restart: its partitions keep a leader that has lost
// its state and the new process never gets a LeaderAndIsr. zkafka compares the
// registration's czxid too (later Kafka's "bounced brokers", KIP-380).
type BrokerChangeListener struct{ c *KafkaController }

// HandleChildChange implements zkclient.ChildListener.
func (l *BrokerChangeListener) HandleChildChange(parentPath string, children []string) error {
	c := l.c
	c.log.Infof("Broker change listener fired for path %s with children %s", parentPath, strings.Join(children, ","))
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() || !c.replicaStateMachine.hasStarted {
		return nil
	}
	defer c.timeLeaderElection()()
	var cur []zkutils.BrokerInfo
	var curIDs []int32
	epochs := map[int32]int64{}
	for _, child := range children {
		id, err := strconv.ParseInt(child, 10, 32)
		if err != nil {
			continue
		}
		b, epoch, ok, err := c.zkUtils.GetBrokerInfoAndEpoch(int32(id))
		if err != nil {
			c.log.WithError(err).Error("Error while handling broker changes")
			return err
		}
		if ok {
			cur = append(cur, b)
			curIDs = append(curIDs, b.ID)
			epochs[b.ID] = epoch
		}
	}
	slices.Sort(curIDs)
	known := c.ctx.LiveOrShuttingDownBrokerIds()
	var newIDs, deadIDs, bouncedIDs []int32
	var newBrokers, bouncedBrokers []zkutils.BrokerInfo
	for _, b := range cur {
		switch {
		case !containsID(known, b.ID):
			newIDs = append(newIDs, b.ID)
			newBrokers = append(newBrokers, b)
		case c.ctx.LiveBrokerEpochs[b.ID] != 0 && epochs[b.ID] != c.ctx.LiveBrokerEpochs[b.ID]:
			bouncedIDs = append(bouncedIDs, b.ID)
			bouncedBrokers = append(bouncedBrokers, b)
		}
	}
	for _, id := range known {
		if !containsID(curIDs, id) {
			deadIDs = append(deadIDs, id)
		}
	}
	slices.Sort(newIDs)
	slices.Sort(bouncedIDs)
	c.log.Infof("Newly added brokers: %s, deleted brokers: %s, bounced brokers: %s, all live brokers: %s",
		joinIDs(newIDs), joinIDs(deadIDs), joinIDs(bouncedIDs), joinIDs(curIDs))
	// A bounced broker fails first, while it is not live (no leader is elected on it), with the
	// channel to its old process gone; then it starts like a new one.
	var withoutBounced []zkutils.BrokerInfo
	for _, b := range cur {
		if !containsID(bouncedIDs, b.ID) {
			withoutBounced = append(withoutBounced, b)
		}
	}
	c.ctx.SetLiveBrokers(withoutBounced)
	c.ctx.LiveBrokerEpochs = epochs
	for _, b := range newBrokers {
		c.channelManager.AddBroker(b)
	}
	for _, id := range append(append([]int32{}, deadIDs...), bouncedIDs...) {
		c.channelManager.RemoveBroker(id)
	}
	if len(newIDs) > 0 {
		c.onBrokerStartup(newIDs)
	}
	if len(bouncedIDs) > 0 {
		c.onBrokerFailure(bouncedIDs)
		c.ctx.SetLiveBrokers(cur)
		for _, b := range bouncedBrokers {
			c.channelManager.AddBroker(b)
		}
		c.onBrokerStartup(bouncedIDs)
	}
	c.ctx.SetLiveBrokers(cur)
	if len(deadIDs) > 0 {
		c.onBrokerFailure(deadIDs)
	}
	return nil
}

// TopicChangeListener follows /brokers/topics and brings new topics online.
//
// Kafka 0.10.2: kafka.controller.PartitionStateMachine.TopicChangeListener.
type TopicChangeListener struct{ c *KafkaController }

// HandleChildChange implements zkclient.ChildListener.
func (l *TopicChangeListener) HandleChildChange(_ string, children []string) error {
	c := l.c
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() || !c.partitionStateMachine.hasStarted {
		return nil
	}
	current := map[string]struct{}{}
	for _, t := range children {
		current[t] = struct{}{}
	}
	var newTopics, deleted []string
	for t := range current {
		if _, ok := c.ctx.AllTopics[t]; !ok {
			newTopics = append(newTopics, t)
		}
	}
	for t := range c.ctx.AllTopics {
		if _, ok := current[t]; !ok {
			deleted = append(deleted, t)
		}
	}
	slices.Sort(newTopics)
	c.ctx.AllTopics = current
	added, err := c.zkUtils.GetReplicaAssignmentForTopics(newTopics)
	if err != nil {
		c.log.WithError(err).Error("Error while handling new topic")
		return err
	}
	for tp := range c.ctx.PartitionReplicaAssignment {
		if slices.Contains(deleted, tp.Topic) {
			delete(c.ctx.PartitionReplicaAssignment, tp)
		}
	}
	for tp, rs := range added {
		c.ctx.PartitionReplicaAssignment[tp] = rs
	}
	c.log.Infof("New topics: [%v], deleted topics: [%v], new partition replica assignment [%v]", newTopics, deleted, added)
	if len(newTopics) > 0 {
		c.onNewTopicCreation(newTopics, sortedPartitionKeys(added))
	}
	return nil
}

// PartitionModificationsListener follows /brokers/topics/<topic> for added
// partitions (Kafka logs it as AddPartitionsListener).
//
// Kafka 0.10.2: kafka.controller.PartitionStateMachine.PartitionModificationsListener.
type PartitionModificationsListener struct {
	c     *KafkaController
	topic string
}

// HandleDataChange implements zkclient.DataListener.
func (l *PartitionModificationsListener) HandleDataChange(dataPath string, data []byte) error {
	c := l.c
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() {
		return nil
	}
	c.log.Infof("Partition modification triggered %s for path %s", data, dataPath)
	assignment, err := c.zkUtils.GetReplicaAssignmentForTopics([]string{l.topic})
	if err != nil {
		c.log.WithError(err).Errorf("Error while handling add partitions for data path %s", dataPath)
		return err
	}
	toAdd := map[common.TopicPartition][]int32{}
	for tp, rs := range assignment {
		if _, ok := c.ctx.PartitionReplicaAssignment[tp]; !ok {
			toAdd[tp] = rs
		}
	}
	if c.deleteTopicManager.IsTopicQueuedUpForDeletion(l.topic) {
		c.log.Errorf("Skipping adding partitions %v for topic %s since it is currently being deleted", sortedPartitionKeys(toAdd), l.topic)
		return nil
	}
	if len(toAdd) > 0 {
		c.log.Infof("New partitions to be added %v", toAdd)
		for tp, rs := range toAdd {
			c.ctx.PartitionReplicaAssignment[tp] = rs
		}
		c.onNewPartitionCreation(sortedPartitionKeys(toAdd))
	}
	return nil
}

// HandleDataDeleted implements zkclient.DataListener (nothing to do).
func (l *PartitionModificationsListener) HandleDataDeleted(string) error { return nil }

// DeleteTopicsListener follows /admin/delete_topics.
//
// Kafka 0.10.2: kafka.controller.PartitionStateMachine.DeleteTopicsListener.
type DeleteTopicsListener struct{ c *KafkaController }

// HandleChildChange implements zkclient.ChildListener.
func (l *DeleteTopicsListener) HandleChildChange(_ string, children []string) error {
	c := l.c
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() || !c.partitionStateMachine.hasStarted {
		return nil
	}
	c.log.Debugf("Delete topics listener fired for topics %v to be deleted", children)
	var toDelete, nonExistent []string
	for _, t := range children {
		if _, ok := c.ctx.AllTopics[t]; ok {
			toDelete = append(toDelete, t)
		} else {
			nonExistent = append(nonExistent, t)
		}
	}
	if len(nonExistent) > 0 {
		c.log.Warnf("Ignoring request to delete non-existing topics %s", strings.Join(nonExistent, ","))
		for _, t := range nonExistent {
			_ = c.zkUtils.DeletePathRecursive(zkutils.DeleteTopicPath(t))
		}
	}
	if !c.config.DeleteTopicEnable {
		for _, t := range toDelete {
			c.log.Infof("Removing %s since delete topic is disabled", zkutils.DeleteTopicPath(t))
			_, _ = c.zkUtils.DeletePath(zkutils.DeleteTopicPath(t))
		}
		return nil
	}
	if len(toDelete) == 0 {
		return nil
	}
	c.log.Infof("Starting topic deletion for topics %s", strings.Join(toDelete, ","))
	for _, t := range toDelete {
		busy := false
		for tp := range c.ctx.PartitionsUndergoingPreferredReplicaElection {
			busy = busy || tp.Topic == t
		}
		for tp := range c.ctx.PartitionsBeingReassigned {
			busy = busy || tp.Topic == t
		}
		if busy {
			// As in 0.10.2 this runs before the topic is queued, so it only
			// affects topics queued earlier.
			c.deleteTopicManager.MarkTopicIneligibleForDeletion([]string{t})
		}
	}
	c.deleteTopicManager.EnqueueTopicsForDeletion(toDelete)
	return nil
}

// PartitionsReassignedListener follows /admin/reassign_partitions.
//
// Kafka 0.10.2: kafka.controller.PartitionsReassignedListener.
type PartitionsReassignedListener struct{ c *KafkaController }

// HandleDataChange implements zkclient.DataListener.
func (l *PartitionsReassignedListener) HandleDataChange(dataPath string, data []byte) error {
	c := l.c
	c.log.Debugf("Partitions reassigned listener fired for path %s. Record partitions to be reassigned %s", dataPath, data)
	reassignment, err := zkutils.ParsePartitionReassignmentData(data)
	if err != nil {
		c.log.WithError(err).Error("cannot parse the partition reassignment data")
		return err
	}
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() {
		return nil
	}
	for _, tp := range sortedPartitionKeys(reassignment) {
		if _, busy := c.ctx.PartitionsBeingReassigned[tp]; busy {
			continue
		}
		if c.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) {
			c.log.Errorf("Skipping reassignment of partition %s for topic %s since it is currently being deleted", tpString(tp), tp.Topic)
			c.removePartitionFromReassignedPartitions(tp)
			continue
		}
		c.initiateReassignReplicasForTopicPartition(tp, &ReassignedPartitionsContext{NewReplicas: reassignment[tp]})
	}
	return nil
}

// HandleDataDeleted implements zkclient.DataListener (nothing to do).
func (l *PartitionsReassignedListener) HandleDataDeleted(string) error { return nil }

// ReassignedPartitionsIsrChangeListener follows the state znode of a partition
// being reassigned and resumes the reassignment once every target replica is
// in the ISR.
//
// Kafka 0.10.2: kafka.controller.ReassignedPartitionsIsrChangeListener.
type ReassignedPartitionsIsrChangeListener struct {
	c                  *KafkaController
	tp                 common.TopicPartition
	reassignedReplicas []int32
}

// HandleDataChange implements zkclient.DataListener.
func (l *ReassignedPartitionsIsrChangeListener) HandleDataChange(dataPath string, data []byte) error {
	c := l.c
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() {
		return nil
	}
	c.log.Debugf("Reassigned partitions isr change listener fired for path %s with children %s", dataPath, data)
	rc, ok := c.ctx.PartitionsBeingReassigned[l.tp]
	if !ok {
		return nil
	}
	li, ok, err := c.zkUtils.GetLeaderAndIsrForPartition(l.tp.Topic, l.tp.Partition)
	if err != nil {
		c.log.WithError(err).Error("Error while handling partition reassignment")
		return err
	}
	if !ok {
		c.log.Errorf("Error handling reassignment of partition %s to replicas %s as it was never created", tpString(l.tp), joinIDs(l.reassignedReplicas))
		return nil
	}
	caughtUp := filterIDs(l.reassignedReplicas, func(r int32) bool { return containsID(li.Isr, r) })
	if len(caughtUp) == len(l.reassignedReplicas) {
		c.log.Infof("%d/%d replicas have caught up with the leader for partition %s being reassigned. Resuming partition reassignment",
			len(caughtUp), len(l.reassignedReplicas), tpString(l.tp))
		if err := c.onPartitionReassignment(l.tp, rc); err != nil {
			c.log.WithError(err).Error("Error while handling partition reassignment")
		}
	} else {
		c.log.Infof("%d/%d replicas have caught up with the leader for partition %s being reassigned. Replica(s) %s still need to catch up",
			len(caughtUp), len(l.reassignedReplicas), tpString(l.tp),
			joinIDs(filterIDs(l.reassignedReplicas, func(r int32) bool { return !containsID(li.Isr, r) })))
	}
	return nil
}

// HandleDataDeleted implements zkclient.DataListener (nothing to do).
func (l *ReassignedPartitionsIsrChangeListener) HandleDataDeleted(string) error { return nil }

// PreferredReplicaElectionListener follows /admin/preferred_replica_election.
//
// Kafka 0.10.2: kafka.controller.PreferredReplicaElectionListener.
type PreferredReplicaElectionListener struct{ c *KafkaController }

// HandleDataChange implements zkclient.DataListener.
func (l *PreferredReplicaElectionListener) HandleDataChange(dataPath string, data []byte) error {
	c := l.c
	c.log.Debugf("Preferred replica election listener fired for path %s. Record partitions to undergo preferred replica election %s", dataPath, data)
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() {
		return nil
	}
	requested, err := zkutils.ParsePreferredReplicaElectionData(data)
	if err != nil {
		c.log.WithError(err).Error("cannot parse the preferred replica election data")
		return err
	}
	if len(c.ctx.PartitionsUndergoingPreferredReplicaElection) > 0 {
		c.log.Infof("These partitions are already undergoing preferred replica election: %v", sortedPartitions(c.ctx.PartitionsUndergoingPreferredReplicaElection))
	}
	var partitions, deleting []common.TopicPartition
	for _, tp := range sortedPartitions(requested) {
		if _, busy := c.ctx.PartitionsUndergoingPreferredReplicaElection[tp]; busy {
			continue
		}
		if c.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) {
			deleting = append(deleting, tp)
			continue
		}
		partitions = append(partitions, tp)
	}
	if len(deleting) > 0 {
		c.log.Errorf("Skipping preferred replica election for partitions %v since the respective topics are being deleted", deleting)
	}
	c.onPreferredReplicaElection(partitions, false)
	return nil
}

// HandleDataDeleted implements zkclient.DataListener (nothing to do).
func (l *PreferredReplicaElectionListener) HandleDataDeleted(string) error { return nil }

// IsrChangeNotificationListener follows /isr_change_notification: it refreshes
// the leaderships named by the notifications, sends UpdateMetadata for them,
// and deletes the notifications.
//
// Kafka 0.10.2: kafka.controller.IsrChangeNotificationListener.
type IsrChangeNotificationListener struct{ c *KafkaController }

// HandleChildChange implements zkclient.ChildListener.
func (l *IsrChangeNotificationListener) HandleChildChange(_ string, children []string) error {
	c := l.c
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	if !c.isActive() {
		return nil
	}
	c.log.Debug("ISR change notification listener fired")
	defer func() {
		for _, child := range children {
			if _, err := c.zkUtils.DeletePath(zkutils.IsrChangeNotificationPath + "/" + child); err != nil {
				c.log.WithError(err).Warnf("cannot delete ISR change notification %s", child)
			}
		}
	}()
	set := map[common.TopicPartition]struct{}{}
	for _, child := range children {
		data, _, ok, err := c.zkUtils.ReadDataMaybeNull(zkutils.IsrChangeNotificationPath + "/" + child)
		if err != nil || !ok {
			continue
		}
		tps, err := zkutils.ParseIsrChangeNotification(data)
		if err != nil {
			c.log.WithError(err).Errorf("Invalid topic and partition JSON in ZK. Change notification %s", child)
			continue
		}
		for _, tp := range tps {
			set[tp] = struct{}{}
		}
	}
	if len(set) == 0 {
		return nil
	}
	partitions := sortedPartitions(set)
	if err := c.updateLeaderAndIsrCache(partitions); err != nil {
		return err
	}
	brokers := c.ctx.LiveOrShuttingDownBrokerIds()
	c.log.Debugf("Sending MetadataRequest to Brokers:%v for TopicAndPartitions:%v", brokers, partitions)
	return c.sendUpdateMetadataRequest(brokers, partitions)
}
