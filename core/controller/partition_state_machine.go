package controller

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// PartitionState is a partition's state in the controller. The numbers are
// Kafka's (PartitionState.state).
//
// Kafka 0.10.2: kafka.controller.PartitionState.
type PartitionState int8

// The partition states of 0.10.2.
const (
	NewPartition         PartitionState = 0
	OnlinePartition      PartitionState = 1
	OfflinePartition     PartitionState = 2
	NonExistentPartition PartitionState = 3
)

func (s PartitionState) String() string {
	switch s {
	case NewPartition:
		return "NewPartition"
	case OnlinePartition:
		return "OnlinePartition"
	case OfflinePartition:
		return "OfflinePartition"
	case NonExistentPartition:
		return "NonExistentPartition"
	}
	return fmt.Sprintf("PartitionState(%d)", int8(s))
}

// validPreviousPartitionStates is 0.10.2's transition table: the states a
// partition may be in before moving to target.
func validPreviousPartitionStates(target PartitionState) []PartitionState {
	switch target {
	case NewPartition:
		return []PartitionState{NonExistentPartition}
	case OnlinePartition, OfflinePartition:
		return []PartitionState{NewPartition, OnlinePartition, OfflinePartition}
	case NonExistentPartition:
		return []PartitionState{OfflinePartition}
	}
	return nil
}

func statesString[S fmt.Stringer](states []S) string {
	s := make([]string, len(states))
	for i, st := range states {
		s[i] = st.String()
	}
	return strings.Join(s, ",")
}

// PartitionStateMachine moves partitions between NonExistent, New, Online and
// Offline, electing leaders on the way to Online.
//
// Kafka 0.10.2: kafka.controller.PartitionStateMachine. Every method: caller
// holds controllerLock. A refused or failed transition is logged to the
// state-change log and returned; HandleStateChanges goes on with the other
// partitions, as Kafka does.
type PartitionStateMachine struct {
	controller         *KafkaController
	partitionState     map[common.TopicPartition]PartitionState
	brokerRequestBatch *ControllerBrokerRequestBatch
	hasStarted         bool
	noOpSelector       PartitionLeaderSelector

	topicChangeListener             *TopicChangeListener
	deleteTopicsListener            *DeleteTopicsListener
	partitionModificationsListeners map[string]*PartitionModificationsListener
}

func newPartitionStateMachine(c *KafkaController) *PartitionStateMachine {
	return &PartitionStateMachine{
		controller:                      c,
		partitionState:                  map[common.TopicPartition]PartitionState{},
		brokerRequestBatch:              newControllerBrokerRequestBatch(c),
		noOpSelector:                    &NoOpLeaderSelector{ctx: c.ctx, log: c.log},
		topicChangeListener:             &TopicChangeListener{c: c},
		deleteTopicsListener:            &DeleteTopicsListener{c: c},
		partitionModificationsListeners: map[string]*PartitionModificationsListener{},
	}
}

// Startup sets the initial states from the context and brings New and Offline
// partitions online.
func (m *PartitionStateMachine) Startup() {
	m.initializePartitionState()
	m.hasStarted = true
	m.TriggerOnlinePartitionStateChange()
	m.controller.log.Infof("Started partition state machine with initial state -> %d partitions", len(m.partitionState))
}

// RegisterListeners watches /brokers/topics and /admin/delete_topics.
func (m *PartitionStateMachine) RegisterListeners() error {
	zc := m.controller.zkUtils.ZkClient
	if _, err := zc.SubscribeChildChanges(zkutils.BrokerTopicsPath, m.topicChangeListener); err != nil {
		return err
	}
	_, err := zc.SubscribeChildChanges(zkutils.DeleteTopicsPath, m.deleteTopicsListener)
	return err
}

// DeregisterListeners drops the topic, deletion and per-topic listeners.
func (m *PartitionStateMachine) DeregisterListeners() {
	zc := m.controller.zkUtils.ZkClient
	zc.UnsubscribeChildChanges(zkutils.BrokerTopicsPath, m.topicChangeListener)
	for topic, l := range m.partitionModificationsListeners {
		zc.UnsubscribeDataChanges(zkutils.TopicPath(topic), l)
	}
	m.partitionModificationsListeners = map[string]*PartitionModificationsListener{}
	zc.UnsubscribeChildChanges(zkutils.DeleteTopicsPath, m.deleteTopicsListener)
}

// Shutdown forgets every state and listener.
func (m *PartitionStateMachine) Shutdown() {
	m.hasStarted = false
	m.partitionState = map[common.TopicPartition]PartitionState{}
	m.DeregisterListeners()
	m.controller.log.Info("Stopped partition state machine")
}

