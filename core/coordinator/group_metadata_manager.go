package coordinator

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/utils"
)

// DelayedStore is an append prepared under a group's lock and run after it is released.
//
// Kafka 0.10.2: kafka.coordinator.DelayedStore.
type DelayedStore struct {
	PartitionRecords map[common.TopicPartition]*record.MemoryRecords
	Callback         func(map[common.TopicPartition]error)

	// immediate, when set, replaces the append: an answer that had to wait until the group's
	// lock was released (Kafka calls it in place, under its reentrant monitor).
	immediate func()
}

// GroupMetadataManager owns the group cache and the __consumer_offsets partitions this broker
// leads: it writes offset commits and group metadata, serves offsets from its cache, loads a
// partition's groups when this broker becomes its leader and drops them when it stops, and
// expires old offsets.
//
// Kafka 0.10.2: kafka.coordinator.GroupMetadataManager.
type GroupMetadataManager struct {
	brokerID                  int32
	config                    OffsetConfig
	groupMetadataValueVersion int16
	replicaManager            ReplicaManager
	time                      common.Time
	scheduler                 utils.Scheduler
	logger                    *logrus.Entry
	partitionCount            int32

	cacheMu sync.Mutex
	cache   map[string]*GroupMetadata

	partitionMu       sync.Mutex
	loadingPartitions map[int32]bool
	ownedPartitions   map[int32]bool

	shuttingDown atomic.Bool
}

// GroupMetadataManagerConfig gathers the manager's dependencies.
type GroupMetadataManagerConfig struct {
	BrokerID int32
	Config   OffsetConfig
	// GroupMetadataValueVersion is 1 from inter.broker.protocol.version 0.10.1-IV0 on (the
	// default), 0 before.
	GroupMetadataValueVersion int16
	ReplicaManager            ReplicaManager
	Time                      common.Time
	// Scheduler runs loads, unloads and the expiry task (Kafka: a one-thread KafkaScheduler
	// "group-metadata-manager-"). The manager starts and shuts it down.
	Scheduler utils.Scheduler
	// OffsetsTopicPartitionCount is __consumer_offsets' partition count as read from ZooKeeper
	// at start-up; 0 if the topic does not exist (then Config.OffsetsTopicNumPartitions).
	OffsetsTopicPartitionCount int32
	Logger                     *logrus.Entry
	// Metrics, if set, gets the NumOffsets and NumGroups gauges
	// (kafka.coordinator:type=GroupMetadataManager).
	Metrics *metrics.Registry
}

// NewGroupMetadataManager makes the manager.
func NewGroupMetadataManager(c GroupMetadataManagerConfig) *GroupMetadataManager {
	if c.Logger == nil {
		c.Logger = discardEntry()
	}
	if c.Time == nil {
		c.Time = common.SystemTime{}
	}
	logger := c.Logger.WithField("logger", "kafka.coordinator.GroupMetadataManager").
		WithField("ident", "[Group Metadata Manager on Broker "+itoa(int64(c.BrokerID))+"]: ")
	if c.Scheduler == nil {
		c.Scheduler = utils.NewKafkaScheduler(1, logger)
	}
	n := c.OffsetsTopicPartitionCount
	if n <= 0 {
		n = c.Config.OffsetsTopicNumPartitions
	}
	if n <= 0 {
		n = 1
	}
	m := &GroupMetadataManager{brokerID: c.BrokerID, config: c.Config, groupMetadataValueVersion: c.GroupMetadataValueVersion,
		replicaManager: c.ReplicaManager, time: c.Time, scheduler: c.Scheduler, logger: logger, partitionCount: n,
		cache: map[string]*GroupMetadata{}, loadingPartitions: map[int32]bool{}, ownedPartitions: map[int32]bool{}}
	if c.Metrics != nil {
		g := metrics.NewKafkaMetricsGroup(c.Metrics, "kafka.coordinator", "GroupMetadataManager")
		g.NewGauge("NumOffsets", func() int64 {
			var n int64
			for _, grp := range m.CurrentGroups() {
				grp.mu.Lock()
				n += int64(grp.NumOffsets())
				grp.mu.Unlock()
			}
			return n
		})
		g.NewGauge("NumGroups", func() int64 { return int64(len(m.CurrentGroups())) })
	}
	return m
}

func discardEntry() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(discard{})
	return logrus.NewEntry(l)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Startup starts the scheduler.
func (m *GroupMetadataManager) Startup() { m.scheduler.Startup() }

// EnableMetadataExpiration schedules the expiry task every offsets.retention.check.interval.ms.
func (m *GroupMetadataManager) EnableMetadataExpiration() {
	m.scheduler.Schedule("delete-expired-group-metadata", func() { m.CleanupGroupMetadata(nil) }, 0,
		time.Duration(m.config.OffsetsRetentionCheckIntervalMs)*time.Millisecond)
}

