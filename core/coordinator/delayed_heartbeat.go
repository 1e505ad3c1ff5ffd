package coordinator

import "github.com/zkafka/zkafka/core/server/purgatory"

// DelayedHeartbeat is a member's session deadline: it completes harmlessly when the member
// heartbeats again (or has a parked JoinGroup/SyncGroup, or leaves), and on expiry the member
// fails.
//
// Kafka 0.10.2: kafka.coordinator.DelayedHeartbeat. As with DelayedJoin, TryComplete runs with
// the group's lock held by the caller and OnExpiration takes it.
type DelayedHeartbeat struct {
	purgatory.DelayedOperation
	coordinator       *GroupCoordinator
	group             *GroupMetadata
	member            *MemberMetadata
	heartbeatDeadline int64
}

func newDelayedHeartbeat(c *GroupCoordinator, g *GroupMetadata, m *MemberMetadata, deadline, sessionTimeoutMs int64) *DelayedHeartbeat {
	d := &DelayedHeartbeat{coordinator: c, group: g, member: m, heartbeatDeadline: deadline}
	d.Init(max(sessionTimeoutMs, 1), d)
	return d
}

// TryComplete implements purgatory.DelayedOperationHooks; the caller holds the group's lock.
func (d *DelayedHeartbeat) TryComplete() bool {
	if shouldKeepMemberAlive(d.member, d.heartbeatDeadline) || d.member.isLeaving {
		return d.ForceComplete()
	}
	return false
}

// OnComplete implements purgatory.DelayedOperationHooks.
func (d *DelayedHeartbeat) OnComplete() {}

// OnExpiration implements purgatory.DelayedOperationHooks: the session ran out.
func (d *DelayedHeartbeat) OnExpiration() {
	d.group.mu.Lock()
	if !shouldKeepMemberAlive(d.member, d.heartbeatDeadline) {
		d.coordinator.onMemberFailureLocked(d.group, d.member)
	}
	d.coordinator.unlockGroup(d.group)
}

// shouldKeepMemberAlive: a member with a parked request, or whose last heartbeat is newer than
// this deadline's, is alive.
func shouldKeepMemberAlive(m *MemberMetadata, deadline int64) bool {
	return m.awaitingJoinCallback != nil || m.awaitingSyncCallback != nil ||
		m.latestHeartbeat+int64(m.SessionTimeoutMs) > deadline
}
