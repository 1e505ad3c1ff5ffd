package server

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// --- ListOffsets ---

func (a *KafkaApis) handleOffsetRequest(req *network.Request) error {
	lr, ok := req.Body.(*protocol.ListOffsetRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	resp := &protocol.ListOffsetResponse{Version: lr.Version}
	seen := map[common.TopicPartition]int{}
	for _, t := range lr.Topics {
		for _, p := range t.Partitions {
			seen[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}]++
		}
	}
	for _, t := range lr.Topics {
		rt := protocol.ListOffsetResponseTopic{Topic: t.Topic}
		for _, p := range t.Partitions {
			tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			var pr protocol.ListOffsetResponseTopicPartition
			if !a.authorize(req.Session, auth.Describe, topicResource(t.Topic)) {
				pr = protocol.ListOffsetResponseTopicPartition{Partition: tp.Partition, ErrorCode: protocol.ErrUnknownTopicOrPartition.Code,
					Offsets: []int64{}, Timestamp: -1, Offset: -1}
			} else if lr.Version == 0 {
				pr = a.listOffsetV0(lr.ReplicaID, tp, p)
			} else if seen[tp] > 1 {
				pr = protocol.ListOffsetResponseTopicPartition{Partition: tp.Partition, ErrorCode: protocol.ErrInvalidRequest.Code,
					Timestamp: -1, Offset: -1}
			} else {
				pr = a.listOffsetV1(lr.ReplicaID, tp, p)
			}
			rt.PartitionResponses = append(rt.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, rt)
	}
	a.sendResponse(req, resp)
	return nil
}

func (a *KafkaApis) localReplicaFor(replicaID int32, tp common.TopicPartition) (int64, error) {
	if replicaID != DebuggingReplicaID {
		r, err := a.replicaManager.getLeaderReplicaIfLocal(tp)
		if err != nil {
			return 0, err
		}
		return r.HighWatermark().MessageOffset, nil
	}
	r, err := a.replicaManager.getReplicaOrException(tp)
	if err != nil {
		return 0, err
	}
	return r.HighWatermark().MessageOffset, nil
}

func (a *KafkaApis) listOffsetV0(replicaID int32, tp common.TopicPartition, p protocol.ListOffsetRequestTopicPartition) protocol.ListOffsetResponseTopicPartition {
	out := protocol.ListOffsetResponseTopicPartition{Partition: tp.Partition, Offsets: []int64{}}
	if !a.metadataCache.Contains(tp.Topic) {
		out.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
		return out
	}
	hw, err := a.localReplicaFor(replicaID, tp)
	if err != nil {
		out.ErrorCode = protocol.CodeOf(err)
		return out
	}
	offsets := a.replicaManager.fetchOffsetsBefore(tp, p.Timestamp, int(p.MaxNumOffsets))
	if replicaID == ConsumerReplicaID {
		above := false
		for _, o := range offsets {
			if o > hw {
				above = true
			}
		}
		if above {
			i := 0
			for i < len(offsets) && offsets[i] > hw {
				i++
			}
			offsets = append([]int64{hw}, offsets[i:]...)
		}
	}
	if offsets == nil {
		offsets = []int64{}
	}
	out.Offsets = offsets
	return out
}

func (a *KafkaApis) listOffsetV1(replicaID int32, tp common.TopicPartition, p protocol.ListOffsetRequestTopicPartition) protocol.ListOffsetResponseTopicPartition {
	out := protocol.ListOffsetResponseTopicPartition{Partition: tp.Partition, Timestamp: -1, Offset: -1}
	if !a.metadataCache.Contains(tp.Topic) {
		out.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
		return out
	}
	hw, err := a.localReplicaFor(replicaID, tp)
	if err != nil {
		out.ErrorCode = protocol.CodeOf(err)
		return out
	}
	fromConsumer := replicaID == ConsumerReplicaID
	if fromConsumer && p.Timestamp == log.LatestTimestamp {
		out.Timestamp, out.Offset = record.NoTimestamp, hw
		return out
	}
	found, ok, err := a.replicaManager.FetchOffsetForTimestamp(tp, p.Timestamp)
	if err != nil {
		out.ErrorCode = protocol.CodeOf(err)
		return out
	}
	if ok && (!fromConsumer || found.Offset <= hw) {
		out.Timestamp, out.Offset = found.Timestamp, found.Offset
	}
	return out
}
