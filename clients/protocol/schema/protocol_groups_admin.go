// ListGroups through DeleteTopics, in Protocol.java order.

package schema

import "github.com/zkafka/zkafka/clients/protocol/types"

// ListGroupsRequestV0 is Protocol.LIST_GROUPS_REQUEST_V0.
var ListGroupsRequestV0 = types.NewSchema()

// ListGroupsResponseGroupV0 is Protocol.LIST_GROUPS_RESPONSE_GROUP_V0.
var ListGroupsResponseGroupV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("protocol_type", types.STRING),
)

// ListGroupsResponseV0 is Protocol.LIST_GROUPS_RESPONSE_V0.
var ListGroupsResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("groups", types.NewArrayOf(ListGroupsResponseGroupV0)),
)

// ListGroupsRequest is Protocol.LIST_GROUPS_REQUEST.
var ListGroupsRequest = []*types.Schema{ListGroupsRequestV0}

// ListGroupsResponse is Protocol.LIST_GROUPS_RESPONSE.
var ListGroupsResponse = []*types.Schema{ListGroupsResponseV0}

// DescribeGroupsRequestV0 is Protocol.DESCRIBE_GROUPS_REQUEST_V0.
var DescribeGroupsRequestV0 = types.NewSchema(
	types.NewField("group_ids", types.NewArrayOf(types.STRING)),
)

// DescribeGroupsResponseMemberV0 is Protocol.DESCRIBE_GROUPS_RESPONSE_MEMBER_V0.
var DescribeGroupsResponseMemberV0 = types.NewSchema(
	types.NewField("member_id", types.STRING),
	types.NewField("client_id", types.STRING),
	types.NewField("client_host", types.STRING),
	types.NewField("member_metadata", types.BYTES),
	types.NewField("member_assignment", types.BYTES),
)

// DescribeGroupsResponseGroupMetadataV0 is Protocol.DESCRIBE_GROUPS_RESPONSE_GROUP_METADATA_V0.
var DescribeGroupsResponseGroupMetadataV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("group_id", types.STRING),
	types.NewField("state", types.STRING),
	types.NewField("protocol_type", types.STRING),
	types.NewField("protocol", types.STRING),
	types.NewField("members", types.NewArrayOf(DescribeGroupsResponseMemberV0)),
)

// DescribeGroupsResponseV0 is Protocol.DESCRIBE_GROUPS_RESPONSE_V0.
var DescribeGroupsResponseV0 = types.NewSchema(
	types.NewField("groups", types.NewArrayOf(DescribeGroupsResponseGroupMetadataV0)),
)

// DescribeGroupsRequest is Protocol.DESCRIBE_GROUPS_REQUEST.
var DescribeGroupsRequest = []*types.Schema{DescribeGroupsRequestV0}

// DescribeGroupsResponse is Protocol.DESCRIBE_GROUPS_RESPONSE.
var DescribeGroupsResponse = []*types.Schema{DescribeGroupsResponseV0}

// GroupCoordinatorRequestV0 is Protocol.GROUP_COORDINATOR_REQUEST_V0.
var GroupCoordinatorRequestV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
)

// GroupCoordinatorBrokerV0 is Protocol.GROUP_COORDINATOR_BROKER_V0.
var GroupCoordinatorBrokerV0 = types.NewSchema(
	types.NewField("node_id", types.INT32),
	types.NewField("host", types.STRING),
	types.NewField("port", types.INT32),
)

// GroupCoordinatorResponseV0 is Protocol.GROUP_COORDINATOR_RESPONSE_V0.
var GroupCoordinatorResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("coordinator", GroupCoordinatorBrokerV0),
)

// GroupCoordinatorRequest is Protocol.GROUP_COORDINATOR_REQUEST.
var GroupCoordinatorRequest = []*types.Schema{GroupCoordinatorRequestV0}

// GroupCoordinatorResponse is Protocol.GROUP_COORDINATOR_RESPONSE.
var GroupCoordinatorResponse = []*types.Schema{GroupCoordinatorResponseV0}

// ControlledShutdownRequestV1 is Protocol.CONTROLLED_SHUTDOWN_REQUEST_V1.
var ControlledShutdownRequestV1 = types.NewSchema(
	types.NewField("broker_id", types.INT32),
)

// ControlledShutdownPartitionV1 is Protocol.CONTROLLED_SHUTDOWN_PARTITION_V1.
var ControlledShutdownPartitionV1 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition", types.INT32),
)

