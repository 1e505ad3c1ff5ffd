package server

import (
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// GetErrorResponse is the response that reports err for every partition (or topic, or group) of
// request body, encoded at the request's version; nil for a produce with acks=0, which has no
// response (the connection is closed instead).
//
// Kafka 0.10.2: AbstractRequest.getErrorResponse of each request class (and
// RequestOrResponse.handleError for ControlledShutdown), with Errors.forException(e) done by
// protocol.CodeOf.
func GetErrorResponse(body protocol.Message, err error) protocol.Message {
	code := protocol.CodeOf(err)
	empty := ""
	switch r := body.(type) {
	case *protocol.ProduceRequest:
		if r.Acks == 0 {
			return nil
		}
		resp := &protocol.ProduceResponse{Version: r.Version}
		for _, t := range r.TopicData {
			rt := protocol.ProduceResponseTopic{Topic: t.Topic}
			for _, d := range t.Data {
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.ProduceResponseTopicPartition{
					Partition: d.Partition, ErrorCode: code, BaseOffset: -1, LogAppendTime: record.NoTimestamp})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		return resp
	case *protocol.FetchRequest:
		resp := &protocol.FetchResponse{Version: r.Version}
		for _, t := range r.Topics {
			rt := protocol.FetchResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.FetchResponseTopicPartition{
					PartitionHeader: protocol.FetchResponseTopicPartitionHeader{Partition: p.Partition, ErrorCode: code, HighWatermark: -1},
					RecordSet:       record.NewMemoryRecords(nil)})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		return resp
	case *protocol.ListOffsetRequest:
		resp := &protocol.ListOffsetResponse{Version: r.Version}
		for _, t := range r.Topics {
			rt := protocol.ListOffsetResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.ListOffsetResponseTopicPartition{
					Partition: p.Partition, ErrorCode: code, Timestamp: -1, Offset: -1, Offsets: []int64{}})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		return resp
	case *protocol.MetadataRequest:
		resp := &protocol.MetadataResponse{Version: r.Version, Brokers: []protocol.MetadataResponseBroker{}, ControllerID: -1}
		for _, t := range r.Topics {
			resp.TopicMetadata = append(resp.TopicMetadata, protocol.MetadataResponseTopic{TopicErrorCode: code, Topic: t,
				PartitionMetadata: []protocol.MetadataResponseTopicPartition{}})
		}
		return resp
	case *protocol.LeaderAndIsrRequest:
		resp := &protocol.LeaderAndIsrResponse{Version: r.Version, ErrorCode: code}
		for _, s := range r.PartitionStates {
			resp.Partitions = append(resp.Partitions, protocol.LeaderAndIsrResponsePartition{Topic: s.Topic, Partition: s.Partition, ErrorCode: code})
		}
		return resp
	case *protocol.StopReplicaRequest:
		resp := &protocol.StopReplicaResponse{Version: r.Version, ErrorCode: code}
		for _, p := range r.Partitions {
			resp.Partitions = append(resp.Partitions, protocol.StopReplicaResponsePartition{Topic: p.Topic, Partition: p.Partition, ErrorCode: code})
		}
		return resp
	case *protocol.UpdateMetadataRequest:
		return &protocol.UpdateMetadataResponse{Version: r.Version, ErrorCode: code}
	case *protocol.ControlledShutdownRequest:
		return &protocol.ControlledShutdownResponse{Version: r.Version, ErrorCode: code,
			PartitionsRemaining: []protocol.ControlledShutdownResponsePartition{}}
	case *protocol.OffsetCommitRequest:
		resp := &protocol.OffsetCommitResponse{Version: r.Version}
		for _, t := range r.Topics {
			rt := protocol.OffsetCommitResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.OffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		return resp
	case *protocol.OffsetFetchRequest:
		// v2 carries the error at the top and lists no partition (OffsetFetchRequest.getErrorResponse).
		resp := &protocol.OffsetFetchResponse{Version: r.Version, Responses: []protocol.OffsetFetchResponseTopic{}}
		if r.Version >= 2 {
			resp.ErrorCode = code
			return resp
		}
		for _, t := range r.Topics {
			rt := protocol.OffsetFetchResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.OffsetFetchResponseTopicPartition{
					Partition: p.Partition, Offset: -1, Metadata: &empty, ErrorCode: code})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		return resp
	case *protocol.GroupCoordinatorRequest:
		return &protocol.GroupCoordinatorResponse{Version: r.Version, ErrorCode: code,
			Coordinator: protocol.GroupCoordinatorResponseCoordinator{NodeID: -1, Host: "", Port: -1}}
	case *protocol.JoinGroupRequest:
		return &protocol.JoinGroupResponse{Version: r.Version, ErrorCode: code, GenerationID: -1,
			Members: []protocol.JoinGroupResponseMember{}}
	case *protocol.HeartbeatRequest:
		return &protocol.HeartbeatResponse{Version: r.Version, ErrorCode: code}
	case *protocol.LeaveGroupRequest:
		return &protocol.LeaveGroupResponse{Version: r.Version, ErrorCode: code}
	case *protocol.SyncGroupRequest:
		return &protocol.SyncGroupResponse{Version: r.Version, ErrorCode: code, MemberAssignment: []byte{}}
	case *protocol.DescribeGroupsRequest:
		resp := &protocol.DescribeGroupsResponse{Version: r.Version, Groups: []protocol.DescribeGroupsResponseGroup{}}
		for _, g := range r.GroupIds {
			resp.Groups = append(resp.Groups, protocol.DescribeGroupsResponseGroup{ErrorCode: code, GroupID: g,
				Members: []protocol.DescribeGroupsResponseGroupMember{}})
		}
		return resp
	case *protocol.ListGroupsRequest:
		return &protocol.ListGroupsResponse{Version: r.Version, ErrorCode: code, Groups: []protocol.ListGroupsResponseGroup{}}
	case *protocol.SaslHandshakeRequest:
		return &protocol.SaslHandshakeResponse{Version: r.Version, ErrorCode: code, EnabledMechanisms: []string{}}
	case *protocol.ApiVersionsRequest:
		return &protocol.ApiVersionsResponse{Version: 0, ErrorCode: code, ApiVersions: []protocol.ApiVersionsResponseApiKey{}}
	case *protocol.CreateTopicsRequest:
		resp := &protocol.CreateTopicsResponse{Version: r.Version, TopicErrors: []protocol.CreateTopicsResponseTopic{}}
		for _, t := range r.CreateTopicRequests {
			resp.TopicErrors = append(resp.TopicErrors, protocol.CreateTopicsResponseTopic{Topic: t.Topic, ErrorCode: code})
		}
		return resp
	case *protocol.DeleteTopicsRequest:
		resp := &protocol.DeleteTopicsResponse{Version: r.Version, TopicErrorCodes: []protocol.DeleteTopicsResponseTopic{}}
		for _, t := range r.Topics {
			resp.TopicErrorCodes = append(resp.TopicErrorCodes, protocol.DeleteTopicsResponseTopic{Topic: t, ErrorCode: code})
		}
		return resp
	case *protocol.OffsetsForLeaderEpochRequest:
		return offsetsForLeaderEpochErrorResponse(r, code)
	}
	return nil
}
