package consumer

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// offsetCommitRequestVersion and offsetFetchRequestVersion are 0.10.2's consumer's versions.
const (
	offsetCommitRequestVersion = 2
	offsetFetchRequestVersion  = 2
)

// OffsetCommitCallback is told the outcome of commitAsync, on the goroutine calling poll (or
// commit, or close).
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.OffsetCommitCallback.
type OffsetCommitCallback func(offsets map[common.TopicPartition]OffsetAndMetadata, err error)

// ConsumerCoordinator is the consumer's group protocol on AbstractCoordinator: it offers the
// configured assignors with this member's subscription (ConsumerProtocol bytes), runs the
// leader's assignment, applies the assignment (telling the ConsumerRebalanceListener), commits
// and fetches offsets, commits automatically every auto.commit.interval.ms and before a
// rebalance, and asks to rejoin when the partition count of a subscribed topic (or the set of
// topics matching a pattern) changes.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.
type ConsumerCoordinator struct {
	*AbstractCoordinator
	subscriptions         *SubscriptionState
	metadata              *clients.Metadata
	assignors             []PartitionAssignor
	autoCommitEnabled     bool
	autoCommitIntervalMs  int64
	excludeInternalTopics bool
	defaultCommitCallback OffsetCommitCallback
	log                   *logrus.Entry
	// onCommit is ConsumerInterceptors.onCommit (set by KafkaConsumer), called with every
	// successful commit.
	onCommit func(map[common.TopicPartition]OffsetAndMetadata)

	// main goroutine only
	nextAutoCommitDeadline int64
	metadataVersion        int
	metadataSnapshot       map[string]int
	assignmentSnapshot     map[string]int
	joinedSubscription     []string
	isLeader               bool

	allTopics         atomic.Pointer[[]string] // every topic of the last full metadata (pattern subscriptions)
	completedMu       sync.Mutex
	completedCommits  []func()
	pendingAsyncCount atomic.Int32
}

// ConsumerCoordinatorConfig is the coordinator's part of ConsumerConfig.
type ConsumerCoordinatorConfig struct {
	GroupID                                           string
	RebalanceTimeoutMs, SessionTimeoutMs, HeartbeatMs int32
	RetryBackoffMs                                    int64
	AutoCommitEnabled                                 bool
	AutoCommitIntervalMs                              int64
	ExcludeInternalTopics                             bool
}

// NewConsumerCoordinator wires a coordinator; it registers a metadata listener for pattern
// subscriptions.
func NewConsumerCoordinator(client *ConsumerNetworkClient, cfg ConsumerCoordinatorConfig, assignors []PartitionAssignor, metadata *clients.Metadata,
	subscriptions *SubscriptionState, sensors *groupCoordinatorMetrics, t common.Time, log *logrus.Entry) (*ConsumerCoordinator, error) {
	c := &ConsumerCoordinator{subscriptions: subscriptions, metadata: metadata, assignors: assignors, autoCommitEnabled: cfg.AutoCommitEnabled,
		autoCommitIntervalMs: cfg.AutoCommitIntervalMs, excludeInternalTopics: cfg.ExcludeInternalTopics,
		log: log.WithField("logger", "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"), metadataVersion: -1}
	ac, err := newAbstractCoordinator(c, client, cfg.GroupID, cfg.RebalanceTimeoutMs, cfg.SessionTimeoutMs, cfg.HeartbeatMs, cfg.RetryBackoffMs, sensors, t, log)
	if err != nil {
		return nil, err
	}
	c.AbstractCoordinator = ac
	c.defaultCommitCallback = func(offsets map[common.TopicPartition]OffsetAndMetadata, err error) {
		if err != nil {
			c.log.Errorf("Offset commit failed on partition(s) %s: %v", tpList(common.SortedTopicPartitions(offsets)), err)
		}
	}
	c.nextAutoCommitDeadline = t.Milliseconds() + cfg.AutoCommitIntervalMs
	metadata.AddListener(func(cluster *common.Cluster, _ []string) {
		ts := cluster.Topics()
		c.allTopics.Store(&ts)
	})
	return c, nil
}

func (c *ConsumerCoordinator) protocolType() string { return protocol.ConsumerProtocolType }