// ControlledShutdownResponseV1 is Protocol.CONTROLLED_SHUTDOWN_RESPONSE_V1.
var ControlledShutdownResponseV1 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("partitions_remaining", types.NewArrayOf(ControlledShutdownPartitionV1)),
)

// ControlledShutdownRequest is Protocol.CONTROLLED_SHUTDOWN_REQUEST.
var ControlledShutdownRequest = []*types.Schema{nil, ControlledShutdownRequestV1}

// ControlledShutdownResponse is Protocol.CONTROLLED_SHUTDOWN_RESPONSE.
var ControlledShutdownResponse = []*types.Schema{nil, ControlledShutdownResponseV1}

// JoinGroupRequestProtocolV0 is Protocol.JOIN_GROUP_REQUEST_PROTOCOL_V0.
var JoinGroupRequestProtocolV0 = types.NewSchema(
	types.NewField("protocol_name", types.STRING),
	types.NewField("protocol_metadata", types.BYTES),
)

// JoinGroupRequestV0 is Protocol.JOIN_GROUP_REQUEST_V0.
var JoinGroupRequestV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("session_timeout", types.INT32),
	types.NewField("member_id", types.STRING),
	types.NewField("protocol_type", types.STRING),
	types.NewField("group_protocols", types.NewArrayOf(JoinGroupRequestProtocolV0)),
)

// JoinGroupRequestV1 is Protocol.JOIN_GROUP_REQUEST_V1.
var JoinGroupRequestV1 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("session_timeout", types.INT32),
	types.NewField("rebalance_timeout", types.INT32),
	types.NewField("member_id", types.STRING),
	types.NewField("protocol_type", types.STRING),
	types.NewField("group_protocols", types.NewArrayOf(JoinGroupRequestProtocolV0)),
)

// JoinGroupResponseMemberV0 is Protocol.JOIN_GROUP_RESPONSE_MEMBER_V0.
var JoinGroupResponseMemberV0 = types.NewSchema(
	types.NewField("member_id", types.STRING),
	types.NewField("member_metadata", types.BYTES),
)

// JoinGroupResponseV0 is Protocol.JOIN_GROUP_RESPONSE_V0.
var JoinGroupResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("generation_id", types.INT32),
	types.NewField("group_protocol", types.STRING),
	types.NewField("leader_id", types.STRING),
	types.NewField("member_id", types.STRING),
	types.NewField("members", types.NewArrayOf(JoinGroupResponseMemberV0)),
)

// JoinGroupResponseV1 is Protocol.JOIN_GROUP_RESPONSE_V1.
var JoinGroupResponseV1 = JoinGroupResponseV0

// JoinGroupRequest is Protocol.JOIN_GROUP_REQUEST.
var JoinGroupRequest = []*types.Schema{JoinGroupRequestV0, JoinGroupRequestV1}

// JoinGroupResponse is Protocol.JOIN_GROUP_RESPONSE.
var JoinGroupResponse = []*types.Schema{JoinGroupResponseV0, JoinGroupResponseV1}

// SyncGroupRequestMemberV0 is Protocol.SYNC_GROUP_REQUEST_MEMBER_V0.
var SyncGroupRequestMemberV0 = types.NewSchema(
	types.NewField("member_id", types.STRING),
	types.NewField("member_assignment", types.BYTES),
)

// SyncGroupRequestV0 is Protocol.SYNC_GROUP_REQUEST_V0.
var SyncGroupRequestV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("generation_id", types.INT32),
	types.NewField("member_id", types.STRING),
	types.NewField("group_assignment", types.NewArrayOf(SyncGroupRequestMemberV0)),
)

// SyncGroupResponseV0 is Protocol.SYNC_GROUP_RESPONSE_V0.
var SyncGroupResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("member_assignment", types.BYTES),
)

// SyncGroupRequest is Protocol.SYNC_GROUP_REQUEST.
var SyncGroupRequest = []*types.Schema{SyncGroupRequestV0}

// SyncGroupResponse is Protocol.SYNC_GROUP_RESPONSE.
var SyncGroupResponse = []*types.Schema{SyncGroupResponseV0}

// HeartbeatRequestV0 is Protocol.HEARTBEAT_REQUEST_V0.
var HeartbeatRequestV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("group_generation_id", types.INT32),
	types.NewField("member_id", types.STRING),
)

