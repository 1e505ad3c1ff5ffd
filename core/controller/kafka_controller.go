package controller

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/server/brokerstate"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// The first controller epoch, and the znode version Kafka caches with it (1,
// although ZooKeeper holds 0: docs/formats.md §1.3).
//
// Kafka 0.10.2: kafka.controller.KafkaController.InitialControllerEpoch(ZkVersion).
const (
	InitialControllerEpoch          int32 = 1
	InitialControllerEpochZkVersion int32 = 1
)

// KafkaController is the controller module every broker runs: it takes part in
// the election on /controller and, while elected, manages partition leadership
// for the whole cluster.
//
// Kafka 0.10.2: kafka.controller.KafkaController. Go's mutex is not reentrant,
// so controllerLock is taken only at entry points (listeners, Startup,
// Shutdown, ShutdownBroker, the rebalance task, the deletion goroutine) and
// every other method expects it held (docs/locks.md §3).
type KafkaController struct {
	config         *config.KafkaConfig
	zkUtils        *zkutils.ZkUtils
	brokerState    *brokerstate.BrokerState
	time           common.Time
	log            *logrus.Entry
	stateChangeLog *logrus.Entry

	autoRebalanceScheduler utils.Scheduler

	controllerLock     sync.Mutex
	brokerShutdownLock sync.Mutex

	// InterBroker secures the controller's connections to the brokers (TLS, SASL) on a secured
	// inter-broker listener; set before Startup (nil: plaintext).
	InterBroker *security.InterBrokerSecurity

	ctx            *ControllerContext
	epoch          atomic.Int32 // copy of ctx.Epoch for goroutines that log without the lock
	channelManager *ControllerChannelManager
	isRunning      bool

	partitionStateMachine *PartitionStateMachine
	replicaStateMachine   *ReplicaStateMachine
	controllerElector     *zkutils.ZookeeperLeaderElector
	deleteTopicManager    *TopicDeletionManager
	brokerRequestBatch    *ControllerBrokerRequestBatch

	offlinePartitionSelector                  PartitionLeaderSelector
	reassignedPartitionLeaderSelector         PartitionLeaderSelector
	preferredReplicaPartitionLeaderSelector   PartitionLeaderSelector
	controlledShutdownPartitionLeaderSelector PartitionLeaderSelector

	partitionReassignedListener      *PartitionsReassignedListener
	preferredReplicaElectionListener *PreferredReplicaElectionListener
	isrChangeNotificationListener    *IsrChangeNotificationListener

	// UncleanLeaderElections counts unclean elections (Kafka's
	// ControllerStats.uncleanLeaderElectionRate).
	UncleanLeaderElections atomic.Int64
	// stats are the ControllerStats meters (controller_metrics.go; nil until RegisterMetrics).
	stats atomic.Pointer[controllerStats]
}

