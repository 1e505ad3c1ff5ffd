package consumer

import (
	"errors"
	"regexp"
	"sort"
	"sync"

	"github.com/zkafka/zkafka/clients/common"
)

// OffsetResetStrategy is auto.offset.reset (or a seekToBeginning/End request).
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.OffsetResetStrategy.
type OffsetResetStrategy int

// The reset strategies.
const (
	ResetNone OffsetResetStrategy = iota
	ResetEarliest
	ResetLatest
)

func (s OffsetResetStrategy) String() string {
	return [...]string{"NONE", "EARLIEST", "LATEST"}[s]
}

func parseResetStrategy(s string) OffsetResetStrategy {
	switch s {
	case "earliest":
		return ResetEarliest
	case "latest":
		return ResetLatest
	}
	return ResetNone
}

// SubscriptionType says how partitions come to a consumer.
type SubscriptionType int

// The subscription types of SubscriptionState.
const (
	SubscriptionNone SubscriptionType = iota
	AutoTopics
	AutoPattern
	UserAssigned
)

// ErrSubscriptionMixed is Kafka's IllegalStateException for mixing subscribe and assign.
var ErrSubscriptionMixed = errors.New("Subscription to topics, partitions and pattern are mutually exclusive")

// TopicPartitionState is what the consumer holds per assigned partition: the fetch position,
// the last committed offset, pause, and a pending reset.
type TopicPartitionState struct {
	Position      *int64
	HighWatermark int64
	Committed     *OffsetAndMetadata
	Paused        bool
	ResetStrategy *OffsetResetStrategy
}

func (s *TopicPartitionState) isFetchable() bool { return !s.Paused && s.Position != nil }

// SubscriptionState is what the consumer subscribed to (topics, a pattern, or partitions assigned
// by hand), what the group assigned, and the per-partition state. Its own mutex makes it safe for
// the heartbeat thread's commit callbacks; it is a leaf lock.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.SubscriptionState.
type SubscriptionState struct {
	mu                         sync.Mutex
	subscriptionType           SubscriptionType
	pattern                    *regexp.Regexp
	subscription               map[string]struct{}
	groupSubscription          map[string]struct{}
	assignment                 map[common.TopicPartition]*TopicPartitionState
	order                      []common.TopicPartition
	needsFetchCommittedOffsets bool
	defaultResetStrategy       OffsetResetStrategy
	listener                   ConsumerRebalanceListener
}

// NewSubscriptionState starts empty with the auto.offset.reset strategy.
func NewSubscriptionState(defaultReset OffsetResetStrategy) *SubscriptionState {
	return &SubscriptionState{subscription: map[string]struct{}{}, groupSubscription: map[string]struct{}{},
		assignment: map[common.TopicPartition]*TopicPartitionState{}, needsFetchCommittedOffsets: true, defaultResetStrategy: defaultReset}
}

func (s *SubscriptionState) setSubscriptionType(t SubscriptionType) error {
	if s.subscriptionType == SubscriptionNone {
		s.subscriptionType = t
	} else if s.subscriptionType != t {
		return ErrSubscriptionMixed
	}
	return nil
}

// Subscribe subscribes to topics with listener.
func (s *SubscriptionState) Subscribe(topics []string, listener ConsumerRebalanceListener) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setSubscriptionType(AutoTopics); err != nil {
		return err
	}
	s.listener = listener
	s.changeSubscriptionLocked(topics)
	return nil
}

func (s *SubscriptionState) changeSubscriptionLocked(topics []string) {
	next := map[string]struct{}{}
	for _, t := range topics {
		next[t] = struct{}{}
	}
	s.subscription = next
	s.groupSubscription = map[string]struct{}{}
	for t := range next {
		s.groupSubscription[t] = struct{}{}
	}
}

// SubscribePattern subscribes to the topics matching pattern.
func (s *SubscriptionState) SubscribePattern(pattern *regexp.Regexp, listener ConsumerRebalanceListener) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setSubscriptionType(AutoPattern); err != nil {
		return err
	}
	s.listener = listener
	s.pattern = pattern
	return nil
}

// SubscribeFromPattern sets the topics matched by the pattern (from metadata).
func (s *SubscriptionState) SubscribeFromPattern(topics []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changeSubscriptionLocked(topics)
}

// GroupSubscribe adds topics the leader must know (the whole group's subscription).
func (s *SubscriptionState) GroupSubscribe(topics []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range topics {
		s.groupSubscription[t] = struct{}{}
	}
}

