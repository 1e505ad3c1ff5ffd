package consumer

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/serialization"
)

// ConsumerOptions carries what a Java client would name by class in its configuration and a Go
// program passes as values, plus the logger and clock.
type ConsumerOptions[K, V any] struct {
	// Assignors replace partition.assignment.strategy.
	Assignors []PartitionAssignor
	// Interceptors are the interceptor.classes.
	Interceptors []ConsumerInterceptor[K, V]
	// MetricsReporters are the metric.reporters.
	MetricsReporters []metrics.MetricsReporter
	// Log receives the consumer's log lines under Kafka's logger names; nil writes WARN and
	// above to stderr.
	Log *logrus.Entry
	// Time is the clock (nil: the system clock).
	Time common.Time
}

// consumerClientIDSequence numbers consumers without a client.id (consumer-1, consumer-2, ...).
var consumerClientIDSequence atomic.Int32

// ErrConcurrentModification is a second goroutine using the consumer while another is in it.
var ErrConcurrentModification = errors.New("KafkaConsumer is not safe for multi-threaded access")

// KafkaConsumer reads records from Kafka: subscribe (topics or a pattern, partitions assigned by
// the group) or assign (partitions chosen by hand), then poll in a loop; positions advance as
// records are returned, and are committed automatically (enable.auto.commit) or by
// commitSync/commitAsync. It is not safe for concurrent use: one goroutine calls it, and only
// Wakeup may be called from another.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.KafkaConsumer.
type KafkaConsumer[K, V any] struct {
	clientID          string
	groupID           string
	config            *ConsumerConfig
	coordinator       *ConsumerCoordinator
	fetcher           *Fetcher[K, V]
	client            *ConsumerNetworkClient
	subscriptions     *SubscriptionState
	metadata          *clients.Metadata
	metrics           *metrics.Metrics
	keyDeserializer   serialization.Deserializer[K]
	valueDeserializer serialization.Deserializer[V]
	time              common.Time
	log               *logrus.Entry
	requestTimeoutMs  int64
	retryBackoffMs    int64
	interceptors      *ConsumerInterceptors[K, V]
	closed            atomic.Bool
	// light is Kafka's acquire/release guard: refcount holders, re-entered only from a
	// rebalance listener running inside Poll (Java's lock is re-entrant for its thread).
	light struct {
		sync.Mutex
		refcount   int
		inCallback int
	}
}

// NewKafkaConsumer builds a consumer from props (Kafka's consumer configuration). A nil
// deserializer is loaded from key.deserializer / value.deserializer (Kafka's built-in classes).
// A bad value fails with Kafka's *config.ConfigException; other failures with "Failed to
// construct kafka consumer: <cause>".
//
// Kafka 0.10.2: the KafkaConsumer constructors.
func NewKafkaConsumer[K, V any](props map[string]string, kd serialization.Deserializer[K], vd serialization.Deserializer[V]) (*KafkaConsumer[K, V], error) {
	return NewKafkaConsumerWith(props, kd, vd, ConsumerOptions[K, V]{})
}

// NewKafkaConsumerWith is NewKafkaConsumer with options.
func NewKafkaConsumerWith[K, V any](props map[string]string, kd serialization.Deserializer[K], vd serialization.Deserializer[V], opts ConsumerOptions[K, V]) (*KafkaConsumer[K, V], error) {
	given := make(map[string]string, len(props)+3)
	for k, v := range props {
		given[k] = v
	}
	if kd != nil {
		given[KeyDeserializerClassConfig] = goDeserializerClass
	}
	if vd != nil {
		given[ValueDeserializerClassConfig] = goDeserializerClass
	}
	if len(opts.Assignors) > 0 {
		given[PartitionAssignmentStrategyConfig] = goAssignorClass
	}
	cfg, err := NewConsumerConfig(given)
	if err != nil {
		return nil, err
	}
	c, err := newKafkaConsumer(cfg, kd, vd, opts)
	if err != nil {
		return nil, fmt.Errorf("Failed to construct kafka consumer: %w", err)
	}
	return c, nil
}