// Shutdown stops loading and the scheduler.
func (m *GroupMetadataManager) Shutdown() {
	m.shuttingDown.Store(true)
	if m.scheduler.IsStarted() {
		m.scheduler.Shutdown()
	}
}

// PartitionFor maps a group to its __consumer_offsets partition: abs(String.hashCode) % N.
func (m *GroupMetadataManager) PartitionFor(groupID string) int32 {
	return PartitionFor(groupID, m.partitionCount)
}

// PartitionFor is abs(JavaStringHashCode(groupID)) % partitionCount, with Kafka's Utils.abs
// (MIN_VALUE → 0).
func PartitionFor(groupID string, partitionCount int32) int32 {
	return common.Abs(common.JavaStringHashCode(groupID)) % partitionCount
}

func offsetsTopicPartition(p int32) common.TopicPartition {
	return common.TopicPartition{Topic: GroupMetadataTopicName, Partition: p}
}

// IsPartitionOwned reports whether this broker serves partition p's groups.
func (m *GroupMetadataManager) IsPartitionOwned(p int32) bool {
	m.partitionMu.Lock()
	defer m.partitionMu.Unlock()
	return m.ownedPartitions[p]
}

// IsPartitionLoading reports whether partition p is being loaded.
func (m *GroupMetadataManager) IsPartitionLoading(p int32) bool {
	m.partitionMu.Lock()
	defer m.partitionMu.Unlock()
	return m.loadingPartitions[p]
}

// IsGroupLocal reports whether this broker coordinates the group.
func (m *GroupMetadataManager) IsGroupLocal(groupID string) bool {
	return m.IsPartitionOwned(m.PartitionFor(groupID))
}

// IsGroupLoading reports whether the group's partition is loading.
func (m *GroupMetadataManager) IsGroupLoading(groupID string) bool {
	return m.IsPartitionLoading(m.PartitionFor(groupID))
}

// IsLoading reports whether any partition is loading.
func (m *GroupMetadataManager) IsLoading() bool {
	m.partitionMu.Lock()
	defer m.partitionMu.Unlock()
	return len(m.loadingPartitions) > 0
}

// AddPartitionOwnership marks p owned without loading it (tests, and Kafka's own tests).
func (m *GroupMetadataManager) AddPartitionOwnership(p int32) {
	m.partitionMu.Lock()
	defer m.partitionMu.Unlock()
	m.ownedPartitions[p] = true
}

// GetGroup returns a cached group.
func (m *GroupMetadataManager) GetGroup(groupID string) *GroupMetadata {
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	return m.cache[groupID]
}

// AddGroup caches g unless a group with its id is cached, and returns the cached one.
func (m *GroupMetadataManager) AddGroup(g *GroupMetadata) *GroupMetadata {
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	if cur, ok := m.cache[g.GroupID]; ok {
		return cur
	}
	m.cache[g.GroupID] = g
	return g
}

// removeGroup uncaches g if it is the cached group of its id.
func (m *GroupMetadataManager) removeGroup(g *GroupMetadata) bool {
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	if m.cache[g.GroupID] == g {
		delete(m.cache, g.GroupID)
		return true
	}
	return false
}

// CurrentGroups is a snapshot of the cached groups.
func (m *GroupMetadataManager) CurrentGroups() []*GroupMetadata {
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	out := make([]*GroupMetadata, 0, len(m.cache))
	for _, g := range m.cache {
		out = append(out, g)
	}
	return out
}

func (m *GroupMetadataManager) getMagic(p int32) (int8, bool) {
	return m.replicaManager.GetMagic(offsetsTopicPartition(p))
}

// buildRecords makes one message set (one wrapper when compressed) of key/value pairs, with
// CreateTime = now.
func (m *GroupMetadataManager) buildRecords(magic int8, kvs [][2][]byte) *record.MemoryRecords {
	b := record.NewMemoryRecordsBuilder(magic, m.config.OffsetsTopicCompressionCodec, record.CreateTime, 0, record.NoTimestamp, 0)
	now := m.time.Milliseconds()
	for _, kv := range kvs {
		if _, err := b.Append(now, kv[0], kv[1]); err != nil {
			panic(err) // offsets increase by construction
		}
	}
	return b.Build()
}