// groupMetadata is one JoinGroup protocol per assignor, each with this member's subscription.
func (c *ConsumerCoordinator) groupMetadata() []protocol.JoinGroupRequestProtocol {
	c.joinedSubscription = c.subscriptions.Subscription()
	var out []protocol.JoinGroupRequestProtocol
	for _, a := range c.assignors {
		s := a.Subscription(c.joinedSubscription)
		ud := s.UserData
		if ud == nil {
			ud = []byte{}
		}
		b := (&protocol.ConsumerProtocolSubscription{Topics: s.Topics, UserData: ud}).AppendTo(nil)
		out = append(out, protocol.JoinGroupRequestProtocol{ProtocolName: a.Name(), ProtocolMetadata: b})
	}
	return out
}

func (c *ConsumerCoordinator) lookupAssignor(name string) PartitionAssignor {
	for _, a := range c.assignors {
		if a.Name() == name {
			return a
		}
	}
	return nil
}

// Poll is the coordinator's share of KafkaConsumer.poll: completed async commit callbacks run,
// the group is joined when needed, the poll is recorded for the heartbeat thread, and offsets are
// committed when auto commit is due.
//
// Kafka 0.10.2: ConsumerCoordinator.poll.
func (c *ConsumerCoordinator) Poll(now int64) error {
	c.invokeCompletedOffsetCommitCallbacks()
	c.updatePatternSubscription()
	if c.subscriptions.PartitionsAutoAssigned() {
		if c.CoordinatorUnknown() {
			if _, err := c.EnsureCoordinatorReady(-1); err != nil {
				return err
			}
			now = c.time.Milliseconds()
		}
		if c.NeedRejoin() {
			if c.subscriptions.HasPatternSubscription() {
				if _, err := c.client.AwaitMetadataUpdate(-1); err != nil {
					return err
				}
				c.updatePatternSubscription()
			}
			if err := c.EnsureActiveGroup(c.NeedRejoin); err != nil {
				return err
			}
			now = c.time.Milliseconds()
		}
		c.PollHeartbeat(now)
	}
	c.maybeAutoCommitOffsetsAsync(now)
	return nil
}

// updatePatternSubscription applies a new metadata version: the topics matching the pattern
// become the subscription, and the partition counts of the (group) subscription are noted.
func (c *ConsumerCoordinator) updatePatternSubscription() {
	v := c.metadata.Version()
	if v == c.metadataVersion {
		return
	}
	c.metadataVersion = v
	if p := c.subscriptions.SubscribedPattern(); p != nil {
		if all := c.allTopics.Load(); all != nil {
			var matched []string
			for _, t := range *all {
				if c.excludeInternalTopics && common.IsInternalTopic(t) {
					continue
				}
				if p.MatchString(t) {
					matched = append(matched, t)
				}
			}
			sort.Strings(matched)
			if !slices.Equal(matched, c.subscriptions.Subscription()) {
				c.log.Debugf("Subscribing to pattern-matched topics %v", matched)
				c.subscriptions.SubscribeFromPattern(matched)
				c.metadata.SetTopics(c.subscriptions.GroupSubscription())
			}
		}
	}
	cluster := c.metadata.Fetch()
	snap := map[string]int{}
	for _, t := range c.subscriptions.GroupSubscription() {
		if n, ok := cluster.PartitionCountForTopic(t); ok {
			snap[t] = n
		}
	}
	c.metadataSnapshot = snap
}