func newKafkaConsumer[K, V any](cfg *ConsumerConfig, kd serialization.Deserializer[K], vd serialization.Deserializer[V], opts ConsumerOptions[K, V]) (*KafkaConsumer[K, V], error) {
	log := opts.Log
	if log == nil {
		l := logrus.New()
		l.SetOutput(os.Stderr)
		l.SetLevel(logrus.WarnLevel)
		log = logrus.NewEntry(l)
	}
	t := opts.Time
	if t == nil {
		t = common.SystemTime{}
	}
	c := &KafkaConsumer[K, V]{config: cfg, time: t, groupID: cfg.GroupID, requestTimeoutMs: int64(cfg.RequestTimeoutMs), retryBackoffMs: cfg.RetryBackoffMs}
	c.clientID = cfg.ClientID
	if c.clientID == "" {
		c.clientID = fmt.Sprintf("consumer-%d", consumerClientIDSequence.Add(1))
	}
	c.log = log.WithField("logger", "org.apache.kafka.clients.consumer.KafkaConsumer")
	c.log.Debug("Starting the Kafka consumer")
	cfg.logAll(log.WithField("logger", "org.apache.kafka.clients.consumer.ConsumerConfig"))
	if kd == nil {
		d, ok := deserializerByName[K](cfg.KeyDeserializer)
		if !ok {
			return nil, classNotFound(KeyDeserializerClassConfig, cfg.KeyDeserializer)
		}
		d.Configure(cfg.Originals, true)
		kd = d
	}
	if vd == nil {
		d, ok := deserializerByName[V](cfg.ValueDeserializer)
		if !ok {
			return nil, classNotFound(ValueDeserializerClassConfig, cfg.ValueDeserializer)
		}
		d.Configure(cfg.Originals, false)
		vd = d
	}
	c.keyDeserializer, c.valueDeserializer = kd, vd
	if len(opts.Interceptors) > 0 {
		c.interceptors = NewConsumerInterceptors(opts.Interceptors, log)
	}
	assignors := opts.Assignors
	if len(assignors) == 0 {
		for _, name := range cfg.PartitionAssignmentStrategy {
			switch name {
			case RangeAssignorClass:
				assignors = append(assignors, NewRangeAssignor())
			case RoundRobinAssignorClass:
				assignors = append(assignors, NewRoundRobinAssignor())
			}
		}
	}
	addresses, err := clients.ParseAndValidateAddresses(cfg.BootstrapServers)
	if err != nil {
		return nil, err
	}
	mc := metrics.NewMetricConfig()
	mc.Samples = int(cfg.MetricsNumSamples)
	mc.TimeWindowMs = cfg.MetricsSampleWindowMs
	mc.Tags = map[string]string{"client-id": c.clientID}
	c.metrics = metrics.NewMetrics(mc, opts.MetricsReporters, t, log)
	c.metadata = clients.NewMetadata(cfg.RetryBackoffMs, cfg.MetadataMaxAgeMs, false, log)
	c.metadata.Update(common.BootstrapCluster(addresses), nil, 0)
	sel := network.NewSelector(network.SelectorConfig{ConnectionsMaxIdleMs: cfg.ConnectionsMaxIdleMs, Metrics: c.metrics,
		MetricGrpPrefix: "consumer", MetricTags: map[string]string{"client-id": c.clientID}, Time: t, Log: log})
	nc := clients.NewNetworkClient(sel, c.metadata, clients.NetworkClientConfig{ClientID: c.clientID, MaxInFlightRequestsPerConnection: 100,
		ReconnectBackoffMs: cfg.ReconnectBackoffMs, SocketSendBuffer: int(cfg.SendBufferBytes), SocketReceiveBuffer: int(cfg.ReceiveBufferBytes),
		RequestTimeoutMs: int64(cfg.RequestTimeoutMs), DiscoverBrokerVersions: true, Time: t, Log: log})
	c.client = NewConsumerNetworkClient(nc, c.metadata, t, cfg.RetryBackoffMs, int64(cfg.RequestTimeoutMs), log)
	c.subscriptions = NewSubscriptionState(parseResetStrategy(cfg.AutoOffsetReset))
	sensors := newGroupCoordinatorMetrics(c.metrics, func() int { return len(c.subscriptions.AssignedPartitions()) })
	c.coordinator, err = NewConsumerCoordinator(c.client, ConsumerCoordinatorConfig{GroupID: cfg.GroupID, RebalanceTimeoutMs: cfg.MaxPollIntervalMs,
		SessionTimeoutMs: cfg.SessionTimeoutMs, HeartbeatMs: cfg.HeartbeatIntervalMs, RetryBackoffMs: cfg.RetryBackoffMs,
		AutoCommitEnabled: cfg.EnableAutoCommit, AutoCommitIntervalMs: int64(cfg.AutoCommitIntervalMs), ExcludeInternalTopics: cfg.ExcludeInternalTopics},
		assignors, c.metadata, c.subscriptions, sensors, t, log)
	if err != nil {
		c.client.Close()
		return nil, err
	}
	if c.interceptors != nil {
		c.coordinator.onCommit = c.interceptors.OnCommit
	}
	c.fetcher = NewFetcher(c.client, c.metadata, c.subscriptions, FetcherConfig{MinBytes: cfg.FetchMinBytes, MaxBytes: cfg.FetchMaxBytes,
		MaxWaitMs: cfg.FetchMaxWaitMs, FetchSize: cfg.MaxPartitionFetchBytes, MaxPollRecords: int(cfg.MaxPollRecords), CheckCrcs: cfg.CheckCrcs,
		RetryBackoffMs: cfg.RetryBackoffMs}, kd, vd, c.metrics, t, log)
	c.log.Debug("Kafka consumer created")
	return c, nil
}