// NewKafkaController builds the controller module of broker cfg.BrokerID.
//   - brokerState (may be nil) is set to RunningAsBroker on resignation, as
//     in 0.10.2, which never sets RunningAsController.
//   - autoRebalanceScheduler (may be nil: no rebalance task) runs the
//     preferred-leader rebalance task while this broker is controller; give
//     it a scheduler of its own (utils.NewKafkaScheduler(1, ...), as Kafka's
//     controller owns one), because resignation shuts it down.
//   - log is for kafka.controller (controller.log), stateChangeLog is the
//     state.change.logger (state-change.log); nil discards.
func NewKafkaController(cfg *config.KafkaConfig, zkUtils *zkutils.ZkUtils, brokerState *brokerstate.BrokerState, clock common.Time,
	autoRebalanceScheduler utils.Scheduler, log *logrus.Entry, stateChangeLog *logrus.Entry) *KafkaController {
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = logrus.NewEntry(l)
	}
	if stateChangeLog == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		stateChangeLog = logrus.NewEntry(l)
	}
	c := &KafkaController{
		config: cfg, zkUtils: zkUtils, brokerState: brokerState, time: clock,
		log:                    log.WithField("logger", "kafka.controller.KafkaController").WithField("ident", fmt.Sprintf("[Controller %d]: ", cfg.BrokerID)),
		stateChangeLog:         stateChangeLog,
		autoRebalanceScheduler: autoRebalanceScheduler,
		ctx:                    NewControllerContext(),
		isRunning:              true,
	}
	c.deleteTopicManager = newTopicDeletionManager(c, nil, nil)
	c.brokerRequestBatch = newControllerBrokerRequestBatch(c)
	c.offlinePartitionSelector = &OfflinePartitionLeaderSelector{ctx: c.ctx, uncleanLeaderElectionEnable: c.uncleanLeaderElectionEnable,
		log: c.log.WithField("logger", "kafka.controller.OfflinePartitionLeaderSelector"), onUncleanElection: c.markUncleanLeaderElection}
	c.reassignedPartitionLeaderSelector = &ReassignedPartitionLeaderSelector{ctx: c.ctx}
	c.preferredReplicaPartitionLeaderSelector = &PreferredReplicaPartitionLeaderSelector{ctx: c.ctx, log: c.log}
	c.controlledShutdownPartitionLeaderSelector = &ControlledShutdownLeaderSelector{ctx: c.ctx, log: c.log}
	c.partitionStateMachine = newPartitionStateMachine(c)
	c.replicaStateMachine = newReplicaStateMachine(c)
	c.partitionReassignedListener = &PartitionsReassignedListener{c: c}
	c.preferredReplicaElectionListener = &PreferredReplicaElectionListener{c: c}
	c.isrChangeNotificationListener = &IsrChangeNotificationListener{c: c}
	c.controllerElector = zkutils.NewZookeeperLeaderElector(zkUtils, zkutils.ControllerPath, cfg.BrokerID,
		c.onControllerFailover, c.onControllerResignation, &c.controllerLock)
	return c
}

// Startup joins the controller election (which also re-elects after a
// ZooKeeper session expiry). KafkaServer calls it after the SocketServer and
// the ReplicaManager are up.
func (c *KafkaController) Startup() error {
	c.controllerLock.Lock()
	c.log.Info("Controller starting up")
	c.isRunning = true
	c.controllerLock.Unlock()
	if err := c.controllerElector.Startup(); err != nil {
		return err
	}
	c.log.Info("Controller startup complete")
	return nil
}

// Shutdown leaves the election and, if this broker is the controller, resigns
// (the /controller node goes with the session).
func (c *KafkaController) Shutdown() {
	c.controllerLock.Lock()
	c.isRunning = false
	c.controllerLock.Unlock()
	c.controllerElector.Close()
	c.onControllerResignation()
}

// IsActive reports whether this broker is the controller.
func (c *KafkaController) IsActive() bool {
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	return c.channelManager != nil
}

// Epoch is the controller epoch (0 when not controller).
func (c *KafkaController) Epoch() int32 { return c.epoch.Load() }

// isActive: caller holds controllerLock.
func (c *KafkaController) isActive() bool { return c.channelManager != nil }

// isShuttingDown: caller holds controllerLock.
func (c *KafkaController) isShuttingDown() bool { return !c.isRunning }

func (c *KafkaController) setEpoch(epoch, zkVersion int32) {
	c.ctx.Epoch, c.ctx.EpochZkVersion = epoch, zkVersion
	c.epoch.Store(epoch)
}

