package oldconsumer

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ZKRebalancerListener rebalances the member: on a change of the group's members (or of a
// subscribed topic's partitions) it stops the fetchers, releases the owned partitions,
// computes the new assignment, claims its share with ephemeral owner znodes and restarts the
// fetchers from the committed offsets.
//
// Kafka 0.10.2: ZookeeperConsumerConnector.ZKRebalancerListener (an inner class; the outer
// connector is the c field). ZooKeeper events only set a flag; the watcher executor goroutine
// ("<consumer>_watcher_executor") runs the rebalance, so that the ZooKeeper event goroutine is
// never blocked by one.
type ZKRebalancerListener struct {
	c                *ZookeeperConsumerConnector
	group            string
	consumerIDString string
	assignor         PartitionAssignor
	log              *logrus.Entry
	metrics          metrics.KafkaMetricsGroup

	// streams is kafkaMessageAndMetadataStreams (topic → its streams), guarded by c.mu.
	streams map[string][]clearable

	triggered chan struct{} // isWatcherTriggered + cond (capacity 1)
	stop      chan struct{}
	done      chan struct{}

	allTopicsOwnedPartitionsCount atomic.Int64
}

func newZKRebalancerListener(c *ZookeeperConsumerConnector, group, consumerIDString string) *ZKRebalancerListener {
	l := &ZKRebalancerListener{c: c, group: group, consumerIDString: consumerIDString,
		assignor:  CreatePartitionAssignor(c.config.PartitionAssignmentStrategy, c.baseLog),
		log:       c.baseLog.WithField("logger", "kafka.consumer.ZookeeperConsumerConnector").WithField("ident", "["+consumerIDString+"], "),
		metrics:   metrics.NewKafkaMetricsGroup(c.reg, "kafka.consumer", "ZKRebalancerListener"),
		streams:   map[string][]clearable{},
		triggered: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	l.metrics.NewGauge("OwnedPartitionsCount", l.allTopicsOwnedPartitionsCount.Load,
		metrics.Tag{Key: "clientId", Value: c.config.ClientID}, metrics.Tag{Key: "groupId", Value: c.config.GroupID})
	go l.watcherExecutor()
	return l
}

// watcherExecutor runs a rebalance after each trigger, waking at least every second to notice
// the shutdown.
func (l *ZKRebalancerListener) watcherExecutor() {
	defer close(l.done)
	l.log.Infof("starting watcher executor thread for consumer %s", l.consumerIDString)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for !l.c.isShuttingDown.Load() {
		select {
		case <-l.stop:
		case <-tick.C:
		case <-l.triggered:
			if err := l.syncedRebalance(); err != nil {
				l.log.WithError(err).Error("error during syncedRebalance")
			}
		}
	}
	l.log.Infof("stopping watcher executor thread for consumer %s", l.consumerIDString)
}

// stopWatcherExecutor ends the executor (the connector is shutting down) and waits for it.
func (l *ZKRebalancerListener) stopWatcherExecutor() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
}

// HandleChildChange implements zkclient.ChildListener: a member came or went.
func (l *ZKRebalancerListener) HandleChildChange(string, []string) error {
	l.rebalanceEventTriggered()
	return nil
}

// rebalanceEventTriggered asks the executor for a rebalance.
func (l *ZKRebalancerListener) rebalanceEventTriggered() {
	select {
	case l.triggered <- struct{}{}:
	default:
	}
}

func (l *ZKRebalancerListener) ownedPartitionsCountTags(topic string) []metrics.Tag {
	return []metrics.Tag{{Key: "clientId", Value: l.c.config.ClientID}, {Key: "groupId", Value: l.c.config.GroupID}, {Key: "topic", Value: topic}}
}

// deletePartitionOwnershipFromZK removes one owner znode.
func (l *ZKRebalancerListener) deletePartitionOwnershipFromZK(topic string, partition int32) error {
	znode := zkutils.GetConsumerPartitionOwnerPath(l.group, topic, partition)
	if _, err := l.c.zkUtils.DeletePath(znode); err != nil {
		return err
	}
	l.log.Debugf("Consumer %s releasing %s", l.consumerIDString, znode)
	return nil
}