// NeedRejoin reports that this member must (re)join: never joined, told to by the coordinator,
// the subscription changed since the join, or (leader) partition counts changed.
//
// Kafka 0.10.2: ConsumerCoordinator.needRejoin.
func (c *ConsumerCoordinator) NeedRejoin() bool {
	if !c.subscriptions.PartitionsAutoAssigned() {
		return false
	}
	if c.assignmentSnapshot != nil && !mapsEqual(c.assignmentSnapshot, c.metadataSnapshot) {
		return true
	}
	if c.joinedSubscription != nil && !slices.Equal(c.joinedSubscription, c.subscriptions.Subscription()) {
		return true
	}
	return c.rejoinRequested()
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// onJoinPrepare commits (if auto commit is on) and revokes the assignment before a join.
func (c *ConsumerCoordinator) onJoinPrepare(generation int32, memberID string) error {
	c.maybeAutoCommitOffsetsSync(c.autoCommitIntervalMs)
	if l := c.subscriptions.Listener(); l != nil {
		revoked := c.subscriptions.AssignedPartitions()
		c.log.Infof("Revoking previously assigned partitions %v for group %s", revoked, c.groupID)
		l.OnPartitionsRevoked(revoked)
	}
	c.isLeader = false
	c.subscriptions.ResetGroupSubscription()
	return nil
}

// performAssignment is the leader's work: decode every member's subscription, make sure the
// metadata covers all their topics, run the chosen assignor, encode the shares.
func (c *ConsumerCoordinator) performAssignment(leaderID, protocolName string, members []protocol.JoinGroupResponseMember) (map[string][]byte, error) {
	assignor := c.lookupAssignor(protocolName)
	if assignor == nil {
		return nil, fmt.Errorf("Coordinator selected invalid assignment protocol: %s", protocolName)
	}
	subs := map[string]Subscription{}
	var all []string
	for _, m := range members {
		var s protocol.ConsumerProtocolSubscription
		if err := s.ReadFrom(m.MemberMetadata); err != nil {
			return nil, err
		}
		subs[m.MemberID] = Subscription{Topics: s.Topics, UserData: s.UserData}
		all = append(all, s.Topics...)
	}
	c.subscriptions.GroupSubscribe(all)
	c.metadata.SetTopics(c.subscriptions.GroupSubscription())
	if _, err := c.client.AwaitMetadataUpdate(-1); err != nil {
		return nil, err
	}
	c.isLeader = true
	c.metadataVersion = -1
	c.updatePatternSubscription()
	c.assignmentSnapshot = c.metadataSnapshot
	c.log.Debugf("Performing assignment for group %s using strategy %s with subscriptions %v", c.groupID, protocolName, subs)
	assignment := assignor.Assign(c.metadataSnapshot, subs)
	out := map[string][]byte{}
	for m, a := range assignment {
		ud := a.UserData
		if ud == nil {
			ud = []byte{}
		}
		out[m] = (&protocol.ConsumerProtocolAssignment{Partitions: a.Partitions, UserData: ud}).AppendTo(nil)
	}
	c.log.Debugf("Finished assignment for group %s: %v", c.groupID, assignment)
	return out, nil
}

// onJoinComplete applies the assignment and tells the listener.
func (c *ConsumerCoordinator) onJoinComplete(generation int32, memberID, protocolName string, assignmentBytes []byte) error {
	if !c.isLeader {
		c.assignmentSnapshot = nil
	}
	assignor := c.lookupAssignor(protocolName)
	if assignor == nil {
		return fmt.Errorf("Coordinator selected invalid assignment protocol: %s", protocolName)
	}
	var a protocol.ConsumerProtocolAssignment
	if err := a.ReadFrom(assignmentBytes); err != nil {
		return err
	}
	c.subscriptions.NeedRefreshCommits()
	c.subscriptions.AssignFromSubscribed(a.Partitions)
	assignor.OnAssignment(Assignment{Partitions: a.Partitions, UserData: a.UserData})
	c.nextAutoCommitDeadline = c.time.Milliseconds() + c.autoCommitIntervalMs
	c.log.Infof("Setting newly assigned partitions %v for group %s", a.Partitions, c.groupID)
	if l := c.subscriptions.Listener(); l != nil {
		l.OnPartitionsAssigned(a.Partitions)
	}
	return nil
}

// RefreshCommittedOffsetsIfNeeded fetches the committed offsets of the assignment after it
// changed.
//
// Kafka 0.10.2: ConsumerCoordinator.refreshCommittedOffsetsIfNeeded.
func (c *ConsumerCoordinator) RefreshCommittedOffsetsIfNeeded() error {
	if !c.subscriptions.RefreshCommitsNeeded() {
		return nil
	}
	offsets, err := c.FetchCommittedOffsets(c.subscriptions.AssignedPartitions())
	if err != nil {
		return err
	}
	for tp, o := range offsets {
		c.subscriptions.SetCommitted(tp, o)
	}
	c.subscriptions.CommitsRefreshed()
	return nil
}

// FetchCommittedOffsets asks the coordinator for the group's committed offsets of partitions
// (partitions without one are absent), retrying retriable errors.
//
// Kafka 0.10.2: ConsumerCoordinator.fetchCommittedOffsets.
func (c *ConsumerCoordinator) FetchCommittedOffsets(partitions []common.TopicPartition) (map[common.TopicPartition]OffsetAndMetadata, error) {
	if len(partitions) == 0 {
		return map[common.TopicPartition]OffsetAndMetadata{}, nil
	}
	for {
		if _, err := c.EnsureCoordinatorReady(-1); err != nil {
			return nil, err
		}
		f := c.sendOffsetFetchRequest(partitions)
		if _, err := PollFuture(c.client, f, -1); err != nil {
			return nil, err
		}
		if f.Succeeded() {
			return f.Value(), nil
		}
		if !f.IsRetriable() {
			return nil, f.Exception()
		}
		c.time.Sleep(msDuration(c.retryBackoffMs))
	}
}

func (c *ConsumerCoordinator) sendOffsetFetchRequest(partitions []common.TopicPartition) *RequestFuture[map[common.TopicPartition]OffsetAndMetadata] {
	node := c.Coordinator()
	if node == nil {
		return FailedFuture[map[common.TopicPartition]OffsetAndMetadata](ErrCoordinatorNotAvailable)
	}
	req := &protocol.OffsetFetchRequest{Version: offsetFetchRequestVersion, GroupID: c.groupID}
	idx := map[string]int{}
	for _, tp := range partitions {
		i, ok := idx[tp.Topic]
		if !ok {
			i = len(req.Topics)
			idx[tp.Topic] = i
			req.Topics = append(req.Topics, protocol.OffsetFetchRequestTopic{Topic: tp.Topic})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, protocol.OffsetFetchRequestTopicPartition{Partition: tp.Partition})
	}
	return Compose(c.client.Send(*node, req), func(r *clients.ClientResponse, f *RequestFuture[map[common.TopicPartition]OffsetAndMetadata]) {
		resp := r.ResponseBody.(*protocol.OffsetFetchResponse)
		if err := c.offsetFetchError(protocol.ErrorForCode(resp.ErrorCode), ""); err != nil {
			f.Raise(err)
			return
		}
		out := map[common.TopicPartition]OffsetAndMetadata{}
		for _, t := range resp.Responses {
			for _, p := range t.PartitionResponses {
				tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				if err := c.offsetFetchError(protocol.ErrorForCode(p.ErrorCode), tp.String()); err != nil {
					f.Raise(err)
					return
				}
				if p.Offset >= 0 {
					md := ""
					if p.Metadata != nil {
						md = *p.Metadata
					}
					out[tp] = OffsetAndMetadata{Offset: p.Offset, Metadata: md}
				}
			}
		}
		f.Complete(out)
	})
}

func (c *ConsumerCoordinator) offsetFetchError(err error, tp string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, protocol.ErrGroupLoadInProgress):
		return err
	case errors.Is(err, protocol.ErrNotCoordinatorForGroup), errors.Is(err, protocol.ErrGroupCoordinatorNotAvailable):
		c.coordinatorDead()
		return err
	case errors.Is(err, protocol.ErrUnknownTopicOrPartition):
		return fmt.Errorf("%w: Partition %s may not exist or user may not have Describe access to topic", err, tp)
	case errors.Is(err, protocol.ErrGroupAuthorizationFailed):
		return fmt.Errorf("%w: Not authorized to access group: %s", err, c.groupID)
	}
	return fmt.Errorf("Unexpected error in fetch offset response: %w", err)
}

