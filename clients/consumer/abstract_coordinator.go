package consumer

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// joinGroupRequestVersion is JoinGroup v1, which carries rebalance_timeout
// (= max.poll.interval.ms), so that a slow member has that long to rejoin.
const joinGroupRequestVersion = 1

// MemberState is a member's place in the group protocol.
type MemberState int

// The member states of AbstractCoordinator.
const (
	Unjoined    MemberState = iota // not in the group (or left it)
	Rebalancing                    // JoinGroup/SyncGroup in progress
	Stable                         // joined; heartbeats flow
)

// Generation is the group generation this member joined, its member id and the protocol chosen.
//
// Kafka 0.10.2: AbstractCoordinator.Generation.
type Generation struct {
	GenerationID int32
	MemberID     string
	Protocol     string
}

// NoGeneration is a member not in a generation (commits from assign() send it).
var NoGeneration = Generation{GenerationID: -1, MemberID: ""}

// groupProtocol is what a concrete coordinator adds to AbstractCoordinator (Kafka's abstract
// methods): its protocol type and metadata, and the join callbacks.
type groupProtocol interface {
	protocolType() string
	groupMetadata() []protocol.JoinGroupRequestProtocol
	onJoinPrepare(generation int32, memberID string) error
	performAssignment(leaderID, protocol string, members []protocol.JoinGroupResponseMember) (map[string][]byte, error)
	onJoinComplete(generation int32, memberID, protocol string, assignment []byte) error
}

// AbstractCoordinator is the client side of the group membership protocol: find the group's
// coordinator (GroupCoordinator request), join (JoinGroup v1) and sync (SyncGroup, the leader
// handing out the assignment), keep the membership with heartbeats from the HeartbeatThread, and
// leave (LeaveGroup) on close. What the group shares is left to the groupProtocol.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.AbstractCoordinator. Its lock is a
// leaf: it is never held while polling the network (Kafka's reentrant monitor is held there).
type AbstractCoordinator struct {
	proto              groupProtocol
	client             *ConsumerNetworkClient
	time               common.Time
	groupID            string
	sessionTimeoutMs   int32
	rebalanceTimeoutMs int32
	retryBackoffMs     int64
	heartbeat          *Heartbeat
	log                *logrus.Entry
	sensors            *groupCoordinatorMetrics

	mu               sync.Mutex
	state            MemberState
	generation       Generation
	coordinator      *common.Node
	rejoinNeeded     bool
	needsJoinPrepare bool
	joinFuture       *RequestFuture[[]byte]
	findFuture       *RequestFuture[struct{}]
	heartbeatThread  *HeartbeatThread
}

func newAbstractCoordinator(proto groupProtocol, client *ConsumerNetworkClient, groupID string, rebalanceTimeoutMs, sessionTimeoutMs, heartbeatIntervalMs int32,
	retryBackoffMs int64, sensors *groupCoordinatorMetrics, t common.Time, log *logrus.Entry) (*AbstractCoordinator, error) {
	hb, err := NewHeartbeat(int64(sessionTimeoutMs), int64(heartbeatIntervalMs), int64(rebalanceTimeoutMs), retryBackoffMs, t.Milliseconds())
	if err != nil {
		return nil, err
	}
	return &AbstractCoordinator{proto: proto, client: client, time: t, groupID: groupID, sessionTimeoutMs: sessionTimeoutMs,
		rebalanceTimeoutMs: rebalanceTimeoutMs, retryBackoffMs: retryBackoffMs, heartbeat: hb, sensors: sensors,
		log: log.WithField("logger", "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"), generation: NoGeneration,
		rejoinNeeded: true, needsJoinPrepare: true}, nil
}

// CoordinatorUnknown reports no usable coordinator (none known, or its connection failed).
//
// Kafka 0.10.2: AbstractCoordinator.coordinatorUnknown.
func (a *AbstractCoordinator) CoordinatorUnknown() bool {
	c := a.Coordinator()
	if c == nil {
		return true
	}
	if a.client.ConnectionFailed(*c) {
		a.coordinatorDead()
		return true
	}
	return false
}