// prepareStoreGroup builds the append of g's metadata with assignment (caller holds g.mu).
// Without a local replica of the partition it answers NOT_COORDINATOR_FOR_GROUP at once and
// returns nil. The callback maps append errors as 0.10.2 does.
func (m *GroupMetadataManager) prepareStoreGroup(g *GroupMetadata, assignment map[string][]byte, cb func(int16)) *DelayedStore {
	p := m.PartitionFor(g.GroupID)
	magic, ok := m.getMagic(p)
	if !ok {
		return &DelayedStore{immediate: func() { cb(protocol.ErrNotCoordinatorForGroup.Code) }}
	}
	tp := offsetsTopicPartition(p)
	value, err := GroupMetadataValue(g, assignment, m.groupMetadataValueVersion)
	if err != nil {
		// Kafka's SchemaException from the request handler: the client sees UNKNOWN.
		m.logger.WithError(err).Errorf("Cannot encode the metadata of group %s", g.GroupID)
		return &DelayedStore{immediate: func() { cb(protocol.ErrUnknown.Code) }}
	}
	recs := m.buildRecords(magic, [][2][]byte{{GroupMetadataKey(g.GroupID), value}})
	groupID, generation := g.GroupID, g.generationID
	return &DelayedStore{PartitionRecords: map[common.TopicPartition]*record.MemoryRecords{tp: recs},
		Callback: func(status map[common.TopicPartition]error) {
			err := status[tp]
			code := protocol.CodeOf(err)
			switch code {
			case 0:
			case protocol.ErrUnknownTopicOrPartition.Code, protocol.ErrNotEnoughReplicas.Code, protocol.ErrNotEnoughReplicasAfterAppend.Code:
				code = protocol.ErrGroupCoordinatorNotAvailable.Code
			case protocol.ErrNotLeaderForPartition.Code:
				code = protocol.ErrNotCoordinatorForGroup.Code
			case protocol.ErrRequestTimedOut.Code:
				code = protocol.ErrRebalanceInProgress.Code
			case protocol.ErrMessageTooLarge.Code, protocol.ErrRecordListTooLarge.Code, protocol.ErrInvalidFetchSize.Code:
				m.logger.Errorf("Appending metadata message for group %s generation %d failed due to %v, returning UNKNOWN error code to the client",
					groupID, generation, err)
				code = protocol.ErrUnknown.Code
			default:
				m.logger.Errorf("Appending metadata message for group %s generation %d failed due to unexpected error: %v",
					groupID, generation, err)
			}
			cb(code)
		}}
}

// Store runs a prepared append through the replica manager with the offsets topic's acks and
// timeout.
func (m *GroupMetadataManager) Store(ds *DelayedStore) {
	if ds.immediate != nil {
		ds.immediate()
		return
	}
	m.replicaManager.AppendRecords(int64(m.config.OffsetCommitTimeoutMs), m.config.OffsetCommitRequiredAcks, true,
		ds.PartitionRecords, ds.Callback)
}

func (m *GroupMetadataManager) validateOffsetMetadataLength(metadata string) bool {
	return len(metadata) <= m.config.MaxMetadataSize
}

// prepareStoreOffsets builds the append of an offset commit (caller holds g.mu): offsets with
// too-long metadata are left out and answered OFFSET_METADATA_TOO_LARGE; the rest become
// pending and, once appended, visible. cb gets one code per requested partition.
func (m *GroupMetadataManager) prepareStoreOffsets(g *GroupMetadata, memberID string, generationID int32,
	offsets map[common.TopicPartition]OffsetAndMetadata, cb func(map[common.TopicPartition]int16)) *DelayedStore {
	filtered := make(map[common.TopicPartition]OffsetAndMetadata, len(offsets))
	for tp, o := range offsets {
		if m.validateOffsetMetadataLength(o.Metadata) {
			filtered[tp] = o
		}
	}
	respond := func(code int16) {
		out := make(map[common.TopicPartition]int16, len(offsets))
		for tp, o := range offsets {
			if m.validateOffsetMetadataLength(o.Metadata) {
				out[tp] = code
			} else {
				out[tp] = protocol.ErrOffsetMetadataTooLarge.Code
			}
		}
		cb(out)
	}
	p := m.PartitionFor(g.GroupID)
	magic, ok := m.getMagic(p)
	if !ok {
		respond(protocol.ErrNotCoordinatorForGroup.Code)
		return nil
	}
	if len(filtered) == 0 {
		respond(0) // nothing to write (every partition's metadata was too large)
		return nil
	}
	kvs := make([][2][]byte, 0, len(filtered))
	for tp, o := range filtered {
		kvs = append(kvs, [2][]byte{OffsetCommitKey(g.GroupID, tp), OffsetCommitValue(o)})
	}
	tp := offsetsTopicPartition(p)
	recs := m.buildRecords(magic, kvs)
	g.prepareOffsetCommit(filtered)
	return &DelayedStore{PartitionRecords: map[common.TopicPartition]*record.MemoryRecords{tp: recs},
		Callback: func(status map[common.TopicPartition]error) {
			err := status[tp]
			code := protocol.CodeOf(err)
			g.mu.Lock()
			if !g.Is(Dead) {
				for ttp, o := range filtered {
					if code == 0 {
						g.completePendingOffsetWrite(ttp, o)
					} else {
						g.failPendingOffsetWrite(ttp, o)
					}
				}
			}
			g.mu.Unlock()
			switch code {
			case 0:
			case protocol.ErrUnknownTopicOrPartition.Code, protocol.ErrNotEnoughReplicas.Code, protocol.ErrNotEnoughReplicasAfterAppend.Code:
				code = protocol.ErrGroupCoordinatorNotAvailable.Code
			case protocol.ErrNotLeaderForPartition.Code:
				code = protocol.ErrNotCoordinatorForGroup.Code
			case protocol.ErrMessageTooLarge.Code, protocol.ErrRecordListTooLarge.Code, protocol.ErrInvalidFetchSize.Code:
				code = protocol.ErrInvalidCommitOffsetSize.Code
			}
			if code != 0 {
				m.logger.Debugf("Offset commit from group %s, consumer %s with generation %d failed when appending to log due to %v",
					g.GroupID, memberID, generationID, err)
			}
			respond(code)
		}}
}

