package coordinator

import (
	"crypto/rand"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/zkafka/zkafka/clients/common"
)

// GroupState is one state of a group's life cycle.
//
// Kafka 0.10.2: kafka.coordinator.GroupState (the case objects PreparingRebalance, AwaitingSync,
// Stable, Dead, Empty). The String form is what DescribeGroups reports.
type GroupState int

// The group states.
const (
	Empty GroupState = iota
	PreparingRebalance
	AwaitingSync
	Stable
	Dead
)

func (s GroupState) String() string {
	switch s {
	case Empty:
		return "Empty"
	case PreparingRebalance:
		return "PreparingRebalance"
	case AwaitingSync:
		return "AwaitingSync"
	case Stable:
		return "Stable"
	case Dead:
		return "Dead"
	}
	return fmt.Sprintf("GroupState(%d)", int(s))
}

// validPreviousStates lists, per target state, the states a group may move from.
var validPreviousStates = map[GroupState][]GroupState{
	Dead:               {Stable, PreparingRebalance, AwaitingSync, Empty, Dead},
	AwaitingSync:       {PreparingRebalance},
	Stable:             {AwaitingSync},
	PreparingRebalance: {Stable, AwaitingSync, Empty},
	Empty:              {PreparingRebalance},
}

// ValidPreviousStates returns the states from which a group may enter target.
func ValidPreviousStates(target GroupState) []GroupState {
	return append([]GroupState(nil), validPreviousStates[target]...)
}

// MemberSummary is a member as DescribeGroups shows it.
//
// Kafka 0.10.2: kafka.coordinator.MemberSummary.
type MemberSummary struct {
	MemberID, ClientID, ClientHost string
	Metadata, Assignment           []byte
}

// GroupSummary is a group as DescribeGroups shows it.
//
// Kafka 0.10.2: kafka.coordinator.GroupSummary.
type GroupSummary struct {
	State, ProtocolType, Protocol string
	Members                       []MemberSummary
}

// GroupOverview is a group as ListGroups shows it.
//
// Kafka 0.10.2: kafka.coordinator.GroupOverview.
type GroupOverview struct {
	GroupID, ProtocolType string
}

// GroupMetadata is one group: its state, members, generation, selected protocol and leader,
// and its committed (and pending) offsets. All fields are guarded by mu, which is Kafka's
// `group synchronized`.
//
// Kafka 0.10.2: kafka.coordinator.GroupMetadata. Members are kept in join order (Kafka's
// HashMap order is arbitrary), so "the next leader" and member listings are deterministic.
type GroupMetadata struct {
	mu sync.Mutex

	GroupID      string
	state        GroupState
	members      map[string]*MemberMetadata
	memberOrder  []string
	offsets      map[common.TopicPartition]OffsetAndMetadata
	pending      map[common.TopicPartition]OffsetAndMetadata
	protocolType *string
	generationID int32
	leaderID     string // "" = none (Kafka: null)
	protocol     string // "" = none (Kafka: null)

	// delayedStores are appends prepared under mu, run by unlockGroup after mu is released.
	delayedStores []*DelayedStore
}

// NewGroupMetadata returns an Empty group at generation 0.
func NewGroupMetadata(groupID string) *GroupMetadata {
	return &GroupMetadata{GroupID: groupID, state: Empty, members: map[string]*MemberMetadata{},
		offsets: map[common.TopicPartition]OffsetAndMetadata{}, pending: map[common.TopicPartition]OffsetAndMetadata{}}
}

// Is reports whether the group is in state s. Caller holds mu.
func (g *GroupMetadata) Is(s GroupState) bool { return g.state == s }

// CurrentState is the group's state. Caller holds mu.
func (g *GroupMetadata) CurrentState() GroupState { return g.state }

// GenerationID is the current generation. Caller holds mu.
func (g *GroupMetadata) GenerationID() int32 { return g.generationID }

// LeaderID is the leader's member id, "" if none. Caller holds mu.
func (g *GroupMetadata) LeaderID() string { return g.leaderID }

// Protocol is the selected protocol, "" if none. Caller holds mu.
func (g *GroupMetadata) Protocol() string { return g.protocol }

// ProtocolType is the group's protocol type, "" if none was ever set. Caller holds mu.
func (g *GroupMetadata) ProtocolType() string {
	if g.protocolType == nil {
		return ""
	}
	return *g.protocolType
}

// Has reports whether memberID is a member. Caller holds mu.
func (g *GroupMetadata) Has(memberID string) bool { _, ok := g.members[memberID]; return ok }

// Get returns a member (nil if absent). Caller holds mu.
func (g *GroupMetadata) Get(memberID string) *MemberMetadata { return g.members[memberID] }

// Add adds a member; the first member of a group without members sets the protocol type, and
// a group without a leader gets this member as leader. Caller holds mu.
func (g *GroupMetadata) Add(m *MemberMetadata) {
	if len(g.members) == 0 {
		pt := m.ProtocolType
		g.protocolType = &pt
	}
	if g.leaderID == "" {
		g.leaderID = m.MemberID
	}
	if _, ok := g.members[m.MemberID]; !ok {
		g.memberOrder = append(g.memberOrder, m.MemberID)
	}
	g.members[m.MemberID] = m
}

