package cluster

import (
	"github.com/zkafka/zkafka/clients/protocol"
)

// Leader epochs for zkafka.leader.epoch.truncation.enable (Kafka 0.11's KIP-101). With message
// format v0/v1 the epoch of a message is the controller's leader epoch under which it was
// written or fetched: the leader records its epoch at its log end offset when it becomes leader
// (startLeaderEpoch), and the replica fetcher records the epoch of the leader it fetches from
// before appending the first message of that epoch. When the mode is off the local log has no
// epoch cache and none of this does anything.

// startLeaderEpoch records that the leadership of the current leader epoch starts at the
// leader's log end offset. Caller holds leaderIsrUpdateLock for writing (no append can run).
//
// Kafka 0.11.0: the epoch bookkeeping of Partition.makeLeader (0.11 records it with the first
// append of the epoch; v0/v1 batches carry no epoch, so zkafka records it here, as Kafka does
// from 2.0 on).
func (p *Partition) startLeaderEpoch(leader *Replica, previousEpoch int32) error {
	if leader.Log == nil || leader.Log.LeaderEpochCache() == nil {
		return nil
	}
	leo := leader.LogEndOffset().MessageOffset
	p.logger.Infof("%s starts at Leader Epoch %d from offset %d. Previous Leader Epoch was: %d", p.topicPartition, p.leaderEpoch, leo, previousEpoch)
	return leader.Log.MaybeAssignEpochStartOffset(p.leaderEpoch, leo)
}

// LeaderAndEpoch are the leader this broker knows for the partition and the epoch of that
// leadership, read together (a follower labels what it fetches with the epoch only if the
// leader it fetched from is still the leader of that epoch).
func (p *Partition) LeaderAndEpoch() (leader, epoch int32) {
	p.leaderIsrUpdateLock.RLock()
	defer p.leaderIsrUpdateLock.RUnlock()
	return p.leaderReplicaID.Load(), p.leaderEpoch
}

// LastOffsetForLeaderEpoch answers a follower's OffsetsForLeaderEpoch for this partition: where
// leaderEpoch ends in the leader's log. Not the leader: NOT_LEADER_FOR_PARTITION. A leader
// without an epoch cache (the mode is off here) answers UndefinedEpochOffset, so the follower
// falls back to its high watermark.
//
// Kafka 0.11.0: kafka.cluster.Partition.lastOffsetForLeaderEpoch.
func (p *Partition) LastOffsetForLeaderEpoch(leaderEpoch int32) protocol.EpochEndOffset {
	p.leaderIsrUpdateLock.RLock()
	defer p.leaderIsrUpdateLock.RUnlock()
	leader := p.LeaderReplicaIfLocal()
	if leader == nil {
		return protocol.EpochEndOffset{ErrorCode: protocol.ErrNotLeaderForPartition.Code, EndOffset: protocol.UndefinedEpochOffset}
	}
	if leader.Log == nil || leader.Log.LeaderEpochCache() == nil {
		return protocol.EpochEndOffset{EndOffset: protocol.UndefinedEpochOffset}
	}
	return protocol.EpochEndOffset{EndOffset: leader.Log.LeaderEpochCache().EndOffsetFor(leaderEpoch)}
}