// ClientID is client.id, or the consumer-N name given when it is empty.
func (c *KafkaConsumer[K, V]) ClientID() string { return c.clientID }

// acquire guards against use from two goroutines at once and after close.
func (c *KafkaConsumer[K, V]) acquire() error {
	if c.closed.Load() {
		return ErrConsumerClosed
	}
	c.light.Lock()
	defer c.light.Unlock()
	if c.light.refcount > 0 && c.light.inCallback == 0 {
		return ErrConcurrentModification
	}
	c.light.refcount++
	return nil
}

func (c *KafkaConsumer[K, V]) release() {
	c.light.Lock()
	c.light.refcount--
	c.light.Unlock()
}

// callbackListener runs a ConsumerRebalanceListener so that it may call the consumer (commitSync
// in onPartitionsRevoked is the usual case), as Java's re-entrant acquire allows.
type callbackListener[K, V any] struct {
	c *KafkaConsumer[K, V]
	l ConsumerRebalanceListener
}

func (w callbackListener[K, V]) enter() { w.c.light.Lock(); w.c.light.inCallback++; w.c.light.Unlock() }
func (w callbackListener[K, V]) exit()  { w.c.light.Lock(); w.c.light.inCallback--; w.c.light.Unlock() }

// OnPartitionsRevoked implements ConsumerRebalanceListener.
func (w callbackListener[K, V]) OnPartitionsRevoked(p []common.TopicPartition) {
	w.enter()
	defer w.exit()
	w.l.OnPartitionsRevoked(p)
}

// OnPartitionsAssigned implements ConsumerRebalanceListener.
func (w callbackListener[K, V]) OnPartitionsAssigned(p []common.TopicPartition) {
	w.enter()
	defer w.exit()
	w.l.OnPartitionsAssigned(p)
}

// Assignment is the set of partitions assigned to this consumer.
func (c *KafkaConsumer[K, V]) Assignment() []common.TopicPartition {
	return c.subscriptions.AssignedPartitions()
}

