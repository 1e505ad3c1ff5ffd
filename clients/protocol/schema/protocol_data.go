// Metadata, Produce, OffsetCommit, OffsetFetch, ListOffset and Fetch, in Protocol.java order.

package schema

import "github.com/zkafka/zkafka/clients/protocol/types"

// MetadataRequestV0 is Protocol.METADATA_REQUEST_V0.
var MetadataRequestV0 = types.NewSchema(
	types.NewField("topics", types.NewArrayOf(types.STRING)),
)

// MetadataRequestV1 is Protocol.METADATA_REQUEST_V1.
var MetadataRequestV1 = types.NewSchema(
	types.NewField("topics", types.NullableArrayOf(types.STRING)),
)

// MetadataRequestV2 is Protocol.METADATA_REQUEST_V2.
var MetadataRequestV2 = MetadataRequestV1

// MetadataBrokerV0 is Protocol.METADATA_BROKER_V0.
var MetadataBrokerV0 = types.NewSchema(
	types.NewField("node_id", types.INT32),
	types.NewField("host", types.STRING),
	types.NewField("port", types.INT32),
)

// PartitionMetadataV0 is Protocol.PARTITION_METADATA_V0.
var PartitionMetadataV0 = types.NewSchema(
	types.NewField("partition_error_code", types.INT16),
	types.NewField("partition_id", types.INT32),
	types.NewField("leader", types.INT32),
	types.NewField("replicas", types.NewArrayOf(types.INT32)),
	types.NewField("isr", types.NewArrayOf(types.INT32)),
)

// TopicMetadataV0 is Protocol.TOPIC_METADATA_V0.
var TopicMetadataV0 = types.NewSchema(
	types.NewField("topic_error_code", types.INT16),
	types.NewField("topic", types.STRING),
	types.NewField("partition_metadata", types.NewArrayOf(PartitionMetadataV0)),
)

// MetadataResponseV0 is Protocol.METADATA_RESPONSE_V0.
var MetadataResponseV0 = types.NewSchema(
	types.NewField("brokers", types.NewArrayOf(MetadataBrokerV0)),
	types.NewField("topic_metadata", types.NewArrayOf(TopicMetadataV0)),
)

// MetadataBrokerV1 is Protocol.METADATA_BROKER_V1.
var MetadataBrokerV1 = types.NewSchema(
	types.NewField("node_id", types.INT32),
	types.NewField("host", types.STRING),
	types.NewField("port", types.INT32),
	types.NewField("rack", types.NULLABLE_STRING),
)

// PartitionMetadataV1 is Protocol.PARTITION_METADATA_V1.
var PartitionMetadataV1 = PartitionMetadataV0

// TopicMetadataV1 is Protocol.TOPIC_METADATA_V1.
var TopicMetadataV1 = types.NewSchema(
	types.NewField("topic_error_code", types.INT16),
	types.NewField("topic", types.STRING),
	types.NewField("is_internal", types.BOOLEAN),
	types.NewField("partition_metadata", types.NewArrayOf(PartitionMetadataV1)),
)

// MetadataResponseV1 is Protocol.METADATA_RESPONSE_V1.
var MetadataResponseV1 = types.NewSchema(
	types.NewField("brokers", types.NewArrayOf(MetadataBrokerV1)),
	types.NewField("controller_id", types.INT32),
	types.NewField("topic_metadata", types.NewArrayOf(TopicMetadataV1)),
)

// MetadataResponseV2 is Protocol.METADATA_RESPONSE_V2.
var MetadataResponseV2 = types.NewSchema(
	types.NewField("brokers", types.NewArrayOf(MetadataBrokerV1)),
	types.NewField("cluster_id", types.NULLABLE_STRING),
	types.NewField("controller_id", types.INT32),
	types.NewField("topic_metadata", types.NewArrayOf(TopicMetadataV1)),
)

// MetadataRequest is Protocol.METADATA_REQUEST.
var MetadataRequest = []*types.Schema{MetadataRequestV0, MetadataRequestV1, MetadataRequestV2}