// uncleanLeaderElectionEnable is the topic's unclean.leader.election.enable:
// its override in /config/topics/<topic>, else the broker's setting.
func (c *KafkaController) uncleanLeaderElectionEnable(topic string) bool {
	def := c.config.UncleanLeaderElectionEnable
	cfg, err := c.zkUtils.FetchEntityConfig(zkutils.ConfigTypeTopic, topic)
	if err != nil {
		c.log.WithError(err).Warnf("cannot read the config of topic %s; using the broker default", topic)
		return def
	}
	if v, ok := cfg["unclean.leader.election.enable"]; ok {
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return def
}

// onControllerFailover makes this broker the controller (called by the
// elector with controllerLock held). An error makes the elector resign.
func (c *KafkaController) onControllerFailover() error {
	err := c.doControllerFailover()
	if err != nil {
		c.abortFailover()
	}
	return err
}

// abortFailover undoes a failover that failed half way. The elector only
// deletes /controller then (as Kafka's does), so without this the listeners
// and send goroutines started so far would outlive the leadership. Caller
// holds controllerLock; the deletion goroutine and the rebalance task are
// started last and never need stopping here.
func (c *KafkaController) abortFailover() {
	zc := c.zkUtils.ZkClient
	zc.UnsubscribeChildChanges(zkutils.IsrChangeNotificationPath, c.isrChangeNotificationListener)
	zc.UnsubscribeDataChanges(zkutils.ReassignPartitionsPath, c.partitionReassignedListener)
	zc.UnsubscribeDataChanges(zkutils.PreferredReplicaLeaderElectionPath, c.preferredReplicaElectionListener)
	c.partitionStateMachine.Shutdown()
	c.replicaStateMachine.Shutdown()
	if c.channelManager != nil {
		c.channelManager.Shutdown()
		c.channelManager = nil
	}
	c.ctx.PartitionsBeingReassigned = map[common.TopicPartition]*ReassignedPartitionsContext{}
	c.ctx.PartitionsUndergoingPreferredReplicaElection = map[common.TopicPartition]struct{}{}
	c.setEpoch(0, 0)
}

func (c *KafkaController) doControllerFailover() error {
	if !c.isRunning {
		c.log.Info("Controller has been shut down, aborting startup/failover")
		return nil
	}
	c.log.Infof("Broker %d starting become controller state transition", c.config.BrokerID)
	if err := c.readControllerEpochFromZookeeper(); err != nil {
		return err
	}
	if err := c.incrementControllerEpoch(); err != nil {
		return err
	}
	// Listeners first: changes made while the context loads are delivered
	// afterwards (their handlers wait for controllerLock).
	zc := c.zkUtils.ZkClient
	if err := zc.SubscribeDataChanges(zkutils.ReassignPartitionsPath, c.partitionReassignedListener); err != nil {
		return err
	}
	if _, err := zc.SubscribeChildChanges(zkutils.IsrChangeNotificationPath, c.isrChangeNotificationListener); err != nil {
		return err
	}
	if err := zc.SubscribeDataChanges(zkutils.PreferredReplicaLeaderElectionPath, c.preferredReplicaElectionListener); err != nil {
		return err
	}
	if err := c.partitionStateMachine.RegisterListeners(); err != nil {
		return err
	}
	if err := c.replicaStateMachine.RegisterListeners(); err != nil {
		return err
	}
	if err := c.initializeControllerContext(); err != nil {
		return err
	}
	// Brokers learn the live brokers and leaders before any LeaderAndIsr.
	if err := c.sendUpdateMetadataRequest(c.ctx.LiveOrShuttingDownBrokerIds(), nil); err != nil {
		return err
	}
	c.replicaStateMachine.Startup()
	c.partitionStateMachine.Startup()
	for _, topic := range sortedKeys(c.ctx.AllTopics) {
		if err := c.partitionStateMachine.RegisterPartitionChangeListener(topic); err != nil {
			return err
		}
	}
	c.log.Infof("Broker %d is ready to serve as the new controller with epoch %d", c.config.BrokerID, c.ctx.Epoch)
	c.maybeTriggerPartitionReassignment()
	c.onPreferredReplicaElection(sortedPartitions(c.ctx.PartitionsUndergoingPreferredReplicaElection), false)
	if c.config.AutoLeaderRebalanceEnable && c.autoRebalanceScheduler != nil {
		c.log.Info("starting the partition rebalance scheduler")
		c.autoRebalanceScheduler.Startup()
		interval := time.Duration(c.config.LeaderImbalanceCheckIntervalSeconds) * time.Second
		c.autoRebalanceScheduler.Schedule("partition-rebalance-thread", c.autoRebalanceTask, 5*time.Second, interval)
	}
	c.deleteTopicManager.Start()
	return nil
}

// onControllerResignation gives up every controller duty; called without
// controllerLock (by the elector, or by Shutdown).
func (c *KafkaController) onControllerResignation() {
	c.log.Debugf("Controller resigning, broker id %d", c.config.BrokerID)
	zc := c.zkUtils.ZkClient
	zc.UnsubscribeChildChanges(zkutils.IsrChangeNotificationPath, c.isrChangeNotificationListener)
	zc.UnsubscribeDataChanges(zkutils.ReassignPartitionsPath, c.partitionReassignedListener)
	zc.UnsubscribeDataChanges(zkutils.PreferredReplicaLeaderElectionPath, c.preferredReplicaElectionListener)
	// The deletion goroutine and the rebalance task take controllerLock:
	// stop them before taking it.
	c.controllerLock.Lock()
	dtm := c.deleteTopicManager
	c.controllerLock.Unlock()
	dtm.Shutdown()
	if c.config.AutoLeaderRebalanceEnable && c.autoRebalanceScheduler != nil {
		c.autoRebalanceScheduler.Shutdown()
	}
	c.controllerLock.Lock()
	defer c.controllerLock.Unlock()
	for tp, rc := range c.ctx.PartitionsBeingReassigned {
		if rc.isrChangeListener != nil {
			zc.UnsubscribeDataChanges(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition), rc.isrChangeListener)
		}
	}
	c.partitionStateMachine.Shutdown()
	c.replicaStateMachine.Shutdown()
	wasActive := c.channelManager != nil
	if wasActive {
		c.channelManager.Shutdown()
		c.channelManager = nil
	}
	// Kafka keeps the rest of the context until the next failover reloads
	// it; in-progress reassignments and elections are forgotten here so
	// that a later failover starts from ZooKeeper only.
	c.ctx.PartitionsBeingReassigned = map[common.TopicPartition]*ReassignedPartitionsContext{}
	c.ctx.PartitionsUndergoingPreferredReplicaElection = map[common.TopicPartition]struct{}{}
	c.setEpoch(0, 0)
	if c.brokerState != nil {
		c.brokerState.NewState(brokerstate.RunningAsBroker)
	}
	if wasActive {
		c.log.Infof("Broker %d resigned as the controller", c.config.BrokerID)
	}
}

