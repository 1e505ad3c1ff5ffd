package controller

import (
	"errors"
	"fmt"
	"slices"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ReplicaState is a replica's state in the controller. The numbers are
// Kafka's (ReplicaState.state).
//
// Kafka 0.10.2: kafka.controller.ReplicaState.
type ReplicaState int8

// The replica states of 0.10.2.
const (
	NewReplica                ReplicaState = 1
	OnlineReplica             ReplicaState = 2
	OfflineReplica            ReplicaState = 3
	ReplicaDeletionStarted    ReplicaState = 4
	ReplicaDeletionSuccessful ReplicaState = 5
	ReplicaDeletionIneligible ReplicaState = 6
	NonExistentReplica        ReplicaState = 7
)

func (s ReplicaState) String() string {
	switch s {
	case NewReplica:
		return "NewReplica"
	case OnlineReplica:
		return "OnlineReplica"
	case OfflineReplica:
		return "OfflineReplica"
	case ReplicaDeletionStarted:
		return "ReplicaDeletionStarted"
	case ReplicaDeletionSuccessful:
		return "ReplicaDeletionSuccessful"
	case ReplicaDeletionIneligible:
		return "ReplicaDeletionIneligible"
	case NonExistentReplica:
		return "NonExistentReplica"
	}
	return fmt.Sprintf("ReplicaState(%d)", int8(s))
}

// validPreviousReplicaStates is 0.10.2's transition table: the states a
// replica may be in before moving to target.
func validPreviousReplicaStates(target ReplicaState) []ReplicaState {
	switch target {
	case NewReplica:
		return []ReplicaState{NonExistentReplica}
	case OnlineReplica, OfflineReplica:
		return []ReplicaState{NewReplica, OnlineReplica, OfflineReplica, ReplicaDeletionIneligible}
	case ReplicaDeletionStarted:
		return []ReplicaState{OfflineReplica}
	case ReplicaDeletionSuccessful, ReplicaDeletionIneligible:
		return []ReplicaState{ReplicaDeletionStarted}
	case NonExistentReplica:
		return []ReplicaState{ReplicaDeletionSuccessful}
	}
	return nil
}

// ReplicaStateMachine moves replicas between the seven replica states,
// telling the brokers through LeaderAndIsr and StopReplica.
//
// Kafka 0.10.2: kafka.controller.ReplicaStateMachine. Every method: caller
// holds controllerLock.
type ReplicaStateMachine struct {
	controller           *KafkaController
	replicaState         map[PartitionAndReplica]ReplicaState
	brokerRequestBatch   *ControllerBrokerRequestBatch
	hasStarted           bool
	brokerChangeListener *BrokerChangeListener
}

func newReplicaStateMachine(c *KafkaController) *ReplicaStateMachine {
	return &ReplicaStateMachine{
		controller:           c,
		replicaState:         map[PartitionAndReplica]ReplicaState{},
		brokerRequestBatch:   newControllerBrokerRequestBatch(c),
		brokerChangeListener: &BrokerChangeListener{c: c},
	}
}

// Startup: replicas on live brokers are Online, the others
// ReplicaDeletionIneligible; then every live replica is moved to Online, which
// sends LeaderAndIsr for partitions that have a leader.
func (m *ReplicaStateMachine) Startup() {
	ctx := m.controller.ctx
	for tp, replicas := range ctx.PartitionReplicaAssignment {
		for _, r := range replicas {
			pr := PartitionAndReplica{tp.Topic, tp.Partition, r}
			if ctx.isLive(r) {
				m.replicaState[pr] = OnlineReplica
			} else {
				m.replicaState[pr] = ReplicaDeletionIneligible
			}
		}
	}
	m.hasStarted = true
	_ = m.HandleStateChanges(ctx.AllLiveReplicas(), OnlineReplica, nil)
	m.controller.log.Infof("Started replica state machine with initial state -> %d replicas", len(m.replicaState))
}

// RegisterListeners watches /brokers/ids.
func (m *ReplicaStateMachine) RegisterListeners() error {
	_, err := m.controller.zkUtils.ZkClient.SubscribeChildChanges(zkutils.BrokerIdsPath, m.brokerChangeListener)
	return err
}

// Shutdown forgets every state and stops watching brokers.
func (m *ReplicaStateMachine) Shutdown() {
	m.hasStarted = false
	m.replicaState = map[PartitionAndReplica]ReplicaState{}
	m.controller.zkUtils.ZkClient.UnsubscribeChildChanges(zkutils.BrokerIdsPath, m.brokerChangeListener)
	m.controller.log.Info("Stopped replica state machine")
}

// State returns a replica's state (NonExistentReplica if unknown).
func (m *ReplicaStateMachine) State(r PartitionAndReplica) ReplicaState {
	if st, ok := m.replicaState[r]; ok {
		return st
	}
	return NonExistentReplica
}

// HandleStateChanges moves the replicas to target and sends the requests;
// callback (may be nil) receives StopReplica(delete) responses.
func (m *ReplicaStateMachine) HandleStateChanges(replicas []PartitionAndReplica, target ReplicaState, callback func(protocol.Message, int32)) error {
	if len(replicas) == 0 {
		return nil
	}
	m.controller.log.Infof("Invoking state change to %s for replicas %v", target, replicas)
	if err := m.brokerRequestBatch.NewBatch(); err != nil {
		m.controller.log.WithError(err).Errorf("Error while moving some replicas to %s state", target)
	}
	var errs []error
	if target == OfflineReplica {
		errs = m.handleOfflineStateChanges(replicas)
	} else {
		for _, r := range replicas {
			if err := m.handleStateChange(r, target, callback); err != nil {
				errs = append(errs, err)
			}
		}
	}
	m.brokerRequestBatch.SendRequestsToBrokers(m.controller.ctx.Epoch)
	return errors.Join(errs...)
}

func (m *ReplicaStateMachine) handleStateChange(r PartitionAndReplica, target ReplicaState, callback func(protocol.Message, int32)) error {
	c := m.controller
	id, epoch := c.config.BrokerID, c.ctx.Epoch
	if !m.hasStarted {
		err := fmt.Errorf("%w: Controller %d epoch %d initiated state change of replica %d for partition %s to %s failed because replica state machine has not started",
			ErrStateChangeFailed, id, epoch, r.Replica, tpString(r.TopicPartition()), target)
		c.stateChangeLog.Error(err.Error())
		return err
	}
	curr, ok := m.replicaState[r]
	if !ok {
		curr = NonExistentReplica
		m.replicaState[r] = curr
	}
	if err := m.transition(r, curr, target, callback); err != nil {
		return m.transitionFailed(r, curr, target, err)
	}
	return nil
}

// transitionFailed logs a failed transition to the state-change log and wraps it.
func (m *ReplicaStateMachine) transitionFailed(r PartitionAndReplica, curr, target ReplicaState, err error) error {
	c := m.controller
	c.stateChangeLog.WithError(err).Errorf("Controller %d epoch %d initiated state change of replica %d for partition %s from %s to %s failed",
		c.config.BrokerID, c.ctx.Epoch, r.Replica, tpString(r.TopicPartition()), curr, target)
	return fmt.Errorf("replica %s from %s to %s: %w", r, curr, target, err)
}

func (m *ReplicaStateMachine) logChange(r PartitionAndReplica, curr, target ReplicaState) {
	c := m.controller
	c.stateChangeLog.Tracef("Controller %d epoch %d changed state of replica %d for partition %s from %s to %s",
		c.config.BrokerID, c.ctx.Epoch, r.Replica, tpString(r.TopicPartition()), curr, target)
}

func (m *ReplicaStateMachine) transition(r PartitionAndReplica, curr, target ReplicaState, callback func(protocol.Message, int32)) error {
	c := m.controller
	tp := r.TopicPartition()
	valid := validPreviousReplicaStates(target)
	if !slices.Contains(valid, curr) {
		return fmt.Errorf("%w: Replica %s should be in the %s states before moving to %s state. Instead it is in %s state",
			ErrIllegalState, r, statesString(valid), target, curr)
	}
	assignment := c.ctx.PartitionReplicaAssignment[tp]
	switch target {
	case NewReplica:
		l, ok, err := c.zkUtils.GetLeaderIsrAndEpochForPartition(r.Topic, r.Partition)
		if err != nil {
			return err
		}
		if ok {
			if l.LeaderAndIsr.Leader == r.Replica {
				return fmt.Errorf("%w: Replica %d for partition %s cannot be moved to NewReplica state as it is being requested to become leader",
					ErrStateChangeFailed, r.Replica, tpString(tp))
			}
			m.brokerRequestBatch.AddLeaderAndIsrRequestForBrokers([]int32{r.Replica}, tp, l, assignment)
		}
		m.replicaState[r] = NewReplica
		m.logChange(r, curr, target)
	case ReplicaDeletionStarted:
		m.replicaState[r] = ReplicaDeletionStarted
		m.brokerRequestBatch.AddStopReplicaRequestForBrokers([]int32{r.Replica}, tp, true, callback)
		m.logChange(r, curr, target)
	case ReplicaDeletionIneligible, ReplicaDeletionSuccessful:
		m.replicaState[r] = target
		m.logChange(r, curr, target)
	case NonExistentReplica:
		c.ctx.PartitionReplicaAssignment[tp] = filterIDs(assignment, func(id int32) bool { return id != r.Replica })
		delete(m.replicaState, r)
		m.logChange(r, curr, target)
	case OnlineReplica:
		if curr == NewReplica {
			if !slices.Contains(assignment, r.Replica) {
				c.ctx.PartitionReplicaAssignment[tp] = append(slices.Clone(assignment), r.Replica)
			}
			m.logChange(r, curr, target)
		} else if l, ok := c.ctx.PartitionLeadershipInfo[tp]; ok {
			m.brokerRequestBatch.AddLeaderAndIsrRequestForBrokers([]int32{r.Replica}, tp, l, assignment)
			m.logChange(r, curr, target)
		}
		// Without leader information the partition was never online, so the
		// broker has no log to start: nothing to send.
		m.replicaState[r] = OnlineReplica
	case OfflineReplica:
		return m.toOffline(r, curr, func() (zkutils.LeaderIsrAndControllerEpoch, bool, error) {
			return c.removeReplicaFromIsr(r.Topic, r.Partition, r.Replica)
		})
	}
	return nil
}

// toOffline is the OfflineReplica transition: StopReplica (without deletion) to
// the replica, and, if the partition has a leader, the replica out of its ISR
// through removeFromIsr, with LeaderAndIsr to the other replicas.
func (m *ReplicaStateMachine) toOffline(r PartitionAndReplica, curr ReplicaState, removeFromIsr func() (zkutils.LeaderIsrAndControllerEpoch, bool, error)) error {
	c := m.controller
	tp := r.TopicPartition()
	assignment := c.ctx.PartitionReplicaAssignment[tp]
	m.brokerRequestBatch.AddStopReplicaRequestForBrokers([]int32{r.Replica}, tp, false, nil)
	empty := true
	if _, ok := c.ctx.PartitionLeadershipInfo[tp]; ok {
		updated, ok, err := removeFromIsr()
		if err != nil {
			return err
		}
		if ok {
			if !c.deleteTopicManager.IsPartitionToBeDeleted(tp) {
				others := filterIDs(c.ctx.PartitionReplicaAssignment[tp], func(id int32) bool { return id != r.Replica })
				m.brokerRequestBatch.AddLeaderAndIsrRequestForBrokers(others, tp, updated, assignment)
			}
			m.replicaState[r] = OfflineReplica
			m.logChange(r, curr, OfflineReplica)
			empty = false
		}
	}
	if empty && !c.deleteTopicManager.IsPartitionToBeDeleted(tp) {
		return fmt.Errorf("%w: Failed to change state of replica %d for partition %s since the leader and isr path in zookeeper is empty",
			ErrStateChangeFailed, r.Replica, tpString(tp))
	}
	return nil
}

// AreAllReplicasForTopicDeleted reports whether every replica of topic is
// ReplicaDeletionSuccessful.
func (m *ReplicaStateMachine) AreAllReplicasForTopicDeleted(topic string) bool {
	for _, r := range m.controller.ctx.ReplicasForTopic(topic) {
		if m.State(r) != ReplicaDeletionSuccessful {
			return false
		}
	}
	return true
}

// IsAtLeastOneReplicaInDeletionStartedState reports whether a deletion of the
// topic is under way.
func (m *ReplicaStateMachine) IsAtLeastOneReplicaInDeletionStartedState(topic string) bool {
	for _, r := range m.controller.ctx.ReplicasForTopic(topic) {
		if m.State(r) == ReplicaDeletionStarted {
			return true
		}
	}
	return false
}

// ReplicasInState lists the topic's replicas in a state.
func (m *ReplicaStateMachine) ReplicasInState(topic string, state ReplicaState) []PartitionAndReplica {
	var out []PartitionAndReplica
	for r, st := range m.replicaState {
		if r.Topic == topic && st == state {
			out = append(out, r)
		}
	}
	sortReplicas(out)
	return out
}

// IsAnyReplicaInState reports whether a replica of topic is in state.
func (m *ReplicaStateMachine) IsAnyReplicaInState(topic string, state ReplicaState) bool {
	return len(m.ReplicasInState(topic, state)) > 0
}

// ReplicasInDeletionStates lists the topic's replicas in any deletion state.
func (m *ReplicaStateMachine) ReplicasInDeletionStates(topic string) []PartitionAndReplica {
	var out []PartitionAndReplica
	for r, st := range m.replicaState {
		if r.Topic == topic && (st == ReplicaDeletionStarted || st == ReplicaDeletionSuccessful || st == ReplicaDeletionIneligible) {
			out = append(out, r)
		}
	}
	sortReplicas(out)
	return out
}