// HeartbeatResponseV0 is Protocol.HEARTBEAT_RESPONSE_V0.
var HeartbeatResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
)

// HeartbeatRequest is Protocol.HEARTBEAT_REQUEST.
var HeartbeatRequest = []*types.Schema{HeartbeatRequestV0}

// HeartbeatResponse is Protocol.HEARTBEAT_RESPONSE.
var HeartbeatResponse = []*types.Schema{HeartbeatResponseV0}

// LeaveGroupRequestV0 is Protocol.LEAVE_GROUP_REQUEST_V0.
var LeaveGroupRequestV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("member_id", types.STRING),
)

// LeaveGroupResponseV0 is Protocol.LEAVE_GROUP_RESPONSE_V0.
var LeaveGroupResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
)

// LeaveGroupRequest is Protocol.LEAVE_GROUP_REQUEST.
var LeaveGroupRequest = []*types.Schema{LeaveGroupRequestV0}

// LeaveGroupResponse is Protocol.LEAVE_GROUP_RESPONSE.
var LeaveGroupResponse = []*types.Schema{LeaveGroupResponseV0}

// LeaderAndIsrRequestPartitionStateV0 is Protocol.LEADER_AND_ISR_REQUEST_PARTITION_STATE_V0.
var LeaderAndIsrRequestPartitionStateV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition", types.INT32),
	types.NewField("controller_epoch", types.INT32),
	types.NewField("leader", types.INT32),
	types.NewField("leader_epoch", types.INT32),
	types.NewField("isr", types.NewArrayOf(types.INT32)),
	types.NewField("zk_version", types.INT32),
	types.NewField("replicas", types.NewArrayOf(types.INT32)),
)

// LeaderAndIsrRequestLiveLeaderV0 is Protocol.LEADER_AND_ISR_REQUEST_LIVE_LEADER_V0.
var LeaderAndIsrRequestLiveLeaderV0 = types.NewSchema(
	types.NewField("id", types.INT32),
	types.NewField("host", types.STRING),
	types.NewField("port", types.INT32),
)

// LeaderAndIsrRequestV0 is Protocol.LEADER_AND_ISR_REQUEST_V0.
var LeaderAndIsrRequestV0 = types.NewSchema(
	types.NewField("controller_id", types.INT32),
	types.NewField("controller_epoch", types.INT32),
	types.NewField("partition_states", types.NewArrayOf(LeaderAndIsrRequestPartitionStateV0)),
	types.NewField("live_leaders", types.NewArrayOf(LeaderAndIsrRequestLiveLeaderV0)),
)

// LeaderAndIsrResponsePartitionV0 is Protocol.LEADER_AND_ISR_RESPONSE_PARTITION_V0.
var LeaderAndIsrResponsePartitionV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition", types.INT32),
	types.NewField("error_code", types.INT16),
)

// LeaderAndIsrResponseV0 is Protocol.LEADER_AND_ISR_RESPONSE_V0.
var LeaderAndIsrResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("partitions", types.NewArrayOf(LeaderAndIsrResponsePartitionV0)),
)

// LeaderAndIsrRequest is Protocol.LEADER_AND_ISR_REQUEST.
var LeaderAndIsrRequest = []*types.Schema{LeaderAndIsrRequestV0}

// LeaderAndIsrResponse is Protocol.LEADER_AND_ISR_RESPONSE.
var LeaderAndIsrResponse = []*types.Schema{LeaderAndIsrResponseV0}

// StopReplicaRequestPartitionV0 is Protocol.STOP_REPLICA_REQUEST_PARTITION_V0.
var StopReplicaRequestPartitionV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition", types.INT32),
)

// StopReplicaRequestV0 is Protocol.STOP_REPLICA_REQUEST_V0.
var StopReplicaRequestV0 = types.NewSchema(
	types.NewField("controller_id", types.INT32),
	types.NewField("controller_epoch", types.INT32),
	types.NewField("delete_partitions", types.BOOLEAN),
	types.NewField("partitions", types.NewArrayOf(StopReplicaRequestPartitionV0)),
)

// StopReplicaResponsePartitionV0 is Protocol.STOP_REPLICA_RESPONSE_PARTITION_V0.
var StopReplicaResponsePartitionV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition", types.INT32),
	types.NewField("error_code", types.INT16),
)

