package coordinator

import (
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

// JoinGroup and the rebalance it drives: adding and updating members, PreparingRebalance,
// and the completion of the DelayedJoin. Methods named *Locked expect the group lock held.

// HandleJoinGroup handles JoinGroup (v0 passes the session timeout as rebalance timeout).
func (c *GroupCoordinator) HandleJoinGroup(groupID, memberID, clientID, clientHost string, rebalanceTimeoutMs, sessionTimeoutMs int32,
	protocolType string, protocols []Protocol, cb JoinCallback) {
	switch {
	case !c.IsActive():
		cb(joinError(memberID, protocol.ErrGroupCoordinatorNotAvailable.Code))
	case groupID == "":
		cb(joinError(memberID, protocol.ErrInvalidGroupID.Code))
	case !c.groupManager.IsGroupLocal(groupID):
		cb(joinError(memberID, protocol.ErrNotCoordinatorForGroup.Code))
	case c.groupManager.IsGroupLoading(groupID):
		cb(joinError(memberID, protocol.ErrGroupLoadInProgress.Code))
	case sessionTimeoutMs < c.groupConfig.GroupMinSessionTimeoutMs || sessionTimeoutMs > c.groupConfig.GroupMaxSessionTimeoutMs:
		cb(joinError(memberID, protocol.ErrInvalidSessionTimeout.Code))
	default:
		g := c.groupManager.GetGroup(groupID)
		if g == nil {
			if memberID != "" {
				cb(joinError(memberID, protocol.ErrUnknownMemberID.Code))
				return
			}
			g = c.groupManager.AddGroup(NewGroupMetadata(groupID))
		}
		c.doJoinGroup(g, memberID, clientID, clientHost, rebalanceTimeoutMs, sessionTimeoutMs, protocolType, protocols, cb)
	}
}

func protocolNames(ps []Protocol) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func (c *GroupCoordinator) doJoinGroup(g *GroupMetadata, memberID, clientID, clientHost string, rebalanceTimeoutMs, sessionTimeoutMs int32,
	protocolType string, protocols []Protocol, cb JoinCallback) {
	g.mu.Lock()
	defer c.unlockGroup(g)
	if len(protocols) == 0 {
		// Go difference: 0.10.2 admits a member without protocols into an Empty group and then
		// fails selecting a protocol when the rebalance completes; later Kafka versions refuse
		// it up front, as done here, so that no input can wedge the group.
		cb(joinError(memberID, protocol.ErrInconsistentGroupProtocol.Code))
		return
	}
	if !g.Is(Empty) && (g.protocolType == nil || *g.protocolType != protocolType || !g.SupportsProtocols(protocolNames(protocols))) {
		cb(joinError(memberID, protocol.ErrInconsistentGroupProtocol.Code))
		return
	}
	if memberID != "" && !g.Has(memberID) {
		cb(joinError(memberID, protocol.ErrUnknownMemberID.Code))
		return
	}
	switch g.state {
	case Dead:
		cb(joinError(memberID, protocol.ErrUnknownMemberID.Code))
	case PreparingRebalance:
		if memberID == "" {
			c.addMemberAndRebalanceLocked(rebalanceTimeoutMs, sessionTimeoutMs, clientID, clientHost, protocolType, protocols, g, cb)
		} else {
			c.updateMemberAndRebalanceLocked(g, g.Get(memberID), protocols, cb)
		}
	case AwaitingSync:
		if memberID == "" {
			c.addMemberAndRebalanceLocked(rebalanceTimeoutMs, sessionTimeoutMs, clientID, clientHost, protocolType, protocols, g, cb)
			break
		}
		m := g.Get(memberID)
		if m.Matches(protocols) {
			// A repeated JoinGroup (the member lost the response): answer with the current
			// generation; only the leader gets the member list.
			res := JoinGroupResult{MemberID: memberID, GenerationID: g.generationID, SubProtocol: g.protocol, LeaderID: g.leaderID}
			if memberID == g.leaderID {
				res.Members = g.currentMemberMetadata()
			}
			cb(res)
		} else {
			c.updateMemberAndRebalanceLocked(g, m, protocols, cb)
		}
	case Empty, Stable:
		if memberID == "" {
			c.addMemberAndRebalanceLocked(rebalanceTimeoutMs, sessionTimeoutMs, clientID, clientHost, protocolType, protocols, g, cb)
			break
		}
		m := g.Get(memberID)
		if memberID == g.leaderID || !m.Matches(protocols) {
			// The leader may rejoin to force a rebalance (e.g. topic metadata changed).
			c.updateMemberAndRebalanceLocked(g, m, protocols, cb)
		} else {
			cb(JoinGroupResult{MemberID: memberID, GenerationID: g.generationID, SubProtocol: g.protocol, LeaderID: g.leaderID})
		}
	}
	if g.Is(PreparingRebalance) {
		c.joinPurgatory.CheckAndComplete(purgatory.GroupKey{GroupID: g.GroupID})
	}
}

func (c *GroupCoordinator) addMemberAndRebalanceLocked(rebalanceTimeoutMs, sessionTimeoutMs int32, clientID, clientHost,
	protocolType string, protocols []Protocol, g *GroupMetadata, cb JoinCallback) *MemberMetadata {
	memberID := clientID + "-" + generateMemberIDSuffix()
	m := NewMemberMetadata(memberID, g.GroupID, clientID, clientHost, rebalanceTimeoutMs, sessionTimeoutMs, protocolType, protocols)
	m.awaitingJoinCallback = cb
	g.Add(m)
	c.maybePrepareRebalanceLocked(g)
	return m
}

func (c *GroupCoordinator) updateMemberAndRebalanceLocked(g *GroupMetadata, m *MemberMetadata, protocols []Protocol, cb JoinCallback) {
	m.SupportedProtocols = protocols
	m.awaitingJoinCallback = cb
	c.maybePrepareRebalanceLocked(g)
}

func (c *GroupCoordinator) maybePrepareRebalanceLocked(g *GroupMetadata) {
	if g.CanRebalance() {
		c.prepareRebalanceLocked(g)
	}
}

// prepareRebalanceLocked enters PreparingRebalance (parked SyncGroups are told to rejoin) and
// parks a DelayedJoin for the largest rebalance timeout of the members.
func (c *GroupCoordinator) prepareRebalanceLocked(g *GroupMetadata) {
	if g.Is(AwaitingSync) {
		c.resetAndPropagateAssignmentErrorLocked(g, protocol.ErrRebalanceInProgress.Code)
	}
	g.mustTransitionTo(PreparingRebalance)
	c.logger.Infof("Preparing to restabilize group %s with old generation %d", g.GroupID, g.generationID)
	dj := newDelayedJoin(c, g, int64(g.RebalanceTimeoutMs()))
	c.joinPurgatory.TryCompleteElseWatch(dj, []purgatory.DelayedOperationKey{purgatory.GroupKey{GroupID: g.GroupID}})
}

// onMemberFailureLocked removes a member (session expired or it left) and reacts.
func (c *GroupCoordinator) onMemberFailureLocked(g *GroupMetadata, m *MemberMetadata) {
	c.logger.Tracef("Member %s in group %s has failed", m.MemberID, g.GroupID)
	g.Remove(m.MemberID)
	switch g.state {
	case Dead, Empty:
	case Stable, AwaitingSync:
		c.maybePrepareRebalanceLocked(g)
	case PreparingRebalance:
		c.joinPurgatory.CheckAndComplete(purgatory.GroupKey{GroupID: g.GroupID})
	}
}

// onCompleteJoinLocked ends a rebalance: members that did not rejoin are dropped; then either
// the next generation starts (every member gets its JoinGroup answer, the leader with all
// members' metadata) or the group is Empty and its empty metadata is written.
func (c *GroupCoordinator) onCompleteJoinLocked(g *GroupMetadata) {
	for _, m := range g.notYetRejoinedMembers() {
		g.Remove(m.MemberID)
	}
	if g.Is(Dead) {
		return
	}
	g.initNextGeneration()
	if g.Is(Empty) {
		c.logger.Infof("Group %s with generation %d is now empty", g.GroupID, g.generationID)
		groupID := g.GroupID
		queueStore(g, c.groupManager.prepareStoreGroup(g, map[string][]byte{}, func(code int16) {
			if code != 0 {
				// Safe to only warn: an empty generation has no members that could be misled.
				c.logger.Warnf("Failed to write empty metadata for group %s: %s", groupID, protocol.ErrorForCode(code))
			}
		}))
		return
	}
	c.logger.Infof("Stabilized group %s generation %d", g.GroupID, g.generationID)
	for _, m := range g.AllMemberMetadata() {
		res := JoinGroupResult{MemberID: m.MemberID, GenerationID: g.generationID, SubProtocol: g.protocol, LeaderID: g.leaderID}
		if m.MemberID == g.leaderID {
			res.Members = g.currentMemberMetadata()
		}
		if cb := m.awaitingJoinCallback; cb != nil {
			m.awaitingJoinCallback = nil
			cb(res)
		}
		c.completeAndScheduleNextHeartbeatExpirationLocked(g, m)
	}
}