// Coordinator is the coordinator node (its id mapped to a separate connection), nil if unknown.
func (a *AbstractCoordinator) Coordinator() *common.Node {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.coordinator
}

// EnsureCoordinatorReady blocks until the coordinator is known and connected, or timeoutMs
// passes (negative: no limit); it reports whether it is.
//
// Kafka 0.10.2: AbstractCoordinator.ensureCoordinatorReady.
func (a *AbstractCoordinator) EnsureCoordinatorReady(timeoutMs int64) (bool, error) {
	start := a.time.Milliseconds()
	for a.CoordinatorUnknown() {
		remaining := int64(-1)
		if timeoutMs >= 0 {
			remaining = timeoutMs - (a.time.Milliseconds() - start)
			if remaining <= 0 {
				return false, nil
			}
		}
		f := a.lookupCoordinator()
		if _, err := PollFuture(a.client, f, remaining); err != nil {
			return false, err
		}
		if !f.IsDone() {
			return false, nil
		}
		if f.Failed() {
			if !f.IsRetriable() {
				return false, f.Exception()
			}
			if _, err := a.client.AwaitMetadataUpdate(remaining); err != nil {
				return false, err
			}
		} else if c := a.Coordinator(); c != nil && a.client.ConnectionFailed(*c) {
			a.coordinatorDead()
			a.time.Sleep(msDuration(a.retryBackoffMs))
		}
	}
	return true, nil
}

// lookupCoordinator sends one GroupCoordinator request to the least loaded node (or returns the
// one in flight).
func (a *AbstractCoordinator) lookupCoordinator() *RequestFuture[struct{}] {
	a.mu.Lock()
	if a.findFuture != nil {
		f := a.findFuture
		a.mu.Unlock()
		return f
	}
	a.mu.Unlock()
	node := a.client.LeastLoadedNode()
	if node == nil {
		return FailedFuture[struct{}](fmt.Errorf("%w: no node available", ErrCoordinatorNotAvailable))
	}
	a.log.Debugf("Sending GroupCoordinator request for group %s to broker %s", a.groupID, node)
	f := Compose(a.client.Send(*node, &protocol.GroupCoordinatorRequest{GroupID: a.groupID}), a.handleGroupCoordinatorResponse)
	a.mu.Lock()
	a.findFuture = f
	a.mu.Unlock()
	f.AddListener(func(struct{}, error) {
		a.mu.Lock()
		a.findFuture = nil
		a.mu.Unlock()
	})
	return f
}

func (a *AbstractCoordinator) handleGroupCoordinatorResponse(r *clients.ClientResponse, f *RequestFuture[struct{}]) {
	resp := r.ResponseBody.(*protocol.GroupCoordinatorResponse)
	if err := protocol.ErrorForCode(resp.ErrorCode); err != nil {
		if errors.Is(err, protocol.ErrGroupAuthorizationFailed) {
			f.Raise(fmt.Errorf("%w: Not authorized to access group: %s", err, a.groupID))
			return
		}
		a.log.Debugf("Group coordinator lookup for group %s failed: %v", a.groupID, err)
		f.Raise(err)
		return
	}
	c := resp.Coordinator
	node := common.Node{ID: math.MaxInt32 - c.NodeID, Host: c.Host, Port: c.Port}
	a.log.Infof("Discovered coordinator %s:%d (id: %d rack: null) for group %s.", c.Host, c.Port, node.ID, a.groupID)
	a.mu.Lock()
	a.coordinator = &node
	a.mu.Unlock()
	a.client.TryConnect(node)
	a.heartbeat.ResetTimeouts(a.time.Milliseconds())
	f.Complete(struct{}{})
}