// StopReplicaResponseV0 is Protocol.STOP_REPLICA_RESPONSE_V0.
var StopReplicaResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("partitions", types.NewArrayOf(StopReplicaResponsePartitionV0)),
)

// StopReplicaRequest is Protocol.STOP_REPLICA_REQUEST.
var StopReplicaRequest = []*types.Schema{StopReplicaRequestV0}

// StopReplicaResponse is Protocol.STOP_REPLICA_RESPONSE.
var StopReplicaResponse = []*types.Schema{StopReplicaResponseV0}

// UpdateMetadataRequestPartitionStateV0 is Protocol.UPDATE_METADATA_REQUEST_PARTITION_STATE_V0.
var UpdateMetadataRequestPartitionStateV0 = LeaderAndIsrRequestPartitionStateV0

// UpdateMetadataRequestBrokerV0 is Protocol.UPDATE_METADATA_REQUEST_BROKER_V0.
var UpdateMetadataRequestBrokerV0 = types.NewSchema(
	types.NewField("id", types.INT32),
	types.NewField("host", types.STRING),
	types.NewField("port", types.INT32),
)

// UpdateMetadataRequestV0 is Protocol.UPDATE_METADATA_REQUEST_V0.
var UpdateMetadataRequestV0 = types.NewSchema(
	types.NewField("controller_id", types.INT32),
	types.NewField("controller_epoch", types.INT32),
	types.NewField("partition_states", types.NewArrayOf(UpdateMetadataRequestPartitionStateV0)),
	types.NewField("live_brokers", types.NewArrayOf(UpdateMetadataRequestBrokerV0)),
)

// UpdateMetadataResponseV0 is Protocol.UPDATE_METADATA_RESPONSE_V0.
var UpdateMetadataResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
)

// UpdateMetadataRequestPartitionStateV1 is Protocol.UPDATE_METADATA_REQUEST_PARTITION_STATE_V1.
var UpdateMetadataRequestPartitionStateV1 = UpdateMetadataRequestPartitionStateV0

// UpdateMetadataRequestEndPointV1 is Protocol.UPDATE_METADATA_REQUEST_END_POINT_V1.
var UpdateMetadataRequestEndPointV1 = types.NewSchema(
	types.NewField("port", types.INT32),
	types.NewField("host", types.STRING),
	types.NewField("security_protocol_type", types.INT16),
)

// UpdateMetadataRequestBrokerV1 is Protocol.UPDATE_METADATA_REQUEST_BROKER_V1.
var UpdateMetadataRequestBrokerV1 = types.NewSchema(
	types.NewField("id", types.INT32),
	types.NewField("end_points", types.NewArrayOf(UpdateMetadataRequestEndPointV1)),
)

// UpdateMetadataRequestV1 is Protocol.UPDATE_METADATA_REQUEST_V1.
var UpdateMetadataRequestV1 = types.NewSchema(
	types.NewField("controller_id", types.INT32),
	types.NewField("controller_epoch", types.INT32),
	types.NewField("partition_states", types.NewArrayOf(UpdateMetadataRequestPartitionStateV1)),
	types.NewField("live_brokers", types.NewArrayOf(UpdateMetadataRequestBrokerV1)),
)

// UpdateMetadataResponseV1 is Protocol.UPDATE_METADATA_RESPONSE_V1.
var UpdateMetadataResponseV1 = UpdateMetadataResponseV0

// UpdateMetadataRequestPartitionStateV2 is Protocol.UPDATE_METADATA_REQUEST_PARTITION_STATE_V2.
var UpdateMetadataRequestPartitionStateV2 = UpdateMetadataRequestPartitionStateV1

// UpdateMetadataRequestEndPointV2 is Protocol.UPDATE_METADATA_REQUEST_END_POINT_V2.
var UpdateMetadataRequestEndPointV2 = UpdateMetadataRequestEndPointV1

// UpdateMetadataRequestBrokerV2 is Protocol.UPDATE_METADATA_REQUEST_BROKER_V2.
var UpdateMetadataRequestBrokerV2 = types.NewSchema(
	types.NewField("id", types.INT32),
	types.NewField("end_points", types.NewArrayOf(UpdateMetadataRequestEndPointV2)),
	types.NewField("rack", types.NULLABLE_STRING),
)