// GetOffsets answers an OffsetFetch from the cache: every committed offset when tps is nil,
// else one entry per partition (-1 and "" when none, or when the group is unknown or Dead).
func (m *GroupMetadataManager) GetOffsets(groupID string, tps []common.TopicPartition) map[common.TopicPartition]OffsetFetchPartitionData {
	out := map[common.TopicPartition]OffsetFetchPartitionData{}
	none := OffsetFetchPartitionData{Offset: InvalidOffset}
	g := m.GetGroup(groupID)
	if g == nil {
		for _, tp := range tps {
			out[tp] = none
		}
		return out
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.Is(Dead):
		for _, tp := range tps {
			out[tp] = none
		}
	case tps == nil:
		for tp, o := range g.offsets {
			out[tp] = OffsetFetchPartitionData{Offset: o.Offset, Metadata: o.Metadata}
		}
	default:
		for _, tp := range tps {
			if o, ok := g.offsets[tp]; ok {
				out[tp] = OffsetFetchPartitionData{Offset: o.Offset, Metadata: o.Metadata}
			} else {
				out[tp] = none
			}
		}
	}
	return out
}

// CleanupGroupMetadata removes expired offsets (or, with deleted non-nil, the offsets of
// those partitions) from every cached group, turns Empty groups without offsets Dead, and
// appends tombstones for what was removed — and for a Dead group of generation > 0, its
// metadata — to the leader log of the group's partition, without waiting for replication.
//
// Kafka 0.10.2: GroupMetadataManager.cleanupGroupMetadata.
func (m *GroupMetadataManager) CleanupGroupMetadata(deleted []common.TopicPartition) {
	startMs := m.time.Milliseconds()
	var offsetsRemoved atomic.Int64
	for _, g := range m.CurrentGroups() {
		g.mu.Lock()
		var removed map[common.TopicPartition]OffsetAndMetadata
		if deleted != nil {
			removed = g.removeOffsets(deleted)
		} else {
			removed = g.removeExpiredOffsets(startMs)
		}
		if g.Is(Empty) && !g.HasOffsets() {
			m.logger.Infof("Group %s transitioned to Dead in generation %d", g.GroupID, g.generationID)
			g.mustTransitionTo(Dead)
		}
		isDead, generation := g.Is(Dead), g.generationID
		g.mu.Unlock()

		p := m.PartitionFor(g.GroupID)
		magic, ok := m.getMagic(p)
		if !ok {
			m.logger.Infof("BrokerId %d is no longer a coordinator for the group %s. Proceeding cleanup for other alive groups",
				m.brokerID, g.GroupID)
			continue
		}
		kvs := make([][2][]byte, 0, len(removed)+1)
		for tp := range removed {
			kvs = append(kvs, [2][]byte{OffsetCommitKey(g.GroupID, tp), nil})
		}
		if isDead && m.removeGroup(g) && generation > 0 {
			kvs = append(kvs, [2][]byte{GroupMetadataKey(g.GroupID), nil})
		}
		if len(kvs) == 0 {
			continue
		}
		tp := offsetsTopicPartition(p)
		n := int64(len(removed))
		groupID := g.GroupID
		m.replicaManager.AppendRecords(int64(m.config.OffsetCommitTimeoutMs), 1, true,
			map[common.TopicPartition]*record.MemoryRecords{tp: m.buildRecords(magic, kvs)},
			func(status map[common.TopicPartition]error) {
				if err := status[tp]; err != nil {
					m.logger.WithError(err).Errorf("Failed to append %d tombstones to %s for expired/deleted offsets and/or metadata for group %s",
						len(kvs), tp, groupID)
					return
				}
				offsetsRemoved.Add(n)
			})
	}
	m.logger.Infof("Removed %d expired offsets in %d milliseconds.", offsetsRemoved.Load(), m.time.Milliseconds()-startMs)
}