// RegisterPartitionChangeListener watches /brokers/topics/<topic> for added
// partitions.
func (m *PartitionStateMachine) RegisterPartitionChangeListener(topic string) error {
	if _, ok := m.partitionModificationsListeners[topic]; ok {
		return nil
	}
	l := &PartitionModificationsListener{c: m.controller, topic: topic}
	m.partitionModificationsListeners[topic] = l
	return m.controller.zkUtils.ZkClient.SubscribeDataChanges(zkutils.TopicPath(topic), l)
}

// DeregisterPartitionChangeListener stops watching a topic.
func (m *PartitionStateMachine) DeregisterPartitionChangeListener(topic string) {
	if l, ok := m.partitionModificationsListeners[topic]; ok {
		m.controller.zkUtils.ZkClient.UnsubscribeDataChanges(zkutils.TopicPath(topic), l)
		delete(m.partitionModificationsListeners, topic)
	}
}

// TriggerOnlinePartitionStateChange brings every New or Offline partition of a
// topic not queued for deletion online with the offline selector.
func (m *PartitionStateMachine) TriggerOnlinePartitionStateChange() {
	if err := m.brokerRequestBatch.NewBatch(); err != nil {
		m.controller.log.WithError(err).Error("Error while moving some partitions to the online state")
	}
	tps := make([]common.TopicPartition, 0, len(m.partitionState))
	for tp, st := range m.partitionState {
		if (st == OfflinePartition || st == NewPartition) && !m.controller.deleteTopicManager.IsTopicQueuedUpForDeletion(tp.Topic) {
			tps = append(tps, tp)
		}
	}
	sortTPs(tps)
	_ = m.handleOnlineStateChanges(tps, m.controller.offlinePartitionSelector)
	m.brokerRequestBatch.SendRequestsToBrokers(m.controller.ctx.Epoch)
}

// PartitionsInState lists the partitions in a state.
func (m *PartitionStateMachine) PartitionsInState(state PartitionState) []common.TopicPartition {
	var out []common.TopicPartition
	for tp, st := range m.partitionState {
		if st == state {
			out = append(out, tp)
		}
	}
	sortTPs(out)
	return out
}

// State returns a partition's state (NonExistentPartition if unknown).
func (m *PartitionStateMachine) State(tp common.TopicPartition) PartitionState {
	if st, ok := m.partitionState[tp]; ok {
		return st
	}
	return NonExistentPartition
}

// HandleStateChanges moves the partitions to targetState (selector nil means
// the NoOp selector) and sends the resulting requests. It returns the failures
// joined; the other partitions have moved.
func (m *PartitionStateMachine) HandleStateChanges(partitions []common.TopicPartition, target PartitionState, selector PartitionLeaderSelector) error {
	if selector == nil {
		selector = m.noOpSelector
	}
	tpsStr := make([]string, len(partitions))
	for i, tp := range partitions {
		tpsStr[i] = tpString(tp)
	}
	m.controller.log.Infof("Invoking state change to %s for partitions %s", target, strings.Join(tpsStr, ","))
	if err := m.brokerRequestBatch.NewBatch(); err != nil {
		m.controller.log.WithError(err).Errorf("Error while moving some partitions to %s state", target)
	}
	var errs []error
	if target == OnlinePartition {
		errs = m.handleOnlineStateChanges(partitions, selector)
	} else {
		for _, tp := range partitions {
			if err := m.handleStateChange(tp, target, selector); err != nil {
				errs = append(errs, err)
			}
		}
	}
	m.brokerRequestBatch.SendRequestsToBrokers(m.controller.ctx.Epoch)
	return errors.Join(errs...)
}

func (m *PartitionStateMachine) handleStateChange(tp common.TopicPartition, target PartitionState, selector PartitionLeaderSelector) error {
	c := m.controller
	id, epoch := c.config.BrokerID, c.ctx.Epoch
	if !m.hasStarted {
		err := fmt.Errorf("%w: Controller %d epoch %d initiated state change for partition %s to %s failed because the partition state machine has not started",
			ErrStateChangeFailed, id, epoch, tpString(tp), target)
		c.stateChangeLog.Error(err.Error())
		return err
	}
	curr, ok := m.partitionState[tp]
	if !ok {
		curr = NonExistentPartition
		m.partitionState[tp] = curr
	}
	err := m.transition(tp, curr, target, selector)
	if err != nil {
		c.stateChangeLog.WithError(err).Errorf("Controller %d epoch %d initiated state change for partition %s from %s to %s failed",
			id, epoch, tpString(tp), curr, target)
		return fmt.Errorf("partition %s from %s to %s: %w", tpString(tp), curr, target, err)
	}
	return nil
}