func (c *KafkaController) readControllerEpochFromZookeeper() error {
	data, st, ok, err := c.zkUtils.ReadDataMaybeNull(zkutils.ControllerEpochPath)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	epoch, err := zkutils.ParseControllerEpoch(data)
	if err != nil {
		return err
	}
	c.setEpoch(epoch, st.Version)
	c.log.Infof("Initialized controller epoch to %d and zk version %d", epoch, st.Version)
	return nil
}

// incrementControllerEpoch writes epoch+1 conditionally on the version just
// read, or creates the node with 1. As in 0.10.2, a failed conditional write
// is only logged and failover goes on with the epoch read (docs/formats.md §1.3);
// losing the race to create the node aborts the failover.
func (c *KafkaController) incrementControllerEpoch() error {
	newEpoch := c.ctx.Epoch + 1
	ok, newVersion, err := c.zkUtils.ConditionalUpdatePersistentPathIfExists(zkutils.ControllerEpochPath,
		zkutils.ControllerEpochZkData(newEpoch), c.ctx.EpochZkVersion)
	switch {
	case errors.Is(err, zkclient.ErrNoNode):
		err := c.zkUtils.ZkClient.CreatePersistent(zkutils.ControllerEpochPath, zkutils.ControllerEpochZkData(InitialControllerEpoch), false)
		if errors.Is(err, zkclient.ErrNodeExists) {
			return fmt.Errorf("%w: Controller moved to another broker. Aborting controller startup procedure", ErrControllerMoved)
		}
		if err != nil {
			c.log.WithError(err).Error("Error while incrementing controller epoch")
		} else {
			// Kafka caches version 1 here although ZooKeeper holds 0 (docs/formats.md §1.3).
			c.setEpoch(InitialControllerEpoch, InitialControllerEpochZkVersion)
		}
	case err != nil:
		c.log.WithError(err).Error("Error while incrementing controller epoch")
	case !ok:
		c.log.WithError(fmt.Errorf("%w: Controller moved to another broker. Aborting controller startup procedure", ErrControllerMoved)).
			Error("Error while incrementing controller epoch")
	default:
		c.setEpoch(newEpoch, newVersion)
	}
	c.log.Infof("Controller %d incremented epoch to %d", c.config.BrokerID, c.ctx.Epoch)
	return nil
}