// coordinatorDead forgets the coordinator; its unsent requests fail.
//
// Kafka 0.10.2: AbstractCoordinator.coordinatorDead.
func (a *AbstractCoordinator) coordinatorDead() {
	a.mu.Lock()
	c := a.coordinator
	a.coordinator = nil
	a.mu.Unlock()
	if c != nil {
		a.log.Infof("Marking the coordinator %s dead for group %s", c, a.groupID)
		a.client.FailUnsentRequests(*c, fmt.Errorf("%w: coordinator %s marked dead", ErrCoordinatorNotAvailable, c))
	}
}

// Generation is the current generation.
func (a *AbstractCoordinator) Generation() Generation {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.generation
}

// generationIfStable is the generation, or nil while not stable (commits then fail).
func (a *AbstractCoordinator) generationIfStable() *Generation {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != Stable {
		return nil
	}
	g := a.generation
	return &g
}

// resetGeneration forgets the member id: the next join is as a new member.
func (a *AbstractCoordinator) resetGeneration() {
	a.mu.Lock()
	a.generation = NoGeneration
	a.rejoinNeeded = true
	a.state = Unjoined
	a.mu.Unlock()
}

// RequestRejoin makes the next poll rejoin the group.
func (a *AbstractCoordinator) RequestRejoin() { a.mu.Lock(); a.rejoinNeeded = true; a.mu.Unlock() }

func (a *AbstractCoordinator) rejoinRequested() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rejoinNeeded
}

// EnsureActiveGroup makes sure the member is in a stable group: coordinator known, heartbeat
// thread running, joined.
//
// Kafka 0.10.2: AbstractCoordinator.ensureActiveGroup.
func (a *AbstractCoordinator) EnsureActiveGroup(needRejoin func() bool) error {
	if _, err := a.EnsureCoordinatorReady(-1); err != nil {
		return err
	}
	a.startHeartbeatThreadIfNeeded()
	return a.joinGroupIfNeeded(needRejoin)
}

// joinGroupIfNeeded joins until the group is stable, preparing (onJoinPrepare) once per join
// and completing (onJoinComplete) on the calling goroutine.
func (a *AbstractCoordinator) joinGroupIfNeeded(needRejoin func() bool) error {
	for needRejoin() || a.pendingJoin() {
		if _, err := a.EnsureCoordinatorReady(-1); err != nil {
			return err
		}
		a.mu.Lock()
		prepare := a.needsJoinPrepare
		gen := a.generation
		a.mu.Unlock()
		if prepare {
			if err := a.proto.onJoinPrepare(gen.GenerationID, gen.MemberID); err != nil {
				return err
			}
			a.mu.Lock()
			a.needsJoinPrepare = false
			a.mu.Unlock()
		}
		f := a.initiateJoinGroup()
		if _, err := PollFuture(a.client, f, -1); err != nil {
			return err
		}
		a.mu.Lock()
		a.joinFuture = nil
		a.mu.Unlock()
		if f.Succeeded() {
			g := a.Generation()
			a.mu.Lock()
			a.needsJoinPrepare = true
			a.mu.Unlock()
			if err := a.proto.onJoinComplete(g.GenerationID, g.MemberID, g.Protocol, f.Value()); err != nil {
				return err
			}
			continue
		}
		err := f.Exception()
		if errors.Is(err, protocol.ErrUnknownMemberID) || errors.Is(err, protocol.ErrRebalanceInProgress) || errors.Is(err, protocol.ErrIllegalGeneration) {
			continue
		}
		if !f.IsRetriable() {
			return err
		}
		a.time.Sleep(msDuration(a.retryBackoffMs))
	}
	return nil
}

func (a *AbstractCoordinator) pendingJoin() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.joinFuture != nil
}