// releasePartitionOwnership deletes the owner znodes of every partition in the registry and
// empties it.
func (l *ZKRebalancerListener) releasePartitionOwnership() error {
	l.log.Info("Releasing partition ownership")
	c := l.c
	c.registryMu.Lock()
	registry := c.topicRegistry
	c.topicRegistry = map[string]map[int32]*PartitionTopicInfo{}
	c.registryMu.Unlock()
	for _, topic := range sortedTopics(registry) {
		for _, p := range sortedPartitions(registry[topic]) {
			if err := l.deletePartitionOwnershipFromZK(topic, p); err != nil {
				return err
			}
		}
		l.metrics.RemoveMetric("OwnedPartitionsCount", l.ownedPartitionsCountTags(topic)...)
	}
	l.allTopicsOwnedPartitionsCount.Store(0)
	return nil
}

// resetState forgets the owned partitions (after a session expiry their znodes are gone).
func (l *ZKRebalancerListener) resetState() {
	l.c.registryMu.Lock()
	l.c.topicRegistry = map[string]map[int32]*PartitionTopicInfo{}
	l.c.registryMu.Unlock()
}

// syncedRebalance tries to rebalance up to rebalance.max.retries times, rebalance.backoff.ms
// apart, and fails with ErrConsumerRebalanceFailed if no attempt succeeded.
func (l *ZKRebalancerListener) syncedRebalance() error {
	c := l.c
	c.rebalanceLock.Lock()
	defer c.rebalanceLock.Unlock()
	start := time.Now()
	defer func() { c.rebalanceTimer.Update(time.Since(start)) }()
	for i := 0; i < int(c.config.RebalanceMaxRetries); i++ {
		if c.isShuttingDown.Load() {
			return nil
		}
		l.log.Infof("begin rebalancing consumer %s try #%d", l.consumerIDString, i)
		done, err := l.rebalance()
		if err != nil {
			// The ZooKeeper state may change while we read it; another rebalance will follow.
			l.log.WithError(err).Info("exception during rebalance ")
		}
		l.log.Infof("end rebalancing consumer %s try #%d", l.consumerIDString, i)
		if done {
			return nil
		}
		l.log.Info("Rebalancing attempt failed. Clearing the cache before the next rebalancing operation is triggered")
		// Stop every fetcher and clear every queue so that no partition is read twice.
		l.closeFetchersForQueues(l.allQueues())
		if sleepCtx(c.ctx, ms(c.config.RebalanceBackoffMs)) != nil {
			return nil
		}
	}
	return fmt.Errorf("%w: %s can't rebalance after %d retries", ErrConsumerRebalanceFailed, l.consumerIDString, c.config.RebalanceMaxRetries)
}

