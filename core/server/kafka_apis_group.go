package server

import (
	"fmt"
	"strconv"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// --- offsets (v0 in ZooKeeper) and the group APIs ---

func (a *KafkaApis) coordinatorActive() bool { return a.coordinator != nil && a.coordinator.IsActive() }

// handleOffsetCommitRequest: v0 commits go to ZooKeeper (/consumers/<group>/offsets/<t>/<p>),
// as 0.10.2 does for old clients; v1+ need the coordinator.
func (a *KafkaApis) handleOffsetCommitRequest(req *network.Request) error {
	or, ok := req.Body.(*protocol.OffsetCommitRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if or.Version > 0 && !a.coordinatorActive() {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	if or.Version > 0 {
		return a.handleOffsetCommitV1(req, or)
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
			case !a.metadataCache.Contains(t.Topic):
				code = protocol.ErrUnknownTopicOrPartition.Code
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

// handleOffsetFetchRequest: v0 reads ZooKeeper (a missing offset is -1 with
// UNKNOWN_TOPIC_OR_PARTITION, OffsetFetchResponse.UNKNOWN_PARTITION); v1+ need the coordinator.
func (a *KafkaApis) handleOffsetFetchRequest(req *network.Request) error {
	or, ok := req.Body.(*protocol.OffsetFetchRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if or.Version > 0 && !a.coordinatorActive() {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	if or.Version > 0 {
		return a.handleOffsetFetchV1(req, or)
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
			if a.metadataCache.Contains(t.Topic) {
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

// handleSaslHandshakeRequest: reaching KafkaApis means the listener is not in SASL
// authentication (PLAINTEXT, or already authenticated), so the handshake is out of place:
// ILLEGAL_SASL_STATE with the enabled mechanisms.
func (a *KafkaApis) handleSaslHandshakeRequest(req *network.Request) error {
	mechs := a.config.SaslEnabledMechanisms
	if mechs == nil {
		mechs = []string{}
	}
	a.sendResponse(req, &protocol.SaslHandshakeResponse{Version: 0, ErrorCode: protocol.ErrIllegalSaslState.Code, EnabledMechanisms: mechs})
	return nil
}

// handleApiVersionsRequest: the supported table, or UNSUPPORTED_VERSION with an empty list in the
// v0 layout for a version this broker does not know.
func (a *KafkaApis) handleApiVersionsRequest(req *network.Request) error {
	a.sendResponse(req, protocol.ApiVersionsResponseFor(req.Header.ApiVersion))
	return nil
}