// initiateJoinGroup sends JoinGroup (then SyncGroup) unless a join is in flight; the heartbeat
// thread pauses until the group is stable again.
func (a *AbstractCoordinator) initiateJoinGroup() *RequestFuture[[]byte] {
	a.mu.Lock()
	if a.joinFuture != nil {
		f := a.joinFuture
		a.mu.Unlock()
		return f
	}
	a.state = Rebalancing
	a.mu.Unlock()
	f := a.sendJoinGroupRequest()
	a.mu.Lock()
	a.joinFuture = f
	a.mu.Unlock()
	f.AddListener(func(_ []byte, err error) {
		a.mu.Lock()
		if err == nil {
			a.state = Stable
		} else {
			a.state = Unjoined
		}
		a.mu.Unlock()
		if err == nil {
			a.heartbeat.ResetTimeouts(a.time.Milliseconds())
		}
	})
	return f
}

// sendJoinGroupRequest is JoinGroup v1 with this member's protocols.
func (a *AbstractCoordinator) sendJoinGroupRequest() *RequestFuture[[]byte] {
	c := a.Coordinator()
	if c == nil {
		return FailedFuture[[]byte](ErrCoordinatorNotAvailable)
	}
	g := a.Generation()
	a.log.Infof("(Re-)joining group %s", a.groupID)
	req := &protocol.JoinGroupRequest{Version: joinGroupRequestVersion, GroupID: a.groupID, SessionTimeout: a.sessionTimeoutMs,
		RebalanceTimeout: a.rebalanceTimeoutMs, MemberID: g.MemberID, ProtocolType: a.proto.protocolType(), GroupProtocols: a.proto.groupMetadata()}
	start := a.time.Milliseconds()
	return Compose(a.client.Send(*c, req), func(r *clients.ClientResponse, f *RequestFuture[[]byte]) {
		a.handleJoinGroupResponse(r, f, start)
	})
}

// handleJoinGroupResponse is JoinGroupResponseHandler: on success the leader assigns and every
// member syncs; errors reset the member or the coordinator as Kafka does.
func (a *AbstractCoordinator) handleJoinGroupResponse(r *clients.ClientResponse, f *RequestFuture[[]byte], start int64) {
	resp := r.ResponseBody.(*protocol.JoinGroupResponse)
	err := protocol.ErrorForCode(resp.ErrorCode)
	switch {
	case err == nil:
		a.log.Debugf("Received successful JoinGroup response for group %s: generation %d member %s", a.groupID, resp.GenerationID, resp.MemberID)
		a.sensors.recordJoin(a.time.Milliseconds() - start)
		a.mu.Lock()
		if a.state != Rebalancing {
			a.mu.Unlock()
			f.Raise(protocol.ErrUnknownMemberID)
			return
		}
		a.generation = Generation{GenerationID: resp.GenerationID, MemberID: resp.MemberID, Protocol: resp.GroupProtocol}
		a.rejoinNeeded = false
		a.mu.Unlock()
		if resp.LeaderID == resp.MemberID {
			a.onJoinLeader(resp, f)
		} else {
			a.sendSyncGroupRequest(nil, f)
		}
	case errors.Is(err, protocol.ErrGroupLoadInProgress):
		a.log.Debugf("Attempt to join group %s rejected since coordinator %v is loading the group.", a.groupID, a.Coordinator())
		f.Raise(err)
	case errors.Is(err, protocol.ErrUnknownMemberID):
		a.resetGeneration()
		a.log.Debugf("Attempt to join group %s failed due to unknown member id.", a.groupID)
		f.Raise(err)
	case errors.Is(err, protocol.ErrGroupCoordinatorNotAvailable), errors.Is(err, protocol.ErrNotCoordinatorForGroup):
		a.coordinatorDead()
		a.log.Debugf("Attempt to join group %s failed due to obsolete coordinator information: %v", a.groupID, err)
		f.Raise(err)
	case errors.Is(err, protocol.ErrInconsistentGroupProtocol), errors.Is(err, protocol.ErrInvalidSessionTimeout), errors.Is(err, protocol.ErrInvalidGroupID):
		a.log.Errorf("Attempt to join group %s failed due to fatal error: %v", a.groupID, err)
		f.Raise(err)
	case errors.Is(err, protocol.ErrGroupAuthorizationFailed):
		f.Raise(fmt.Errorf("%w: Not authorized to access group: %s", err, a.groupID))
	default:
		f.Raise(fmt.Errorf("Unexpected error in join group response: %w", err))
	}
}