// initializeControllerContext loads the cluster from ZooKeeper and opens the
// channels to the live brokers.
func (c *KafkaController) initializeControllerContext() error {
	brokers, err := c.zkUtils.GetAllBrokersInCluster()
	if err != nil {
		return err
	}
	c.ctx.SetLiveBrokers(brokers)
	c.ctx.LiveBrokerEpochs = map[int32]int64{}
	for _, b := range brokers {
		if _, epoch, ok, err := c.zkUtils.GetBrokerInfoAndEpoch(b.ID); err == nil && ok {
			c.ctx.LiveBrokerEpochs[b.ID] = epoch
		}
	}
	topics, err := c.zkUtils.GetAllTopics()
	if err != nil {
		return err
	}
	c.ctx.AllTopics = map[string]struct{}{}
	for _, t := range topics {
		c.ctx.AllTopics[t] = struct{}{}
	}
	assignment, err := c.zkUtils.GetReplicaAssignmentForTopics(topics)
	if err != nil {
		return err
	}
	c.ctx.PartitionReplicaAssignment = assignment
	c.ctx.PartitionLeadershipInfo = map[common.TopicPartition]zkutils.LeaderIsrAndControllerEpoch{}
	c.ctx.ShuttingDownBrokerIds = map[int32]struct{}{}
	if err := c.updateLeaderAndIsrCache(c.ctx.allPartitions()); err != nil {
		return err
	}
	c.startChannelManager()
	if err := c.initializePreferredReplicaElection(); err != nil {
		return err
	}
	if err := c.initializePartitionReassignment(); err != nil {
		return err
	}
	if err := c.initializeTopicDeletion(); err != nil {
		return err
	}
	c.log.Infof("Currently active brokers in the cluster: %v", c.ctx.LiveBrokerIds())
	c.log.Infof("Currently shutting brokers in the cluster: %v", sortedKeys(c.ctx.ShuttingDownBrokerIds))
	c.log.Infof("Current list of topics in the cluster: %v", sortedKeys(c.ctx.AllTopics))
	return nil
}

func (c *KafkaController) startChannelManager() {
	timeout := time.Duration(c.config.ControllerSocketTimeoutMs) * time.Millisecond
	requestTimeout := time.Duration(c.config.RequestTimeoutMs) * time.Millisecond
	c.channelManager = newControllerChannelManager(c.config.BrokerID, c.epoch.Load, c.config.InterBrokerListenerName, timeout, requestTimeout,
		c.ctx.LiveOrShuttingDownBrokers(), c.log, c.stateChangeLog, c.InterBroker)
	c.channelManager.Startup()
}

// updateLeaderAndIsrCache refreshes the leadership cache from the state znodes.
func (c *KafkaController) updateLeaderAndIsrCache(partitions []common.TopicPartition) error {
	info, err := c.zkUtils.GetPartitionLeaderAndIsrForTopics(partitions)
	if err != nil {
		return err
	}
	for tp, l := range info {
		c.ctx.PartitionLeadershipInfo[tp] = l
	}
	return nil
}

func (c *KafkaController) initializeTopicDeletion() error {
	queued, err := c.zkUtils.GetChildrenParentMayNotExist(zkutils.DeleteTopicsPath)
	if err != nil {
		return err
	}
	ineligible := map[string]struct{}{}
	for tp, replicas := range c.ctx.PartitionReplicaAssignment {
		for _, r := range replicas {
			if !c.ctx.isLive(r) {
				ineligible[tp.Topic] = struct{}{}
			}
		}
	}
	for tp := range c.ctx.PartitionsBeingReassigned {
		ineligible[tp.Topic] = struct{}{}
	}
	for tp := range c.ctx.PartitionsUndergoingPreferredReplicaElection {
		ineligible[tp.Topic] = struct{}{}
	}
	c.log.Infof("List of topics to be deleted: %v", queued)
	c.log.Infof("List of topics ineligible for deletion: %v", sortedKeys(ineligible))
	c.deleteTopicManager = newTopicDeletionManager(c, queued, ineligible)
	return nil
}

