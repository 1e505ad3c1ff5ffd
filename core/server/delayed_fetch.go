package server

import (
	"errors"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

// PartitionFetchInfo is one partition of a fetch request: where to read and how much at most.
//
// Kafka 0.10.2: org.apache.kafka.common.requests.FetchRequest.PartitionData.
type PartitionFetchInfo struct {
	TopicPartition common.TopicPartition
	Offset         int64
	MaxBytes       int32
}

// FetchPartitionStatus is a partition of a parked fetch: where the first read started in the
// log, and the request's data for it.
//
// Kafka 0.10.2: kafka.server.FetchPartitionStatus.
type FetchPartitionStatus struct {
	StartOffsetMetadata log.LogOffsetMetadata
	FetchInfo           PartitionFetchInfo
}

// FetchMetadata is what a parked fetch remembers of its request.
//
// Kafka 0.10.2: kafka.server.FetchMetadata.
type FetchMetadata struct {
	FetchMinBytes        int32
	FetchMaxBytes        int32
	HardMaxBytesLimit    bool
	FetchOnlyLeader      bool
	FetchOnlyCommitted   bool
	IsFromFollower       bool
	ReplicaID            int32
	FetchPartitionStatus []FetchPartitionStatus
}

// FetchPartitionData is one partition's answer to a fetch.
//
// Kafka 0.10.2: kafka.server.FetchPartitionData.
type FetchPartitionData struct {
	TopicPartition common.TopicPartition
	Err            error
	HW             int64
	Records        record.Records
}

// DelayedFetch is a fetch waiting for min_bytes to become available (or max_wait_time).
// It completes early when a partition is no longer led here or no longer exists, when the fetch
// offset and the end offset are on different segments (a roll or a truncation), or when the
// bytes available across partitions (each capped at its max_bytes) reach min_bytes. For a
// follower's fetch, the bytes of replication-throttled partitions count only while the leader
// quota is not exceeded, and a throttled partition does not complete the fetch early.
//
// Kafka 0.10.2: kafka.server.DelayedFetch.
type DelayedFetch struct {
	purgatory.DelayedOperation
	fetchMetadata    FetchMetadata
	replicaManager   *ReplicaManager
	quota            ReplicaQuota
	responseCallback func([]FetchPartitionData)
}

// NewDelayedFetch makes the operation; quota is the leader replication quota of a follower's
// fetch (UnboundedQuota otherwise).
func NewDelayedFetch(delayMs int64, md FetchMetadata, rm *ReplicaManager, quota ReplicaQuota, cb func([]FetchPartitionData)) *DelayedFetch {
	if quota == nil {
		quota = UnboundedQuota
	}
	d := &DelayedFetch{fetchMetadata: md, replicaManager: rm, quota: quota, responseCallback: cb}
	d.Init(delayMs, d)
	return d
}

// TryComplete applies the four cases of the fetch purgatory (A: not leader any more, B: partition
// gone, C: segments differ, D: enough bytes).
func (d *DelayedFetch) TryComplete() bool {
	accumulated, accumulatedThrottled := int64(0), int64(0)
	for _, st := range d.fetchMetadata.FetchPartitionStatus {
		fetchOffset := st.StartOffsetMetadata
		if fetchOffset == log.UnknownOffsetMetadata {
			continue
		}
		replica, err := d.replicaManager.getLeaderReplicaIfLocal(st.FetchInfo.TopicPartition)
		if err != nil {
			if errors.Is(err, protocol.ErrUnknownTopicOrPartition) || errors.Is(err, protocol.ErrNotLeaderForPartition) {
				return d.ForceComplete() // cases B and A
			}
			continue
		}
		var end log.LogOffsetMetadata
		if d.fetchMetadata.FetchOnlyCommitted {
			end = replica.HighWatermark()
		} else {
			end = replica.LogEndOffset()
		}
		if end.MessageOffset == fetchOffset.MessageOffset {
			continue
		}
		if endOlder, err := end.OnOlderSegment(fetchOffset); err == nil && endOlder {
			return d.ForceComplete() // case C: the leader was truncated under this fetch
		}
		if fetchOlder, err := fetchOffset.OnOlderSegment(end); err == nil && fetchOlder {
			if !d.replicaManager.shouldLeaderThrottle(d.quota, st.FetchInfo.TopicPartition, d.fetchMetadata.ReplicaID) {
				return d.ForceComplete() // case C: the fetch is behind, or the log rolled
			}
			continue
		}
		if fetchOffset.MessageOffset < end.MessageOffset {
			diff, err := end.PositionDiff(fetchOffset)
			if err != nil {
				continue
			}
			if d.quota.IsThrottled(st.FetchInfo.TopicPartition) {
				accumulatedThrottled += min(int64(diff), int64(st.FetchInfo.MaxBytes))
			} else {
				accumulated += min(int64(diff), int64(st.FetchInfo.MaxBytes))
			}
		}
	}
	minBytes := int64(d.fetchMetadata.FetchMinBytes)
	if accumulated >= minBytes || (accumulated+accumulatedThrottled >= minBytes && !d.quota.IsQuotaExceeded()) {
		return d.ForceComplete() // case D
	}
	return false
}

// OnExpiration counts the expiry on DelayedFetchMetrics' follower or consumer ExpiresPerSec.
func (d *DelayedFetch) OnExpiration() {
	d.replicaManager.recordFetchExpiration(isValidBrokerID(d.fetchMetadata.ReplicaID))
}

// OnComplete reads again and answers.
func (d *DelayedFetch) OnComplete() {
	infos := make([]PartitionFetchInfo, len(d.fetchMetadata.FetchPartitionStatus))
	for i, st := range d.fetchMetadata.FetchPartitionStatus {
		infos[i] = st.FetchInfo
	}
	md := d.fetchMetadata
	results := d.replicaManager.readFromLocalLog(md.ReplicaID, md.FetchOnlyLeader, md.FetchOnlyCommitted, md.FetchMaxBytes,
		md.HardMaxBytesLimit, infos, d.quota)
	d.responseCallback(toFetchPartitionData(results))
}
