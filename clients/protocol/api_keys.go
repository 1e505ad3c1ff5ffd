package protocol

import "strconv"

// ApiKeys identifies a request type; it is the first INT16 of every request header.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.ApiKeys. The Go constants drop Kafka's "_KEY"
// suffixes (UPDATE_METADATA_KEY, CONTROLLED_SHUTDOWN_KEY); String gives Kafka's name, which is
// also the request label of the broker's request metrics.
type ApiKeys int16

// The 21 API keys of Kafka 0.10.2.
const (
	Produce            ApiKeys = 0
	Fetch              ApiKeys = 1
	ListOffsets        ApiKeys = 2
	Metadata           ApiKeys = 3
	LeaderAndIsr       ApiKeys = 4
	StopReplica        ApiKeys = 5
	UpdateMetadata     ApiKeys = 6
	ControlledShutdown ApiKeys = 7
	OffsetCommit       ApiKeys = 8
	OffsetFetch        ApiKeys = 9
	GroupCoordinator   ApiKeys = 10
	JoinGroup          ApiKeys = 11
	Heartbeat          ApiKeys = 12
	LeaveGroup         ApiKeys = 13
	SyncGroup          ApiKeys = 14
	DescribeGroups     ApiKeys = 15
	ListGroups         ApiKeys = 16
	SaslHandshake      ApiKeys = 17
	ApiVersions        ApiKeys = 18
	CreateTopics       ApiKeys = 19
	DeleteTopics       ApiKeys = 20

	// MaxApiKey is the highest key 0.10.2 knows (Kafka: ApiKeys.MAX_API_KEY).
	MaxApiKey = DeleteTopics
)

// apiKeyNames are Kafka's ApiKeys.name values. Note key 2: Kafka calls it "Offsets".
var apiKeyNames = [...]string{
	"Produce", "Fetch", "Offsets", "Metadata", "LeaderAndIsr", "StopReplica", "UpdateMetadata",
	"ControlledShutdown", "OffsetCommit", "OffsetFetch", "GroupCoordinator", "JoinGroup",
	"Heartbeat", "LeaveGroup", "SyncGroup", "DescribeGroups", "ListGroups", "SaslHandshake",
	"ApiVersions", "CreateTopics", "DeleteTopics",
}

// IsValid tells whether k is one of the 0.10.2 keys.
func (k ApiKeys) IsValid() bool { return k >= 0 && k <= MaxApiKey }

// String returns Kafka's name for k ("Produce", "Offsets", ...), or "ApiKeys(n)" for an unknown key.
func (k ApiKeys) String() string {
	switch {
	case k == OffsetForLeaderEpoch:
		return "OffsetForLeaderEpoch" // a zkafka broker-to-broker extension (inter_broker.go)
	case !k.IsValid():
		return "ApiKeys(" + strconv.Itoa(int(k)) + ")"
	}
	return apiKeyNames[k]
}
