package coordinator

import (
	"github.com/zkafka/zkafka/clients/protocol"
)

// SyncGroup: the leader's assignment is persisted, then handed to every member.

// HandleSyncGroup handles SyncGroup. assignment is the leader's (empty from followers).
func (c *GroupCoordinator) HandleSyncGroup(groupID string, generation int32, memberID string, assignment map[string][]byte, cb SyncCallback) {
	switch {
	case !c.IsActive():
		cb([]byte{}, protocol.ErrGroupCoordinatorNotAvailable.Code)
	case !c.groupManager.IsGroupLocal(groupID):
		cb([]byte{}, protocol.ErrNotCoordinatorForGroup.Code)
	default:
		// 0.10.2 does not check for a load in progress here.
		g := c.groupManager.GetGroup(groupID)
		if g == nil {
			cb([]byte{}, protocol.ErrUnknownMemberID.Code)
			return
		}
		c.doSyncGroup(g, generation, memberID, assignment, cb)
	}
}

func (c *GroupCoordinator) doSyncGroup(g *GroupMetadata, generation int32, memberID string, assignment map[string][]byte, cb SyncCallback) {
	g.mu.Lock()
	defer c.unlockGroup(g)
	switch {
	case !g.Has(memberID):
		cb([]byte{}, protocol.ErrUnknownMemberID.Code)
		return
	case generation != g.generationID:
		cb([]byte{}, protocol.ErrIllegalGeneration.Code)
		return
	}
	switch g.state {
	case Empty, Dead:
		cb([]byte{}, protocol.ErrUnknownMemberID.Code)
	case PreparingRebalance:
		cb([]byte{}, protocol.ErrRebalanceInProgress.Code)
	case AwaitingSync:
		g.Get(memberID).awaitingSyncCallback = cb
		if memberID != g.leaderID {
			return
		}
		c.logger.Infof("Assignment received from leader for group %s for generation %d", g.GroupID, g.generationID)
		full := make(map[string][]byte, len(g.members))
		for _, id := range g.memberOrder {
			if a, ok := assignment[id]; ok && a != nil {
				full[id] = a
			} else {
				full[id] = []byte{}
			}
		}
		queueStore(g, c.groupManager.prepareStoreGroup(g, full, func(code int16) {
			g.mu.Lock()
			defer c.unlockGroup(g)
			// The group may have moved on while the write was in flight.
			if !g.Is(AwaitingSync) || generation != g.generationID {
				return
			}
			if code != 0 {
				c.resetAndPropagateAssignmentErrorLocked(g, code)
				c.maybePrepareRebalanceLocked(g)
			} else {
				c.setAndPropagateAssignmentLocked(g, full)
				g.mustTransitionTo(Stable)
			}
		}))
	case Stable:
		m := g.Get(memberID)
		cb(m.Assignment, 0)
		c.completeAndScheduleNextHeartbeatExpirationLocked(g, m)
	}
}

func (c *GroupCoordinator) setAndPropagateAssignmentLocked(g *GroupMetadata, assignment map[string][]byte) {
	for _, m := range g.AllMemberMetadata() {
		m.Assignment = assignment[m.MemberID]
	}
	c.propagateAssignmentLocked(g, 0)
}

func (c *GroupCoordinator) resetAndPropagateAssignmentErrorLocked(g *GroupMetadata, code int16) {
	for _, m := range g.AllMemberMetadata() {
		m.Assignment = []byte{}
	}
	c.propagateAssignmentLocked(g, code)
}

// propagateAssignmentLocked answers every parked SyncGroup and restarts those members'
// session timers (an expiry ignored while they were parked would otherwise never come back).
func (c *GroupCoordinator) propagateAssignmentLocked(g *GroupMetadata, code int16) {
	for _, m := range g.AllMemberMetadata() {
		if cb := m.awaitingSyncCallback; cb != nil {
			m.awaitingSyncCallback = nil
			cb(m.Assignment, code)
			c.completeAndScheduleNextHeartbeatExpirationLocked(g, m)
		}
	}
}