// Subscription is the topics subscribed to (by name or matching the pattern).
func (c *KafkaConsumer[K, V]) Subscription() []string { return c.subscriptions.Subscription() }

// Subscribe subscribes to topics, the group assigning partitions; listener (may be nil) hears of
// each rebalance. An empty list is Unsubscribe.
//
// Kafka 0.10.2: KafkaConsumer.subscribe(Collection, ConsumerRebalanceListener).
func (c *KafkaConsumer[K, V]) Subscribe(topics []string, listener ConsumerRebalanceListener) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if len(topics) == 0 {
		c.unsubscribe()
		return nil
	}
	for _, t := range topics {
		if t == "" {
			return errIllegalArgument("Topic collection to subscribe to cannot contain null or empty topic")
		}
	}
	if listener == nil {
		listener = NoOpConsumerRebalanceListener{}
	}
	listener = callbackListener[K, V]{c, listener}
	sorted := append([]string(nil), topics...)
	sort.Strings(sorted)
	c.log.Debugf("Subscribed to topic(s): %v", sorted)
	if err := c.subscriptions.Subscribe(sorted, listener); err != nil {
		return err
	}
	c.metadata.SetTopics(c.subscriptions.GroupSubscription())
	return nil
}

// SubscribePattern subscribes to every topic matching pattern, now and as topics come and go.
//
// Kafka 0.10.2: KafkaConsumer.subscribe(Pattern, ConsumerRebalanceListener).
func (c *KafkaConsumer[K, V]) SubscribePattern(pattern *regexp.Regexp, listener ConsumerRebalanceListener) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if pattern == nil {
		return errIllegalArgument("Topic pattern to subscribe to cannot be null")
	}
	if listener == nil {
		listener = NoOpConsumerRebalanceListener{}
	}
	listener = callbackListener[K, V]{c, listener}
	c.log.Debugf("Subscribed to pattern: %s", pattern)
	// Java's Matcher.matches: the whole topic name must match.
	anchored, err := regexp.Compile("^(?:" + pattern.String() + ")$")
	if err != nil {
		return err
	}
	if err := c.subscriptions.SubscribePattern(anchored, listener); err != nil {
		return err
	}
	c.metadata.SetNeedMetadataForAllTopics(true)
	c.metadata.RequestUpdate()
	return nil
}

// Unsubscribe drops the subscription or assignment, leaving the group.
func (c *KafkaConsumer[K, V]) Unsubscribe() error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	c.unsubscribe()
	return nil
}

func (c *KafkaConsumer[K, V]) unsubscribe() {
	c.log.Debug("Unsubscribed all topics or patterns and assigned partitions")
	c.subscriptions.Unsubscribe()
	c.coordinator.maybeLeaveGroup()
	c.metadata.SetNeedMetadataForAllTopics(false)
}

// Assign takes partitions by hand (no group management). An empty list is Unsubscribe.
//
// Kafka 0.10.2: KafkaConsumer.assign.
func (c *KafkaConsumer[K, V]) Assign(partitions []common.TopicPartition) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if len(partitions) == 0 {
		c.unsubscribe()
		return nil
	}
	topics := map[string]struct{}{}
	for _, tp := range partitions {
		if tp.Topic == "" {
			return errIllegalArgument("Topic partitions to assign to cannot have null or empty topic")
		}
		topics[tp.Topic] = struct{}{}
	}
	c.log.Debugf("Subscribed to partition(s): %v", partitions)
	if err := c.subscriptions.AssignFromUser(partitions); err != nil {
		return err
	}
	c.metadata.SetTopics(sortedSet(topics))
	return nil
}

