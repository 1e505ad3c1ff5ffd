package server

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/coordinator"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// KafkaApis.handleOffsetFetchRequest (Kafka 0.10.2: the same name): v0 reads ZooKeeper, v1 and
// v2 the group coordinator's cache of __consumer_offsets.

// handleOffsetFetchRequest: v0 reads ZooKeeper (a missing offset is -1 with
// UNKNOWN_TOPIC_OR_PARTITION, OffsetFetchResponse.UNKNOWN_PARTITION); v1+ need the coordinator.
func (a *KafkaApis) handleOffsetFetchRequest(req *network.Request) error {
	or, ok := req.Body.(*protocol.OffsetFetchRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if !a.authorize(req.Session, auth.Read, groupResource(or.GroupID)) {
		return protocol.ErrGroupAuthorizationFailed
	}
	if or.Version > 0 && !a.coordinatorActive() {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	if or.Version > 0 {
		return a.fetchOffsetsFromCoordinator(req, or)
	}
	if a.zkUtils == nil {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	empty := ""
	resp := &protocol.OffsetFetchResponse{Version: or.Version}
	for _, t := range or.Topics {
		rt := protocol.OffsetFetchResponseTopic{Topic: t.Topic}
		for _, p := range t.Partitions {
			pr := protocol.OffsetFetchResponseTopicPartition{Partition: p.Partition, Offset: -1, Metadata: &empty,
				ErrorCode: protocol.ErrUnknownTopicOrPartition.Code}
			if a.authorize(req.Session, auth.Describe, topicResource(t.Topic)) && a.metadataCache.Contains(t.Topic) {
				dirs := zkutils.NewZKGroupTopicDirs(or.GroupID, t.Topic)
				data, _, exists, err := a.zkUtils.ReadDataMaybeNull(dirs.ConsumerOffsetDir() + "/" + strconv.Itoa(int(p.Partition)))
				switch {
				case err != nil:
					pr.ErrorCode = protocol.CodeOf(err)
				case exists:
					if off, perr := strconv.ParseInt(string(data), 10, 64); perr == nil {
						pr.Offset, pr.ErrorCode = off, 0
					} else {
						pr.ErrorCode = protocol.ErrUnknown.Code
					}
				}
			}
			rt.PartitionResponses = append(rt.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, rt)
	}
	a.sendResponse(req, resp)
	return nil
}

// fetchOffsetsFromCoordinator is OffsetFetch v1/v2 from the coordinator's cache (v2 with a null
// partition list: every committed offset of the group).
func (a *KafkaApis) fetchOffsetsFromCoordinator(req *network.Request, or *protocol.OffsetFetchRequest) error {
	var tps []common.TopicPartition
	if or.Topics != nil {
		tps = []common.TopicPartition{}
		for _, t := range or.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, common.TopicPartition{Topic: t.Topic, Partition: p.Partition})
			}
		}
	}
	var denied map[common.TopicPartition]bool // partitions of topics the principal may not Describe
	if a.authorizer != nil && tps != nil {
		allowed := []common.TopicPartition{}
		for _, tp := range tps {
			if a.authorize(req.Session, auth.Describe, topicResource(tp.Topic)) {
				allowed = append(allowed, tp)
			} else {
				if denied == nil {
					denied = map[common.TopicPartition]bool{}
				}
				denied[tp] = true
			}
		}
		tps = allowed
	}
	code, data := a.coordinator.HandleFetchOffsets(or.GroupID, tps)
	if code != 0 {
		return protocol.ErrorForCode(code)
	}
	if a.authorizer != nil {
		for tp := range data {
			if !a.authorize(req.Session, auth.Describe, topicResource(tp.Topic)) {
				delete(data, tp) // not disclosed (0.10.2 filters the all-partitions answer)
			}
		}
		if denied != nil {
			tps = nil
			for _, t := range or.Topics {
				for _, p := range t.Partitions {
					tps = append(tps, common.TopicPartition{Topic: t.Topic, Partition: p.Partition})
				}
			}
			for tp := range denied {
				data[tp] = coordinator.OffsetFetchPartitionData{Offset: -1, ErrorCode: protocol.ErrUnknownTopicOrPartition.Code}
			}
		}
	}
	resp := &protocol.OffsetFetchResponse{Version: or.Version}
	add := func(tp common.TopicPartition, d coordinator.OffsetFetchPartitionData) {
		md := d.Metadata
		pr := protocol.OffsetFetchResponseTopicPartition{Partition: tp.Partition, Offset: d.Offset, Metadata: &md, ErrorCode: d.ErrorCode}
		for i := range resp.Responses {
			if resp.Responses[i].Topic == tp.Topic {
				resp.Responses[i].PartitionResponses = append(resp.Responses[i].PartitionResponses, pr)
				return
			}
		}
		resp.Responses = append(resp.Responses, protocol.OffsetFetchResponseTopic{Topic: tp.Topic,
			PartitionResponses: []protocol.OffsetFetchResponseTopicPartition{pr}})
	}
	if tps != nil {
		for _, tp := range tps {
			add(tp, data[tp])
		}
	} else {
		for _, tp := range coordinatorOffsetOrder(data) {
			add(tp, data[tp])
		}
	}
	a.sendResponse(req, resp)
	return nil
}

// coordinatorOffsetOrder lists a group's committed partitions by topic, then partition.
func coordinatorOffsetOrder(m map[common.TopicPartition]coordinator.OffsetFetchPartitionData) []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
