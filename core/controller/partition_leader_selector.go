package controller

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// The controller's failure kinds (Kafka's exceptions of kafka.common). Errors
// returned by this package wrap one of them.
var (
	// ErrStateChangeFailed is kafka.common.StateChangeFailedException.
	ErrStateChangeFailed = errors.New("state change failed")
	// ErrNoReplicaOnline is kafka.common.NoReplicaOnlineException.
	ErrNoReplicaOnline = errors.New("no replica online")
	// ErrLeaderElectionNotNeeded is kafka.common.LeaderElectionNotNeededException.
	ErrLeaderElectionNotNeeded = errors.New("leader election not needed")
	// ErrControllerMoved is kafka.common.ControllerMovedException; on the
	// wire it is STALE_CONTROLLER_EPOCH (11), as ErrorMapping maps it.
	ErrControllerMoved = fmt.Errorf("controller moved: %w", protocol.ErrStaleControllerEpoch)
	// ErrBrokerNotAvailable is kafka.common.BrokerNotAvailableException
	// (BROKER_NOT_AVAILABLE, 8).
	ErrBrokerNotAvailable = fmt.Errorf("broker not available: %w", protocol.ErrBrokerNotAvailable)
	// ErrIllegalState is java.lang.IllegalStateException as the controller raises it.
	ErrIllegalState = errors.New("illegal state")
)

// PartitionLeaderSelector picks a leader and ISR for a partition and says which
// replicas must receive the LeaderAndIsr request. Every implementation except
// NoOpLeaderSelector bumps the leader epoch; the zkVersion is carried over for
// the conditional write.
//
// Kafka 0.10.2: kafka.controller.PartitionLeaderSelector. Implementations read
// the ControllerContext, so the caller holds controllerLock.
type PartitionLeaderSelector interface {
	SelectLeader(tp common.TopicPartition, current zkutils.LeaderAndIsr) (zkutils.LeaderAndIsr, []int32, error)
}

func joinIDs(ids []int32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}

func filterIDs(ids []int32, keep func(int32) bool) []int32 {
	out := []int32{}
	for _, id := range ids {
		if keep(id) {
			out = append(out, id)
		}
	}
	return out
}

// OfflinePartitionLeaderSelector elects a leader for a partition whose leader
// died (or a new partition coming back online): the first live assigned replica
// that is in the ISR; if no ISR member is alive, and only if the topic allows
// unclean election, the first live assigned replica with data loss possible.
//
// Kafka 0.10.2: kafka.controller.OfflinePartitionLeaderSelector.
type OfflinePartitionLeaderSelector struct {
	ctx *ControllerContext
	// uncleanLeaderElectionEnable answers unclean.leader.election.enable for a
	// topic: the topic override in /config/topics/<t>, else the broker default.
	uncleanLeaderElectionEnable func(topic string) bool
	log                         *logrus.Entry
	// onUncleanElection counts unclean elections (Kafka's
	// UncleanLeaderElectionsPerSec meter); may be nil.
	onUncleanElection func()
}

// SelectLeader implements PartitionLeaderSelector.
func (s *OfflinePartitionLeaderSelector) SelectLeader(tp common.TopicPartition, current zkutils.LeaderAndIsr) (zkutils.LeaderAndIsr, []int32, error) {
	assigned, ok := s.ctx.PartitionReplicaAssignment[tp]
	if !ok {
		return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: partition %s has no replica assignment", ErrNoReplicaOnline, tpString(tp))
	}
	liveAssigned := filterIDs(assigned, s.ctx.isLive)
	liveInIsr := filterIDs(current.Isr, s.ctx.isLive)
	var next zkutils.LeaderAndIsr
	if len(liveInIsr) == 0 {
		if !s.uncleanLeaderElectionEnable(tp.Topic) {
			return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: No broker in ISR for partition %s is alive. Live brokers are: [%s], ISR brokers are: [%s]",
				ErrNoReplicaOnline, tpString(tp), joinIDs(s.ctx.LiveBrokerIds()), joinIDs(current.Isr))
		}
		if len(liveAssigned) == 0 {
			return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: No replica for partition %s is alive. Live brokers are: [%s], Assigned replicas are: [%s]",
				ErrNoReplicaOnline, tpString(tp), joinIDs(s.ctx.LiveBrokerIds()), joinIDs(assigned))
		}
		if s.onUncleanElection != nil {
			s.onUncleanElection()
		}
		leader := liveAssigned[0]
		s.log.Warnf("No broker in ISR is alive for %s. Elect leader %d from live brokers %s. There's potential data loss.",
			tpString(tp), leader, joinIDs(liveAssigned))
		next = zkutils.LeaderAndIsr{Leader: leader, LeaderEpoch: current.LeaderEpoch + 1, Isr: []int32{leader}, ZkVersion: current.ZkVersion}
	} else {
		candidates := filterIDs(liveAssigned, func(r int32) bool { return slices.Contains(liveInIsr, r) })
		if len(candidates) == 0 {
			return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: no live assigned replica of partition %s is in its ISR [%s]",
				ErrNoReplicaOnline, tpString(tp), joinIDs(current.Isr))
		}
		next = zkutils.LeaderAndIsr{Leader: candidates[0], LeaderEpoch: current.LeaderEpoch + 1, Isr: liveInIsr, ZkVersion: current.ZkVersion}
	}
	s.log.Infof("Selected new leader and ISR %s for offline partition %s", next, tpString(tp))
	return next, liveAssigned, nil
}

// ReassignedPartitionLeaderSelector elects, at the end of a reassignment, the
// first target replica that is alive and in the ISR.
//
// Kafka 0.10.2: kafka.controller.ReassignedPartitionLeaderSelector.
type ReassignedPartitionLeaderSelector struct {
	ctx *ControllerContext
}