// Poll returns the records fetched for the assigned partitions, waiting up to timeout for some
// when none are buffered; it also joins the group, commits automatically and resets positions.
//
// Kafka 0.10.2: KafkaConsumer.poll.
func (c *KafkaConsumer[K, V]) Poll(timeout time.Duration) (*ConsumerRecords[K, V], error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	if timeout < 0 {
		return nil, errIllegalArgument("Timeout must not be negative")
	}
	if c.subscriptions.HasNoSubscriptionOrUserAssignment() {
		return nil, ErrNoSubscription
	}
	timeoutMs := timeout.Milliseconds()
	start := c.time.Milliseconds()
	remaining := timeoutMs
	for {
		recs, order, err := c.pollOnce(remaining)
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			// Send the next fetches before returning, so that they overlap the application's
			// processing of these records.
			if c.fetcher.SendFetches() > 0 || c.client.HasPendingRequests() {
				c.client.PollNoWakeup()
			}
			return c.interceptors.OnConsume(newConsumerRecords(recs, order)), nil
		}
		remaining = timeoutMs - (c.time.Milliseconds() - start)
		if remaining <= 0 {
			return newConsumerRecords[K, V](nil, nil), nil
		}
	}
}

// pollOnce is one round: coordinator duties, positions, buffered records or a fetch.
//
// Kafka 0.10.2: KafkaConsumer.pollOnce.
func (c *KafkaConsumer[K, V]) pollOnce(timeoutMs int64) (map[common.TopicPartition][]ConsumerRecord[K, V], []common.TopicPartition, error) {
	if err := c.coordinator.Poll(c.time.Milliseconds()); err != nil {
		return nil, nil, err
	}
	if !c.subscriptions.HasAllFetchPositions() {
		if err := c.updateFetchPositions(c.subscriptions.MissingFetchPositions()); err != nil {
			return nil, nil, err
		}
	}
	recs, order, err := c.fetcher.FetchedRecords()
	if err != nil || len(recs) > 0 {
		return recs, order, err
	}
	c.fetcher.SendFetches()
	now := c.time.Milliseconds()
	pollTimeout := timeoutMs
	if c.subscriptions.PartitionsAutoAssigned() {
		pollTimeout = min(pollTimeout, c.coordinator.TimeToNextPoll(now))
	}
	if err := c.client.pollUntil(pollTimeout, c.fetcher.HasCompletedFetches, false); err != nil {
		return nil, nil, err
	}
	if c.coordinator.NeedRejoin() {
		return nil, nil, nil
	}
	return c.fetcher.FetchedRecords()
}

// updateFetchPositions sets the positions of partitions from the committed offsets or the reset
// policy.
func (c *KafkaConsumer[K, V]) updateFetchPositions(partitions []common.TopicPartition) error {
	if c.groupID != "" {
		if err := c.coordinator.RefreshCommittedOffsetsIfNeeded(); err != nil {
			return err
		}
	}
	return c.fetcher.UpdateFetchPositions(partitions)
}

// CommitSync commits offsets (nil: the positions of every assigned partition) and waits,
// retrying retriable failures.
//
// Kafka 0.10.2: KafkaConsumer.commitSync.
func (c *KafkaConsumer[K, V]) CommitSync(offsets map[common.TopicPartition]OffsetAndMetadata) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if offsets == nil {
		offsets = c.subscriptions.AllConsumed()
	}
	_, err := c.coordinator.CommitOffsetsSync(offsets, -1)
	return err
}

// CommitAsync commits offsets (nil: every position) without waiting; callback (nil: log
// failures) runs on a later Poll, commit or Close.
//
// Kafka 0.10.2: KafkaConsumer.commitAsync.
func (c *KafkaConsumer[K, V]) CommitAsync(offsets map[common.TopicPartition]OffsetAndMetadata, callback OffsetCommitCallback) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if offsets == nil {
		offsets = c.subscriptions.AllConsumed()
	}
	c.log.Debugf("Committing offsets: %v", offsets)
	c.coordinator.CommitOffsetsAsync(offsets, callback)
	return nil
}

