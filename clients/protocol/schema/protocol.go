package schema

import "github.com/zkafka/zkafka/clients/protocol/types"

// RequestHeader is Protocol.REQUEST_HEADER.
var RequestHeader = types.NewSchema(
	types.NewField("api_key", types.INT16),
	types.NewField("api_version", types.INT16),
	types.NewField("correlation_id", types.INT32),
	types.NewField("client_id", types.NULLABLE_STRING),
)

// ResponseHeader is Protocol.RESPONSE_HEADER.
var ResponseHeader = types.NewSchema(
	types.NewField("correlation_id", types.INT32),
)

// Requests lists, per API key (the index), the request schema of each version (the inner index).
// A nil entry is a version Kafka does not define through this table (ControlledShutdown v0).
//
// Kafka 0.10.2: Protocol.REQUESTS.
var Requests = [][]*types.Schema{
	0:  ProduceRequest,
	1:  FetchRequest,
	2:  ListOffsetRequest,
	3:  MetadataRequest,
	4:  LeaderAndIsrRequest,
	5:  StopReplicaRequest,
	6:  UpdateMetadataRequest,
	7:  ControlledShutdownRequest,
	8:  OffsetCommitRequest,
	9:  OffsetFetchRequest,
	10: GroupCoordinatorRequest,
	11: JoinGroupRequest,
	12: HeartbeatRequest,
	13: LeaveGroupRequest,
	14: SyncGroupRequest,
	15: DescribeGroupsRequest,
	16: ListGroupsRequest,
	17: SaslHandshakeRequest,
	18: ApiVersionsRequest,
	19: CreateTopicsRequest,
	20: DeleteTopicsRequest,
}

// Responses is the response counterpart of Requests.
//
// Kafka 0.10.2: Protocol.RESPONSES.
var Responses = [][]*types.Schema{
	0:  ProduceResponse,
	1:  FetchResponse,
	2:  ListOffsetResponse,
	3:  MetadataResponse,
	4:  LeaderAndIsrResponse,
	5:  StopReplicaResponse,
	6:  UpdateMetadataResponse,
	7:  ControlledShutdownResponse,
	8:  OffsetCommitResponse,
	9:  OffsetFetchResponse,
	10: GroupCoordinatorResponse,
	11: JoinGroupResponse,
	12: HeartbeatResponse,
	13: LeaveGroupResponse,
	14: SyncGroupResponse,
	15: DescribeGroupsResponse,
	16: ListGroupsResponse,
	17: SaslHandshakeResponse,
	18: ApiVersionsResponse,
	19: CreateTopicsResponse,
	20: DeleteTopicsResponse,
}

// OldestVersion is the first version of key with a schema (Kafka: ProtoUtils.oldestVersion),
// or -1 for an unknown key.
func OldestVersion(key int) int16 {
	if key < 0 || key >= len(Requests) {
		return -1
	}
	for v, s := range Requests[key] {
		if s != nil {
			return int16(v)
		}
	}
	return -1
}

// LatestVersion is the last version of key (Kafka: ProtoUtils.latestVersion), or -1 for an
// unknown key.
func LatestVersion(key int) int16 {
	if key < 0 || key >= len(Requests) {
		return -1
	}
	return int16(len(Requests[key]) - 1)
}
