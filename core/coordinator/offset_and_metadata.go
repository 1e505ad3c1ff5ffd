package coordinator

import "fmt"

// DefaultTimestamp is OffsetCommitRequest.DEFAULT_TIMESTAMP: "no timestamp given".
const DefaultTimestamp int64 = -1

// InvalidOffset is what OffsetFetch answers for a partition without a committed offset.
const InvalidOffset int64 = -1

// OffsetAndMetadata is a committed offset with its metadata string and the times it was
// committed and expires.
//
// Kafka 0.10.2: kafka.common.OffsetAndMetadata (with OffsetMetadata folded in).
type OffsetAndMetadata struct {
	Offset          int64
	Metadata        string
	CommitTimestamp int64
	ExpireTimestamp int64
}

func (o OffsetAndMetadata) String() string {
	return fmt.Sprintf("[OffsetMetadata[%d,%s],CommitTime %d,ExpirationTime %d]", o.Offset, orNoMetadata(o.Metadata),
		o.CommitTimestamp, o.ExpireTimestamp)
}

func orNoMetadata(s string) string {
	if s == "" {
		return "NO_METADATA"
	}
	return s
}

// OffsetFetchPartitionData is one partition of an OffsetFetch answer.
//
// Kafka 0.10.2: OffsetFetchResponse.PartitionData.
type OffsetFetchPartitionData struct {
	Offset    int64
	Metadata  string
	ErrorCode int16
}