// UpdateMetadataRequestV2 is Protocol.UPDATE_METADATA_REQUEST_V2.
var UpdateMetadataRequestV2 = types.NewSchema(
	types.NewField("controller_id", types.INT32),
	types.NewField("controller_epoch", types.INT32),
	types.NewField("partition_states", types.NewArrayOf(UpdateMetadataRequestPartitionStateV2)),
	types.NewField("live_brokers", types.NewArrayOf(UpdateMetadataRequestBrokerV2)),
)

// UpdateMetadataResponseV2 is Protocol.UPDATE_METADATA_RESPONSE_V2.
var UpdateMetadataResponseV2 = UpdateMetadataResponseV1

// UpdateMetadataRequestPartitionStateV3 is Protocol.UPDATE_METADATA_REQUEST_PARTITION_STATE_V3.
var UpdateMetadataRequestPartitionStateV3 = UpdateMetadataRequestPartitionStateV2

// UpdateMetadataRequestEndPointV3 is Protocol.UPDATE_METADATA_REQUEST_END_POINT_V3.
var UpdateMetadataRequestEndPointV3 = types.NewSchema(
	types.NewField("port", types.INT32),
	types.NewField("host", types.STRING),
	types.NewField("listener_name", types.STRING),
	types.NewField("security_protocol_type", types.INT16),
)

// UpdateMetadataRequestBrokerV3 is Protocol.UPDATE_METADATA_REQUEST_BROKER_V3.
var UpdateMetadataRequestBrokerV3 = types.NewSchema(
	types.NewField("id", types.INT32),
	types.NewField("end_points", types.NewArrayOf(UpdateMetadataRequestEndPointV3)),
	types.NewField("rack", types.NULLABLE_STRING),
)

// UpdateMetadataRequestV3 is Protocol.UPDATE_METADATA_REQUEST_V3.
var UpdateMetadataRequestV3 = types.NewSchema(
	types.NewField("controller_id", types.INT32),
	types.NewField("controller_epoch", types.INT32),
	types.NewField("partition_states", types.NewArrayOf(UpdateMetadataRequestPartitionStateV3)),
	types.NewField("live_brokers", types.NewArrayOf(UpdateMetadataRequestBrokerV3)),
)

// UpdateMetadataResponseV3 is Protocol.UPDATE_METADATA_RESPONSE_V3.
var UpdateMetadataResponseV3 = UpdateMetadataResponseV2

// UpdateMetadataRequest is Protocol.UPDATE_METADATA_REQUEST.
var UpdateMetadataRequest = []*types.Schema{UpdateMetadataRequestV0, UpdateMetadataRequestV1, UpdateMetadataRequestV2, UpdateMetadataRequestV3}

// UpdateMetadataResponse is Protocol.UPDATE_METADATA_RESPONSE.
var UpdateMetadataResponse = []*types.Schema{UpdateMetadataResponseV0, UpdateMetadataResponseV1, UpdateMetadataResponseV2, UpdateMetadataResponseV3}

// SaslHandshakeRequestV0 is Protocol.SASL_HANDSHAKE_REQUEST_V0.
var SaslHandshakeRequestV0 = types.NewSchema(
	types.NewField("mechanism", types.STRING),
)

// SaslHandshakeResponseV0 is Protocol.SASL_HANDSHAKE_RESPONSE_V0.
var SaslHandshakeResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("enabled_mechanisms", types.NewArrayOf(types.STRING)),
)

// SaslHandshakeRequest is Protocol.SASL_HANDSHAKE_REQUEST.
var SaslHandshakeRequest = []*types.Schema{SaslHandshakeRequestV0}

// SaslHandshakeResponse is Protocol.SASL_HANDSHAKE_RESPONSE.
var SaslHandshakeResponse = []*types.Schema{SaslHandshakeResponseV0}

// ApiVersionsRequestV0 is Protocol.API_VERSIONS_REQUEST_V0.
var ApiVersionsRequestV0 = types.NewSchema()

// ApiVersionsV0 is Protocol.API_VERSIONS_V0.
var ApiVersionsV0 = types.NewSchema(
	types.NewField("api_key", types.INT16),
	types.NewField("min_version", types.INT16),
	types.NewField("max_version", types.INT16),
)

// ApiVersionsResponseV0 is Protocol.API_VERSIONS_RESPONSE_V0.
var ApiVersionsResponseV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("api_versions", types.NewArrayOf(ApiVersionsV0)),
)