// MetadataResponse is Protocol.METADATA_RESPONSE.
var MetadataResponse = []*types.Schema{MetadataResponseV0, MetadataResponseV1, MetadataResponseV2}

// TopicProduceDataV0 is Protocol.TOPIC_PRODUCE_DATA_V0.
var TopicProduceDataV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("data", types.NewArrayOf(types.NewSchema(
		types.NewField("partition", types.INT32),
		types.NewField("record_set", types.RECORDS),
	))),
)

// ProduceRequestV0 is Protocol.PRODUCE_REQUEST_V0.
var ProduceRequestV0 = types.NewSchema(
	types.NewField("acks", types.INT16),
	types.NewField("timeout", types.INT32),
	types.NewField("topic_data", types.NewArrayOf(TopicProduceDataV0)),
)

// ProduceResponseV0 is Protocol.PRODUCE_RESPONSE_V0.
var ProduceResponseV0 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(types.NewSchema(
		types.NewField("topic", types.STRING),
		types.NewField("partition_responses", types.NewArrayOf(types.NewSchema(
			types.NewField("partition", types.INT32),
			types.NewField("error_code", types.INT16),
			types.NewField("base_offset", types.INT64),
		))),
	))),
)

// ProduceRequestV1 is Protocol.PRODUCE_REQUEST_V1.
var ProduceRequestV1 = ProduceRequestV0

// ProduceRequestV2 is Protocol.PRODUCE_REQUEST_V2.
var ProduceRequestV2 = ProduceRequestV1

// ProduceResponseV1 is Protocol.PRODUCE_RESPONSE_V1.
var ProduceResponseV1 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(types.NewSchema(
		types.NewField("topic", types.STRING),
		types.NewField("partition_responses", types.NewArrayOf(types.NewSchema(
			types.NewField("partition", types.INT32),
			types.NewField("error_code", types.INT16),
			types.NewField("base_offset", types.INT64),
		))),
	))),
	types.NewField("throttle_time_ms", types.INT32),
)

// ProduceResponseV2 is Protocol.PRODUCE_RESPONSE_V2.
var ProduceResponseV2 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(types.NewSchema(
		types.NewField("topic", types.STRING),
		types.NewField("partition_responses", types.NewArrayOf(types.NewSchema(
			types.NewField("partition", types.INT32),
			types.NewField("error_code", types.INT16),
			types.NewField("base_offset", types.INT64),
			types.NewField("log_append_time", types.INT64),
		))),
	))),
	types.NewField("throttle_time_ms", types.INT32),
)

// ProduceRequest is Protocol.PRODUCE_REQUEST.
var ProduceRequest = []*types.Schema{ProduceRequestV0, ProduceRequestV1, ProduceRequestV2}

// ProduceResponse is Protocol.PRODUCE_RESPONSE.
var ProduceResponse = []*types.Schema{ProduceResponseV0, ProduceResponseV1, ProduceResponseV2}

// OffsetCommitRequestPartitionV0 is Protocol.OFFSET_COMMIT_REQUEST_PARTITION_V0.
var OffsetCommitRequestPartitionV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("offset", types.INT64),
	types.NewField("metadata", types.NULLABLE_STRING),
)

// OffsetCommitRequestPartitionV1 is Protocol.OFFSET_COMMIT_REQUEST_PARTITION_V1.
var OffsetCommitRequestPartitionV1 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("offset", types.INT64),
	types.NewField("timestamp", types.INT64),
	types.NewField("metadata", types.NULLABLE_STRING),
)

// OffsetCommitRequestPartitionV2 is Protocol.OFFSET_COMMIT_REQUEST_PARTITION_V2.
var OffsetCommitRequestPartitionV2 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("offset", types.INT64),
	types.NewField("metadata", types.NULLABLE_STRING),
)

// OffsetCommitRequestTopicV0 is Protocol.OFFSET_COMMIT_REQUEST_TOPIC_V0.
var OffsetCommitRequestTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(OffsetCommitRequestPartitionV0)),
)

// OffsetCommitRequestTopicV1 is Protocol.OFFSET_COMMIT_REQUEST_TOPIC_V1.
var OffsetCommitRequestTopicV1 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(OffsetCommitRequestPartitionV1)),
)

