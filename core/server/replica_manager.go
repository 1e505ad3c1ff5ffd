package server

import (
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Replica ids of fetch and list-offsets requests that are not brokers.
const (
	ConsumerReplicaID  int32 = -1 // ordinary consumer: leader only, up to the HW
	DebuggingReplicaID int32 = -2 // any local replica, still up to the HW
)

// isValidBrokerID: replica ids >= 0 are brokers (follower fetches).
func isValidBrokerID(id int32) bool { return id >= 0 }

// ReplicaManager owns the partitions this broker hosts: it applies the controller's
// LeaderAndIsr and StopReplica, appends produced records on the leader (waiting in the produce
// purgatory for acks=-1), serves fetches (waiting in the fetch purgatory for min_bytes), records
// followers' positions, and checkpoints the high watermarks.
//
// Kafka 0.10.2: kafka.server.ReplicaManager. The replication side (the ReplicaFetcherManager,
// becoming a follower, ISR expiration and ISR-change propagation) is in replication, see
// replica_manager_replication.go.
type ReplicaManager struct {
	interBroker   *security.InterBrokerSecurity // nil: plaintext between brokers
	config        *config.KafkaConfig
	localBrokerID int32
	time          common.Time
	zkUtils       *zkutils.ZkUtils
	logManager    *log.LogManager
	scheduler     utils.Scheduler
	logger        *logrus.Entry
	stateChange   *logrus.Entry
	defaultLog    *log.LogConfig

	// isShuttingDown is the broker's flag (KafkaServer sets it before its controlled shutdown), so
	// a LeaderAndIsr that arrives while the broker is stopping starts no fetcher.
	isShuttingDown *atomic.Bool
	topicStats     *metrics.BrokerTopicStats // nil: no meters

	replicaStateChangeLock sync.Mutex
	controllerEpoch        int32 // guarded by replicaStateChangeLock

	partitionsMu  sync.RWMutex
	allPartitions map[common.TopicPartition]*cluster.Partition

	highWatermarkCheckpoints map[string]*log.OffsetCheckpoint
	hwThreadInitialized      bool // guarded by replicaStateChangeLock
	hwCheckpointMu           sync.Mutex

	isrChangeMu  sync.Mutex
	isrChangeSet map[common.TopicPartition]struct{}

	delayedProducePurgatory *purgatory.DelayedOperationPurgatory[*DelayedProduce]
	delayedFetchPurgatory   *purgatory.DelayedOperationPurgatory[*DelayedFetch]

	replication *replicaManagerReplication
	metrics     replicaManagerMetrics // replica_manager_metrics.go
	exit        func(int)             // Kafka's Runtime.halt (os.Exit unless a test sets Exit)
	// quotaManager is the follower replication quota (Kafka's constructor parameter quotaManager).
	quotaManager *ReplicationQuotaManager
}

// ReplicaManagerConfig gathers the constructor's dependencies.
type ReplicaManagerConfig struct {
	Config           *config.KafkaConfig
	Time             common.Time
	ZkUtils          *zkutils.ZkUtils // nil in unit tests (ISR changes then stay local)
	LogManager       *log.LogManager
	Scheduler        utils.Scheduler
	DefaultLogConfig *log.LogConfig
	Logger           *logrus.Entry
	StateChange      *logrus.Entry // state.change.logger
	// BrokerTopicStats receives the produce/fetch meters (nil: none).
	BrokerTopicStats *metrics.BrokerTopicStats
	// Metrics receives the ReplicaManager's gauges and meters and the purgatories' gauges (nil:
	// none).
	Metrics *metrics.Registry
	// ProducePurgatory and FetchPurgatory may be given (tests pass ones on a MockTimer);
	// otherwise they are created with their own timers.
	ProducePurgatory *purgatory.DelayedOperationPurgatory[*DelayedProduce]
	FetchPurgatory   *purgatory.DelayedOperationPurgatory[*DelayedFetch]
	// MetadataCache is the broker's cache, where a new follower finds its leader's endpoint
	// (nil: no leader is ever known, so becoming a follower only creates the local replica).
	MetadataCache *MetadataCache
	// Exit is called where Kafka halts the JVM: a storage error appending to a leader's log or
	// writing the HW checkpoint, and, from a replica fetcher, a storage error or a forbidden
	// unclean truncation (os.Exit when nil).
	Exit func(int)
	// IsShuttingDown is the broker's is-shutting-down flag, shared as 0.10.2 passes KafkaServer's
	// AtomicBoolean to the ReplicaManager (nil: a flag of the ReplicaManager's own).
	IsShuttingDown *atomic.Bool
	// QuotaManager is the follower replication quota the replica fetchers apply (nil: none).
	QuotaManager *ReplicationQuotaManager
	// InterBroker secures the replica fetchers' connections (TLS, SASL) on a secured
	// inter-broker listener (nil: plaintext).
	InterBroker *security.InterBrokerSecurity
}

// NewReplicaManager makes the manager with one replication-offset-checkpoint per data directory.
func NewReplicaManager(c ReplicaManagerConfig) (*ReplicaManager, error) {
	if c.Logger == nil {
		c.Logger = discardEntry()
	}
	if c.StateChange == nil {
		c.StateChange = c.Logger
	}
	if c.DefaultLogConfig == nil {
		c.DefaultLogConfig = log.DefaultLogConfig()
	}
	id := c.Config.BrokerID
	rm := &ReplicaManager{
		config: c.Config, localBrokerID: id, time: c.Time, zkUtils: c.ZkUtils, logManager: c.LogManager,
		scheduler: c.Scheduler, defaultLog: c.DefaultLogConfig, topicStats: c.BrokerTopicStats,
		logger:                   c.Logger.WithField("logger", "kafka.server.ReplicaManager").WithField("ident", fmt.Sprintf("[Replica Manager on Broker %d]: ", id)),
		stateChange:              c.StateChange,
		controllerEpoch:          0,
		allPartitions:            map[common.TopicPartition]*cluster.Partition{},
		highWatermarkCheckpoints: map[string]*log.OffsetCheckpoint{},
		isrChangeSet:             map[common.TopicPartition]struct{}{},
		delayedProducePurgatory:  c.ProducePurgatory,
		isShuttingDown:           c.IsShuttingDown,
		delayedFetchPurgatory:    c.FetchPurgatory,
		quotaManager:             c.QuotaManager,
		interBroker:              c.InterBroker,
	}
	if rm.isShuttingDown == nil {
		rm.isShuttingDown = new(atomic.Bool)
	}
	if rm.exit = c.Exit; rm.exit == nil {
		rm.exit = os.Exit
	}
	for _, dir := range c.LogManager.LogDirs() {
		cp, err := log.NewOffsetCheckpoint(dir + "/" + log.ReplicationOffsetCheckpointFile)
		if err != nil {
			return nil, err
		}
		rm.highWatermarkCheckpoints[dir] = cp
	}
	if rm.delayedProducePurgatory == nil {
		rm.delayedProducePurgatory = purgatory.NewDelayedOperationPurgatory[*DelayedProduce]("Produce", id,
			int(c.Config.ProducerPurgatoryPurgeIntervalRequests), c.Time, c.Logger)
	}
	if rm.delayedFetchPurgatory == nil {
		rm.delayedFetchPurgatory = purgatory.NewDelayedOperationPurgatory[*DelayedFetch]("Fetch", id,
			int(c.Config.FetchPurgatoryPurgeIntervalRequests), c.Time, c.Logger)
	}
	rm.replication = newReplicaManagerReplication(rm, c.MetadataCache, c.Exit)
	rm.registerMetrics(c.Metrics)
	return rm, nil
}

// Startup schedules the ISR expiration and ISR-change propagation tasks (the HW checkpoint
// task starts with the first LeaderAndIsr).
func (rm *ReplicaManager) Startup() { rm.replication.startReplicationTasks() }

// meters runs mark on the all-topics and the topic's BrokerTopicMetrics (Kafka marks both).
func (rm *ReplicaManager) meters(topic string, mark func(*metrics.BrokerTopicMetrics)) {
	if rm.topicStats == nil {
		return
	}
	mark(rm.topicStats.TopicStats(topic))
	mark(rm.topicStats.BrokerAllTopicsStats())
}

// --- the cluster.ReplicaManager seam ---

// LogManager implements cluster.ReplicaManager.
func (rm *ReplicaManager) LogManager() *log.LogManager { return rm.logManager }

// Config implements cluster.ReplicaManager.
func (rm *ReplicaManager) Config() *config.KafkaConfig { return rm.config }

// ZkUtils implements cluster.ReplicaManager.
func (rm *ReplicaManager) ZkUtils() *zkutils.ZkUtils { return rm.zkUtils }

// HighWatermarkCheckpoints implements cluster.ReplicaManager.
func (rm *ReplicaManager) HighWatermarkCheckpoints() map[string]*log.OffsetCheckpoint {
	return rm.highWatermarkCheckpoints
}

// LogConfigFor is the broker defaults overridden by /config/topics/<topic>.
func (rm *ReplicaManager) LogConfigFor(topic string) (*log.LogConfig, error) {
	if rm.zkUtils == nil {
		return rm.defaultLog, nil
	}
	overrides, err := rm.zkUtils.FetchEntityConfig(zkutils.ConfigTypeTopic, topic)
	if err != nil {
		return nil, err
	}
	if len(overrides) == 0 {
		return rm.defaultLog, nil
	}
	return log.FromProps(rm.defaultLog.Originals, overrides)
}

// TryCompleteDelayedProduce implements cluster.ReplicaManager.
func (rm *ReplicaManager) TryCompleteDelayedProduce(key purgatory.DelayedOperationKey) {
	n := rm.delayedProducePurgatory.CheckAndComplete(key)
	if n > 0 {
		rm.logger.Debugf("Request key %s unblocked %d producer requests.", key.KeyLabel(), n)
	}
}

// TryCompleteDelayedFetch implements cluster.ReplicaManager.
func (rm *ReplicaManager) TryCompleteDelayedFetch(key purgatory.DelayedOperationKey) {
	n := rm.delayedFetchPurgatory.CheckAndComplete(key)
	if n > 0 {
		rm.logger.Debugf("Request key %s unblocked %d fetch requests.", key.KeyLabel(), n)
	}
}

// RecordIsrChange implements cluster.ReplicaManager: the change waits for the
// isr-change-propagation task, which writes it to /isr_change_notification.
func (rm *ReplicaManager) RecordIsrChange(tp common.TopicPartition) {
	rm.isrChangeMu.Lock()
	rm.isrChangeSet[tp] = struct{}{}
	rm.replication.isrChanged()
	rm.isrChangeMu.Unlock()
}

// --- partitions ---

// GetPartition returns the partition, or nil.
func (rm *ReplicaManager) GetPartition(tp common.TopicPartition) *cluster.Partition {
	rm.partitionsMu.RLock()
	defer rm.partitionsMu.RUnlock()
	return rm.allPartitions[tp]
}

// GetOrCreatePartition returns the partition, creating an empty one.
func (rm *ReplicaManager) GetOrCreatePartition(tp common.TopicPartition) *cluster.Partition {
	rm.partitionsMu.Lock()
	defer rm.partitionsMu.Unlock()
	p := rm.allPartitions[tp]
	if p == nil {
		p = cluster.NewPartition(tp.Topic, tp.Partition, rm.localBrokerID, rm.time, rm, rm.logger, rm.stateChange)
		rm.allPartitions[tp] = p
		rm.registerPartitionMetrics(p)
	}
	return p
}

func (rm *ReplicaManager) partitions() []*cluster.Partition {
	rm.partitionsMu.RLock()
	defer rm.partitionsMu.RUnlock()
	out := make([]*cluster.Partition, 0, len(rm.allPartitions))
	for _, p := range rm.allPartitions {
		out = append(out, p)
	}
	return out
}

// getLeaderReplicaIfLocal is the local replica of a partition this broker leads, or
// UNKNOWN_TOPIC_OR_PARTITION / NOT_LEADER_FOR_PARTITION.
func (rm *ReplicaManager) getLeaderReplicaIfLocal(tp common.TopicPartition) (*cluster.Replica, error) {
	p := rm.GetPartition(tp)
	if p == nil {
		return nil, protocol.Errorf(protocol.ErrUnknownTopicOrPartition, "Partition %s doesn't exist on %d", tp, rm.localBrokerID)
	}
	r := p.LeaderReplicaIfLocal()
	if r == nil {
		return nil, protocol.Errorf(protocol.ErrNotLeaderForPartition, "Leader not local for partition %s on broker %d", tp, rm.localBrokerID)
	}
	return r, nil
}

// getReplicaOrException is the local replica of any hosted partition, or REPLICA_NOT_AVAILABLE.
func (rm *ReplicaManager) getReplicaOrException(tp common.TopicPartition) (*cluster.Replica, error) {
	if p := rm.GetPartition(tp); p != nil {
		if r := p.LocalReplica(); r != nil {
			return r, nil
		}
	}
	return nil, protocol.Errorf(protocol.ErrReplicaNotAvailable, "Replica %d is not available for partition %s", rm.localBrokerID, tp)
}

// GetMagic is the message format magic of the partition's local log (ok=false when absent).
func (rm *ReplicaManager) GetMagic(tp common.TopicPartition) (int8, bool) {
	if r, err := rm.getReplicaOrException(tp); err == nil && r.Log != nil {
		return r.Log.Config().MessageFormatMagic, true
	}
	return 0, false
}

// GetHighWatermark is the HW of the partition while this broker leads it (ok=false otherwise:
// a follower's HW is not an answer, and a GroupMetadataManager loading __consumer_offsets stops
// when leadership is lost).
//
// Kafka 0.10.2: ReplicaManager.getHighWatermark (partition.leaderReplicaIfLocal).
func (rm *ReplicaManager) GetHighWatermark(tp common.TopicPartition) (int64, bool) {
	if p := rm.GetPartition(tp); p != nil {
		if r := p.LeaderReplicaIfLocal(); r != nil {
			return r.HighWatermark().MessageOffset, true
		}
	}
	return 0, false
}

// ShutdownIdleFetcherThreads stops the replica fetcher threads left without partitions.
//
// Kafka 0.10.2: replicaFetcherManager.shutdownIdleFetcherThreads, called by
// KafkaApis.handleStopReplicaRequest.
func (rm *ReplicaManager) ShutdownIdleFetcherThreads() {
	rm.replication.replicaFetcherManager.ShutdownIdleFetcherThreads()
}

// halt stops the process at once after a storage error, as 0.10.2's fatal log line and
// Runtime.getRuntime.halt(1): nothing more is acknowledged from a disk that failed a write, the
// ZooKeeper session ends, and the controller moves this broker's leaderships to in-sync replicas.
// The logs are recovered at the next start (there is no clean-shutdown marker).
func (rm *ReplicaManager) halt(err error, msg string) {
	rm.logger.WithError(err).Error("FATAL " + msg)
	rm.exit(1)
}

// --- high watermark checkpoint ---

func (rm *ReplicaManager) startHighWaterMarksCheckPointThread() {
	if rm.scheduler == nil {
		return
	}
	period := msDuration(rm.config.ReplicaHighWatermarkCheckpointIntervalMs)
	rm.scheduler.Schedule("highwatermark-checkpoint", func() {
		if err := rm.CheckpointHighWatermarks(); err != nil {
			rm.halt(err, "Error writing to highwatermark file: ")
		}
	}, 0, period)
}

// CheckpointHighWatermarks writes every local replica's HW to its data directory's
// replication-offset-checkpoint.
func (rm *ReplicaManager) CheckpointHighWatermarks() error {
	rm.hwCheckpointMu.Lock()
	defer rm.hwCheckpointMu.Unlock()
	// Only the directories that hold a replica now: a directory whose partitions are not
	// created yet (after a restart, before their LeaderAndIsr) keeps its checkpoint.
	byDir := map[string]map[common.TopicPartition]int64{}
	for _, p := range rm.partitions() {
		r := p.LocalReplica()
		if r == nil || r.Log == nil {
			continue
		}
		dir := parentDir(r.Log.Dir())
		if _, ok := rm.highWatermarkCheckpoints[dir]; !ok {
			continue
		}
		if byDir[dir] == nil {
			byDir[dir] = map[common.TopicPartition]int64{}
		}
		byDir[dir][p.TopicPartition()] = r.HighWatermark().MessageOffset
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var first error
	for _, d := range dirs {
		if err := rm.highWatermarkCheckpoints[d].Write(byDir[d]); err != nil && first == nil {
			first = fmt.Errorf("error while writing to highwatermark file in directory %s: %w", d, err)
		}
	}
	return first
}

// Shutdown stops the purgatories and, when checkpointHW, writes the HWs a last time.
func (rm *ReplicaManager) Shutdown(checkpointHW bool) {
	rm.logger.Info("Shutting down")
	rm.isShuttingDown.Store(true)
	rm.replication.shutdown()
	_ = rm.delayedFetchPurgatory.Shutdown(contextBackground())
	_ = rm.delayedProducePurgatory.Shutdown(contextBackground())
	if checkpointHW {
		if err := rm.CheckpointHighWatermarks(); err != nil {
			rm.halt(err, "Error writing to highwatermark file: ")
		}
	}
	rm.logger.Info("Shut down completely")
}