func (m *PartitionStateMachine) assertValidPreviousStates(tp common.TopicPartition, curr, target PartitionState) error {
	valid := validPreviousPartitionStates(target)
	if !slices.Contains(valid, curr) {
		return fmt.Errorf("%w: Partition %s should be in the %s states before moving to %s state. Instead it is in %s state",
			ErrIllegalState, tpString(tp), statesString(valid), target, curr)
	}
	return nil
}

func (m *PartitionStateMachine) transition(tp common.TopicPartition, curr, target PartitionState, selector PartitionLeaderSelector) error {
	c := m.controller
	id, epoch := c.config.BrokerID, c.ctx.Epoch
	if err := m.assertValidPreviousStates(tp, curr, target); err != nil {
		return err
	}
	switch target {
	case NewPartition:
		m.partitionState[tp] = NewPartition
		c.stateChangeLog.Tracef("Controller %d epoch %d changed partition %s state from %s to %s with assigned replicas %s",
			id, epoch, tpString(tp), curr, target, joinIDs(c.ctx.PartitionReplicaAssignment[tp]))
	case OnlinePartition:
		var err error
		if curr == NewPartition {
			err = m.initializeLeaderAndIsrForPartition(tp)
		} else {
			err = m.electLeaderForPartition(tp, selector)
		}
		if err != nil {
			return err
		}
		m.partitionState[tp] = OnlinePartition
		c.stateChangeLog.Tracef("Controller %d epoch %d changed partition %s from %s to %s with leader %d",
			id, epoch, tpString(tp), curr, target, c.ctx.PartitionLeadershipInfo[tp].LeaderAndIsr.Leader)
	case OfflinePartition, NonExistentPartition:
		c.stateChangeLog.Tracef("Controller %d epoch %d changed partition %s state from %s to %s", id, epoch, tpString(tp), curr, target)
		m.partitionState[tp] = target
	}
	return nil
}

// initializePartitionState: a partition with a live leader is Online, with a
// dead one Offline, without leader information New.
func (m *PartitionStateMachine) initializePartitionState() {
	ctx := m.controller.ctx
	for tp := range ctx.PartitionReplicaAssignment {
		l, ok := ctx.PartitionLeadershipInfo[tp]
		switch {
		case !ok:
			m.partitionState[tp] = NewPartition
		case ctx.isLive(l.LeaderAndIsr.Leader):
			m.partitionState[tp] = OnlinePartition
		default:
			m.partitionState[tp] = OfflinePartition
		}
	}
}

// initializeLeaderAndIsrForPartition creates the state znode of a new
// partition: the first live assigned replica leads, the live assigned replicas
// are the ISR.
func (m *PartitionStateMachine) initializeLeaderAndIsrForPartition(tp common.TopicPartition) error {
	c := m.controller
	assigned := c.ctx.PartitionReplicaAssignment[tp]
	live := filterIDs(assigned, c.ctx.isLive)
	if len(live) == 0 {
		msg := fmt.Sprintf("encountered error during state change of partition %s from New to Online, assigned replicas are [%s], live brokers are [%s]. No assigned replica is alive.",
			tpString(tp), joinIDs(assigned), joinIDs(c.ctx.LiveBrokerIds()))
		c.stateChangeLog.Errorf("Controller %d epoch %d %s", c.config.BrokerID, c.ctx.Epoch, msg)
		return fmt.Errorf("%w: %s", ErrStateChangeFailed, msg)
	}
	l := zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: zkutils.NewLeaderAndIsr(live[0], live), ControllerEpoch: c.ctx.Epoch}
	c.log.Debugf("Initializing leader and isr for partition %s to %s", tpString(tp), l)
	err := c.zkUtils.CreatePersistentPath(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition),
		zkutils.LeaderAndIsrZkData(l.LeaderAndIsr, c.ctx.Epoch))
	if errors.Is(err, zkclient.ErrNodeExists) {
		existing, _, _ := c.zkUtils.GetLeaderIsrAndEpochForPartition(tp.Topic, tp.Partition)
		msg := fmt.Sprintf("encountered error while changing partition %s's state from New to Online since LeaderAndIsr path already exists with value %s and controller epoch %d",
			tpString(tp), existing.LeaderAndIsr, existing.ControllerEpoch)
		c.stateChangeLog.Errorf("Controller %d epoch %d %s", c.config.BrokerID, c.ctx.Epoch, msg)
		return fmt.Errorf("%w: %s", ErrStateChangeFailed, msg)
	}
	if err != nil {
		return fmt.Errorf("%w: create state of %s: %w", ErrStateChangeFailed, tpString(tp), err)
	}
	c.ctx.PartitionLeadershipInfo[tp] = l
	m.brokerRequestBatch.AddLeaderAndIsrRequestForBrokers(live, tp, l, assigned)
	return nil
}