// OffsetCommitRequestTopicV2 is Protocol.OFFSET_COMMIT_REQUEST_TOPIC_V2.
var OffsetCommitRequestTopicV2 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(OffsetCommitRequestPartitionV2)),
)

// OffsetCommitRequestV0 is Protocol.OFFSET_COMMIT_REQUEST_V0.
var OffsetCommitRequestV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("topics", types.NewArrayOf(OffsetCommitRequestTopicV0)),
)

// OffsetCommitRequestV1 is Protocol.OFFSET_COMMIT_REQUEST_V1.
var OffsetCommitRequestV1 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("group_generation_id", types.INT32),
	types.NewField("member_id", types.STRING),
	types.NewField("topics", types.NewArrayOf(OffsetCommitRequestTopicV1)),
)

// OffsetCommitRequestV2 is Protocol.OFFSET_COMMIT_REQUEST_V2.
var OffsetCommitRequestV2 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("group_generation_id", types.INT32),
	types.NewField("member_id", types.STRING),
	types.NewField("retention_time", types.INT64),
	types.NewField("topics", types.NewArrayOf(OffsetCommitRequestTopicV2)),
)

// OffsetCommitResponsePartitionV0 is Protocol.OFFSET_COMMIT_RESPONSE_PARTITION_V0.
var OffsetCommitResponsePartitionV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("error_code", types.INT16),
)

// OffsetCommitResponseTopicV0 is Protocol.OFFSET_COMMIT_RESPONSE_TOPIC_V0.
var OffsetCommitResponseTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition_responses", types.NewArrayOf(OffsetCommitResponsePartitionV0)),
)

// OffsetCommitResponseV0 is Protocol.OFFSET_COMMIT_RESPONSE_V0.
var OffsetCommitResponseV0 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(OffsetCommitResponseTopicV0)),
)

// OffsetCommitRequest is Protocol.OFFSET_COMMIT_REQUEST.
var OffsetCommitRequest = []*types.Schema{OffsetCommitRequestV0, OffsetCommitRequestV1, OffsetCommitRequestV2}

// OffsetCommitResponseV1 is Protocol.OFFSET_COMMIT_RESPONSE_V1.
var OffsetCommitResponseV1 = OffsetCommitResponseV0

// OffsetCommitResponseV2 is Protocol.OFFSET_COMMIT_RESPONSE_V2.
var OffsetCommitResponseV2 = OffsetCommitResponseV0

// OffsetCommitResponse is Protocol.OFFSET_COMMIT_RESPONSE.
var OffsetCommitResponse = []*types.Schema{OffsetCommitResponseV0, OffsetCommitResponseV1, OffsetCommitResponseV2}

// OffsetFetchRequestPartitionV0 is Protocol.OFFSET_FETCH_REQUEST_PARTITION_V0.
var OffsetFetchRequestPartitionV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
)

// OffsetFetchRequestTopicV0 is Protocol.OFFSET_FETCH_REQUEST_TOPIC_V0.
var OffsetFetchRequestTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(OffsetFetchRequestPartitionV0)),
)

// OffsetFetchRequestV0 is Protocol.OFFSET_FETCH_REQUEST_V0.
var OffsetFetchRequestV0 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("topics", types.NewArrayOf(OffsetFetchRequestTopicV0)),
)

// OffsetFetchResponsePartitionV0 is Protocol.OFFSET_FETCH_RESPONSE_PARTITION_V0.
var OffsetFetchResponsePartitionV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("offset", types.INT64),
	types.NewField("metadata", types.NULLABLE_STRING),
	types.NewField("error_code", types.INT16),
)

// OffsetFetchResponseTopicV0 is Protocol.OFFSET_FETCH_RESPONSE_TOPIC_V0.
var OffsetFetchResponseTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition_responses", types.NewArrayOf(OffsetFetchResponsePartitionV0)),
)

// OffsetFetchResponseV0 is Protocol.OFFSET_FETCH_RESPONSE_V0.
var OffsetFetchResponseV0 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(OffsetFetchResponseTopicV0)),
)

