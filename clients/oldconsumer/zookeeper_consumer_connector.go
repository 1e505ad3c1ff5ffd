package oldconsumer

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/clients/serialization"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Deps are a connector's outside world; every field may be left zero.
type Deps struct {
	// Logger is the base logger; components add Kafka's logger names (nil: silent).
	Logger *logrus.Entry
	// Metrics receives the consumer's metrics (nil: counted, not registered).
	Metrics *metrics.Registry
	// ZkOptions are passed to the ZooKeeper client (tests route it through a session capture).
	ZkOptions []zkclient.Option
	// DisableFetcher leaves the fetchers out (Kafka's enableFetcher = false, for tests).
	DisableFetcher bool
}

// topicThreadID keys a stream queue: one per (topic, consumer thread).
type topicThreadID struct {
	topic    string
	threadID ConsumerThreadId
}

// queueAndStream pairs a stream's queue with the stream, whatever its type.
type queueAndStream struct {
	queue  *chunkQueue
	stream clearable
}

// ZookeeperConsumerConnector is the old high-level consumer. It registers itself in ZooKeeper
// under its group, divides the subscribed topics' partitions among the group's members at each
// rebalance, owns its share through ephemeral owner znodes, fetches them with a
// ConsumerFetcherManager into per-stream queues, and commits consumed offsets to ZooKeeper or
// Kafka.
//
// Kafka 0.10.2: kafka.consumer.ZookeeperConsumerConnector.
//
// Lock order: rebalanceLock → offsetsChannelLock → mu and registryMu (leaves). The ZooKeeper
// event goroutine takes rebalanceLock (a new session, a wildcard topic event), so the ZooKeeper
// client is closed after rebalanceLock is released in Shutdown.
type ZookeeperConsumerConnector struct {
	config           *ConsumerConfig
	enableFetcher    bool
	consumerIDString string
	baseLog          *logrus.Entry
	log              *logrus.Entry
	reg              *metrics.Registry
	stats            *ConsumerTopicStats
	group            metrics.KafkaMetricsGroup

	// ctx is cancelled when Shutdown starts: waits for brokers or the offset manager end.
	ctx    context.Context
	cancel context.CancelFunc

	isShuttingDown       atomic.Bool
	messageStreamCreated atomic.Bool
	rebalanceLock        sync.Mutex
	fetcher              *ConsumerFetcherManager
	zkUtils              *zkutils.ZkUtils
	scheduler            *utils.KafkaScheduler

	registryMu            sync.Mutex
	topicRegistry         map[string]map[int32]*PartitionTopicInfo
	checkpointedZkOffsets map[common.TopicPartition]int64

	mu                     sync.Mutex
	topicThreadIDAndQueues map[topicThreadID]*chunkQueue
	rebalanceListener      ConsumerRebalanceListener

	sessionExpirationListener    *ZKSessionExpireListener
	topicPartitionChangeListener *ZKTopicPartitionChangeListener
	loadBalancerListener         *ZKRebalancerListener
	wildcardTopicWatcher         *ZookeeperTopicEventWatcher

	offsetsChannelLock sync.Mutex
	offsetsChannel     *oldclient.BlockingChannel

	kafkaCommitMeter *metrics.Meter
	zkCommitMeter    *metrics.Meter
	rebalanceTimer   *metrics.Timer
}

