package coordinator

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// OffsetCommit (v1/v2) and OffsetFetch (v1/v2) as the coordinator serves them.

func allCodes(offsets map[common.TopicPartition]OffsetAndMetadata, code int16) map[common.TopicPartition]int16 {
	out := make(map[common.TopicPartition]int16, len(offsets))
	for tp := range offsets {
		out[tp] = code
	}
	return out
}

// HandleCommitOffsets handles OffsetCommit v1/v2 (generation -1 and member "" for groups that
// only store offsets). See OffsetsForCommit for the timestamps.
func (c *GroupCoordinator) HandleCommitOffsets(groupID, memberID string, generation int32,
	offsets map[common.TopicPartition]OffsetAndMetadata, cb func(map[common.TopicPartition]int16)) {
	switch {
	case !c.IsActive():
		cb(allCodes(offsets, protocol.ErrGroupCoordinatorNotAvailable.Code))
	case !c.groupManager.IsGroupLocal(groupID):
		cb(allCodes(offsets, protocol.ErrNotCoordinatorForGroup.Code))
	case c.groupManager.IsGroupLoading(groupID):
		cb(allCodes(offsets, protocol.ErrGroupLoadInProgress.Code))
	default:
		g := c.groupManager.GetGroup(groupID)
		if g == nil {
			if generation >= 0 {
				// A commit from an older generation of a group this coordinator does not know.
				cb(allCodes(offsets, protocol.ErrIllegalGeneration.Code))
				return
			}
			g = c.groupManager.AddGroup(NewGroupMetadata(groupID))
		}
		c.doCommitOffsets(g, memberID, generation, offsets, cb)
	}
}

func (c *GroupCoordinator) doCommitOffsets(g *GroupMetadata, memberID string, generation int32,
	offsets map[common.TopicPartition]OffsetAndMetadata, cb func(map[common.TopicPartition]int16)) {
	g.mu.Lock()
	defer c.unlockGroup(g)
	switch {
	case g.Is(Dead):
		cb(allCodes(offsets, protocol.ErrUnknownMemberID.Code))
	case generation < 0 && g.Is(Empty):
		queueStore(g, c.groupManager.prepareStoreOffsets(g, memberID, generation, offsets, cb))
	case g.Is(AwaitingSync):
		cb(allCodes(offsets, protocol.ErrRebalanceInProgress.Code))
	case !g.Has(memberID):
		cb(allCodes(offsets, protocol.ErrUnknownMemberID.Code))
	case generation != g.generationID:
		cb(allCodes(offsets, protocol.ErrIllegalGeneration.Code))
	default:
		c.completeAndScheduleNextHeartbeatExpirationLocked(g, g.Get(memberID))
		queueStore(g, c.groupManager.prepareStoreOffsets(g, memberID, generation, offsets, cb))
	}
}

// OffsetsForCommit turns an OffsetCommit request (v1/v2) into the offsets to store, as
// KafkaApis does in 0.10.2: commit time = now; expire = now + retention, or, for a v1
// partition with an explicit timestamp, that timestamp + retention; retention = the v2
// retention_time unless it is -1, else offsets.retention.minutes.
func (c *GroupCoordinator) OffsetsForCommit(req *protocol.OffsetCommitRequest) map[common.TopicPartition]OffsetAndMetadata {
	retention := c.offsetConfig.OffsetsRetentionMs
	if req.Version > 1 && req.RetentionTime != -1 {
		retention = req.RetentionTime
	}
	now := c.time.Milliseconds()
	out := map[common.TopicPartition]OffsetAndMetadata{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			md := ""
			if p.Metadata != nil {
				md = *p.Metadata
			}
			expire := now + retention
			if req.Version == 1 && p.Timestamp != DefaultTimestamp {
				expire = p.Timestamp + retention
			}
			out[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] =
				OffsetAndMetadata{Offset: p.Offset, Metadata: md, CommitTimestamp: now, ExpireTimestamp: expire}
		}
	}
	return out
}

// HandleFetchOffsets handles OffsetFetch v1/v2 from the cache (tps nil: every offset).
func (c *GroupCoordinator) HandleFetchOffsets(groupID string, tps []common.TopicPartition) (int16, map[common.TopicPartition]OffsetFetchPartitionData) {
	switch {
	case !c.IsActive():
		return protocol.ErrGroupCoordinatorNotAvailable.Code, map[common.TopicPartition]OffsetFetchPartitionData{}
	case !c.groupManager.IsGroupLocal(groupID):
		return protocol.ErrNotCoordinatorForGroup.Code, map[common.TopicPartition]OffsetFetchPartitionData{}
	case c.groupManager.IsGroupLoading(groupID):
		return protocol.ErrGroupLoadInProgress.Code, map[common.TopicPartition]OffsetFetchPartitionData{}
	}
	return 0, c.groupManager.GetOffsets(groupID, tps)
}
