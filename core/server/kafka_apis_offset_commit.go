package server

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// KafkaApis.handleOffsetCommitRequest (Kafka 0.10.2: the same name): v0 commits to ZooKeeper,
// v1 and v2 through the group coordinator into __consumer_offsets.

// handleOffsetCommitRequest: v0 commits go to ZooKeeper (/consumers/<group>/offsets/<t>/<p>),
// as 0.10.2 does for old clients; v1+ need the coordinator.
func (a *KafkaApis) handleOffsetCommitRequest(req *network.Request) error {
	or, ok := req.Body.(*protocol.OffsetCommitRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if !a.authorize(req.Session, auth.Read, groupResource(or.GroupID)) {
		resp := &protocol.OffsetCommitResponse{Version: or.Version}
		for _, t := range or.Topics {
			rt := protocol.OffsetCommitResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.OffsetCommitResponseTopicPartition{Partition: p.Partition,
					ErrorCode: protocol.ErrGroupAuthorizationFailed.Code})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		a.sendResponse(req, resp)
		return nil
	}
	if or.Version > 0 && !a.coordinatorActive() {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	if or.Version > 0 {
		return a.commitOffsetsToCoordinator(req, or)
	}
	if a.zkUtils == nil {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	maxMeta := int(a.config.OffsetMetadataMaxSize)
	resp := &protocol.OffsetCommitResponse{Version: or.Version}
	for _, t := range or.Topics {
		rt := protocol.OffsetCommitResponseTopic{Topic: t.Topic}
		for _, p := range t.Partitions {
			var code int16
			switch {
			case a.topicDenied(req, t.Topic, auth.Read) != 0:
				code = a.topicDenied(req, t.Topic, auth.Read)
			case p.Metadata != nil && len(*p.Metadata) > maxMeta:
				code = protocol.ErrOffsetMetadataTooLarge.Code
			default:
				err := a.zkUtils.UpdateConsumerOffset(or.GroupID, common.TopicPartition{Topic: t.Topic, Partition: p.Partition}, p.Offset)
				code = protocol.CodeOf(err)
			}
			rt.PartitionResponses = append(rt.PartitionResponses, protocol.OffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
		}
		resp.Responses = append(resp.Responses, rt)
	}
	a.sendResponse(req, resp)
	return nil
}

// commitOffsetsToCoordinator is OffsetCommit v1/v2: partitions of unknown topics are answered
// UNKNOWN_TOPIC_OR_PARTITION, the rest go to the coordinator.
func (a *KafkaApis) commitOffsetsToCoordinator(req *network.Request, or *protocol.OffsetCommitRequest) error {
	known := *or
	known.Topics = nil
	unknown := map[common.TopicPartition]int16{}
	for _, t := range or.Topics {
		code := a.topicDenied(req, t.Topic, auth.Read)
		if code == 0 {
			known.Topics = append(known.Topics, t)
			continue
		}
		for _, p := range t.Partitions {
			unknown[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = code
		}
	}
	respond := func(codes map[common.TopicPartition]int16) {
		resp := &protocol.OffsetCommitResponse{Version: or.Version}
		for _, t := range or.Topics {
			rt := protocol.OffsetCommitResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				code, ok := codes[tp]
				if !ok {
					code = unknown[tp]
				}
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.OffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		a.sendResponse(req, resp)
	}
	if len(known.Topics) == 0 {
		respond(nil)
		return nil
	}
	a.coordinator.HandleCommitOffsets(or.GroupID, or.MemberID, or.GroupGenerationID, a.coordinator.OffsetsForCommit(&known), respond)
	return nil
}

// topicDenied is 0.10.2's answer for a topic a request names: UNKNOWN_TOPIC_OR_PARTITION when the
// topic does not exist or the principal may not Describe it (existence is not disclosed),
// TOPIC_AUTHORIZATION_FAILED when it may not perform op, else 0.
func (a *KafkaApis) topicDenied(req *network.Request, topic string, op auth.Operation) int16 {
	switch {
	case !a.authorize(req.Session, auth.Describe, topicResource(topic)) || !a.metadataCache.Contains(topic):
		return protocol.ErrUnknownTopicOrPartition.Code
	case !a.authorize(req.Session, op, topicResource(topic)):
		return protocol.ErrTopicAuthorizationFailed.Code
	}
	return 0
}