// CommitOffsetsSync commits offsets and waits, retrying retriable failures, for up to timeoutMs
// (negative: no limit); it reports whether the commit was made.
//
// Kafka 0.10.2: ConsumerCoordinator.commitOffsetsSync.
func (c *ConsumerCoordinator) CommitOffsetsSync(offsets map[common.TopicPartition]OffsetAndMetadata, timeoutMs int64) (bool, error) {
	c.invokeCompletedOffsetCommitCallbacks()
	if len(offsets) == 0 {
		return true, nil
	}
	start := c.time.Milliseconds()
	for {
		remaining := int64(-1)
		if timeoutMs >= 0 {
			remaining = timeoutMs - (c.time.Milliseconds() - start)
			if remaining <= 0 {
				return false, nil
			}
		}
		if ok, err := c.EnsureCoordinatorReady(remaining); err != nil || !ok {
			return false, err
		}
		f := c.sendOffsetCommitRequest(offsets)
		if _, err := PollFuture(c.client, f, remaining); err != nil {
			return false, err
		}
		if !f.IsDone() {
			return false, nil
		}
		if f.Succeeded() {
			return true, nil
		}
		if !f.IsRetriable() {
			return false, f.Exception()
		}
		c.time.Sleep(msDuration(c.retryBackoffMs))
	}
}