// Remove removes a member; if it was the leader, the oldest remaining member leads. Caller
// holds mu.
func (g *GroupMetadata) Remove(memberID string) {
	if _, ok := g.members[memberID]; !ok {
		return
	}
	delete(g.members, memberID)
	for i, id := range g.memberOrder {
		if id == memberID {
			g.memberOrder = append(g.memberOrder[:i:i], g.memberOrder[i+1:]...)
			break
		}
	}
	if memberID == g.leaderID {
		g.leaderID = ""
		if len(g.memberOrder) > 0 {
			g.leaderID = g.memberOrder[0]
		}
	}
}

// AllMembers returns the member ids in join order. Caller holds mu.
func (g *GroupMetadata) AllMembers() []string { return append([]string(nil), g.memberOrder...) }

// AllMemberMetadata returns the members in join order. Caller holds mu.
func (g *GroupMetadata) AllMemberMetadata() []*MemberMetadata {
	out := make([]*MemberMetadata, 0, len(g.memberOrder))
	for _, id := range g.memberOrder {
		out = append(out, g.members[id])
	}
	return out
}

// notYetRejoinedMembers are the members without a parked JoinGroup.
func (g *GroupMetadata) notYetRejoinedMembers() []*MemberMetadata {
	var out []*MemberMetadata
	for _, m := range g.AllMemberMetadata() {
		if m.awaitingJoinCallback == nil {
			out = append(out, m)
		}
	}
	return out
}

// RebalanceTimeoutMs is the largest rebalance timeout of the members (0 without members).
func (g *GroupMetadata) RebalanceTimeoutMs() int32 {
	var t int32
	for _, m := range g.members {
		t = max(t, m.RebalanceTimeoutMs)
	}
	return t
}

// generateMemberIDSuffix is a random (version 4) UUID in Java's textual form.
func generateMemberIDSuffix() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// CanRebalance reports whether the group may enter PreparingRebalance.
func (g *GroupMetadata) CanRebalance() bool { return g.canMoveTo(PreparingRebalance) }

func (g *GroupMetadata) canMoveTo(target GroupState) bool {
	for _, s := range validPreviousStates[target] {
		if s == g.state {
			return true
		}
	}
	return false
}

// TransitionTo moves the group to target, or returns an error (and leaves the state alone)
// when target may not follow the current state. Caller holds mu.
func (g *GroupMetadata) TransitionTo(target GroupState) error {
	if !g.canMoveTo(target) {
		prev := make([]string, 0, 5)
		for _, s := range validPreviousStates[target] {
			prev = append(prev, s.String())
		}
		return fmt.Errorf("group %s should be in the %s states before moving to %s state; instead it is in %s state",
			g.GroupID, strings.Join(prev, ","), target, g.state)
	}
	g.state = target
	return nil
}

// mustTransitionTo is TransitionTo where the coordinator's own logic guarantees legality;
// an illegal move there is a programming error (Kafka asserts).
func (g *GroupMetadata) mustTransitionTo(target GroupState) {
	if err := g.TransitionTo(target); err != nil {
		panic(err)
	}
}

// candidateProtocols is the set of protocol names every member supports.
func (g *GroupMetadata) candidateProtocols() map[string]bool {
	var cand map[string]bool
	for _, m := range g.AllMemberMetadata() {
		ps := m.protocols()
		if cand == nil {
			cand = ps
			continue
		}
		for p := range cand {
			if !ps[p] {
				delete(cand, p)
			}
		}
	}
	return cand
}

// SupportsProtocols reports whether a member supporting names could join: the group has no
// members, or names meets the candidate protocols.
func (g *GroupMetadata) SupportsProtocols(names []string) bool {
	if len(g.members) == 0 {
		return true
	}
	cand := g.candidateProtocols()
	for _, n := range names {
		if cand[n] {
			return true
		}
	}
	return false
}

// SelectProtocol picks the protocol by vote: each member votes for its most preferred
// candidate; most votes wins. Kafka breaks ties by hash-map order; here the tie goes to the
// name that sorts first.
func (g *GroupMetadata) SelectProtocol() (string, error) {
	if len(g.members) == 0 {
		return "", fmt.Errorf("cannot select protocol for empty group %s", g.GroupID)
	}
	cand := g.candidateProtocols()
	votes := map[string]int{}
	for _, m := range g.AllMemberMetadata() {
		v, ok := m.vote(cand)
		if !ok {
			return "", fmt.Errorf("member %s does not support any of the candidate protocols", m.MemberID)
		}
		votes[v]++
	}
	names := make([]string, 0, len(votes))
	for n := range votes {
		names = append(names, n)
	}
	sort.Strings(names)
	best := names[0]
	for _, n := range names[1:] {
		if votes[n] > votes[best] {
			best = n
		}
	}
	return best, nil
}