// electLeaderForPartition runs selector against the state znode, writes the
// result conditionally (re-reading and retrying on a version conflict), caches
// it and queues LeaderAndIsr to the replicas the selector names.
func (m *PartitionStateMachine) electLeaderForPartition(tp common.TopicPartition, selector PartitionLeaderSelector) error {
	c := m.controller
	c.stateChangeLog.Tracef("Controller %d epoch %d started leader election for partition %s", c.config.BrokerID, c.ctx.Epoch, tpString(tp))
	for {
		current, ok, err := c.zkUtils.GetLeaderIsrAndEpochForPartition(tp.Topic, tp.Partition)
		next, replicas, err := m.selectLeader(tp, selector, current, ok, err)
		if errors.Is(err, ErrLeaderElectionNotNeeded) {
			return nil
		}
		if err != nil {
			return err
		}
		okWrite, newVersion := c.zkUtils.UpdateLeaderAndIsr(tp.Topic, tp.Partition, next, c.ctx.Epoch, current.LeaderAndIsr.ZkVersion)
		if okWrite {
			m.leaderElected(tp, next, newVersion, replicas)
			return nil
		}
		if c.isShuttingDown() {
			return m.electionFailed(tp, errors.New("controller shutting down"))
		}
	}
}

// selectLeader is one pass of the election's loop before the write: it checks the
// state read from ZooKeeper (current, ok, readErr) and runs the selector. It returns
// ErrLeaderElectionNotNeeded as the selector does, and a failure already logged.
func (m *PartitionStateMachine) selectLeader(tp common.TopicPartition, selector PartitionLeaderSelector, current zkutils.LeaderIsrAndControllerEpoch, ok bool, readErr error) (zkutils.LeaderAndIsr, []int32, error) {
	c := m.controller
	id, epoch := c.config.BrokerID, c.ctx.Epoch
	if readErr != nil {
		return zkutils.LeaderAndIsr{}, nil, m.electionFailed(tp, readErr)
	}
	if !ok {
		return zkutils.LeaderAndIsr{}, nil, m.electionFailed(tp, fmt.Errorf("%w: LeaderAndIsr information doesn't exist for partition %s in %s state", ErrStateChangeFailed, tpString(tp), m.State(tp)))
	}
	if current.ControllerEpoch > epoch {
		msg := fmt.Sprintf("aborted leader election for partition %s since the LeaderAndIsr path was already written by another controller. This probably means that the current controller %d went through a soft failure and another controller was elected with epoch %d.",
			tpString(tp), id, current.ControllerEpoch)
		c.stateChangeLog.Errorf("Controller %d epoch %d %s", id, epoch, msg)
		return zkutils.LeaderAndIsr{}, nil, m.electionFailed(tp, fmt.Errorf("%w: %s", ErrStateChangeFailed, msg))
	}
	next, replicas, err := selector.SelectLeader(tp, current.LeaderAndIsr)
	if errors.Is(err, ErrLeaderElectionNotNeeded) {
		return next, replicas, err
	}
	if err != nil {
		return zkutils.LeaderAndIsr{}, nil, m.electionFailed(tp, err)
	}
	return next, replicas, nil
}

// electionFailed logs a failed election to the state-change log (a partition
// without a live replica is logged by its selector) and wraps the error.
func (m *PartitionStateMachine) electionFailed(tp common.TopicPartition, err error) error {
	if errors.Is(err, ErrNoReplicaOnline) {
		return err
	}
	c := m.controller
	msg := fmt.Sprintf("encountered error while electing leader for partition %s due to: %v.", tpString(tp), err)
	c.stateChangeLog.Errorf("Controller %d epoch %d %s", c.config.BrokerID, c.ctx.Epoch, msg)
	return fmt.Errorf("%w: %s", ErrStateChangeFailed, msg)
}

// leaderElected caches the leader and ISR written at zkVersion and queues
// LeaderAndIsr to the replicas the selector named.
func (m *PartitionStateMachine) leaderElected(tp common.TopicPartition, next zkutils.LeaderAndIsr, zkVersion int32, replicas []int32) {
	c := m.controller
	next.ZkVersion = zkVersion
	l := zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: next, ControllerEpoch: c.ctx.Epoch}
	c.ctx.PartitionLeadershipInfo[tp] = l
	c.stateChangeLog.Tracef("Controller %d epoch %d elected leader %d for Offline partition %s", c.config.BrokerID, c.ctx.Epoch, next.Leader, tpString(tp))
	m.brokerRequestBatch.AddLeaderAndIsrRequestForBrokers(replicas, tp, l, c.ctx.PartitionReplicaAssignment[tp])
}