// OffsetFetchRequestV1 is Protocol.OFFSET_FETCH_REQUEST_V1.
var OffsetFetchRequestV1 = OffsetFetchRequestV0

// OffsetFetchResponseV1 is Protocol.OFFSET_FETCH_RESPONSE_V1.
var OffsetFetchResponseV1 = OffsetFetchResponseV0

// OffsetFetchRequestV2 is Protocol.OFFSET_FETCH_REQUEST_V2.
var OffsetFetchRequestV2 = types.NewSchema(
	types.NewField("group_id", types.STRING),
	types.NewField("topics", types.NullableArrayOf(OffsetFetchRequestTopicV0)),
)

// OffsetFetchResponseV2 is Protocol.OFFSET_FETCH_RESPONSE_V2.
var OffsetFetchResponseV2 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(OffsetFetchResponseTopicV0)),
	types.NewField("error_code", types.INT16),
)

// OffsetFetchRequest is Protocol.OFFSET_FETCH_REQUEST.
var OffsetFetchRequest = []*types.Schema{OffsetFetchRequestV0, OffsetFetchRequestV1, OffsetFetchRequestV2}

// OffsetFetchResponse is Protocol.OFFSET_FETCH_RESPONSE.
var OffsetFetchResponse = []*types.Schema{OffsetFetchResponseV0, OffsetFetchResponseV1, OffsetFetchResponseV2}

// ListOffsetRequestPartitionV0 is Protocol.LIST_OFFSET_REQUEST_PARTITION_V0.
var ListOffsetRequestPartitionV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("timestamp", types.INT64),
	types.NewField("max_num_offsets", types.INT32),
)

// ListOffsetRequestPartitionV1 is Protocol.LIST_OFFSET_REQUEST_PARTITION_V1.
var ListOffsetRequestPartitionV1 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("timestamp", types.INT64),
)

// ListOffsetRequestTopicV0 is Protocol.LIST_OFFSET_REQUEST_TOPIC_V0.
var ListOffsetRequestTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(ListOffsetRequestPartitionV0)),
)

// ListOffsetRequestTopicV1 is Protocol.LIST_OFFSET_REQUEST_TOPIC_V1.
var ListOffsetRequestTopicV1 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(ListOffsetRequestPartitionV1)),
)

// ListOffsetRequestV0 is Protocol.LIST_OFFSET_REQUEST_V0.
var ListOffsetRequestV0 = types.NewSchema(
	types.NewField("replica_id", types.INT32),
	types.NewField("topics", types.NewArrayOf(ListOffsetRequestTopicV0)),
)

// ListOffsetRequestV1 is Protocol.LIST_OFFSET_REQUEST_V1.
var ListOffsetRequestV1 = types.NewSchema(
	types.NewField("replica_id", types.INT32),
	types.NewField("topics", types.NewArrayOf(ListOffsetRequestTopicV1)),
)

// ListOffsetResponsePartitionV0 is Protocol.LIST_OFFSET_RESPONSE_PARTITION_V0.
var ListOffsetResponsePartitionV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("error_code", types.INT16),
	types.NewField("offsets", types.NewArrayOf(types.INT64)),
)

// ListOffsetResponsePartitionV1 is Protocol.LIST_OFFSET_RESPONSE_PARTITION_V1.
var ListOffsetResponsePartitionV1 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("error_code", types.INT16),
	types.NewField("timestamp", types.INT64),
	types.NewField("offset", types.INT64),
)

// ListOffsetResponseTopicV0 is Protocol.LIST_OFFSET_RESPONSE_TOPIC_V0.
var ListOffsetResponseTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition_responses", types.NewArrayOf(ListOffsetResponsePartitionV0)),
)

// ListOffsetResponseTopicV1 is Protocol.LIST_OFFSET_RESPONSE_TOPIC_V1.
var ListOffsetResponseTopicV1 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition_responses", types.NewArrayOf(ListOffsetResponsePartitionV1)),
)

// ListOffsetResponseV0 is Protocol.LIST_OFFSET_RESPONSE_V0.
var ListOffsetResponseV0 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(ListOffsetResponseTopicV0)),
)

