package controller

import (
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// stopReplicaResult is a StopReplica(delete=true) response waiting for the
// deletion goroutine.
type stopReplicaResult struct {
	resp    protocol.Message
	replica int32
}

// TopicDeletionManager deletes the topics queued under /admin/delete_topics:
// every replica gets StopReplica(delete=true); when all answered without error
// the topic's znodes go. A topic with a replica on a dead broker, a partition
// being reassigned or a preferred election running is ineligible and waits;
// failed replicas are retried.
//
// Kafka 0.10.2: kafka.controller.TopicDeletionManager, with its
// DeleteTopicsThread as one goroutine. Every method except Start, Shutdown and
// the StopReplica callback: caller holds controllerLock. Kafka's callback took
// controllerLock on the send thread; here it hands the response to the
// deletion goroutine, which takes the lock.
type TopicDeletionManager struct {
	controller *KafkaController
	enabled    bool
	log        *logrus.Entry

	topicsToBeDeleted           map[string]struct{}
	partitionsToBeDeleted       map[common.TopicPartition]struct{}
	topicsIneligibleForDeletion map[string]struct{}

	mu        sync.Mutex
	responses []stopReplicaResult
	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	running   bool
}

func newTopicDeletionManager(c *KafkaController, initialTopics []string, initialIneligible map[string]struct{}) *TopicDeletionManager {
	m := &TopicDeletionManager{
		controller: c, enabled: c.config.DeleteTopicEnable,
		log:                         c.log.WithField("logger", "kafka.controller.TopicDeletionManager"),
		topicsToBeDeleted:           map[string]struct{}{},
		partitionsToBeDeleted:       map[common.TopicPartition]struct{}{},
		topicsIneligibleForDeletion: map[string]struct{}{},
		wake:                        make(chan struct{}, 1),
	}
	if !m.enabled {
		// Deletion is off: the requests are dropped at once.
		for _, t := range initialTopics {
			m.log.Infof("Removing %s since delete topic is disabled", zkutils.DeleteTopicPath(t))
			if _, err := c.zkUtils.DeletePath(zkutils.DeleteTopicPath(t)); err != nil {
				m.log.WithError(err).Warnf("cannot delete %s", zkutils.DeleteTopicPath(t))
			}
		}
		return m
	}
	for _, t := range initialTopics {
		m.topicsToBeDeleted[t] = struct{}{}
		for _, tp := range c.ctx.PartitionsForTopic(t) {
			m.partitionsToBeDeleted[tp] = struct{}{}
		}
		if _, ok := initialIneligible[t]; ok {
			m.topicsIneligibleForDeletion[t] = struct{}{}
		}
	}
	return m
}

// Start launches the deletion goroutine (when deletion is enabled).
func (m *TopicDeletionManager) Start() {
	if !m.enabled {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		return
	}
	m.running = true
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	if len(m.topicsToBeDeleted) > 0 {
		m.signal()
	}
	go m.run(m.stop, m.done)
}

// Shutdown stops the goroutine and forgets the queues. Called without
// controllerLock (the goroutine takes it).
func (m *TopicDeletionManager) Shutdown() {
	m.mu.Lock()
	if !m.running {
		m.mu.Unlock()
		return
	}
	m.running = false
	close(m.stop)
	done := m.done
	m.responses = nil
	m.mu.Unlock()
	<-done
	m.controller.controllerLock.Lock()
	m.topicsToBeDeleted = map[string]struct{}{}
	m.partitionsToBeDeleted = map[common.TopicPartition]struct{}{}
	m.topicsIneligibleForDeletion = map[string]struct{}{}
	m.controller.controllerLock.Unlock()
}

func (m *TopicDeletionManager) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// EnqueueTopicsForDeletion queues topics and wakes the goroutine.
func (m *TopicDeletionManager) EnqueueTopicsForDeletion(topics []string) {
	if !m.enabled {
		return
	}
	for _, t := range topics {
		m.topicsToBeDeleted[t] = struct{}{}
		for _, tp := range m.controller.ctx.PartitionsForTopic(t) {
			m.partitionsToBeDeleted[tp] = struct{}{}
		}
	}
	m.signal()
}

// ResumeDeletionForTopics makes queued topics eligible again.
func (m *TopicDeletionManager) ResumeDeletionForTopics(topics []string) {
	if !m.enabled {
		return
	}
	resumed := false
	for _, t := range topics {
		if _, ok := m.topicsToBeDeleted[t]; ok {
			delete(m.topicsIneligibleForDeletion, t)
			resumed = true
		}
	}
	if resumed {
		m.signal()
	}
}

// FailReplicaDeletion marks replicas of queued topics ReplicaDeletionIneligible
// and their topics ineligible.
func (m *TopicDeletionManager) FailReplicaDeletion(replicas []PartitionAndReplica) {
	if !m.enabled {
		return
	}
	var failed []PartitionAndReplica
	var topics []string
	for _, r := range replicas {
		if m.IsTopicQueuedUpForDeletion(r.Topic) {
			failed = append(failed, r)
			topics = append(topics, r.Topic)
		}
	}
	if len(failed) == 0 {
		return
	}
	m.log.Debugf("Deletion failed for replicas %v. Halting deletion for topics %v", failed, topics)
	_ = m.controller.replicaStateMachine.HandleStateChanges(failed, ReplicaDeletionIneligible, nil)
	m.MarkTopicIneligibleForDeletion(topics)
	m.signal()
}

// MarkTopicIneligibleForDeletion halts deletion of those queued topics.
func (m *TopicDeletionManager) MarkTopicIneligibleForDeletion(topics []string) {
	if !m.enabled {
		return
	}
	var halted []string
	for _, t := range topics {
		if _, ok := m.topicsToBeDeleted[t]; ok {
			m.topicsIneligibleForDeletion[t] = struct{}{}
			halted = append(halted, t)
		}
	}
	if len(halted) > 0 {
		m.log.Infof("Halted deletion of topics %v", halted)
	}
}

// IsTopicIneligibleForDeletion (true when deletion is disabled).
func (m *TopicDeletionManager) IsTopicIneligibleForDeletion(topic string) bool {
	if !m.enabled {
		return true
	}
	_, ok := m.topicsIneligibleForDeletion[topic]
	return ok
}

// IsTopicDeletionInProgress: some replica is ReplicaDeletionStarted.
func (m *TopicDeletionManager) IsTopicDeletionInProgress(topic string) bool {
	return m.enabled && m.controller.replicaStateMachine.IsAtLeastOneReplicaInDeletionStartedState(topic)
}

// IsPartitionToBeDeleted reports whether the partition's topic is queued.
func (m *TopicDeletionManager) IsPartitionToBeDeleted(tp common.TopicPartition) bool {
	if !m.enabled {
		return false
	}
	_, ok := m.partitionsToBeDeleted[tp]
	return ok
}

// IsTopicQueuedUpForDeletion reports whether the topic is queued.
func (m *TopicDeletionManager) IsTopicQueuedUpForDeletion(topic string) bool {
	if !m.enabled {
		return false
	}
	_, ok := m.topicsToBeDeleted[topic]
	return ok
}

// PartitionsToBeDeleted is the set of partitions of queued topics (shared,
// read-only for the caller).
func (m *TopicDeletionManager) PartitionsToBeDeleted() map[common.TopicPartition]struct{} {
	if !m.enabled {
		return nil
	}
	return m.partitionsToBeDeleted
}

func (m *TopicDeletionManager) isTopicEligibleForDeletion(topic string) bool {
	return m.IsTopicQueuedUpForDeletion(topic) && !m.IsTopicDeletionInProgress(topic) && !m.IsTopicIneligibleForDeletion(topic)
}

// deleteTopicStopReplicaCallback runs on a send goroutine.
func (m *TopicDeletionManager) deleteTopicStopReplicaCallback(resp protocol.Message, replicaID int32) {
	m.mu.Lock()
	if m.running {
		m.responses = append(m.responses, stopReplicaResult{resp: resp, replica: replicaID})
	}
	m.mu.Unlock()
	m.signal()
}

func (m *TopicDeletionManager) run(stop, done chan struct{}) {
	defer close(done)
	for {
		select {
		case <-stop:
			return
		case <-m.wake:
		}
		select {
		case <-stop:
			return
		default:
		}
		m.mu.Lock()
		responses := m.responses
		m.responses = nil
		m.mu.Unlock()
		c := m.controller
		c.controllerLock.Lock()
		if c.isActive() {
			for _, r := range responses {
				m.handleStopReplicaResponse(r)
			}
			m.doWork()
		}
		c.controllerLock.Unlock()
	}
}

// handleStopReplicaResponse: replicas answered with an error become
// ReplicaDeletionIneligible, the others ReplicaDeletionSuccessful.
func (m *TopicDeletionManager) handleStopReplicaResponse(r stopReplicaResult) {
	resp, ok := r.resp.(*protocol.StopReplicaResponse)
	if !ok {
		return
	}
	m.log.Debugf("Delete topic callback invoked for %v", resp)
	var failed, deleted []PartitionAndReplica
	for _, p := range resp.Partitions {
		pr := PartitionAndReplica{p.Topic, p.Partition, r.replica}
		if resp.ErrorCode != 0 || p.ErrorCode != 0 {
			failed = append(failed, pr)
		} else {
			deleted = append(deleted, pr)
		}
	}
	m.FailReplicaDeletion(failed)
	if len(deleted) > 0 {
		var ok []PartitionAndReplica
		for _, d := range deleted {
			if m.IsTopicQueuedUpForDeletion(d.Topic) {
				ok = append(ok, d)
			}
		}
		m.log.Debugf("Deletion successfully completed for replicas %v", ok)
		_ = m.controller.replicaStateMachine.HandleStateChanges(ok, ReplicaDeletionSuccessful, nil)
	}
}

// doWork is one pass of the DeleteTopicsThread: complete, wait, retry or start
// each queued topic. Caller holds controllerLock.
func (m *TopicDeletionManager) doWork() {
	rsm := m.controller.replicaStateMachine
	topics := sortedKeys(m.topicsToBeDeleted)
	if len(topics) > 0 {
		m.log.Infof("Handling deletion for topics %v", topics)
	}
	for _, topic := range topics {
		if rsm.AreAllReplicasForTopicDeleted(topic) {
			m.completeDeleteTopic(topic)
			m.log.Infof("Deletion of topic %s successfully completed", topic)
			continue
		}
		if rsm.IsAtLeastOneReplicaInDeletionStartedState(topic) {
			m.log.Infof("Deletion for replicas %v of topic %s in progress", rsm.ReplicasInState(topic, ReplicaDeletionStarted), topic)
		} else if rsm.IsAnyReplicaInState(topic, ReplicaDeletionIneligible) {
			failed := rsm.ReplicasInState(topic, ReplicaDeletionIneligible)
			m.log.Infof("Retrying delete topic for topic %s since replicas %v were not successfully deleted", topic, failed)
			_ = rsm.HandleStateChanges(failed, OfflineReplica, nil)
		}
		if m.isTopicEligibleForDeletion(topic) {
			m.log.Infof("Deletion of topic %s (re)started", topic)
			m.onTopicDeletion(topic)
		} else if m.IsTopicIneligibleForDeletion(topic) {
			m.log.Infof("Not retrying deletion of topic %s at this time since it is marked ineligible for deletion", topic)
		}
	}
}

// onTopicDeletion: brokers learn the topic is going (leader -2), then every
// replica is stopped and deleted.
func (m *TopicDeletionManager) onTopicDeletion(topic string) {
	c := m.controller
	m.log.Infof("Topic deletion callback for %s", topic)
	partitions := c.ctx.PartitionsForTopic(topic)
	_ = c.sendUpdateMetadataRequest(c.ctx.LiveOrShuttingDownBrokerIds(), partitions)
	m.log.Infof("Partition deletion callback for %v", partitions)
	m.startReplicaDeletion(topic, c.ctx.ReplicasForPartition(partitions))
}

func (m *TopicDeletionManager) startReplicaDeletion(topic string, replicas []PartitionAndReplica) {
	c := m.controller
	rsm := c.replicaStateMachine
	var alive, dead, retry []PartitionAndReplica
	for _, r := range replicas {
		if c.ctx.isLive(r.Replica) {
			alive = append(alive, r)
			if rsm.State(r) != ReplicaDeletionSuccessful {
				retry = append(retry, r)
			}
		} else {
			dead = append(dead, r)
		}
	}
	// Only ReplicaDeletionStarted may move to ReplicaDeletionIneligible in
	// 0.10.2, so dead replicas in other states are refused (and logged) here,
	// as in Kafka; the topic is marked ineligible below either way.
	_ = rsm.HandleStateChanges(dead, ReplicaDeletionIneligible, nil)
	_ = rsm.HandleStateChanges(retry, OfflineReplica, nil)
	m.log.Debugf("Deletion started for replicas %v", retry)
	_ = rsm.HandleStateChanges(retry, ReplicaDeletionStarted, m.deleteTopicStopReplicaCallback)
	if len(dead) > 0 {
		m.log.Debugf("Dead Replicas (%v) found for topic %s", dead, topic)
		m.MarkTopicIneligibleForDeletion([]string{topic})
	}
}

// completeDeleteTopic forgets the topic and removes its znodes.
func (m *TopicDeletionManager) completeDeleteTopic(topic string) {
	c := m.controller
	// Stop watching first, so that a topic re-created at once is seen as new.
	c.partitionStateMachine.DeregisterPartitionChangeListener(topic)
	_ = c.replicaStateMachine.HandleStateChanges(c.replicaStateMachine.ReplicasInState(topic, ReplicaDeletionSuccessful), NonExistentReplica, nil)
	partitions := c.ctx.PartitionsForTopic(topic)
	_ = c.partitionStateMachine.HandleStateChanges(partitions, OfflinePartition, nil)
	_ = c.partitionStateMachine.HandleStateChanges(partitions, NonExistentPartition, nil)
	delete(m.topicsToBeDeleted, topic)
	for tp := range m.partitionsToBeDeleted {
		if tp.Topic == topic {
			delete(m.partitionsToBeDeleted, tp)
		}
	}
	for _, p := range []string{zkutils.TopicPath(topic), zkutils.EntityConfigPath(zkutils.ConfigTypeTopic, topic)} {
		if err := c.zkUtils.DeletePathRecursive(p); err != nil {
			m.log.WithError(err).Warnf("cannot delete %s", p)
		}
	}
	if _, err := c.zkUtils.DeletePath(zkutils.DeleteTopicPath(topic)); err != nil {
		m.log.WithError(err).Warnf("cannot delete %s", zkutils.DeleteTopicPath(topic))
	}
	c.ctx.RemoveTopic(topic)
}