// onNewTopicCreation watches the new topics for added partitions and brings
// their partitions online.
func (c *KafkaController) onNewTopicCreation(topics []string, newPartitions []common.TopicPartition) {
	c.log.Infof("New topic creation callback for %v", newPartitions)
	for _, t := range topics {
		if err := c.partitionStateMachine.RegisterPartitionChangeListener(t); err != nil {
			c.log.WithError(err).Errorf("cannot watch topic %s", t)
		}
	}
	c.onNewPartitionCreation(newPartitions)
}

// onNewPartitionCreation: New, then replicas New, then Online with a leader,
// then replicas Online.
func (c *KafkaController) onNewPartitionCreation(newPartitions []common.TopicPartition) {
	c.log.Infof("New partition creation callback for %v", newPartitions)
	_ = c.partitionStateMachine.HandleStateChanges(newPartitions, NewPartition, nil)
	_ = c.replicaStateMachine.HandleStateChanges(c.ctx.ReplicasForPartition(newPartitions), NewReplica, nil)
	_ = c.partitionStateMachine.HandleStateChanges(newPartitions, OnlinePartition, c.offlinePartitionSelector)
	_ = c.replicaStateMachine.HandleStateChanges(c.ctx.ReplicasForPartition(newPartitions), OnlineReplica, nil)
}

// removeReplicaFromIsr takes a replica out of a partition's ISR in ZooKeeper
// (conditional write, retried); a leader leaving sets the leader to -1, and
// the last ISR member is kept when unclean election is off. ok is false when
// the partition has no state znode.
func (c *KafkaController) removeReplicaFromIsr(topic string, partition, replicaID int32) (zkutils.LeaderIsrAndControllerEpoch, bool, error) {
	tp := common.TopicPartition{Topic: topic, Partition: partition}
	c.log.Debugf("Removing replica %d from ISR %v for partition %s.", replicaID, c.ctx.PartitionLeadershipInfo[tp].LeaderAndIsr.Isr, tpString(tp))
	for {
		cur, ok, err := c.zkUtils.GetLeaderIsrAndEpochForPartition(topic, partition)
		step := c.isrRemovalStep(tp, replicaID, cur, ok, err)
		if step.done {
			return step.final, step.ok, step.err
		}
		okWrite, newVersion := c.zkUtils.UpdateLeaderAndIsr(topic, partition, step.next, c.ctx.Epoch, step.version)
		if final, done := c.isrRemovalWritten(tp, step.next, okWrite, newVersion); done {
			return final, true, nil
		}
		if c.isShuttingDown() {
			return zkutils.LeaderIsrAndControllerEpoch{}, false, errors.New("controller shutting down")
		}
	}
}

// isrRemoval is one pass of removeReplicaFromIsr's loop up to its write: either
// the outcome (done) or the state to write conditionally on version.
type isrRemoval struct {
	done    bool
	final   zkutils.LeaderIsrAndControllerEpoch
	ok      bool
	err     error
	next    zkutils.LeaderAndIsr
	version int32
}

