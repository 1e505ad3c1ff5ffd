package cluster

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// noLeader is leaderReplicaIdOpt = None.
const noLeader int32 = -1

// initialControllerEpoch is KafkaController.InitialControllerEpoch (0), the epoch a partition
// starts with before it hears from any controller.
const initialControllerEpoch int32 = 0

// Partition is one topic partition as this broker sees it: its assigned replicas, who leads it,
// its ISR and (when it leads) its high watermark.
//
// Kafka 0.10.2: kafka.cluster.Partition. The ReplicaManager is the seam interface of this
// package. leaderIsrUpdateLock is a sync.RWMutex (Scala's ReentrantReadWriteLock), taken only
// at this type's entry points; see the package doc for the lock order.
type Partition struct {
	Topic          string
	PartitionID    int32
	topicPartition common.TopicPartition
	localBrokerID  int32
	time           common.Time
	replicaManager ReplicaManager
	logger         *logrus.Entry
	stateChange    *logrus.Entry

	leaderIsrUpdateLock sync.RWMutex
	zkVersion           int32
	leaderEpoch         int32
	controllerEpoch     int32
	inSyncReplicas      map[int32]*Replica
	leaderReplicaID     atomic.Int32 // read without the lock, as Scala's @volatile leaderReplicaIdOpt

	replicasMu         sync.Mutex
	assignedReplicaMap map[int32]*Replica
}

// NewPartition makes an empty partition (no replicas, no leader). stateChange is the
// state.change.logger; either logger may be nil.
func NewPartition(topic string, partitionID int32, localBrokerID int32, clock common.Time, rm ReplicaManager,
	logger, stateChange *logrus.Entry) *Partition {
	if logger == nil {
		logger = nopLogger()
	}
	if stateChange == nil {
		stateChange = nopLogger()
	}
	p := &Partition{
		Topic: topic, PartitionID: partitionID, topicPartition: common.TopicPartition{Topic: topic, Partition: partitionID},
		localBrokerID: localBrokerID, time: clock, replicaManager: rm,
		logger:             logger.WithField("logger", "kafka.cluster.Partition").WithField("ident", fmt.Sprintf("Partition [%s,%d] on broker %d: ", topic, partitionID, localBrokerID)),
		stateChange:        stateChange,
		zkVersion:          zkutils.InitialZKVersion,
		leaderEpoch:        zkutils.NoLeader,
		controllerEpoch:    initialControllerEpoch,
		inSyncReplicas:     map[int32]*Replica{},
		assignedReplicaMap: map[int32]*Replica{},
	}
	p.leaderReplicaID.Store(noLeader)
	return p
}

func nopLogger() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(discard{})
	return logrus.NewEntry(l)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TopicPartition is the partition's identity.
func (p *Partition) TopicPartition() common.TopicPartition { return p.topicPartition }

// isReplicaLocal reports whether replicaID is this broker.
func (p *Partition) isReplicaLocal(replicaID int32) bool { return replicaID == p.localBrokerID }

// GetOrCreateReplica returns the replica of broker replicaID, creating it if needed. The local
// replica gets its log (created with the topic's config if missing) and its HW from the
// replication-offset-checkpoint of the log's data directory, capped at the log end offset.
func (p *Partition) GetOrCreateReplica(replicaID int32) (*Replica, error) {
	p.replicasMu.Lock()
	defer p.replicasMu.Unlock()
	if r, ok := p.assignedReplicaMap[replicaID]; ok {
		return r, nil
	}
	if !p.isReplicaLocal(replicaID) {
		r := NewReplica(replicaID, p.topicPartition, p.time, 0, nil)
		p.assignedReplicaMap[replicaID] = r
		return r, nil
	}
	cfg, err := p.replicaManager.LogConfigFor(p.Topic)
	if err != nil {
		return nil, err
	}
	l, err := p.replicaManager.LogManager().CreateLog(p.topicPartition, cfg)
	if err != nil {
		return nil, err
	}
	dataDir := filepath.Dir(l.Dir())
	cp := p.replicaManager.HighWatermarkCheckpoints()[dataDir]
	var hw int64
	if cp != nil {
		offsets, err := cp.Read()
		if err != nil {
			return nil, err
		}
		hw = offsets[p.topicPartition]
	} else {
		p.logger.Warnf("No checkpointed highwatermark is found for partition %s", p.topicPartition)
	}
	hw = min(hw, l.LogEndOffset())
	r := NewReplica(replicaID, p.topicPartition, p.time, hw, l)
	p.assignedReplicaMap[replicaID] = r
	return r, nil
}