// CommitOffsetsAsync commits offsets without waiting; callback (or the default, which logs
// failures) runs on a later poll or commit.
//
// Kafka 0.10.2: ConsumerCoordinator.commitOffsetsAsync.
func (c *ConsumerCoordinator) CommitOffsetsAsync(offsets map[common.TopicPartition]OffsetAndMetadata, callback OffsetCommitCallback) {
	c.invokeCompletedOffsetCommitCallbacks()
	if callback == nil {
		callback = c.defaultCommitCallback
	}
	if !c.CoordinatorUnknown() {
		c.doCommitOffsetsAsync(offsets, callback)
	} else {
		c.lookupCoordinator().AddListener(func(_ struct{}, err error) {
			if err != nil {
				c.queueCallback(func() {
					callback(offsets, fmt.Errorf("Offset commit failed with a retriable exception. You should retry committing offsets: %w", err))
				})
				return
			}
			c.doCommitOffsetsAsync(offsets, callback)
		})
	}
	c.client.PollNoWakeup()
}

func (c *ConsumerCoordinator) doCommitOffsetsAsync(offsets map[common.TopicPartition]OffsetAndMetadata, callback OffsetCommitCallback) {
	c.pendingAsyncCount.Add(1)
	c.sendOffsetCommitRequest(offsets).AddListener(func(_ struct{}, err error) {
		c.pendingAsyncCount.Add(-1)
		if err != nil && isRetriable(err) {
			err = fmt.Errorf("Offset commit failed with a retriable exception. You should retry committing offsets: %w", err)
		}
		c.queueCallback(func() { callback(offsets, err) })
	})
}

func (c *ConsumerCoordinator) queueCallback(f func()) {
	c.completedMu.Lock()
	c.completedCommits = append(c.completedCommits, f)
	c.completedMu.Unlock()
}

func (c *ConsumerCoordinator) invokeCompletedOffsetCommitCallbacks() {
	for {
		c.completedMu.Lock()
		cbs := c.completedCommits
		c.completedCommits = nil
		c.completedMu.Unlock()
		if len(cbs) == 0 {
			return
		}
		for _, cb := range cbs {
			cb()
		}
	}
}

// sendOffsetCommitRequest is OffsetCommit v2 with the current generation (none for a consumer
// using assign()).
func (c *ConsumerCoordinator) sendOffsetCommitRequest(offsets map[common.TopicPartition]OffsetAndMetadata) *RequestFuture[struct{}] {
	node := c.Coordinator()
	if node == nil {
		return FailedFuture[struct{}](ErrCoordinatorNotAvailable)
	}
	gen := NoGeneration
	if c.subscriptions.PartitionsAutoAssigned() {
		g := c.generationIfStable()
		if g == nil {
			return FailedFuture[struct{}](CommitFailedException{})
		}
		gen = *g
	}
	req := &protocol.OffsetCommitRequest{Version: offsetCommitRequestVersion, GroupID: c.groupID, GroupGenerationID: gen.GenerationID,
		MemberID: gen.MemberID, RetentionTime: -1}
	idx := map[string]int{}
	for _, tp := range common.SortedTopicPartitions(offsets) {
		o := offsets[tp]
		i, ok := idx[tp.Topic]
		if !ok {
			i = len(req.Topics)
			idx[tp.Topic] = i
			req.Topics = append(req.Topics, protocol.OffsetCommitRequestTopic{Topic: tp.Topic})
		}
		md := o.Metadata
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, protocol.OffsetCommitRequestTopicPartition{Partition: tp.Partition, Offset: o.Offset, Metadata: &md})
	}
	c.log.Debugf("Sending OffsetCommit request with %v to coordinator %s for group %s", offsets, node, c.groupID)
	start := c.time.Milliseconds()
	return Compose(c.client.Send(*node, req), func(r *clients.ClientResponse, f *RequestFuture[struct{}]) {
		c.sensors.recordCommit(c.time.Milliseconds() - start)
		resp := r.ResponseBody.(*protocol.OffsetCommitResponse)
		for _, t := range resp.Responses {
			for _, p := range t.PartitionResponses {
				tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				err := protocol.ErrorForCode(p.ErrorCode)
				switch {
				case err == nil:
					c.log.Debugf("Group %s committed offset %d for partition %s", c.groupID, offsets[tp].Offset, tp)
					if c.subscriptions.IsAssigned(tp) {
						c.subscriptions.SetCommitted(tp, offsets[tp])
					}
					continue
				case errors.Is(err, protocol.ErrGroupAuthorizationFailed):
					f.Raise(fmt.Errorf("%w: Not authorized to access group: %s", err, c.groupID))
				case errors.Is(err, protocol.ErrTopicAuthorizationFailed):
					f.Raise(fmt.Errorf("%w: Not authorized to access topics: [%s]", err, tp.Topic))
				case errors.Is(err, protocol.ErrOffsetMetadataTooLarge), errors.Is(err, protocol.ErrInvalidCommitOffsetSize):
					c.log.Debugf("Offset commit for group %s failed on partition %s: %v", c.groupID, tp, err)
					f.Raise(err)
				case errors.Is(err, protocol.ErrGroupLoadInProgress):
					f.Raise(err)
				case errors.Is(err, protocol.ErrGroupCoordinatorNotAvailable), errors.Is(err, protocol.ErrNotCoordinatorForGroup), errors.Is(err, protocol.ErrRequestTimedOut):
					c.coordinatorDead()
					f.Raise(err)
				case errors.Is(err, protocol.ErrUnknownMemberID), errors.Is(err, protocol.ErrIllegalGeneration), errors.Is(err, protocol.ErrRebalanceInProgress):
					c.log.Debugf("Offset commit for group %s failed: %v", c.groupID, err)
					c.resetGeneration()
					f.Raise(CommitFailedException{})
				default:
					f.Raise(fmt.Errorf("Unexpected error in commit: %w", err))
				}
				return
			}
		}
		if c.onCommit != nil {
			c.onCommit(offsets)
		}
		f.Complete(struct{}{})
	})
}