// initNextGeneration ends a rebalance: generation+1 and AwaitingSync with a selected protocol,
// or Empty when no member is left. Caller holds mu.
func (g *GroupMetadata) initNextGeneration() {
	g.generationID++
	if len(g.members) > 0 {
		p, err := g.SelectProtocol()
		if err != nil {
			panic(err) // members were admitted only with a common protocol
		}
		g.protocol = p
		g.mustTransitionTo(AwaitingSync)
		return
	}
	g.protocol = ""
	g.mustTransitionTo(Empty)
}

// currentMemberMetadata maps every member to its metadata for the selected protocol.
func (g *GroupMetadata) currentMemberMetadata() []JoinGroupMember {
	out := make([]JoinGroupMember, 0, len(g.memberOrder))
	for _, m := range g.AllMemberMetadata() {
		out = append(out, JoinGroupMember{MemberID: m.MemberID, Metadata: m.Metadata(g.protocol)})
	}
	return out
}

// Summary is the DescribeGroups view: metadata and assignments only when Stable.
func (g *GroupMetadata) Summary() GroupSummary {
	s := GroupSummary{State: g.state.String(), ProtocolType: g.ProtocolType()}
	if g.Is(Stable) {
		s.Protocol = g.protocol
	}
	for _, m := range g.AllMemberMetadata() {
		ms := MemberSummary{MemberID: m.MemberID, ClientID: m.ClientID, ClientHost: m.ClientHost,
			Metadata: []byte{}, Assignment: []byte{}}
		if g.Is(Stable) {
			ms.Metadata, ms.Assignment = m.Metadata(g.protocol), m.Assignment
		}
		s.Members = append(s.Members, ms)
	}
	return s
}

// Overview is the ListGroups view.
func (g *GroupMetadata) Overview() GroupOverview {
	return GroupOverview{GroupID: g.GroupID, ProtocolType: g.ProtocolType()}
}

// InitializeOffsets adds loaded offsets. Caller holds mu.
func (g *GroupMetadata) InitializeOffsets(offsets map[common.TopicPartition]OffsetAndMetadata) {
	for tp, o := range offsets {
		g.offsets[tp] = o
	}
}

// completePendingOffsetWrite makes a written offset visible (if it is still pending) and
// forgets the pending entry if it is the one written.
func (g *GroupMetadata) completePendingOffsetWrite(tp common.TopicPartition, o OffsetAndMetadata) {
	p, ok := g.pending[tp]
	if ok {
		g.offsets[tp] = o
		if p == o {
			delete(g.pending, tp)
		}
	}
}

// failPendingOffsetWrite forgets a pending entry that failed to be written.
func (g *GroupMetadata) failPendingOffsetWrite(tp common.TopicPartition, o OffsetAndMetadata) {
	if p, ok := g.pending[tp]; ok && p == o {
		delete(g.pending, tp)
	}
}

// prepareOffsetCommit records offsets being written.
func (g *GroupMetadata) prepareOffsetCommit(offsets map[common.TopicPartition]OffsetAndMetadata) {
	for tp, o := range offsets {
		g.pending[tp] = o
	}
}

// removeOffsets drops the offsets of tps (pending ones too) and returns those that existed.
func (g *GroupMetadata) removeOffsets(tps []common.TopicPartition) map[common.TopicPartition]OffsetAndMetadata {
	out := map[common.TopicPartition]OffsetAndMetadata{}
	for _, tp := range tps {
		delete(g.pending, tp)
		if o, ok := g.offsets[tp]; ok {
			out[tp] = o
			delete(g.offsets, tp)
		}
	}
	return out
}

// removeExpiredOffsets drops offsets whose expire timestamp is before nowMs and that have no
// pending commit, and returns them.
func (g *GroupMetadata) removeExpiredOffsets(nowMs int64) map[common.TopicPartition]OffsetAndMetadata {
	out := map[common.TopicPartition]OffsetAndMetadata{}
	for tp, o := range g.offsets {
		if _, pending := g.pending[tp]; o.ExpireTimestamp < nowMs && !pending {
			out[tp] = o
			delete(g.offsets, tp)
		}
	}
	return out
}

// AllOffsets returns a copy of the committed offsets. Caller holds mu.
func (g *GroupMetadata) AllOffsets() map[common.TopicPartition]OffsetAndMetadata {
	out := make(map[common.TopicPartition]OffsetAndMetadata, len(g.offsets))
	for tp, o := range g.offsets {
		out[tp] = o
	}
	return out
}

// Offset returns a committed offset. Caller holds mu.
func (g *GroupMetadata) Offset(tp common.TopicPartition) (OffsetAndMetadata, bool) {
	o, ok := g.offsets[tp]
	return o, ok
}

// NumOffsets is the number of committed offsets. Caller holds mu.
func (g *GroupMetadata) NumOffsets() int { return len(g.offsets) }

// HasOffsets reports committed or pending offsets. Caller holds mu.
func (g *GroupMetadata) HasOffsets() bool { return len(g.offsets) > 0 || len(g.pending) > 0 }

func (g *GroupMetadata) String() string {
	return fmt.Sprintf("[%s,%s,%s,%v]", g.GroupID, g.ProtocolType(), g.state, g.memberOrder)
}