// GetReplica returns broker replicaID's replica (the local one by default), or nil.
func (p *Partition) GetReplica(replicaID int32) *Replica {
	p.replicasMu.Lock()
	defer p.replicasMu.Unlock()
	return p.assignedReplicaMap[replicaID]
}

// LocalReplica is GetReplica(localBrokerID).
func (p *Partition) LocalReplica() *Replica { return p.GetReplica(p.localBrokerID) }

// LeaderReplicaIfLocal is the local replica when this broker leads the partition, else nil.
func (p *Partition) LeaderReplicaIfLocal() *Replica {
	if p.leaderReplicaID.Load() == p.localBrokerID {
		return p.LocalReplica()
	}
	return nil
}

// LeaderReplicaID is the leader's broker id, or -1 when unknown.
func (p *Partition) LeaderReplicaID() int32 { return p.leaderReplicaID.Load() }

// AssignedReplicas lists the replicas this broker knows, by broker id.
func (p *Partition) AssignedReplicas() []*Replica {
	p.replicasMu.Lock()
	defer p.replicasMu.Unlock()
	out := make([]*Replica, 0, len(p.assignedReplicaMap))
	for _, r := range p.assignedReplicaMap {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].BrokerID < out[j].BrokerID })
	return out
}

func (p *Partition) removeReplicasNotIn(keep []int32) {
	p.replicasMu.Lock()
	defer p.replicasMu.Unlock()
	for id := range p.assignedReplicaMap {
		if !slices.Contains(keep, id) {
			delete(p.assignedReplicaMap, id)
		}
	}
}

// InSyncReplicas are the broker ids of the ISR, sorted.
func (p *Partition) InSyncReplicas() []int32 {
	p.leaderIsrUpdateLock.RLock()
	defer p.leaderIsrUpdateLock.RUnlock()
	return p.isrIDs()
}