// SelectLeader implements PartitionLeaderSelector.
func (s *ReassignedPartitionLeaderSelector) SelectLeader(tp common.TopicPartition, current zkutils.LeaderAndIsr) (zkutils.LeaderAndIsr, []int32, error) {
	var reassigned []int32
	if rc, ok := s.ctx.PartitionsBeingReassigned[tp]; ok {
		reassigned = rc.NewReplicas
	}
	alive := filterIDs(reassigned, func(r int32) bool { return s.ctx.isLive(r) && slices.Contains(current.Isr, r) })
	if len(alive) > 0 {
		return zkutils.LeaderAndIsr{Leader: alive[0], LeaderEpoch: current.LeaderEpoch + 1, Isr: current.Isr, ZkVersion: current.ZkVersion}, reassigned, nil
	}
	if len(reassigned) == 0 {
		return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: List of reassigned replicas for partition %s is empty. Current leader and ISR: [%s]",
			ErrNoReplicaOnline, tpString(tp), current)
	}
	return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: None of the reassigned replicas for partition %s are in-sync with the leader. Current leader and ISR: [%s]",
		ErrNoReplicaOnline, tpString(tp), current)
}

// PreferredReplicaPartitionLeaderSelector moves leadership back to the
// preferred replica (the first assigned one) when it is alive and in the ISR.
//
// Kafka 0.10.2: kafka.controller.PreferredReplicaPartitionLeaderSelector.
type PreferredReplicaPartitionLeaderSelector struct {
	ctx *ControllerContext
	log *logrus.Entry
}

// SelectLeader implements PartitionLeaderSelector.
func (s *PreferredReplicaPartitionLeaderSelector) SelectLeader(tp common.TopicPartition, current zkutils.LeaderAndIsr) (zkutils.LeaderAndIsr, []int32, error) {
	assigned := s.ctx.PartitionReplicaAssignment[tp]
	if len(assigned) == 0 {
		return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: partition %s has no replica assignment", ErrStateChangeFailed, tpString(tp))
	}
	preferred := assigned[0]
	currentLeader := current.Leader
	if info, ok := s.ctx.PartitionLeadershipInfo[tp]; ok {
		currentLeader = info.LeaderAndIsr.Leader
	}
	if currentLeader == preferred {
		return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: Preferred replica %d is already the current leader for partition %s",
			ErrLeaderElectionNotNeeded, preferred, tpString(tp))
	}
	s.log.Infof("Current leader %d for partition %s is not the preferred replica. Triggering preferred replica leader election", currentLeader, tpString(tp))
	if s.ctx.isLive(preferred) && slices.Contains(current.Isr, preferred) {
		return zkutils.LeaderAndIsr{Leader: preferred, LeaderEpoch: current.LeaderEpoch + 1, Isr: current.Isr, ZkVersion: current.ZkVersion}, assigned, nil
	}
	return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: Preferred replica %d for partition %s is either not alive or not in the isr. Current leader and ISR: [%s]",
		ErrStateChangeFailed, preferred, tpString(tp), current)
}

// ControlledShutdownLeaderSelector moves leadership off brokers that are
// shutting down: the new ISR drops them, and the leader is the first assigned
// replica (among registered brokers) left in that ISR.
//
// Kafka 0.10.2: kafka.controller.ControlledShutdownLeaderSelector.
type ControlledShutdownLeaderSelector struct {
	ctx *ControllerContext
	log *logrus.Entry
}

// SelectLeader implements PartitionLeaderSelector.
func (s *ControlledShutdownLeaderSelector) SelectLeader(tp common.TopicPartition, current zkutils.LeaderAndIsr) (zkutils.LeaderAndIsr, []int32, error) {
	liveAssigned := filterIDs(s.ctx.PartitionReplicaAssignment[tp], s.ctx.isLiveOrShuttingDown)
	newIsr := filterIDs(current.Isr, func(r int32) bool { _, down := s.ctx.ShuttingDownBrokerIds[r]; return !down })
	for _, r := range liveAssigned {
		if slices.Contains(newIsr, r) {
			s.log.Debugf("Partition %s : current leader = %d, new leader = %d", tpString(tp), current.Leader, r)
			return zkutils.LeaderAndIsr{Leader: r, LeaderEpoch: current.LeaderEpoch + 1, Isr: newIsr, ZkVersion: current.ZkVersion}, liveAssigned, nil
		}
	}
	down := make([]int32, 0, len(s.ctx.ShuttingDownBrokerIds))
	for id := range s.ctx.ShuttingDownBrokerIds {
		down = append(down, id)
	}
	slices.Sort(down)
	return zkutils.LeaderAndIsr{}, nil, fmt.Errorf("%w: No other replicas in ISR %s for %s besides shutting down brokers %s",
		ErrStateChangeFailed, joinIDs(current.Isr), tpString(tp), joinIDs(down))
}

// NoOpLeaderSelector keeps the current leader and ISR.
//
// Kafka 0.10.2: kafka.controller.NoOpLeaderSelector.
type NoOpLeaderSelector struct {
	ctx *ControllerContext
	log *logrus.Entry
}

// SelectLeader implements PartitionLeaderSelector.
func (s *NoOpLeaderSelector) SelectLeader(tp common.TopicPartition, current zkutils.LeaderAndIsr) (zkutils.LeaderAndIsr, []int32, error) {
	s.log.Warn("I should never have been asked to perform leader election, returning the current LeaderAndIsr and replica assignment.")
	return current, s.ctx.PartitionReplicaAssignment[tp], nil
}