// isrRemovalStep decides, from the state znode as read (cur, ok, readErr), what
// taking replicaID out of tp's ISR needs.
func (c *KafkaController) isrRemovalStep(tp common.TopicPartition, replicaID int32, cur zkutils.LeaderIsrAndControllerEpoch, ok bool, readErr error) isrRemoval {
	epoch := c.ctx.Epoch
	if readErr != nil {
		return isrRemoval{done: true, err: readErr}
	}
	if !ok {
		c.log.Warnf("Cannot remove replica %d from ISR of %s - leaderAndIsr is empty.", replicaID, tpString(tp))
		return isrRemoval{done: true}
	}
	if cur.ControllerEpoch > epoch {
		return isrRemoval{done: true, err: fmt.Errorf("%w: Leader and isr path written by another controller. This probably means the current controller with epoch %d went through a soft failure and another controller was elected with epoch %d. Aborting state change by this controller",
			ErrStateChangeFailed, epoch, cur.ControllerEpoch)}
	}
	l := cur.LeaderAndIsr
	if !containsID(l.Isr, replicaID) {
		c.log.Warnf("Cannot remove replica %d from ISR of partition %s since it is not in the ISR. Leader = %d ; ISR = %v", replicaID, tpString(tp), l.Leader, l.Isr)
		final := zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: l, ControllerEpoch: epoch}
		c.ctx.PartitionLeadershipInfo[tp] = final
		return isrRemoval{done: true, final: final, ok: true}
	}
	newLeader := l.Leader
	if replicaID == l.Leader {
		newLeader = zkutils.NoLeader
	}
	newIsr := filterIDs(l.Isr, func(r int32) bool { return r != replicaID })
	if len(newIsr) == 0 && !c.uncleanLeaderElectionEnable(tp.Topic) {
		c.log.Infof("Retaining last ISR %d of partition %s since unclean leader election is disabled", replicaID, tpString(tp))
		newIsr = l.Isr
	}
	return isrRemoval{next: zkutils.LeaderAndIsr{Leader: newLeader, LeaderEpoch: l.LeaderEpoch + 1, Isr: newIsr}, version: l.ZkVersion}
}

// isrRemovalWritten caches the result of the conditional write of next (as
// 0.10.2 does, whether or not it succeeded) and reports whether it did.
func (c *KafkaController) isrRemovalWritten(tp common.TopicPartition, next zkutils.LeaderAndIsr, okWrite bool, newVersion int32) (zkutils.LeaderIsrAndControllerEpoch, bool) {
	next.ZkVersion = newVersion
	final := zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: next, ControllerEpoch: c.ctx.Epoch}
	c.ctx.PartitionLeadershipInfo[tp] = final
	if okWrite {
		c.log.Infof("New leader and ISR for partition %s is %s", tpString(tp), next)
	}
	return final, okWrite
}

// updateLeaderEpoch bumps the leader epoch in ZooKeeper with leader and ISR
// unchanged (used by reassignment so the leader picks up the new replica list).
func (c *KafkaController) updateLeaderEpoch(topic string, partition int32) (zkutils.LeaderIsrAndControllerEpoch, error) {
	tp := common.TopicPartition{Topic: topic, Partition: partition}
	c.log.Debugf("Updating leader epoch for partition %s.", tpString(tp))
	epoch := c.ctx.Epoch
	for {
		cur, ok, err := c.zkUtils.GetLeaderIsrAndEpochForPartition(topic, partition)
		if err != nil {
			return zkutils.LeaderIsrAndControllerEpoch{}, err
		}
		if !ok {
			return zkutils.LeaderIsrAndControllerEpoch{}, fmt.Errorf("%w: Cannot update leader epoch for partition %s as leaderAndIsr path is empty. This could mean we somehow tried to reassign a partition that doesn't exist",
				ErrIllegalState, tpString(tp))
		}
		if cur.ControllerEpoch > epoch {
			return zkutils.LeaderIsrAndControllerEpoch{}, fmt.Errorf("%w: Leader and isr path written by another controller. This probably means the current controller with epoch %d went through a soft failure and another controller was elected with epoch %d. Aborting state change by this controller",
				ErrStateChangeFailed, epoch, cur.ControllerEpoch)
		}
		l := cur.LeaderAndIsr
		next := zkutils.LeaderAndIsr{Leader: l.Leader, LeaderEpoch: l.LeaderEpoch + 1, Isr: l.Isr}
		okWrite, newVersion := c.zkUtils.UpdateLeaderAndIsr(topic, partition, next, epoch, l.ZkVersion)
		next.ZkVersion = newVersion
		if okWrite {
			c.log.Infof("Updated leader epoch for partition %s to %d", tpString(tp), next.LeaderEpoch)
			return zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: next, ControllerEpoch: epoch}, nil
		}
		if c.isShuttingDown() {
			return zkutils.LeaderIsrAndControllerEpoch{}, errors.New("controller shutting down")
		}
	}
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func sortedKeys[K int32 | string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedPartitionKeys[V any](m map[common.TopicPartition]V) []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sortTPs(out)
	return out
}