// NewZookeeperConsumerConnector connects to ZooKeeper, creates the fetcher manager, connects to
// the offset manager when offsets.storage=kafka (waiting until one is found or ctx ends) and
// starts the auto committer.
func NewZookeeperConsumerConnector(ctx context.Context, config *ConsumerConfig, deps Deps) (*ZookeeperConsumerConnector, error) {
	log := deps.Logger
	if log == nil {
		log = discardEntry()
	}
	id, err := consumerIDString(config)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.Background())
	c := &ZookeeperConsumerConnector{config: config, enableFetcher: !deps.DisableFetcher, consumerIDString: id,
		baseLog: log, reg: deps.Metrics, stats: NewConsumerTopicStats(deps.Metrics, config.ClientID),
		group: metrics.NewKafkaMetricsGroup(deps.Metrics, "kafka.consumer", "ZookeeperConsumerConnector"),
		ctx:   cctx, cancel: cancel,
		log:                    log.WithField("logger", "kafka.consumer.ZookeeperConsumerConnector").WithField("ident", "["+id+"], "),
		topicRegistry:          map[string]map[int32]*PartitionTopicInfo{},
		checkpointedZkOffsets:  map[common.TopicPartition]int64{},
		topicThreadIDAndQueues: map[topicThreadID]*chunkQueue{},
	}
	clientTag := metrics.Tag{Key: "clientId", Value: config.ClientID}
	c.kafkaCommitMeter = c.group.NewMeter("KafkaCommitsPerSec", "commits", time.Second, clientTag)
	c.zkCommitMeter = c.group.NewMeter("ZooKeeperCommitsPerSec", "commits", time.Second, clientTag)
	c.rebalanceTimer = c.group.NewTimer("RebalanceRateAndTime", time.Millisecond, time.Second, clientTag)

	if err := c.connectZk(deps.ZkOptions); err != nil {
		cancel()
		return nil, err
	}
	c.createFetcher()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	c.offsetsChannelLock.Lock()
	err = c.ensureOffsetManagerConnected(c.ctx)
	c.offsetsChannelLock.Unlock()
	if err != nil {
		cancel()
		c.zkUtils.Close()
		return nil, err
	}
	if config.AutoCommitEnable {
		c.scheduler = utils.NewKafkaScheduler(1, log)
		c.scheduler.Startup()
		c.log.Infof("starting auto committer every %d ms", config.AutoCommitIntervalMs)
		c.scheduler.Schedule("kafka-consumer-autocommit", c.autoCommit, ms(config.AutoCommitIntervalMs), ms(config.AutoCommitIntervalMs))
	}
	return c, nil
}