// ResetGroupSubscription drops the topics only the leader needed.
func (s *SubscriptionState) ResetGroupSubscription() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groupSubscription = map[string]struct{}{}
	for t := range s.subscription {
		s.groupSubscription[t] = struct{}{}
	}
}

// AssignFromUser assigns partitions by hand (assign).
func (s *SubscriptionState) AssignFromUser(partitions []common.TopicPartition) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setSubscriptionType(UserAssigned); err != nil {
		return err
	}
	s.setAssignmentLocked(partitions)
	s.needsFetchCommittedOffsets = true
	return nil
}

// AssignFromSubscribed sets the partitions the group assigned.
func (s *SubscriptionState) AssignFromSubscribed(partitions []common.TopicPartition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setAssignmentLocked(partitions)
	s.needsFetchCommittedOffsets = true
}

func (s *SubscriptionState) setAssignmentLocked(partitions []common.TopicPartition) {
	next := make(map[common.TopicPartition]*TopicPartitionState, len(partitions))
	order := make([]common.TopicPartition, 0, len(partitions))
	for _, tp := range partitions {
		if _, dup := next[tp]; dup {
			continue
		}
		if st, ok := s.assignment[tp]; ok {
			next[tp] = st
		} else {
			next[tp] = &TopicPartitionState{HighWatermark: -1}
		}
		order = append(order, tp)
	}
	s.assignment, s.order = next, order
}

// Unsubscribe drops every subscription and assignment.
func (s *SubscriptionState) Unsubscribe() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subscription = map[string]struct{}{}
	s.groupSubscription = map[string]struct{}{}
	s.assignment = map[common.TopicPartition]*TopicPartitionState{}
	s.order = nil
	s.pattern = nil
	s.subscriptionType = SubscriptionNone
}

// Type is the subscription type.
func (s *SubscriptionState) Type() SubscriptionType {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscriptionType
}

// PartitionsAutoAssigned reports a group-managed subscription (topics or pattern).
func (s *SubscriptionState) PartitionsAutoAssigned() bool {
	t := s.Type()
	return t == AutoTopics || t == AutoPattern
}

// HasPatternSubscription reports a pattern subscription.
func (s *SubscriptionState) HasPatternSubscription() bool { return s.Type() == AutoPattern }

// HasNoSubscriptionOrUserAssignment reports neither subscribe nor assign.
func (s *SubscriptionState) HasNoSubscriptionOrUserAssignment() bool {
	return s.Type() == SubscriptionNone
}

// SubscribedPattern is the pattern subscribed to.
func (s *SubscriptionState) SubscribedPattern() *regexp.Regexp {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pattern
}

// Subscription is the topics subscribed to, sorted.
func (s *SubscriptionState) Subscription() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedSet(s.subscription)
}

// GroupSubscription is the topics of the group (the leader's view), sorted.
func (s *SubscriptionState) GroupSubscription() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedSet(s.groupSubscription)
}

// Listener is the rebalance listener.
func (s *SubscriptionState) Listener() ConsumerRebalanceListener {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listener
}

func sortedSet(m map[string]struct{}) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// AssignedPartitions are the assigned partitions, in assignment order.
func (s *SubscriptionState) AssignedPartitions() []common.TopicPartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]common.TopicPartition(nil), s.order...)
}

// IsAssigned reports an assigned partition.
func (s *SubscriptionState) IsAssigned(tp common.TopicPartition) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.assignment[tp]
	return ok
}

// FetchablePartitions are the assigned partitions with a position and not paused.
func (s *SubscriptionState) FetchablePartitions() []common.TopicPartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []common.TopicPartition
	for _, tp := range s.order {
		if s.assignment[tp].isFetchable() {
			out = append(out, tp)
		}
	}
	return out
}

// IsFetchable reports an assigned partition with a position and not paused.
func (s *SubscriptionState) IsFetchable(tp common.TopicPartition) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.assignment[tp]
	return ok && st.isFetchable()
}

// Seek sets the fetch position (and clears a pending reset).
func (s *SubscriptionState) Seek(tp common.TopicPartition, offset int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.assignment[tp]; ok {
		st.Position = &offset
		st.ResetStrategy = nil
	}
}

// Position is the fetch position, nil when unknown.
func (s *SubscriptionState) Position(tp common.TopicPartition) *int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.assignment[tp]; ok && st.Position != nil {
		p := *st.Position
		return &p
	}
	return nil
}