// maybeAutoCommitOffsetsAsync commits every position when auto commit is due.
func (c *ConsumerCoordinator) maybeAutoCommitOffsetsAsync(now int64) {
	if !c.autoCommitEnabled || c.groupID == "" || now < c.nextAutoCommitDeadline {
		return
	}
	if c.CoordinatorUnknown() {
		c.nextAutoCommitDeadline = now + c.retryBackoffMs
		return
	}
	c.nextAutoCommitDeadline = now + c.autoCommitIntervalMs
	allConsumed := c.subscriptions.AllConsumed()
	c.CommitOffsetsAsync(allConsumed, func(offsets map[common.TopicPartition]OffsetAndMetadata, err error) {
		if err != nil {
			c.log.Warnf("Auto offset commit failed for group %s: %v", c.groupID, err)
			if isRetriable(errors.Unwrap(err)) {
				c.nextAutoCommitDeadline = min(c.time.Milliseconds()+c.retryBackoffMs, c.nextAutoCommitDeadline)
			}
		} else {
			c.log.Debugf("Completed auto-commit of offsets %v for group %s", offsets, c.groupID)
		}
	})
}

// maybeAutoCommitOffsetsSync commits every position (before a rebalance, on close), logging
// failures.
func (c *ConsumerCoordinator) maybeAutoCommitOffsetsSync(timeoutMs int64) {
	if !c.autoCommitEnabled || c.groupID == "" {
		return
	}
	allConsumed := c.subscriptions.AllConsumed()
	ok, err := c.CommitOffsetsSync(allConsumed, timeoutMs)
	switch {
	case err != nil:
		c.log.Warnf("Auto offset commit failed for group %s: %v", c.groupID, err)
	case !ok:
		c.log.Warnf("Auto offset commit failed for group %s: Commit offsets timed out", c.groupID)
	default:
		c.log.Debugf("Sending synchronous auto-commit of offsets %v for group %s", allConsumed, c.groupID)
	}
}

// Close commits (auto commit), waits for async commits, stops the heartbeat thread and leaves
// the group, within timeoutMs.
//
// Kafka 0.10.2: ConsumerCoordinator.close.
func (c *ConsumerCoordinator) Close(timeoutMs int64) {
	c.client.DisableWakeups()
	start := c.time.Milliseconds()
	c.maybeAutoCommitOffsetsSync(timeoutMs)
	for c.pendingAsyncCount.Load() > 0 && !c.CoordinatorUnknown() && c.time.Milliseconds()-start < timeoutMs {
		_ = c.client.Poll(min(100, timeoutMs-(c.time.Milliseconds()-start)))
	}
	c.invokeCompletedOffsetCommitCallbacks()
	c.close(max(0, timeoutMs-(c.time.Milliseconds()-start)))
}