func (a *AbstractCoordinator) onJoinLeader(resp *protocol.JoinGroupResponse, f *RequestFuture[[]byte]) {
	assignment, err := a.proto.performAssignment(resp.LeaderID, resp.GroupProtocol, resp.Members)
	if err != nil {
		f.Raise(err)
		return
	}
	var ga []protocol.SyncGroupRequestGroupAssignment
	for _, m := range resp.Members {
		ga = append(ga, protocol.SyncGroupRequestGroupAssignment{MemberID: m.MemberID, MemberAssignment: assignment[m.MemberID]})
	}
	a.sendSyncGroupRequest(ga, f)
}

// sendSyncGroupRequest sends SyncGroup (the leader with the assignment) and completes f with
// this member's assignment.
func (a *AbstractCoordinator) sendSyncGroupRequest(ga []protocol.SyncGroupRequestGroupAssignment, f *RequestFuture[[]byte]) {
	c := a.Coordinator()
	if c == nil {
		f.Raise(ErrCoordinatorNotAvailable)
		return
	}
	g := a.Generation()
	req := &protocol.SyncGroupRequest{GroupID: a.groupID, GenerationID: g.GenerationID, MemberID: g.MemberID, GroupAssignment: ga}
	start := a.time.Milliseconds()
	Chain(Compose(a.client.Send(*c, req), func(r *clients.ClientResponse, sf *RequestFuture[[]byte]) {
		resp := r.ResponseBody.(*protocol.SyncGroupResponse)
		err := protocol.ErrorForCode(resp.ErrorCode)
		if err == nil {
			a.sensors.recordSync(a.time.Milliseconds() - start)
			sf.Complete(resp.MemberAssignment)
			return
		}
		a.RequestRejoin()
		switch {
		case errors.Is(err, protocol.ErrGroupAuthorizationFailed):
			sf.Raise(fmt.Errorf("%w: Not authorized to access group: %s", err, a.groupID))
		case errors.Is(err, protocol.ErrRebalanceInProgress):
			a.log.Debugf("SyncGroup for group %s failed due to coordinator rebalance", a.groupID)
			sf.Raise(err)
		case errors.Is(err, protocol.ErrUnknownMemberID), errors.Is(err, protocol.ErrIllegalGeneration):
			a.log.Debugf("SyncGroup for group %s failed due to %v", a.groupID, err)
			a.resetGeneration()
			sf.Raise(err)
		case errors.Is(err, protocol.ErrGroupCoordinatorNotAvailable), errors.Is(err, protocol.ErrNotCoordinatorForGroup):
			a.log.Debugf("SyncGroup for group %s failed due to %v", a.groupID, err)
			a.coordinatorDead()
			sf.Raise(err)
		default:
			sf.Raise(fmt.Errorf("Unexpected error from SyncGroup: %w", err))
		}
	}), f)
}

