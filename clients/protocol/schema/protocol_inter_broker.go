// OffsetsForLeaderEpoch (API key 23), a zkafka extension taken from Kafka 0.11.0's table: it is
// spoken only between zkafka brokers running with zkafka.leader.epoch.truncation.enable=true,
// and it is not in Requests/Responses, so 0.10.2's ApiVersions table and request parsing never
// see it.

package schema

import "github.com/zkafka/zkafka/clients/protocol/types"

// OffsetForLeaderEpochRequestPartitionV0 is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_REQUEST_PARTITION_V0.
var OffsetForLeaderEpochRequestPartitionV0 = types.NewSchema(
	types.NewField("partition_id", types.INT32),
	types.NewField("leader_epoch", types.INT32),
)

// OffsetForLeaderEpochRequestTopicV0 is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_REQUEST_TOPIC_V0.
var OffsetForLeaderEpochRequestTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(OffsetForLeaderEpochRequestPartitionV0)),
)

// OffsetForLeaderEpochRequestV0 is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_REQUEST_V0.
var OffsetForLeaderEpochRequestV0 = types.NewSchema(
	types.NewField("topics", types.NewArrayOf(OffsetForLeaderEpochRequestTopicV0)),
)

// OffsetForLeaderEpochResponsePartitionV0 is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_RESPONSE_PARTITION_V0.
var OffsetForLeaderEpochResponsePartitionV0 = types.NewSchema(
	types.NewField("error_code", types.INT16),
	types.NewField("partition_id", types.INT32),
	types.NewField("end_offset", types.INT64),
)

// OffsetForLeaderEpochResponseTopicV0 is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_RESPONSE_TOPIC_V0.
var OffsetForLeaderEpochResponseTopicV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(OffsetForLeaderEpochResponsePartitionV0)),
)

// OffsetForLeaderEpochResponseV0 is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_RESPONSE_V0.
var OffsetForLeaderEpochResponseV0 = types.NewSchema(
	types.NewField("topics", types.NewArrayOf(OffsetForLeaderEpochResponseTopicV0)),
)

// OffsetForLeaderEpochRequest is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_REQUEST.
var OffsetForLeaderEpochRequest = []*types.Schema{OffsetForLeaderEpochRequestV0}

// OffsetForLeaderEpochResponse is Kafka 0.11's Protocol.OFFSET_FOR_LEADER_EPOCH_RESPONSE.
var OffsetForLeaderEpochResponse = []*types.Schema{OffsetForLeaderEpochResponseV0}

// InterBrokerRequests lists, per API key, the request schemas of the zkafka broker-to-broker
// extensions (indexed by version, like Requests). Kafka 0.10.2 has none; zkafka has key 23.
var InterBrokerRequests = map[int][]*types.Schema{
	23: OffsetForLeaderEpochRequest,
}

// InterBrokerResponses is the response counterpart of InterBrokerRequests.
var InterBrokerResponses = map[int][]*types.Schema{
	23: OffsetForLeaderEpochResponse,
}