// isrIDs: caller holds leaderIsrUpdateLock.
func (p *Partition) isrIDs() []int32 {
	ids := make([]int32, 0, len(p.inSyncReplicas))
	for id := range p.inSyncReplicas {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// LeaderEpoch is the epoch of the current leadership.
func (p *Partition) LeaderEpoch() int32 {
	p.leaderIsrUpdateLock.RLock()
	defer p.leaderIsrUpdateLock.RUnlock()
	return p.leaderEpoch
}

// IsUnderReplicated reports whether this broker leads the partition with an ISR smaller than the
// assigned replicas.
func (p *Partition) IsUnderReplicated() bool {
	if p.LeaderReplicaIfLocal() == nil {
		return false
	}
	p.leaderIsrUpdateLock.RLock()
	n := len(p.inSyncReplicas)
	p.leaderIsrUpdateLock.RUnlock()
	return n < len(p.AssignedReplicas())
}

// Delete drops every replica and deletes the local log (StopReplica with delete).
func (p *Partition) Delete() error {
	p.leaderIsrUpdateLock.Lock()
	defer p.leaderIsrUpdateLock.Unlock()
	p.replicasMu.Lock()
	p.assignedReplicaMap = map[int32]*Replica{}
	p.replicasMu.Unlock()
	p.inSyncReplicas = map[int32]*Replica{}
	p.leaderReplicaID.Store(noLeader)
	if err := p.replicaManager.LogManager().AsyncDelete(p.topicPartition); err != nil {
		return fmt.Errorf("error in deleting the log for partition %s on broker %d: %w", p.topicPartition, p.localBrokerID, err)
	}
	return nil
}

// MakeLeader applies a LeaderAndIsr state that makes this broker the leader: it records the
// controller epoch, creates every assigned replica, takes the ISR, leader epoch and zkVersion
// from the controller, resolves the local HW in the log, forgets the followers' positions (they
// are learnt again from their next fetch) and tries to advance the HW. It reports whether this
// broker was not already the leader.
func (p *Partition) MakeLeader(controllerID int32, state protocol.LeaderAndIsrRequestPartitionState, correlationID int32) (bool, error) {
	isNewLeader, hwIncremented, err := func() (bool, bool, error) {
		p.leaderIsrUpdateLock.Lock()
		defer p.leaderIsrUpdateLock.Unlock()
		p.controllerEpoch = state.ControllerEpoch
		for _, id := range state.Replicas {
			if _, err := p.GetOrCreateReplica(id); err != nil {
				return false, false, err
			}
		}
		newISR := make(map[int32]*Replica, len(state.Isr))
		for _, id := range state.Isr {
			r, err := p.GetOrCreateReplica(id)
			if err != nil {
				return false, false, err
			}
			newISR[id] = r
		}
		p.removeReplicasNotIn(state.Replicas)
		p.inSyncReplicas = newISR
		previousEpoch := p.leaderEpoch
		p.leaderEpoch = state.LeaderEpoch
		p.zkVersion = state.ZkVersion
		isNew := p.leaderReplicaID.Load() != p.localBrokerID
		leader := p.LocalReplica()
		if leader == nil {
			return false, false, fmt.Errorf("partition %s: the local replica %d is not assigned", p.topicPartition, p.localBrokerID)
		}
		if err := p.startLeaderEpoch(leader, previousEpoch); err != nil {
			return false, false, err
		}
		if err := leader.ConvertHWToLocalOffsetMetadata(); err != nil {
			return false, false, err
		}
		// Every follower starts a new catch-up history: an ISR member counts as caught up now
		// (it gets a whole replica.lag.time.max.ms before it can be dropped), the others never.
		// A new leader also forgets the positions it may remember from an earlier leadership.
		curLEO := leader.LogEndOffset().MessageOffset
		now := p.time.Milliseconds()
		for _, r := range p.AssignedReplicas() {
			if r.BrokerID == p.localBrokerID {
				continue
			}
			var caughtUp int64
			if _, in := newISR[r.BrokerID]; in {
				caughtUp = now
			}
			r.ResetLastCaughtUpTime(curLEO, now, caughtUp)
			if isNew {
				_ = r.UpdateLogReadResult(UnknownLogReadResult(0))
			}
		}
		p.leaderReplicaID.Store(p.localBrokerID)
		inc, err := p.maybeIncrementLeaderHW(leader, p.time.Milliseconds())
		return isNew, inc, err
	}()
	if err != nil {
		return false, err
	}
	if hwIncremented {
		p.tryCompleteDelayedRequests()
	}
	return isNewLeader, nil
}

// MakeFollower applies a LeaderAndIsr state that names another broker as leader. The follower
// keeps no ISR (only the leader maintains it). It reports whether the leader changed.
// Truncation to the HW and fetching from the new leader are ReplicaManager.makeFollowers'.
func (p *Partition) MakeFollower(controllerID int32, state protocol.LeaderAndIsrRequestPartitionState, correlationID int32) (bool, error) {
	p.leaderIsrUpdateLock.Lock()
	defer p.leaderIsrUpdateLock.Unlock()
	p.controllerEpoch = state.ControllerEpoch
	for _, id := range state.Replicas {
		if _, err := p.GetOrCreateReplica(id); err != nil {
			return false, err
		}
	}
	p.removeReplicasNotIn(state.Replicas)
	p.inSyncReplicas = map[int32]*Replica{}
	p.leaderEpoch = state.LeaderEpoch
	p.zkVersion = state.ZkVersion
	if p.leaderReplicaID.Load() == state.Leader {
		return false, nil
	}
	p.leaderReplicaID.Store(state.Leader)
	return true, nil
}

// UpdateReplicaLogReadResult records a follower's fetch and then checks whether it joins the ISR
// and whether the HW moves.
func (p *Partition) UpdateReplicaLogReadResult(replicaID int32, res LogReadResult) error {
	r := p.GetReplica(replicaID)
	if r == nil {
		ids := make([]string, 0)
		for _, a := range p.AssignedReplicas() {
			ids = append(ids, fmt.Sprint(a.BrokerID))
		}
		return fmt.Errorf("leader %d failed to record follower %d's position %d since the replica is not recognized to be one of the assigned replicas %s for partition %s",
			p.localBrokerID, replicaID, res.Info.FetchOffsetMetadata.MessageOffset, strings.Join(ids, ","), p.topicPartition)
	}
	if err := r.UpdateLogReadResult(res); err != nil {
		return err
	}
	return p.maybeExpandIsr(replicaID, res)
}

// maybeExpandIsr adds a follower whose LEO reached the HW to the ISR (in ZooKeeper first, then
// here) and tries to advance the HW.
func (p *Partition) maybeExpandIsr(replicaID int32, res LogReadResult) error {
	hwIncremented, err := func() (bool, error) {
		p.leaderIsrUpdateLock.Lock()
		defer p.leaderIsrUpdateLock.Unlock()
		leader := p.LeaderReplicaIfLocal()
		if leader == nil {
			return false, nil
		}
		r := p.GetReplica(replicaID)
		if r == nil {
			return false, nil
		}
		if _, in := p.inSyncReplicas[replicaID]; !in && r.LogEndOffset().OffsetDiff(leader.HighWatermark()) >= 0 {
			newISR := make(map[int32]*Replica, len(p.inSyncReplicas)+1)
			for id, x := range p.inSyncReplicas {
				newISR[id] = x
			}
			newISR[replicaID] = r
			p.logger.Infof("Expanding ISR for partition [%s,%d] from %s to %s", p.Topic, p.PartitionID,
				joinIDs(p.isrIDs()), joinIDs(mapKeys(newISR)))
			p.updateIsr(newISR)
			p.markIsrExpand()
		}
		return p.maybeIncrementLeaderHW(leader, res.FetchTimeMs)
	}()
	if hwIncremented {
		p.tryCompleteDelayedRequests()
	}
	return err
}

func mapKeys(m map[int32]*Replica) []int32 {
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// updateIsr writes the new ISR to the partition's state znode (conditional on zkVersion) and,
// when that succeeds, adopts it. Caller holds leaderIsrUpdateLock for writing.
func (p *Partition) updateIsr(newISR map[int32]*Replica) {
	z := p.replicaManager.ZkUtils()
	if z == nil { // no ZooKeeper (unit tests): the update cannot conflict
		p.replicaManager.RecordIsrChange(p.topicPartition)
		p.inSyncReplicas = newISR
		return
	}
	lai := zkutils.LeaderAndIsr{Leader: p.localBrokerID, LeaderEpoch: p.leaderEpoch, Isr: mapKeys(newISR), ZkVersion: p.zkVersion}
	ok, newVersion := z.UpdateLeaderAndIsr(p.Topic, p.PartitionID, lai, p.controllerEpoch, p.zkVersion)
	if !ok {
		p.logger.Infof("Cached zkVersion [%d] not equal to that in zookeeper, skip updating ISR", p.zkVersion)
		return
	}
	p.replicaManager.RecordIsrChange(p.topicPartition)
	p.inSyncReplicas = newISR
	p.zkVersion = newVersion
}

// maybeIncrementLeaderHW moves the HW to the smallest LEO among the replicas that are in the ISR
// or were caught up within replica.lag.time.max.ms (so a follower about to join the ISR holds
// the HW back rather than letting it pass its LEO). It reports whether the HW moved, either to a
// larger offset or to the same offset on a newer segment. Caller holds leaderIsrUpdateLock
// (shared for appends: the compare-and-set is the replica's, see maybeAdvanceHighWatermark).
func (p *Partition) maybeIncrementLeaderHW(leader *Replica, curTime int64) (bool, error) {
	lagMax := p.replicaManager.Config().ReplicaLagTimeMaxMs
	var newHW log.LogOffsetMetadata
	found := false
	for _, r := range p.AssignedReplicas() {
		_, inISR := p.inSyncReplicas[r.BrokerID]
		if !inISR && curTime-r.LastCaughtUpTimeMs() > lagMax {
			continue
		}
		leo := r.LogEndOffset()
		if !found || leo.MessageOffset < newHW.MessageOffset {
			newHW, found = leo, true
		}
	}
	if !found {
		return false, nil
	}
	if !leader.IsLocal() {
		return false, fmt.Errorf("partition %s: the leader replica %d is not local", p.topicPartition, leader.BrokerID)
	}
	if leader.maybeAdvanceHighWatermark(newHW) {
		p.logger.Debugf("High watermark for partition [%s,%d] updated to %s", p.Topic, p.PartitionID, newHW)
		return true, nil
	}
	return false, nil
}

// tryCompleteDelayedRequests pokes both purgatories for this partition (after the HW moved).
func (p *Partition) tryCompleteDelayedRequests() {
	key := purgatory.NewTopicPartitionOperationKey(p.topicPartition)
	p.replicaManager.TryCompleteDelayedFetch(key)
	p.replicaManager.TryCompleteDelayedProduce(key)
}

// AppendRecordsToLeader appends to the local log if this broker leads the partition. With
// requiredAcks == -1 it refuses (NOT_ENOUGH_REPLICAS, nothing written) when the ISR is smaller
// than min.insync.replicas. After the append, waiting fetches are poked, and if the HW moved (a
// single-replica ISR), waiting produces too.
func (p *Partition) AppendRecordsToLeader(records *record.MemoryRecords, requiredAcks int16) (log.LogAppendInfo, error) {
	info, hwIncremented, err := func() (log.LogAppendInfo, bool, error) {
		p.leaderIsrUpdateLock.RLock()
		defer p.leaderIsrUpdateLock.RUnlock()
		leader := p.LeaderReplicaIfLocal()
		if leader == nil {
			return log.UnknownLogAppendInfo, false, protocol.Errorf(protocol.ErrNotLeaderForPartition,
				"Leader not local for partition %s on broker %d", p.topicPartition, p.localBrokerID)
		}
		l := leader.Log
		minIsr := l.Config().MinInSyncReplicas
		inSync := len(p.inSyncReplicas)
		if inSync < minIsr && requiredAcks == -1 {
			return log.UnknownLogAppendInfo, false, protocol.Errorf(protocol.ErrNotEnoughReplicas,
				"Number of insync replicas for partition %s is [%d], below required minimum [%d]", p.topicPartition, inSync, minIsr)
		}
		info, err := l.Append(records, true)
		if err != nil {
			return info, false, err
		}
		p.replicaManager.TryCompleteDelayedFetch(purgatory.NewTopicPartitionOperationKey(p.topicPartition))
		inc, err := p.maybeIncrementLeaderHW(leader, p.time.Milliseconds())
		return info, inc, err
	}()
	if hwIncremented {
		p.tryCompleteDelayedRequests()
	}
	return info, err
}

// CheckEnoughReplicasReachOffset answers DelayedProduce: has the HW reached requiredOffset, and
// if so, is the ISR still at least min.insync.replicas (else NOT_ENOUGH_REPLICAS_AFTER_APPEND)?
// A broker that no longer leads answers (false, NOT_LEADER_FOR_PARTITION).
func (p *Partition) CheckEnoughReplicasReachOffset(requiredOffset int64) (bool, error) {
	leader := p.LeaderReplicaIfLocal()
	if leader == nil {
		return false, protocol.ErrNotLeaderForPartition
	}
	p.leaderIsrUpdateLock.RLock()
	inSync := len(p.inSyncReplicas)
	p.leaderIsrUpdateLock.RUnlock()
	minIsr := leader.Log.Config().MinInSyncReplicas
	if leader.HighWatermark().MessageOffset >= requiredOffset {
		if minIsr <= inSync {
			return true, nil
		}
		return true, protocol.ErrNotEnoughReplicasAfterAppend
	}
	return false, nil
}

// String formats like Partition.toString.
func (p *Partition) String() string {
	ids := make([]string, 0)
	for _, r := range p.AssignedReplicas() {
		ids = append(ids, fmt.Sprint(r.BrokerID))
	}
	return fmt.Sprintf("Topic: %s; Partition: %d; Leader: %d; AssignedReplicas: %s; InSyncReplicas: %v",
		p.Topic, p.PartitionID, p.LeaderReplicaID(), strings.Join(ids, ","), p.InSyncReplicas())
}
