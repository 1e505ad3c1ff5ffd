package coordinator

import (
	"context"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/core/utils/timer"
)

// JoinGroupMember is one member's metadata in the leader's JoinGroup response.
type JoinGroupMember struct {
	MemberID string
	Metadata []byte
}

// JoinGroupResult is a JoinGroup answer.
//
// Kafka 0.10.2: kafka.coordinator.JoinGroupResult.
type JoinGroupResult struct {
	Members      []JoinGroupMember // only for the leader
	MemberID     string
	GenerationID int32
	SubProtocol  string
	LeaderID     string
	ErrorCode    int16
}

// JoinCallback receives a JoinGroup answer (called with the group's lock held: it must not
// call back into the coordinator).
type JoinCallback func(JoinGroupResult)

// SyncCallback receives a SyncGroup answer (same rule as JoinCallback).
type SyncCallback func(assignment []byte, errorCode int16)

// GroupCoordinator runs the group membership protocol for the groups whose __consumer_offsets
// partition this broker leads, and their offset commits and fetches.
//
// Kafka 0.10.2: kafka.coordinator.GroupCoordinator. OffsetCommit/OffsetFetch v0 (ZooKeeper
// storage) never reach it: KafkaApis serves them, as 0.10.2 does.
type GroupCoordinator struct {
	brokerID           int32
	groupConfig        GroupConfig
	offsetConfig       OffsetConfig
	groupManager       *GroupMetadataManager
	heartbeatPurgatory *purgatory.DelayedOperationPurgatory[*DelayedHeartbeat]
	joinPurgatory      *purgatory.DelayedOperationPurgatory[*DelayedJoin]
	time               common.Time
	logger             *logrus.Entry
	isActive           atomic.Bool
}

// GroupCoordinatorConfig gathers the coordinator's dependencies.
type GroupCoordinatorConfig struct {
	BrokerID     int32
	GroupConfig  GroupConfig
	OffsetConfig OffsetConfig
	GroupManager *GroupMetadataManager
	// Timer, if set, backs both purgatories (tests pass a timer.MockTimer; the reapers are then
	// off). Otherwise each purgatory gets its own SystemTimer ("Heartbeat", "Rebalance").
	Timer  timer.Timer
	Time   common.Time
	Logger *logrus.Entry
}

// NewGroupCoordinator makes the coordinator (inactive until Startup).
func NewGroupCoordinator(c GroupCoordinatorConfig) *GroupCoordinator {
	if c.Logger == nil {
		c.Logger = discardEntry()
	}
	if c.Time == nil {
		c.Time = common.SystemTime{}
	}
	logger := c.Logger.WithField("logger", "kafka.coordinator.GroupCoordinator").
		WithField("ident", "[GroupCoordinator "+itoa(int64(c.BrokerID))+"]: ")
	gc := &GroupCoordinator{brokerID: c.BrokerID, groupConfig: c.GroupConfig, offsetConfig: c.OffsetConfig,
		groupManager: c.GroupManager, time: c.Time, logger: logger}
	if c.Timer != nil {
		gc.heartbeatPurgatory = purgatory.NewDelayedOperationPurgatoryWithTimer[*DelayedHeartbeat]("Heartbeat", c.Timer, c.BrokerID, 1000, false, logger)
		gc.joinPurgatory = purgatory.NewDelayedOperationPurgatoryWithTimer[*DelayedJoin]("Rebalance", c.Timer, c.BrokerID, 1000, false, logger)
	} else {
		gc.heartbeatPurgatory = purgatory.NewDelayedOperationPurgatory[*DelayedHeartbeat]("Heartbeat", c.BrokerID, 1000, c.Time, logger)
		gc.joinPurgatory = purgatory.NewDelayedOperationPurgatory[*DelayedJoin]("Rebalance", c.BrokerID, 1000, c.Time, logger)
	}
	return gc
}

// Startup activates the coordinator (and the offset expiry task when enableMetadataExpiration).
func (c *GroupCoordinator) Startup(enableMetadataExpiration bool) {
	c.logger.Info("Starting up.")
	c.groupManager.Startup()
	if enableMetadataExpiration {
		c.groupManager.EnableMetadataExpiration()
	}
	c.isActive.Store(true)
	c.logger.Info("Startup complete.")
}

// Shutdown deactivates the coordinator and stops the manager and the purgatories.
func (c *GroupCoordinator) Shutdown() {
	c.logger.Info("Shutting down.")
	c.isActive.Store(false)
	c.groupManager.Shutdown()
	_ = c.heartbeatPurgatory.Shutdown(context.Background())
	_ = c.joinPurgatory.Shutdown(context.Background())
	c.logger.Info("Shutdown complete.")
}

// IsActive reports whether the coordinator is between Startup and Shutdown.
func (c *GroupCoordinator) IsActive() bool { return c.isActive.Load() }

// GroupManager is the coordinator's metadata manager.
func (c *GroupCoordinator) GroupManager() *GroupMetadataManager { return c.groupManager }

// OffsetConfig is the coordinator's offsets configuration.
func (c *GroupCoordinator) OffsetConfig() OffsetConfig { return c.offsetConfig }

// PartitionFor is the group's __consumer_offsets partition.
func (c *GroupCoordinator) PartitionFor(groupID string) int32 {
	return c.groupManager.PartitionFor(groupID)
}

