package coordinator

import (
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

// Heartbeat and LeaveGroup, and the members' session deadlines (DelayedHeartbeat).

// HandleLeaveGroup handles LeaveGroup.
func (c *GroupCoordinator) HandleLeaveGroup(groupID, memberID string, cb func(int16)) {
	switch {
	case !c.IsActive():
		cb(protocol.ErrGroupCoordinatorNotAvailable.Code)
	case !c.groupManager.IsGroupLocal(groupID):
		cb(protocol.ErrNotCoordinatorForGroup.Code)
	case c.groupManager.IsGroupLoading(groupID):
		cb(protocol.ErrGroupLoadInProgress.Code)
	default:
		g := c.groupManager.GetGroup(groupID)
		if g == nil {
			cb(protocol.ErrUnknownMemberID.Code)
			return
		}
		g.mu.Lock()
		defer c.unlockGroup(g)
		if g.Is(Dead) || !g.Has(memberID) {
			cb(protocol.ErrUnknownMemberID.Code)
			return
		}
		m := g.Get(memberID)
		c.removeHeartbeatForLeavingMemberLocked(g, m)
		c.onMemberFailureLocked(g, m)
		cb(0)
	}
}

// HandleHeartbeat handles Heartbeat.
func (c *GroupCoordinator) HandleHeartbeat(groupID, memberID string, generation int32, cb func(int16)) {
	switch {
	case !c.IsActive():
		cb(protocol.ErrGroupCoordinatorNotAvailable.Code)
	case !c.groupManager.IsGroupLocal(groupID):
		cb(protocol.ErrNotCoordinatorForGroup.Code)
	case c.groupManager.IsGroupLoading(groupID):
		cb(0) // the group is loading: answer blindly
	default:
		g := c.groupManager.GetGroup(groupID)
		if g == nil {
			cb(protocol.ErrUnknownMemberID.Code)
			return
		}
		g.mu.Lock()
		defer c.unlockGroup(g)
		switch g.state {
		case Dead, Empty:
			cb(protocol.ErrUnknownMemberID.Code)
		case AwaitingSync:
			if !g.Has(memberID) {
				cb(protocol.ErrUnknownMemberID.Code)
			} else {
				cb(protocol.ErrRebalanceInProgress.Code)
			}
		case PreparingRebalance, Stable:
			switch {
			case !g.Has(memberID):
				cb(protocol.ErrUnknownMemberID.Code)
			case generation != g.generationID:
				cb(protocol.ErrIllegalGeneration.Code)
			default:
				c.completeAndScheduleNextHeartbeatExpirationLocked(g, g.Get(memberID))
				if g.Is(PreparingRebalance) {
					cb(protocol.ErrRebalanceInProgress.Code)
				} else {
					cb(0)
				}
			}
		}
	}
}

// completeAndScheduleNextHeartbeatExpirationLocked records a heartbeat now and replaces the
// member's session deadline with now + session timeout.
func (c *GroupCoordinator) completeAndScheduleNextHeartbeatExpirationLocked(g *GroupMetadata, m *MemberMetadata) {
	m.latestHeartbeat = c.time.Milliseconds()
	key := purgatory.MemberKey{GroupID: g.GroupID, ConsumerID: m.MemberID}
	c.heartbeatPurgatory.CheckAndComplete(key)
	deadline := m.latestHeartbeat + int64(m.SessionTimeoutMs)
	dh := newDelayedHeartbeat(c, g, m, deadline, int64(m.SessionTimeoutMs))
	c.heartbeatPurgatory.TryCompleteElseWatch(dh, []purgatory.DelayedOperationKey{key})
}

func (c *GroupCoordinator) removeHeartbeatForLeavingMemberLocked(g *GroupMetadata, m *MemberMetadata) {
	m.isLeaving = true
	c.heartbeatPurgatory.CheckAndComplete(purgatory.MemberKey{GroupID: g.GroupID, ConsumerID: m.MemberID})
}
