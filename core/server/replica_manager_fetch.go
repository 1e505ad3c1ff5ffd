package server

import (
	"slices"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

type tpReadResult struct {
	tp     common.TopicPartition
	result cluster.LogReadResult
}

func toFetchPartitionData(results []tpReadResult) []FetchPartitionData {
	out := make([]FetchPartitionData, len(results))
	for i, r := range results {
		out[i] = FetchPartitionData{TopicPartition: r.tp, Err: r.result.Err, HW: r.result.HW, Records: r.result.Info.Records}
	}
	return out
}

// FetchMessages reads the partitions in request order and answers through cb, at once when
// timeoutMs <= 0, nothing was asked, min_bytes are readable or a partition failed; otherwise a
// DelayedFetch waits. A follower's fetch (replicaID >= 0) reads up to the LEO and records the
// follower's position (which may advance the HW and release waiting produces); quota is the
// leader replication quota for a follower's fetch (UnboundedQuota otherwise).
func (rm *ReplicaManager) FetchMessages(timeoutMs int64, replicaID, fetchMinBytes, fetchMaxBytes int32, hardMaxBytesLimit bool,
	fetchInfos []PartitionFetchInfo, quota ReplicaQuota, cb func([]FetchPartitionData)) {
	if quota == nil {
		quota = UnboundedQuota
	}
	isFromFollower := replicaID >= 0
	fetchOnlyFromLeader := replicaID != DebuggingReplicaID
	fetchOnlyCommitted := !isValidBrokerID(replicaID)
	results := rm.readFromLocalLog(replicaID, fetchOnlyFromLeader, fetchOnlyCommitted, fetchMaxBytes, hardMaxBytesLimit, fetchInfos, quota)
	if isValidBrokerID(replicaID) {
		rm.updateFollowerLogReadResults(replicaID, results)
	}
	bytesReadable := 0
	errored := false
	for _, r := range results {
		if r.result.Info.Records != nil {
			bytesReadable += r.result.Info.Records.SizeInBytes()
		}
		if r.result.Err != nil {
			errored = true
		}
	}
	if timeoutMs <= 0 || len(fetchInfos) == 0 || bytesReadable >= int(fetchMinBytes) || errored {
		cb(toFetchPartitionData(results))
		return
	}
	status := make([]FetchPartitionStatus, 0, len(fetchInfos))
	keys := make([]purgatory.DelayedOperationKey, 0, len(fetchInfos))
	for i, fi := range fetchInfos {
		status = append(status, FetchPartitionStatus{StartOffsetMetadata: results[i].result.Info.FetchOffsetMetadata, FetchInfo: fi})
		keys = append(keys, purgatory.NewTopicPartitionOperationKey(fi.TopicPartition))
	}
	md := FetchMetadata{FetchMinBytes: fetchMinBytes, FetchMaxBytes: fetchMaxBytes, HardMaxBytesLimit: hardMaxBytesLimit,
		FetchOnlyLeader: fetchOnlyFromLeader, FetchOnlyCommitted: fetchOnlyCommitted, IsFromFollower: isFromFollower,
		ReplicaID: replicaID, FetchPartitionStatus: status}
	rm.delayedFetchPurgatory.TryCompleteElseWatch(NewDelayedFetch(timeoutMs, md, rm, quota, cb), keys)
}

// readFromLocalLog reads each partition in order; fetchMaxBytes is shared by all of them, and
// until one returns data the first message may exceed the limits (minOneMessage), unless the
// request is of a version with a hard per-partition limit (v0-v2). A partition the leader
// should throttle for this follower (shouldLeaderThrottle) reads as empty.
func (rm *ReplicaManager) readFromLocalLog(replicaID int32, fetchOnlyFromLeader, readOnlyCommitted bool, fetchMaxBytes int32,
	hardMaxBytesLimit bool, infos []PartitionFetchInfo, quota ReplicaQuota) []tpReadResult {
	limitBytes := int64(fetchMaxBytes)
	minOneMessage := !hardMaxBytesLimit
	out := make([]tpReadResult, 0, len(infos))
	for _, fi := range infos {
		res := rm.read(fi, replicaID, limitBytes, minOneMessage, fetchOnlyFromLeader, readOnlyCommitted, hardMaxBytesLimit, quota)
		size := 0
		if res.Info.Records != nil {
			size = res.Info.Records.SizeInBytes()
		}
		if size > 0 {
			minOneMessage = false
		}
		limitBytes = max(0, limitBytes-int64(size))
		out = append(out, tpReadResult{tp: fi.TopicPartition, result: res})
	}
	return out
}

func (rm *ReplicaManager) read(fi PartitionFetchInfo, replicaID int32, limitBytes int64, minOneMessage, fetchOnlyFromLeader, readOnlyCommitted,
	hardMaxBytesLimit bool, quota ReplicaQuota) cluster.LogReadResult {
	tp := fi.TopicPartition
	rm.meters(tp.Topic, func(m *metrics.BrokerTopicMetrics) { m.TotalFetchRequestRate.Mark(1) })
	fail := func(err error) cluster.LogReadResult {
		rm.meters(tp.Topic, func(m *metrics.BrokerTopicMetrics) { m.FailedFetchRequestRate.Mark(1) })
		r := cluster.UnknownLogReadResult(int(fi.MaxBytes))
		r.Err = err
		return r
	}
	var replica *cluster.Replica
	var err error
	if fetchOnlyFromLeader {
		replica, err = rm.getLeaderReplicaIfLocal(tp)
	} else {
		replica, err = rm.getReplicaOrException(tp)
	}
	if err != nil {
		return fail(err)
	}
	hw := replica.HighWatermark().MessageOffset
	var maxOffset *int64
	if readOnlyCommitted {
		maxOffset = &hw
	}
	leo := replica.LogEndOffset().MessageOffset
	fetchTimeMs := rm.time.Milliseconds()
	var info log.FetchDataInfo
	if replica.Log == nil {
		info = log.FetchDataInfo{FetchOffsetMetadata: log.UnknownOffsetMetadata, Records: record.NewMemoryRecords(nil)}
	} else {
		adjusted := min(int64(fi.MaxBytes), limitBytes)
		fetch, err := replica.Log.Read(fi.Offset, int(adjusted), maxOffset, minOneMessage)
		if err != nil {
			if protocol.CodeOf(err) == protocol.ErrUnknown.Code {
				rm.logger.WithError(err).Errorf("Error processing fetch operation on partition %s, offset %d", tp, fi.Offset)
			}
			return fail(err)
		}
		info = *fetch
		if rm.shouldLeaderThrottle(quota, tp, replicaID) ||
			(!hardMaxBytesLimit && fetch.FirstEntryIncomplete) {
			info = log.FetchDataInfo{FetchOffsetMetadata: fetch.FetchOffsetMetadata, Records: record.NewMemoryRecords(nil)}
		}
	}
	return cluster.LogReadResult{Info: info, HW: hw, LeaderLogEndOffset: leo, FetchTimeMs: fetchTimeMs, ReadSize: int(fi.MaxBytes)}
}

// shouldLeaderThrottle: the leader leaves a partition's data out of a follower's fetch only if
// the partition is in its throttled replica list, the quota is exceeded, and the follower is not
// in the ISR (throttling an in-sync follower would only shrink the ISR).
//
// Kafka 0.10.2: ReplicaManager.shouldLeaderThrottle.
func (rm *ReplicaManager) shouldLeaderThrottle(quota ReplicaQuota, tp common.TopicPartition, replicaID int32) bool {
	if !quota.IsThrottled(tp) || !quota.IsQuotaExceeded() {
		return false
	}
	p := rm.GetPartition(tp)
	inSync := p != nil && p.GetReplica(replicaID) != nil && slices.Contains(p.InSyncReplicas(), replicaID)
	return !inSync
}

func (rm *ReplicaManager) updateFollowerLogReadResults(replicaID int32, results []tpReadResult) {
	for _, r := range results {
		p := rm.GetPartition(r.tp)
		if p == nil {
			rm.logger.Warnf("While recording the replica LEO, the partition %s hasn't been created.", r.tp)
			continue
		}
		if err := p.UpdateReplicaLogReadResult(replicaID, r.result); err != nil {
			rm.logger.WithError(err).Warn("Error recording follower position")
		}
		rm.TryCompleteDelayedProduce(purgatory.NewTopicPartitionOperationKey(r.tp))
	}
}

// FetchOffsetsBefore answers ListOffsets v0 for a partition (KafkaApis.fetchOffsets): the log's
// segment offsets before timestamp, or [0] for the special timestamps when there is no log.
func (rm *ReplicaManager) fetchOffsetsBefore(tp common.TopicPartition, timestamp int64, maxNumOffsets int) []int64 {
	l := rm.logManager.GetLog(tp)
	if l == nil {
		if timestamp == log.LatestTimestamp || timestamp == log.EarliestTimestamp {
			return []int64{0}
		}
		return nil
	}
	return l.GetOffsetsBefore(timestamp, maxNumOffsets)
}

// FetchOffsetForTimestamp answers ListOffsets v1 for a partition (ok=false: none found).
func (rm *ReplicaManager) FetchOffsetForTimestamp(tp common.TopicPartition, timestamp int64) (log.TimestampOffset, bool, error) {
	l := rm.logManager.GetLog(tp)
	if l == nil {
		return log.TimestampOffset{}, false, protocol.Errorf(protocol.ErrUnknownTopicOrPartition, "Partition %s is not found on broker %d", tp, rm.localBrokerID)
	}
	return l.FetchOffsetsByTimestamp(timestamp)
}