// rebalance is one attempt; false (or an error) means it failed and should be retried.
func (l *ZKRebalancerListener) rebalance() (bool, error) {
	c := l.c
	myTopicCount, err := ConstructTopicCount(l.group, l.consumerIDString, c.zkUtils, c.config.ExcludeInternalTopics)
	if err != nil {
		return false, err
	}
	myTopicThreadIds, err := myTopicCount.GetConsumerThreadIdsPerTopic()
	if err != nil {
		return false, err
	}
	brokers, err := c.zkUtils.GetAllBrokersInCluster()
	if err != nil {
		return false, err
	}
	if len(brokers) == 0 {
		// No broker yet: wait for one to register.
		l.log.Warn("no brokers found when trying to rebalance.")
		if _, err := c.zkUtils.ZkClient.SubscribeChildChanges(zkutils.BrokerIdsPath, l); err != nil {
			return false, err
		}
		return true, nil
	}
	// The fetchers stop first: once ownership is released another member may read these
	// partitions, and fetching on would hand the same messages out twice.
	l.closeFetchers(myTopicThreadIds)
	if rl := c.currentRebalanceListener(); rl != nil {
		l.log.Info("Invoking rebalance listener before relasing partition ownerships.")
		rl.BeforeReleasingPartitions(c.ownedPartitions())
	}
	if err := l.releasePartitionOwnership(); err != nil {
		return false, err
	}
	actx, err := NewAssignmentContext(l.group, l.consumerIDString, c.config.ExcludeInternalTopics, c.zkUtils)
	if err != nil {
		return false, err
	}
	global := l.assignor.Assign(actx)
	partitionAssignment, ok := global[l.consumerIDString]
	if !ok {
		return false, fmt.Errorf("consumer %s is not registered in group %s", l.consumerIDString, l.group)
	}
	topicPartitions := common.SortedTopicPartitions(partitionAssignment)
	offsets, ok, err := c.fetchOffsets(topicPartitions)
	if err != nil || !ok || c.isShuttingDown.Load() {
		return false, err
	}
	current := map[string]map[int32]*PartitionTopicInfo{}
	for _, tp := range topicPartitions {
		if err := l.addPartitionTopicInfo(current, tp.Partition, tp.Topic, offsets[tp], partitionAssignment[tp]); err != nil {
			return false, err
		}
	}
	owned, err := l.reflectPartitionOwnershipDecision(partitionAssignment)
	if err != nil || !owned {
		return false, err
	}
	l.allTopicsOwnedPartitionsCount.Store(int64(len(partitionAssignment)))
	perTopic := map[string]int64{}
	for tp := range partitionAssignment {
		perTopic[tp.Topic]++
	}
	for topic, n := range perTopic {
		n := n
		l.metrics.NewGauge("OwnedPartitionsCount", func() int64 { return n }, l.ownedPartitionsCountTags(topic)...)
	}
	c.registryMu.Lock()
	c.topicRegistry = current
	c.registryMu.Unlock()
	if rl := c.currentRebalanceListener(); rl != nil {
		l.log.Info("Invoking rebalance listener before starting fetchers.")
		byTopic := map[string]map[int32]ConsumerThreadId{}
		for _, own := range global {
			for tp, id := range own {
				if byTopic[tp.Topic] == nil {
					byTopic[tp.Topic] = map[int32]ConsumerThreadId{}
				}
				byTopic[tp.Topic][tp.Partition] = id
			}
		}
		rl.BeforeStartingFetchers(l.consumerIDString, byTopic)
	}
	l.updateFetcher()
	return true, nil
}

// allQueues lists every stream queue.
func (l *ZKRebalancerListener) allQueues() []*chunkQueue {
	return l.c.queuesFor(func(string) bool { return true })
}

// closeFetchers stops the fetchers and clears the queues of the topics this member subscribes
// to (those whose partitions may move).
func (l *ZKRebalancerListener) closeFetchers(relevant map[string][]ConsumerThreadId) {
	l.closeFetchersForQueues(l.c.queuesFor(func(topic string) bool { _, ok := relevant[topic]; return ok }))
}

// closeFetchersForQueues stops every fetcher, clears the queues and the streams' current chunks
// and, with auto commit on, commits what was consumed, while the partitions are still owned.
func (l *ZKRebalancerListener) closeFetchersForQueues(queues []*chunkQueue) {
	c := l.c
	if c.fetcher == nil {
		return
	}
	c.fetcher.StopConnections()
	l.clearFetcherQueues(queues)
	if c.config.AutoCommitEnable {
		l.log.Info("Committing all offsets after clearing the fetcher queues")
		if err := c.commitOffsets(true); err != nil {
			l.log.WithError(err).Error("Error while committing offsets.")
		}
	}
}

func (l *ZKRebalancerListener) clearFetcherQueues(queues []*chunkQueue) {
	for _, q := range queues {
		q.clear()
	}
	l.log.Info("Cleared all relevant queues for this fetcher")
	l.c.mu.Lock()
	var streams []clearable
	for _, ss := range l.streams {
		streams = append(streams, ss...)
	}
	l.c.mu.Unlock()
	for _, s := range streams {
		s.Clear()
	}
	l.log.Info("Cleared the data chunks in all the consumer message iterators")
}

// updateFetcher starts fetching every partition in the registry.
func (l *ZKRebalancerListener) updateFetcher() {
	c := l.c
	c.registryMu.Lock()
	var all []*PartitionTopicInfo
	for _, infos := range c.topicRegistry {
		for _, info := range infos {
			all = append(all, info)
		}
	}
	c.registryMu.Unlock()
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].PartitionID != all[j].PartitionID {
			return all[i].PartitionID < all[j].PartitionID
		}
		return all[i].Topic < all[j].Topic
	})
	parts := make([]string, len(all))
	for i, info := range all {
		parts[i] = info.String()
	}
	l.log.Infof("Consumer %s selected partitions : %s", l.consumerIDString, strings.Join(parts, ","))
	if c.fetcher != nil {
		c.fetcher.StartConnections(all)
	}
}