// ListOffsetResponseV1 is Protocol.LIST_OFFSET_RESPONSE_V1.
var ListOffsetResponseV1 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(ListOffsetResponseTopicV1)),
)

// ListOffsetRequest is Protocol.LIST_OFFSET_REQUEST.
var ListOffsetRequest = []*types.Schema{ListOffsetRequestV0, ListOffsetRequestV1}

// ListOffsetResponse is Protocol.LIST_OFFSET_RESPONSE.
var ListOffsetResponse = []*types.Schema{ListOffsetResponseV0, ListOffsetResponseV1}

// FetchRequestPartitionV0 is Protocol.FETCH_REQUEST_PARTITION_V0.
var FetchRequestPartitionV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("fetch_offset", types.INT64),
	types.NewField("max_bytes", types.INT32),
)

// FetchRequestTopicV0 is Protocol.FETCH_REQUEST_TOPIC_V0.
var FetchRequestTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(FetchRequestPartitionV0)),
)

// FetchRequestV0 is Protocol.FETCH_REQUEST_V0.
var FetchRequestV0 = types.NewSchema(
	types.NewField("replica_id", types.INT32),
	types.NewField("max_wait_time", types.INT32),
	types.NewField("min_bytes", types.INT32),
	types.NewField("topics", types.NewArrayOf(FetchRequestTopicV0)),
)

// FetchRequestV1 is Protocol.FETCH_REQUEST_V1.
var FetchRequestV1 = FetchRequestV0

// FetchRequestV2 is Protocol.FETCH_REQUEST_V2.
var FetchRequestV2 = FetchRequestV1

// FetchRequestV3 is Protocol.FETCH_REQUEST_V3.
var FetchRequestV3 = types.NewSchema(
	types.NewField("replica_id", types.INT32),
	types.NewField("max_wait_time", types.INT32),
	types.NewField("min_bytes", types.INT32),
	types.NewField("max_bytes", types.INT32),
	types.NewField("topics", types.NewArrayOf(FetchRequestTopicV0)),
)

// FetchResponsePartitionHeaderV0 is Protocol.FETCH_RESPONSE_PARTITION_HEADER_V0.
var FetchResponsePartitionHeaderV0 = types.NewSchema(
	types.NewField("partition", types.INT32),
	types.NewField("error_code", types.INT16),
	types.NewField("high_watermark", types.INT64),
)

// FetchResponsePartitionV0 is Protocol.FETCH_RESPONSE_PARTITION_V0.
var FetchResponsePartitionV0 = types.NewSchema(
	types.NewField("partition_header", FetchResponsePartitionHeaderV0),
	types.NewField("record_set", types.RECORDS),
)

// FetchResponseTopicV0 is Protocol.FETCH_RESPONSE_TOPIC_V0.
var FetchResponseTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partition_responses", types.NewArrayOf(FetchResponsePartitionV0)),
)

// FetchResponseV0 is Protocol.FETCH_RESPONSE_V0.
var FetchResponseV0 = types.NewSchema(
	types.NewField("responses", types.NewArrayOf(FetchResponseTopicV0)),
)

// FetchResponseV1 is Protocol.FETCH_RESPONSE_V1.
var FetchResponseV1 = types.NewSchema(
	types.NewField("throttle_time_ms", types.INT32),
	types.NewField("responses", types.NewArrayOf(FetchResponseTopicV0)),
)

// FetchResponseV2 is Protocol.FETCH_RESPONSE_V2.
var FetchResponseV2 = FetchResponseV1

// FetchResponseV3 is Protocol.FETCH_RESPONSE_V3.
var FetchResponseV3 = FetchResponseV2

// FetchRequest is Protocol.FETCH_REQUEST.
var FetchRequest = []*types.Schema{FetchRequestV0, FetchRequestV1, FetchRequestV2, FetchRequestV3}

// FetchResponse is Protocol.FETCH_RESPONSE.
var FetchResponse = []*types.Schema{FetchResponseV0, FetchResponseV1, FetchResponseV2, FetchResponseV3}