// Seek sets the offset the next Poll fetches tp from.
//
// Kafka 0.10.2: KafkaConsumer.seek.
func (c *KafkaConsumer[K, V]) Seek(tp common.TopicPartition, offset int64) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if offset < 0 {
		return errIllegalArgument("seek offset must not be a negative number")
	}
	if !c.subscriptions.IsAssigned(tp) {
		return fmt.Errorf("No current assignment for partition %s", tp)
	}
	c.log.Debugf("Seeking to offset %d for partition %s", offset, tp)
	c.subscriptions.Seek(tp, offset)
	return nil
}

// SeekToBeginning makes the next Poll fetch partitions (none: every assigned one) from their
// first offsets.
func (c *KafkaConsumer[K, V]) SeekToBeginning(partitions []common.TopicPartition) error {
	return c.seekTo(partitions, ResetEarliest)
}

// SeekToEnd makes the next Poll fetch partitions (none: every assigned one) from their ends.
func (c *KafkaConsumer[K, V]) SeekToEnd(partitions []common.TopicPartition) error {
	return c.seekTo(partitions, ResetLatest)
}

func (c *KafkaConsumer[K, V]) seekTo(partitions []common.TopicPartition, s OffsetResetStrategy) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	if len(partitions) == 0 {
		partitions = c.subscriptions.AssignedPartitions()
	}
	for _, tp := range partitions {
		if !c.subscriptions.IsAssigned(tp) {
			return fmt.Errorf("No current assignment for partition %s", tp)
		}
		c.log.Debugf("Seeking to %s offset of partition %s", s, tp)
		strategy := s
		c.subscriptions.NeedOffsetReset(tp, &strategy)
	}
	return nil
}

// Position is the offset of the next record Poll returns for tp, looked up (committed offset
// or reset policy) if unknown.
//
// Kafka 0.10.2: KafkaConsumer.position.
func (c *KafkaConsumer[K, V]) Position(tp common.TopicPartition) (int64, error) {
	if err := c.acquire(); err != nil {
		return 0, err
	}
	defer c.release()
	if !c.subscriptions.IsAssigned(tp) {
		return 0, errIllegalArgument("You can only check the position for partitions assigned to this consumer.")
	}
	for {
		if p := c.subscriptions.Position(tp); p != nil {
			return *p, nil
		}
		if err := c.updateFetchPositions([]common.TopicPartition{tp}); err != nil {
			return 0, err
		}
		if c.subscriptions.Position(tp) == nil {
			if err := c.client.Poll(c.retryBackoffMs); err != nil {
				return 0, err
			}
		}
	}
}

// Committed is the group's committed offset of tp, nil if none.
//
// Kafka 0.10.2: KafkaConsumer.committed.
func (c *KafkaConsumer[K, V]) Committed(tp common.TopicPartition) (*OffsetAndMetadata, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	offsets, err := c.coordinator.FetchCommittedOffsets([]common.TopicPartition{tp})
	if err != nil {
		return nil, err
	}
	if o, ok := offsets[tp]; ok {
		return &o, nil
	}
	return nil, nil
}

// Metrics are the consumer's metrics.
func (c *KafkaConsumer[K, V]) Metrics() []*metrics.KafkaMetric { return c.metrics.Metrics() }

// PartitionsFor is the partitions of topic (from metadata, asked for if not known), nil for a
// topic that does not exist.
//
// Kafka 0.10.2: KafkaConsumer.partitionsFor.
func (c *KafkaConsumer[K, V]) PartitionsFor(topic string) ([]common.PartitionInfo, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	if ps := c.metadata.Fetch().PartitionsForTopic(topic); len(ps) > 0 {
		return ps, nil
	}
	m, err := c.fetcher.GetTopicMetadata([]string{topic}, c.requestTimeoutMs)
	if err != nil {
		return nil, err
	}
	return m[topic], nil
}