func joinError(memberID string, code int16) JoinGroupResult {
	return JoinGroupResult{MemberID: memberID, ErrorCode: code}
}

// unlockGroup releases g.mu and then runs the appends prepared under it.
func (c *GroupCoordinator) unlockGroup(g *GroupMetadata) {
	stores := g.delayedStores
	g.delayedStores = nil
	g.mu.Unlock()
	for _, ds := range stores {
		c.groupManager.Store(ds)
	}
}

func queueStore(g *GroupMetadata, ds *DelayedStore) {
	if ds != nil {
		g.delayedStores = append(g.delayedStores, ds)
	}
}

// HandleListGroups lists the cached groups (GROUP_LOAD_IN_PROGRESS while any partition loads).
func (c *GroupCoordinator) HandleListGroups() (int16, []GroupOverview) {
	if !c.IsActive() {
		return protocol.ErrGroupCoordinatorNotAvailable.Code, nil
	}
	var code int16
	if c.groupManager.IsLoading() {
		code = protocol.ErrGroupLoadInProgress.Code
	}
	var out []GroupOverview
	for _, g := range c.groupManager.CurrentGroups() {
		g.mu.Lock()
		out = append(out, g.Overview())
		g.mu.Unlock()
	}
	return code, out
}

// HandleDescribeGroup describes one group (an unknown group is "Dead").
func (c *GroupCoordinator) HandleDescribeGroup(groupID string) (int16, GroupSummary) {
	switch {
	case !c.IsActive():
		return protocol.ErrGroupCoordinatorNotAvailable.Code, GroupSummary{}
	case !c.groupManager.IsGroupLocal(groupID):
		return protocol.ErrNotCoordinatorForGroup.Code, GroupSummary{}
	case c.groupManager.IsGroupLoading(groupID):
		return protocol.ErrGroupLoadInProgress.Code, GroupSummary{}
	}
	g := c.groupManager.GetGroup(groupID)
	if g == nil {
		return 0, GroupSummary{State: Dead.String()}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return 0, g.Summary()
}

// HandleDeletedPartitions drops the offsets of deleted topic partitions (UpdateMetadata).
func (c *GroupCoordinator) HandleDeletedPartitions(tps []common.TopicPartition) {
	if tps == nil {
		tps = []common.TopicPartition{}
	}
	c.groupManager.CleanupGroupMetadata(tps)
}

// onGroupUnloaded: the group moves to another coordinator. It becomes Dead; parked JoinGroups
// or SyncGroups are told NOT_COORDINATOR_FOR_GROUP.
func (c *GroupCoordinator) onGroupUnloaded(g *GroupMetadata) {
	g.mu.Lock()
	defer c.unlockGroup(g)
	c.logger.Infof("Unloading group metadata for %s with generation %d", g.GroupID, g.generationID)
	prev := g.state
	members := g.AllMemberMetadata()
	g.mustTransitionTo(Dead)
	switch prev {
	case Empty, Dead:
	case PreparingRebalance:
		for _, m := range g.AllMemberMetadata() {
			if cb := m.awaitingJoinCallback; cb != nil {
				m.awaitingJoinCallback = nil
				cb(joinError(m.MemberID, protocol.ErrNotCoordinatorForGroup.Code))
			}
		}
		c.joinPurgatory.CheckAndComplete(purgatory.GroupKey{GroupID: g.GroupID})
	case Stable, AwaitingSync:
		for _, m := range g.AllMemberMetadata() {
			if cb := m.awaitingSyncCallback; cb != nil {
				m.awaitingSyncCallback = nil
				cb([]byte{}, protocol.ErrNotCoordinatorForGroup.Code)
			}
			c.heartbeatPurgatory.CheckAndComplete(purgatory.MemberKey{GroupID: g.GroupID, ConsumerID: m.MemberID})
		}
	}
	// Go difference: Kafka leaves the Dead group's timers to run out, which then change nothing.
	// Here they are completed now, because a reloaded group reuses the same member and group
	// keys, and its lock (held when those keys are checked) is not this group's.
	for _, m := range members {
		m.isLeaving = true
		c.heartbeatPurgatory.CheckAndComplete(purgatory.MemberKey{GroupID: g.GroupID, ConsumerID: m.MemberID})
	}
	c.joinPurgatory.CheckAndComplete(purgatory.GroupKey{GroupID: g.GroupID})
}

// onGroupLoaded starts the session timers of a loaded group's members.
func (c *GroupCoordinator) onGroupLoaded(g *GroupMetadata) {
	g.mu.Lock()
	defer c.unlockGroup(g)
	c.logger.Infof("Loading group metadata for %s with generation %d", g.GroupID, g.generationID)
	for _, m := range g.AllMemberMetadata() {
		c.completeAndScheduleNextHeartbeatExpirationLocked(g, m)
	}
}

// HandleGroupImmigration loads __consumer_offsets partition p (this broker became its leader).
func (c *GroupCoordinator) HandleGroupImmigration(p int32) {
	c.groupManager.LoadGroupsForPartition(p, c.onGroupLoaded)
}

// HandleGroupEmigration unloads partition p (this broker stopped leading it).
func (c *GroupCoordinator) HandleGroupEmigration(p int32) {
	c.groupManager.RemoveGroupsForPartition(p, c.onGroupUnloaded)
}