// ApiVersionsRequest is Protocol.API_VERSIONS_REQUEST.
var ApiVersionsRequest = []*types.Schema{ApiVersionsRequestV0}

// ApiVersionsResponse is Protocol.API_VERSIONS_RESPONSE.
var ApiVersionsResponse = []*types.Schema{ApiVersionsResponseV0}

// ConfigEntry is Protocol.CONFIG_ENTRY.
var ConfigEntry = types.NewSchema(
	types.NewField("config_key", types.STRING),
	types.NewField("config_value", types.STRING),
)

// PartitionReplicaAssignmentEntry is Protocol.PARTITION_REPLICA_ASSIGNMENT_ENTRY.
var PartitionReplicaAssignmentEntry = types.NewSchema(
	types.NewField("partition_id", types.INT32),
	types.NewField("replicas", types.NewArrayOf(types.INT32)),
)

// TopicErrorCode is Protocol.TOPIC_ERROR_CODE.
var TopicErrorCode = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("error_code", types.INT16),
)

// TopicError is Protocol.TOPIC_ERROR.
var TopicError = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("error_code", types.INT16),
	types.NewField("error_message", types.NULLABLE_STRING),
)

// SingleCreateTopicRequestV0 is Protocol.SINGLE_CREATE_TOPIC_REQUEST_V0.
var SingleCreateTopicRequestV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("num_partitions", types.INT32),
	types.NewField("replication_factor", types.INT16),
	types.NewField("replica_assignment", types.NewArrayOf(PartitionReplicaAssignmentEntry)),
	types.NewField("configs", types.NewArrayOf(ConfigEntry)),
)

// CreateTopicsRequestV0 is Protocol.CREATE_TOPICS_REQUEST_V0.
var CreateTopicsRequestV0 = types.NewSchema(
	types.NewField("create_topic_requests", types.NewArrayOf(SingleCreateTopicRequestV0)),
	types.NewField("timeout", types.INT32),
)

// CreateTopicsResponseV0 is Protocol.CREATE_TOPICS_RESPONSE_V0.
var CreateTopicsResponseV0 = types.NewSchema(
	types.NewField("topic_errors", types.NewArrayOf(TopicErrorCode)),
)

// SingleCreateTopicRequestV1 is Protocol.SINGLE_CREATE_TOPIC_REQUEST_V1.
var SingleCreateTopicRequestV1 = SingleCreateTopicRequestV0

// CreateTopicsRequestV1 is Protocol.CREATE_TOPICS_REQUEST_V1.
var CreateTopicsRequestV1 = types.NewSchema(
	types.NewField("create_topic_requests", types.NewArrayOf(SingleCreateTopicRequestV1)),
	types.NewField("timeout", types.INT32),
	types.NewField("validate_only", types.BOOLEAN),
)

// CreateTopicsResponseV1 is Protocol.CREATE_TOPICS_RESPONSE_V1.
var CreateTopicsResponseV1 = types.NewSchema(
	types.NewField("topic_errors", types.NewArrayOf(TopicError)),
)

// CreateTopicsRequest is Protocol.CREATE_TOPICS_REQUEST.
var CreateTopicsRequest = []*types.Schema{CreateTopicsRequestV0, CreateTopicsRequestV1}

// CreateTopicsResponse is Protocol.CREATE_TOPICS_RESPONSE.
var CreateTopicsResponse = []*types.Schema{CreateTopicsResponseV0, CreateTopicsResponseV1}

// DeleteTopicsRequestV0 is Protocol.DELETE_TOPICS_REQUEST_V0.
var DeleteTopicsRequestV0 = types.NewSchema(
	types.NewField("topics", types.NewArrayOf(types.STRING)),
	types.NewField("timeout", types.INT32),
)

// DeleteTopicsResponseV0 is Protocol.DELETE_TOPICS_RESPONSE_V0.
var DeleteTopicsResponseV0 = types.NewSchema(
	types.NewField("topic_error_codes", types.NewArrayOf(TopicErrorCode)),
)

// DeleteTopicsRequest is Protocol.DELETE_TOPICS_REQUEST.
var DeleteTopicsRequest = []*types.Schema{DeleteTopicsRequestV0}

// DeleteTopicsResponse is Protocol.DELETE_TOPICS_RESPONSE.
var DeleteTopicsResponse = []*types.Schema{DeleteTopicsResponseV0}
