package protocol

import "fmt"

// OffsetForLeaderEpoch is API key 23, Kafka 0.11's OFFSET_FOR_LEADER_EPOCH (KIP-101): a
// follower asks its leader where the follower's latest leader epoch ends in the leader's log.
//
// It is a zkafka broker-to-broker extension, used only when every broker runs with
// zkafka.leader.epoch.truncation.enable=true. It is deliberately not a 0.10.2 key: IsValid is
// false for it, SupportedVersions (the ApiVersions answer) does not list it, and ParseRequest
// rejects it as 0.10.2 rejects any unknown key. Only ParseInterBrokerRequest decodes it, and
// the broker calls that only for connections it accepts as a replica fetcher.
//
// Kafka 0.11.0: org.apache.kafka.common.protocol.ApiKeys.OFFSET_FOR_LEADER_EPOCH.
const OffsetForLeaderEpoch ApiKeys = 23

// Kafka 0.11's EpochEndOffset constants.
const (
	// UndefinedEpoch is a leader epoch that is not known (an empty epoch cache).
	UndefinedEpoch int32 = -1
	// UndefinedEpochOffset is the end offset answered when the leader cannot tell where the
	// requested epoch ends; the follower then truncates to its high watermark, as 0.10.2 does.
	UndefinedEpochOffset int64 = -1
)

// EpochEndOffset is one partition of an OffsetsForLeaderEpoch answer: an error code and the
// end offset of the requested epoch (UndefinedEpochOffset when unknown).
//
// Kafka 0.11.0: org.apache.kafka.common.requests.EpochEndOffset.
type EpochEndOffset struct {
	ErrorCode int16
	EndOffset int64
}

// HasError reports whether the partition failed (the follower retries later).
func (e EpochEndOffset) HasError() bool { return e.ErrorCode != 0 }

// String formats like EpochEndOffset.toString.
func (e EpochEndOffset) String() string {
	return fmt.Sprintf("EpochEndOffset{error=%s, endOffset=%d}", errorName(e.ErrorCode), e.EndOffset)
}

func errorName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	if e, ok := ErrorForCode(code).(*Error); ok {
		return e.Name
	}
	return fmt.Sprint(code)
}

// interBrokerVersions are the versions of the broker-to-broker extension keys.
var interBrokerVersions = map[ApiKeys][2]int16{OffsetForLeaderEpoch: {0, 0}}

// IsInterBrokerKey reports whether key at version is a zkafka broker-to-broker extension this
// code can decode.
func IsInterBrokerKey(key ApiKeys, version int16) bool {
	r, ok := interBrokerVersions[key]
	return ok && version >= r[0] && version <= r[1]
}

// ParseInterBrokerRequest decodes the body of a zkafka broker-to-broker request (key 23, v0).
// Any other key or version is an error wrapping ErrInvalidRequest. Byte fields alias body.
func ParseInterBrokerRequest(h RequestHeader, body []byte) (Message, error) {
	if !IsInterBrokerKey(h.ApiKey, h.ApiVersion) {
		return nil, fmt.Errorf("%w: %s v%d is not a broker-to-broker extension", ErrInvalidRequest, h.ApiKey, h.ApiVersion)
	}
	m := &OffsetsForLeaderEpochRequest{Version: h.ApiVersion}
	if err := m.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	return m, nil
}