// UpdateHighWatermark records a partition's high watermark from a fetch.
func (s *SubscriptionState) UpdateHighWatermark(tp common.TopicPartition, hw int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.assignment[tp]; ok {
		st.HighWatermark = hw
	}
}

// PartitionLag is high watermark minus position, or -1 when unknown.
func (s *SubscriptionState) PartitionLag(tp common.TopicPartition) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.assignment[tp]
	if !ok || st.Position == nil || st.HighWatermark < 0 {
		return -1
	}
	return st.HighWatermark - *st.Position
}

// AllConsumed are the positions of every partition that has one, as offsets to commit.
func (s *SubscriptionState) AllConsumed() map[common.TopicPartition]OffsetAndMetadata {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[common.TopicPartition]OffsetAndMetadata{}
	for tp, st := range s.assignment {
		if st.Position != nil {
			out[tp] = OffsetAndMetadata{Offset: *st.Position}
		}
	}
	return out
}

// Committed is the last offset committed (or fetched) for tp.
func (s *SubscriptionState) Committed(tp common.TopicPartition) *OffsetAndMetadata {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.assignment[tp]; ok && st.Committed != nil {
		c := *st.Committed
		return &c
	}
	return nil
}

// SetCommitted records a committed offset.
func (s *SubscriptionState) SetCommitted(tp common.TopicPartition, o OffsetAndMetadata) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.assignment[tp]; ok {
		st.Committed = &o
	}
}

// NeedRefreshCommits asks for committed offsets to be fetched again.
func (s *SubscriptionState) NeedRefreshCommits() {
	s.mu.Lock()
	s.needsFetchCommittedOffsets = true
	s.mu.Unlock()
}

// RefreshCommitsNeeded reports committed offsets to fetch.
func (s *SubscriptionState) RefreshCommitsNeeded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.needsFetchCommittedOffsets
}

// CommitsRefreshed marks committed offsets fetched.
func (s *SubscriptionState) CommitsRefreshed() {
	s.mu.Lock()
	s.needsFetchCommittedOffsets = false
	s.mu.Unlock()
}

// NeedOffsetReset marks tp for a reset with strategy (the default when nil).
func (s *SubscriptionState) NeedOffsetReset(tp common.TopicPartition, strategy *OffsetResetStrategy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strategy == nil {
		d := s.defaultResetStrategy
		strategy = &d
	}
	if st, ok := s.assignment[tp]; ok {
		st.ResetStrategy = strategy
		st.Position = nil
	}
}

// HasDefaultOffsetResetPolicy reports auto.offset.reset other than none.
func (s *SubscriptionState) HasDefaultOffsetResetPolicy() bool {
	return s.defaultResetStrategy != ResetNone
}

// IsOffsetResetNeeded reports a pending reset for tp.
func (s *SubscriptionState) IsOffsetResetNeeded(tp common.TopicPartition) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.assignment[tp]
	return ok && st.ResetStrategy != nil
}

// ResetStrategy is tp's pending reset strategy.
func (s *SubscriptionState) ResetStrategy(tp common.TopicPartition) OffsetResetStrategy {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.assignment[tp]; ok && st.ResetStrategy != nil {
		return *st.ResetStrategy
	}
	return s.defaultResetStrategy
}

// HasAllFetchPositions reports a position for every assigned partition.
func (s *SubscriptionState) HasAllFetchPositions() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.assignment {
		if st.Position == nil {
			return false
		}
	}
	return true
}

// MissingFetchPositions are the assigned partitions without a position.
func (s *SubscriptionState) MissingFetchPositions() []common.TopicPartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []common.TopicPartition
	for _, tp := range s.order {
		if s.assignment[tp].Position == nil {
			out = append(out, tp)
		}
	}
	return out
}

// Pause stops fetching tp.
func (s *SubscriptionState) Pause(tp common.TopicPartition) { s.setPaused(tp, true) }

// Resume fetches tp again.
func (s *SubscriptionState) Resume(tp common.TopicPartition) { s.setPaused(tp, false) }

func (s *SubscriptionState) setPaused(tp common.TopicPartition, p bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.assignment[tp]; ok {
		st.Paused = p
	}
}

// IsPaused reports a paused partition.
func (s *SubscriptionState) IsPaused(tp common.TopicPartition) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.assignment[tp]
	return ok && st.Paused
}

// PausedPartitions are the paused partitions.
func (s *SubscriptionState) PausedPartitions() []common.TopicPartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []common.TopicPartition
	for _, tp := range s.order {
		if s.assignment[tp].Paused {
			out = append(out, tp)
		}
	}
	return out
}