// consumerIDString is "<group>_<consumer.id>", or "<group>_<host>-<ms>-<8 hex of a random
// UUID's high bits>" as Kafka generates it.
func consumerIDString(config *ConsumerConfig) (string, error) {
	if config.ConsumerID != "" {
		return config.GroupID + "_" + config.ConsumerID, nil
	}
	host, err := os.Hostname()
	if err != nil {
		return "", err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	msb := binary.BigEndian.Uint64(b[:])
	msb = msb&^(0xf<<12) | 0x4<<12 // version 4, as UUID.randomUUID
	hex := strconv.FormatUint(msb, 16)
	if len(hex) > 8 {
		hex = hex[:8]
	}
	return fmt.Sprintf("%s_%s-%d-%s", config.GroupID, host, time.Now().UnixMilli(), hex), nil
}

// ConsumerIDString is this member's id in the group ("<group>_<id>").
func (c *ZookeeperConsumerConnector) ConsumerIDString() string { return c.consumerIDString }

// ZkUtils is the connector's ZooKeeper access (for tools and tests).
func (c *ZookeeperConsumerConnector) ZkUtils() *zkutils.ZkUtils { return c.zkUtils }

func (c *ZookeeperConsumerConnector) connectZk(opts []zkclient.Option) error {
	c.log.Infof("Connecting to zookeeper instance at %s", c.config.ZkConnect)
	// ZkUtils(..., JaasUtils.isZkSecurityEnabled()): log in when the JAAS file in KAFKA_OPTS has
	// the ZooKeeper Client section.
	login, err := security.ZkLoginFromOpts(os.Getenv("KAFKA_OPTS"))
	if err != nil {
		return err
	}
	if login.Enabled {
		opts = append([]zkclient.Option{zkclient.WithAuth("digest", []byte(login.DigestAuth))}, opts...)
	}
	z, err := zkutils.Connect(c.config.ZkConnect, ms(c.config.ZkSessionTimeoutMs), ms(c.config.ZkConnectionTimeoutMs), login.Enabled,
		c.baseLog.WithField("logger", "kafka.utils.ZkUtils"), common.SystemTime{}, opts...)
	if err != nil {
		return fmt.Errorf("connecting to zookeeper at %s: %w", c.config.ZkConnect, err)
	}
	c.zkUtils = z
	return nil
}

func (c *ZookeeperConsumerConnector) createFetcher() {
	if c.enableFetcher {
		c.fetcher = NewConsumerFetcherManager(c.consumerIDString, c.config, c.zkUtils, c.reg, c.baseLog)
	}
}

// ensureOffsetManagerConnected connects to the group's offset manager when offsets go to Kafka
// and no channel is open. Caller holds offsetsChannelLock.
func (c *ZookeeperConsumerConnector) ensureOffsetManagerConnected(ctx context.Context) error {
	if c.config.OffsetsStorage != "kafka" {
		return nil
	}
	if c.offsetsChannel == nil || !c.offsetsChannel.IsConnected() {
		ch, err := oldclient.ChannelToOffsetManager(ctx, c.config.GroupID, c.zkUtils, c.config.ClientID,
			ms(c.config.OffsetsChannelSocketTimeoutMs), ms(c.config.OffsetsChannelBackoffMs), c.baseLog.WithField("logger", "kafka.client.ClientUtils$"))
		if err != nil {
			return err
		}
		c.offsetsChannel = ch
	}
	c.log.Debugf("Connected to offset manager %s:%d.", c.offsetsChannel.Host(), c.offsetsChannel.Port())
	return nil
}

// CreateMessageStreams implements ConsumerConnector with byte-slice keys and values.
func (c *ZookeeperConsumerConnector) CreateMessageStreams(topicCountMap map[string]int) (map[string][]*KafkaStream[[]byte, []byte], error) {
	return CreateMessageStreamsWithDecoders[[]byte, []byte](c, topicCountMap, serialization.DefaultDecoder{}, serialization.DefaultDecoder{})
}

// CreateMessageStreamsByFilter implements ConsumerConnector with byte-slice keys and values.
func (c *ZookeeperConsumerConnector) CreateMessageStreamsByFilter(filter TopicFilter, numStreams int) ([]*KafkaStream[[]byte, []byte], error) {
	return CreateMessageStreamsByFilterWithDecoders[[]byte, []byte](c, filter, numStreams, serialization.DefaultDecoder{}, serialization.DefaultDecoder{})
}

// CreateMessageStreamsWithDecoders subscribes c to the topics of topicCountMap (topic →
// streams), decoding keys and values with kd and vd. It registers the member, rebalances and
// returns the streams per topic. The registration lists the topics in name order (a Go map has
// no order of its own; Kafka writes a Scala Map's).
func CreateMessageStreamsWithDecoders[K, V any](c *ZookeeperConsumerConnector, topicCountMap map[string]int,
	kd serialization.Decoder[K], vd serialization.Decoder[V]) (map[string][]*KafkaStream[K, V], error) {
	if c.messageStreamCreated.Swap(true) {
		return nil, fmt.Errorf("%w: ZookeeperConsumerConnector can create message streams at most once", ErrMessageStreamsExist)
	}
	return consume(c, topicCountMap, kd, vd)
}

// consume builds one queue and stream per (topic, thread), registers and rebalances.
func consume[K, V any](c *ZookeeperConsumerConnector, topicCountMap map[string]int, kd serialization.Decoder[K],
	vd serialization.Decoder[V]) (map[string][]*KafkaStream[K, V], error) {
	c.log.Debug("entering consume ")
	if topicCountMap == nil {
		return nil, fmt.Errorf("topicCountMap is null")
	}
	var subscription []zkutils.TopicStreams
	for _, t := range sortedTopics(topicCountMap) {
		subscription = append(subscription, zkutils.TopicStreams{Topic: t, Streams: int32(topicCountMap[t])})
	}
	topicCount := NewStaticTopicCount(c.consumerIDString, subscription)
	threadIDs, err := topicCount.GetConsumerThreadIdsPerTopic()
	if err != nil {
		return nil, err
	}
	streams := map[string][]*KafkaStream[K, V]{}
	var qs []queueAndStream
	for _, topic := range sortedTopics(threadIDs) {
		for range threadIDs[topic] {
			q := newChunkQueue(c.config.QueuedMaxMessages)
			s := newKafkaStream(q, c.config.ConsumerTimeoutMs, kd, vd, c.config.ClientID, c.stats, c.baseLog)
			streams[topic] = append(streams[topic], s)
			qs = append(qs, queueAndStream{queue: q, stream: s})
		}
	}
	if err := c.registerConsumerInZK(c.consumerIDString, topicCount); err != nil {
		return nil, err
	}
	if err := c.reinitializeConsumer(topicCount, qs); err != nil {
		return streams, err
	}
	return streams, nil
}

// registerConsumerInZK writes the member's ephemeral registration.
//
// Kafka 0.10.2: registerConsumerInZK, through ZKCheckedEphemeral.
func (c *ZookeeperConsumerConnector) registerConsumerInZK(consumerIDString string, topicCount TopicCount) error {
	c.log.Infof("begin registering consumer %s in ZK", consumerIDString)
	reg := zkutils.ConsumerRegistration{Version: 1, Subscription: topicCount.GetTopicCountMap(), Pattern: topicCount.Pattern(),
		Timestamp: strconv.FormatInt(time.Now().UnixMilli(), 10)}
	e := &zkutils.ZKCheckedEphemeral{Path: zkutils.ZKGroupDirs{Group: c.config.GroupID}.ConsumerRegistryDir() + "/" + consumerIDString,
		Data: reg.Encode(), ZkUtils: c.zkUtils}
	if err := e.Create(); err != nil {
		return err
	}
	c.log.Infof("end registering consumer %s in ZK", consumerIDString)
	return nil
}

// reinitializeConsumer wires the queues to (topic, thread) keys, subscribes the listeners and
// rebalances. A wildcard subscription reuses its streams' queues for every topic.
func (c *ZookeeperConsumerConnector) reinitializeConsumer(topicCount TopicCount, qs []queueAndStream) error {
	dirs := zkutils.ZKGroupDirs{Group: c.config.GroupID}
	c.mu.Lock()
	if c.loadBalancerListener == nil {
		c.loadBalancerListener = newZKRebalancerListener(c, c.config.GroupID, c.consumerIDString)
	}
	if c.sessionExpirationListener == nil {
		c.sessionExpirationListener = &ZKSessionExpireListener{c: c, dirs: dirs, consumerIDString: c.consumerIDString,
			topicCount: topicCount, loadBalancerListener: c.loadBalancerListener}
	}
	if c.topicPartitionChangeListener == nil {
		c.topicPartitionChangeListener = &ZKTopicPartitionChangeListener{c: c, loadBalancerListener: c.loadBalancerListener}
	}
	lb := c.loadBalancerListener
	c.mu.Unlock()

	perTopic, err := topicCount.GetConsumerThreadIdsPerTopic()
	if err != nil {
		return err
	}
	all := qs
	if _, wildcard := topicCount.(*WildcardTopicCount); wildcard {
		all = nil
		for range perTopic {
			all = append(all, qs...)
		}
	}
	var keys []topicThreadID
	for _, topic := range sortedTopics(perTopic) {
		for _, id := range perTopic[topic] {
			keys = append(keys, topicThreadID{topic: topic, threadID: id})
		}
	}
	if len(keys) != len(all) {
		return fmt.Errorf("requirement failed: Mismatch between thread ID count (%d) and queue count (%d)", len(keys), len(all))
	}
	c.mu.Lock()
	for i, k := range keys {
		q := all[i].queue
		c.topicThreadIDAndQueues[k] = q
		c.log.Debugf("Adding topicThreadId %s-%s and queue to topicThreadIdAndQueues data structure", k.topic, k.threadID)
		c.group.NewGauge("FetchQueueSize", func() int64 { return int64(q.size()) }, metrics.Tag{Key: "clientId", Value: c.config.ClientID},
			metrics.Tag{Key: "topic", Value: k.topic}, metrics.Tag{Key: "threadId", Value: strconv.Itoa(k.threadID.ThreadID)})
	}
	for i := 0; i < len(keys); {
		topic := keys[i].topic
		var streams []clearable
		for ; i < len(keys) && keys[i].topic == topic; i++ {
			streams = append(streams, all[i].stream)
		}
		lb.streams[topic] = streams
		c.log.Debugf("adding topic %s and %d streams to map.", topic, len(streams))
	}
	topics := sortedTopics(lb.streams)
	c.mu.Unlock()

	zk := c.zkUtils.ZkClient
	zk.SubscribeStateChanges(c.sessionExpirationListener)
	if _, err := zk.SubscribeChildChanges(dirs.ConsumerRegistryDir(), lb); err != nil {
		return err
	}
	for _, topic := range topics {
		if err := zk.SubscribeDataChanges(zkutils.TopicPath(topic), c.topicPartitionChangeListener); err != nil {
			return err
		}
	}
	return lb.syncedRebalance()
}

// SetConsumerRebalanceListener implements ConsumerConnector.
func (c *ZookeeperConsumerConnector) SetConsumerRebalanceListener(l ConsumerRebalanceListener) error {
	if c.messageStreamCreated.Load() {
		return fmt.Errorf("%w: ZookeeperConsumerConnector can only set consumer rebalance listener before creating streams", ErrMessageStreamsExist)
	}
	c.mu.Lock()
	c.rebalanceListener = l
	c.mu.Unlock()
	return nil
}

// TopicRegistry lists the partitions this member owns now, by topic (for tests and tools).
func (c *ZookeeperConsumerConnector) TopicRegistry() map[string][]int32 {
	c.registryMu.Lock()
	defer c.registryMu.Unlock()
	out := map[string][]int32{}
	for t, infos := range c.topicRegistry {
		for p := range infos {
			out[t] = append(out[t], p)
		}
		sort.Slice(out[t], func(i, j int) bool { return out[t][i] < out[t][j] })
	}
	return out
}

// sendShutdownToAllQueues ends every stream.
func (c *ZookeeperConsumerConnector) sendShutdownToAllQueues() {
	c.mu.Lock()
	seen := map[*chunkQueue]bool{}
	var queues []*chunkQueue
	for _, q := range c.topicThreadIDAndQueues {
		if !seen[q] {
			seen[q] = true
			queues = append(queues, q)
		}
	}
	c.mu.Unlock()
	for _, q := range queues {
		c.log.Debug("Clearing up queue")
		q.clear()
		// The fetchers are stopped: nothing else fills the queue, so there is room.
		_ = q.put(context.Background(), shutdownCommand)
		c.log.Debug("Cleared queue and sent shutdown command")
	}
}

// autoCommit is the scheduled task; errors are logged.
func (c *ZookeeperConsumerConnector) autoCommit() {
	c.log.Trace("auto committing")
	if err := c.commitOffsets(false); err != nil {
		c.log.WithError(err).Error("exception during autoCommit: ")
	}
}

// Shutdown implements ConsumerConnector; later calls return at once.
func (c *ZookeeperConsumerConnector) Shutdown() {
	if !c.isShuttingDown.CompareAndSwap(false, true) {
		return
	}
	c.log.Info("ZKConsumerConnector shutting down")
	start := time.Now()
	c.cancel()
	if w := c.wildcardTopicWatcherOrNil(); w != nil {
		w.shutdown()
	}
	c.rebalanceLock.Lock()
	if c.config.AutoCommitEnable && c.scheduler != nil {
		c.scheduler.Shutdown()
	}
	if c.fetcher != nil {
		c.fetcher.StopConnections()
	}
	c.sendShutdownToAllQueues()
	if c.config.AutoCommitEnable {
		if err := c.commitOffsets(true); err != nil {
			c.log.WithError(err).Error("error during consumer connector shutdown")
		}
	}
	c.offsetsChannelLock.Lock()
	if c.offsetsChannel != nil {
		c.offsetsChannel.Disconnect()
	}
	c.offsetsChannelLock.Unlock()
	c.rebalanceLock.Unlock()
	c.mu.Lock()
	lb := c.loadBalancerListener
	c.mu.Unlock()
	if lb != nil {
		lb.stopWatcherExecutor()
	}
	c.zkUtils.Close()
	c.log.Infof("ZKConsumerConnector shutdown completed in %d ms", time.Since(start).Milliseconds())
}

func (c *ZookeeperConsumerConnector) wildcardTopicWatcherOrNil() *ZookeeperTopicEventWatcher {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wildcardTopicWatcher
}
