package cluster

import (
	"slices"
	"strconv"
)

// MaybeShrinkIsr removes from the ISR every follower that has not been caught up with the leader
// for more than replicaMaxLagTimeMs, writing the smaller ISR to ZooKeeper (conditionally on the
// cached zkVersion) before adopting it, and then tries to advance the HW: with fewer replicas
// to wait for, the HW may move, and waiting acks=-1 produces may complete.
//
// Kafka 0.10.2: kafka.cluster.Partition.maybeShrinkIsr. A stuck follower (no fetch at all) and a
// slow one (fetching, but never reaching the leader's LEO) are treated alike, because both show
// as an old lastCaughtUpTimeMs (KIP-16).
func (p *Partition) MaybeShrinkIsr(replicaMaxLagTimeMs int64) error {
	hwIncremented, err := func() (bool, error) {
		p.leaderIsrUpdateLock.Lock()
		defer p.leaderIsrUpdateLock.Unlock()
		leader := p.LeaderReplicaIfLocal()
		if leader == nil {
			return false, nil // no longer the leader: only the leader maintains the ISR
		}
		outOfSync := p.getOutOfSyncReplicas(leader, replicaMaxLagTimeMs)
		if len(outOfSync) == 0 {
			return false, nil
		}
		newISR := make(map[int32]*Replica, len(p.inSyncReplicas))
		for id, r := range p.inSyncReplicas {
			if !slices.Contains(outOfSync, id) {
				newISR[id] = r
			}
		}
		p.logger.Infof("Shrinking ISR for partition [%s,%d] from %s to %s", p.Topic, p.PartitionID,
			joinIDs(p.isrIDs()), joinIDs(mapKeys(newISR)))
		p.updateIsr(newISR)
		p.markIsrShrink()
		return p.maybeIncrementLeaderHW(leader, p.time.Milliseconds())
	}()
	if hwIncremented {
		p.tryCompleteDelayedRequests()
	}
	return err
}

// getOutOfSyncReplicas lists the ISR followers whose last caught-up time is more than maxLagMs
// ago. The leader itself is never out of sync. Caller holds leaderIsrUpdateLock.
//
// Kafka 0.10.2: kafka.cluster.Partition.getOutOfSyncReplicas.
func (p *Partition) getOutOfSyncReplicas(leader *Replica, maxLagMs int64) []int32 {
	now := p.time.Milliseconds()
	var lagging []int32
	for id, r := range p.inSyncReplicas {
		if id == leader.BrokerID {
			continue
		}
		if now-r.LastCaughtUpTimeMs() > maxLagMs {
			lagging = append(lagging, id)
		}
	}
	slices.Sort(lagging)
	if len(lagging) > 0 {
		p.logger.Debugf("Lagging replicas for partition %s are %s", p.topicPartition, joinIDs(lagging))
	}
	return lagging
}

// ZkVersion is the zkVersion of the partition state znode this broker last wrote or was told.
func (p *Partition) ZkVersion() int32 {
	p.leaderIsrUpdateLock.RLock()
	defer p.leaderIsrUpdateLock.RUnlock()
	return p.zkVersion
}

func joinIDs(ids []int32) string {
	b := make([]byte, 0, 4*len(ids))
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(b)
}