// reflectPartitionOwnershipDecision creates an owner znode (holding the thread id) for every
// assigned partition; if any is still held by its previous owner, the ones created are deleted
// again and the attempt fails.
func (l *ZKRebalancerListener) reflectPartitionOwnershipDecision(assignment PartitionOwnership) (bool, error) {
	var owned []common.TopicPartition
	failed := 0
	var otherErr error
	for _, tp := range common.SortedTopicPartitions(assignment) {
		id := assignment[tp]
		path := zkutils.GetConsumerPartitionOwnerPath(l.group, tp.Topic, tp.Partition)
		err := l.c.zkUtils.CreateEphemeralPathExpectConflict(path, []byte(id.String()))
		switch {
		case err == nil:
			l.log.Infof("%s successfully owned partition %d for topic %s", id, tp.Partition, tp.Topic)
			owned = append(owned, tp)
		case errors.Is(err, zkclient.ErrNodeExists):
			// The previous owner has not let go yet: retry after the backoff.
			l.log.Infof("waiting for the partition ownership to be deleted: %d for topic %s", tp.Partition, tp.Topic)
			failed++
		default:
			failed++
			if otherErr == nil {
				otherErr = err
			}
		}
	}
	if failed == 0 {
		return true, nil
	}
	for _, tp := range owned {
		if err := l.deletePartitionOwnershipFromZK(tp.Topic, tp.Partition); err != nil && otherErr == nil {
			otherErr = err
		}
	}
	return false, otherErr
}

// addPartitionTopicInfo makes the PartitionTopicInfo of an owned partition, on the queue of its
// thread, starting (fetched and consumed) at offset.
func (l *ZKRebalancerListener) addPartitionTopicInfo(registry map[string]map[int32]*PartitionTopicInfo, partition int32, topic string,
	offset int64, id ConsumerThreadId) error {
	c := l.c
	c.mu.Lock()
	q := c.topicThreadIDAndQueues[topicThreadID{topic: topic, threadID: id}]
	c.mu.Unlock()
	if q == nil {
		// Kafka would fail later with a NullPointerException in the fetcher; here the attempt
		// fails (a wildcard topic seen by the assignment before its topic event).
		return fmt.Errorf("no stream queue for topic %s thread %s yet", topic, id)
	}
	if registry[topic] == nil {
		registry[topic] = map[int32]*PartitionTopicInfo{}
	}
	info := newPartitionTopicInfo(topic, partition, q, offset, offset, c.config.FetchMessageMaxBytes, c.config.ClientID, c.stats, c.baseLog)
	registry[topic][partition] = info
	l.log.Debugf("%s selected new offset %d", info, offset)
	c.registryMu.Lock()
	c.checkpointedZkOffsets[common.TopicPartition{Topic: topic, Partition: partition}] = offset
	c.registryMu.Unlock()
	return nil
}

// queuesFor lists the distinct queues of the topics keep accepts.
func (c *ZookeeperConsumerConnector) queuesFor(keep func(topic string) bool) []*chunkQueue {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[*chunkQueue]bool{}
	var out []*chunkQueue
	for k, q := range c.topicThreadIDAndQueues {
		if keep(k.topic) && !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}

func (c *ZookeeperConsumerConnector) currentRebalanceListener() ConsumerRebalanceListener {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rebalanceListener
}

// ownedPartitions is the registry as topic → partitions (beforeReleasingPartitions' argument).
func (c *ZookeeperConsumerConnector) ownedPartitions() map[string]map[int32]struct{} {
	c.registryMu.Lock()
	defer c.registryMu.Unlock()
	out := map[string]map[int32]struct{}{}
	for t, infos := range c.topicRegistry {
		out[t] = map[int32]struct{}{}
		for p := range infos {
			out[t][p] = struct{}{}
		}
	}
	return out
}

func sortedPartitions[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