// ListTopics is every topic's partitions.
//
// Kafka 0.10.2: KafkaConsumer.listTopics.
func (c *KafkaConsumer[K, V]) ListTopics() (map[string][]common.PartitionInfo, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	return c.fetcher.GetTopicMetadata(nil, c.requestTimeoutMs)
}

// Pause stops fetching partitions until Resume; Poll returns none of their records meanwhile.
func (c *KafkaConsumer[K, V]) Pause(partitions []common.TopicPartition) error {
	return c.setPaused(partitions, true)
}

// Resume fetches paused partitions again.
func (c *KafkaConsumer[K, V]) Resume(partitions []common.TopicPartition) error {
	return c.setPaused(partitions, false)
}

func (c *KafkaConsumer[K, V]) setPaused(partitions []common.TopicPartition, p bool) error {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.release()
	for _, tp := range partitions {
		if !c.subscriptions.IsAssigned(tp) {
			return fmt.Errorf("No current assignment for partition %s", tp)
		}
		if p {
			c.log.Debugf("Pausing partition %s", tp)
			c.subscriptions.Pause(tp)
		} else {
			c.log.Debugf("Resuming partition %s", tp)
			c.subscriptions.Resume(tp)
		}
	}
	return nil
}

// Paused are the paused partitions.
func (c *KafkaConsumer[K, V]) Paused() []common.TopicPartition {
	return c.subscriptions.PausedPartitions()
}

// OffsetsForTimes looks up, per partition, the earliest offset whose timestamp is at least the
// one given (nil where there is none, or the message format has no timestamps).
//
// Kafka 0.10.2: KafkaConsumer.offsetsForTimes.
func (c *KafkaConsumer[K, V]) OffsetsForTimes(timestamps map[common.TopicPartition]int64) (map[common.TopicPartition]*OffsetAndTimestamp, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	for tp, ts := range timestamps {
		if ts < 0 {
			return nil, errIllegalArgument(fmt.Sprintf("The target time for partition %s is %d. The target time cannot be negative.", tp, ts))
		}
	}
	return c.fetcher.GetOffsetsByTimes(timestamps, c.requestTimeoutMs)
}

// BeginningOffsets are the first offsets of partitions.
func (c *KafkaConsumer[K, V]) BeginningOffsets(partitions []common.TopicPartition) (map[common.TopicPartition]int64, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	return c.fetcher.BeginningOffsets(partitions, c.requestTimeoutMs)
}

// EndOffsets are the offsets after the last records of partitions (the high watermarks).
func (c *KafkaConsumer[K, V]) EndOffsets(partitions []common.TopicPartition) (map[common.TopicPartition]int64, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	defer c.release()
	return c.fetcher.EndOffsets(partitions, c.requestTimeoutMs)
}

// Wakeup makes a blocking call in progress (or the next one) return ErrWakeup; it is the one
// method safe to call from another goroutine.
//
// Kafka 0.10.2: KafkaConsumer.wakeup.
func (c *KafkaConsumer[K, V]) Wakeup() { c.client.Wakeup() }

// Close commits (auto commit), leaves the group and closes connections, waiting up to timeout
// (Kafka's default is 30 s) for the commit and the LeaveGroup.
//
// Kafka 0.10.2: KafkaConsumer.close.
func (c *KafkaConsumer[K, V]) Close(timeout time.Duration) error {
	if timeout < 0 {
		return errIllegalArgument("The timeout cannot be negative.")
	}
	if err := c.acquire(); err != nil {
		if errors.Is(err, ErrConsumerClosed) {
			return nil
		}
		return err
	}
	defer c.release()
	c.closed.Store(true)
	c.log.Trace("Closing the Kafka consumer.")
	c.coordinator.Close(min(timeout.Milliseconds(), c.requestTimeoutMs))
	c.client.Close()
	c.metrics.Close()
	c.interceptors.Close()
	c.keyDeserializer.Close()
	c.valueDeserializer.Close()
	c.log.Debug("The Kafka consumer has closed.")
	return nil
}
