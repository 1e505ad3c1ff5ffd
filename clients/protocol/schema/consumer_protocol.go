package schema

import "github.com/zkafka/zkafka/clients/protocol/types"

// The embedded consumer protocol: the bytes a Java consumer puts in JoinGroup's protocol_metadata
// and SyncGroup's member_assignment for protocol_type "consumer". Each payload is the header
// (a version) followed by the body of that version.

// ConsumerProtocolHeaderSchema is ConsumerProtocol.CONSUMER_PROTOCOL_HEADER_SCHEMA.
var ConsumerProtocolHeaderSchema = types.NewSchema(
	types.NewField("version", types.INT16),
)

// SubscriptionV0 is ConsumerProtocol.SUBSCRIPTION_V0.
var SubscriptionV0 = types.NewSchema(
	types.NewField("topics", types.NewArrayOf(types.STRING)),
	types.NewField("user_data", types.NULLABLE_BYTES),
)

// TopicAssignmentV0 is ConsumerProtocol.TOPIC_ASSIGNMENT_V0.
var TopicAssignmentV0 = types.NewSchema(
	types.NewField("topic", types.STRING),
	types.NewField("partitions", types.NewArrayOf(types.INT32)),
)

// AssignmentV0 is ConsumerProtocol.ASSIGNMENT_V0.
var AssignmentV0 = types.NewSchema(
	types.NewField("topic_partitions", types.NewArrayOf(TopicAssignmentV0)),
	types.NewField("user_data", types.NULLABLE_BYTES),
)