// sendHeartbeatRequest sends one Heartbeat and handles its answer.
//
// Kafka 0.10.2: AbstractCoordinator.sendHeartbeatRequest and HeartbeatResponseHandler.
func (a *AbstractCoordinator) sendHeartbeatRequest() *RequestFuture[struct{}] {
	c := a.Coordinator()
	if c == nil {
		return FailedFuture[struct{}](ErrCoordinatorNotAvailable)
	}
	g := a.Generation()
	req := &protocol.HeartbeatRequest{GroupID: a.groupID, GroupGenerationID: g.GenerationID, MemberID: g.MemberID}
	start := a.time.Milliseconds()
	return Compose(a.client.Send(*c, req), func(r *clients.ClientResponse, f *RequestFuture[struct{}]) {
		a.sensors.recordHeartbeat(a.time.Milliseconds() - start)
		err := protocol.ErrorForCode(r.ResponseBody.(*protocol.HeartbeatResponse).ErrorCode)
		switch {
		case err == nil:
			a.log.Debugf("Received successful Heartbeat response for group %s", a.groupID)
			f.Complete(struct{}{})
		case errors.Is(err, protocol.ErrGroupCoordinatorNotAvailable), errors.Is(err, protocol.ErrNotCoordinatorForGroup):
			a.log.Infof("Attempt to heartbeat failed for group %s since coordinator %s is either not started or not valid.", a.groupID, c)
			a.coordinatorDead()
			f.Raise(err)
		case errors.Is(err, protocol.ErrRebalanceInProgress):
			a.log.Infof("Attempt to heartbeat failed for group %s since it is rebalancing.", a.groupID)
			a.RequestRejoin()
			f.Raise(err)
		case errors.Is(err, protocol.ErrIllegalGeneration):
			a.log.Infof("Attempt to heartbeat failed for group %s since generation id is not legal.", a.groupID)
			a.resetGeneration()
			f.Raise(err)
		case errors.Is(err, protocol.ErrUnknownMemberID):
			a.log.Infof("Attempt to heartbeat failed for group %s since member id is not valid.", a.groupID)
			a.resetGeneration()
			f.Raise(err)
		default:
			f.Raise(fmt.Errorf("Unexpected error in heartbeat response: %w", err))
		}
	})
}

// maybeLeaveGroup sends LeaveGroup if this member is in a generation, without waiting for the
// answer, and forgets the generation.
//
// Kafka 0.10.2: AbstractCoordinator.maybeLeaveGroup.
func (a *AbstractCoordinator) maybeLeaveGroup() *RequestFuture[*clients.ClientResponse] {
	a.mu.Lock()
	c, g, st := a.coordinator, a.generation, a.state
	a.mu.Unlock()
	var f *RequestFuture[*clients.ClientResponse]
	if c != nil && st != Unjoined && g.MemberID != "" {
		a.log.Debugf("Sending LeaveGroup request to coordinator %s for group %s", c, a.groupID)
		f = a.client.Send(*c, &protocol.LeaveGroupRequest{GroupID: a.groupID, MemberID: g.MemberID})
		a.client.PollNoWakeup()
	}
	a.resetGeneration()
	return f
}

// startHeartbeatThreadIfNeeded starts the HeartbeatThread once.
func (a *AbstractCoordinator) startHeartbeatThreadIfNeeded() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.heartbeatThread == nil {
		a.heartbeatThread = newHeartbeatThread(a)
		a.heartbeatThread.start()
	}
}

// PollHeartbeat records the application's poll for max.poll.interval.ms.
func (a *AbstractCoordinator) PollHeartbeat(now int64) { a.heartbeat.Poll(now) }

// TimeToNextPoll bounds the application's poll timeout: a heartbeat thread exists, so only the
// next heartbeat matters when there is none.
func (a *AbstractCoordinator) TimeToNextPoll(now int64) int64 {
	return a.heartbeat.TimeToNextHeartbeat(now)
}

// close stops the heartbeat thread and leaves the group (waiting up to timeoutMs for the
// LeaveGroup to go out).
//
// Kafka 0.10.2: AbstractCoordinator.close.
func (a *AbstractCoordinator) close(timeoutMs int64) {
	a.mu.Lock()
	t := a.heartbeatThread
	a.heartbeatThread = nil
	a.mu.Unlock()
	if t != nil {
		t.close()
	}
	if f := a.maybeLeaveGroup(); f != nil {
		_, _ = PollFuture(a.client, f, timeoutMs)
	}
}
