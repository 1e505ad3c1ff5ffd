package cluster

import (
	"fmt"
	"sync"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/log"
)

// Replica is one copy of a partition: the local one (it has a Log) or a remote one (the leader
// tracks the position its follower last fetched from).
//
// For the local replica the log end offset is the Log's; its high watermark is kept here. For a
// remote replica the log end offset is the offset of its last fetch, and lastCaughtUpTimeMs is
// the last time it had read everything the leader had when that fetch arrived (the ISR rule of
// KIP-16 measures lag by this time, not by a message count).
//
// Kafka 0.10.2: kafka.cluster.Replica.
type Replica struct {
	BrokerID       int32
	TopicPartition common.TopicPartition
	Log            *log.Log // nil for a remote replica
	time           common.Time

	mu                          sync.Mutex
	highWatermarkMetadata       log.LogOffsetMetadata // local replica only
	logEndOffsetMetadata        log.LogOffsetMetadata // remote replica only
	lastCaughtUpTimeMs          int64
	lastFetchLeaderLogEndOffset int64
	lastFetchTimeMs             int64
}

// NewReplica makes a replica; l is nil for a remote replica, and initialHighWatermark is used
// only for a local one.
func NewReplica(brokerID int32, tp common.TopicPartition, clock common.Time, initialHighWatermark int64, l *log.Log) *Replica {
	r := &Replica{BrokerID: brokerID, TopicPartition: tp, Log: l, time: clock,
		logEndOffsetMetadata: log.UnknownOffsetMetadata}
	if l != nil {
		r.highWatermarkMetadata = log.NewMessageOffsetOnly(initialHighWatermark)
	}
	return r
}

// IsLocal reports whether this replica is hosted by this broker.
func (r *Replica) IsLocal() bool { return r.Log != nil }

// LastCaughtUpTimeMs is when this (remote) replica last had fetched up to the leader's LEO.
func (r *Replica) LastCaughtUpTimeMs() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastCaughtUpTimeMs
}

// UpdateLogReadResult records a follower fetch: the new LEO, and whether the follower was caught
// up (it read up to the leader's LEO of this fetch, or up to the LEO of its previous fetch, in
// which case it was caught up at that earlier time).
func (r *Replica) UpdateLogReadResult(res LogReadResult) error {
	if r.IsLocal() {
		return fmt.Errorf("should not set log end offset on partition %s's local replica %d", r.TopicPartition, r.BrokerID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fetched := res.Info.FetchOffsetMetadata.MessageOffset
	if fetched >= res.LeaderLogEndOffset {
		r.lastCaughtUpTimeMs = max(r.lastCaughtUpTimeMs, res.FetchTimeMs)
	} else if fetched >= r.lastFetchLeaderLogEndOffset {
		r.lastCaughtUpTimeMs = max(r.lastCaughtUpTimeMs, r.lastFetchTimeMs)
	}
	r.logEndOffsetMetadata = res.Info.FetchOffsetMetadata
	r.lastFetchLeaderLogEndOffset = res.LeaderLogEndOffset
	r.lastFetchTimeMs = res.FetchTimeMs
	return nil
}

// LogEndOffset is the LEO: the local Log's, or the remote replica's last fetch position.
func (r *Replica) LogEndOffset() log.LogOffsetMetadata {
	if r.IsLocal() {
		return r.Log.LogEndOffsetMetadata()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logEndOffsetMetadata
}

// HighWatermark is the local replica's HW (its offset, and where it is in the log when known).
func (r *Replica) HighWatermark() log.LogOffsetMetadata {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.highWatermarkMetadata
}

// SetHighWatermark sets the local replica's HW. Setting it on a remote replica is an error.
func (r *Replica) SetHighWatermark(hw log.LogOffsetMetadata) error {
	if !r.IsLocal() {
		return fmt.Errorf("should not set high watermark on partition %s's non-local replica %d", r.TopicPartition, r.BrokerID)
	}
	r.mu.Lock()
	r.highWatermarkMetadata = hw
	r.mu.Unlock()
	return nil
}

// maybeAdvanceHighWatermark sets the local replica's HW to newHW if that moves it forward (a
// larger offset, or the same offset on a newer segment) and reports whether it did. The check
// and the set are one step under the replica's mutex: appends hold the partition's lock only
// shared, so two of them may race here, and the later-computed smaller HW must not win.
func (r *Replica) maybeAdvanceHighWatermark(newHW log.LogOffsetMetadata) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.highWatermarkMetadata
	newerSegment := old.MessageOffset == newHW.MessageOffset && !old.MessageOffsetOnly() && !newHW.MessageOffsetOnly() &&
		old.SegmentBaseOffset < newHW.SegmentBaseOffset
	if old.MessageOffset < newHW.MessageOffset || newerSegment {
		r.highWatermarkMetadata = newHW
		return true
	}
	return false
}

// ConvertHWToLocalOffsetMetadata resolves the HW's position in the log (a follower knows only the
// offset; a new leader needs the segment and position to compare HWs and measure fetchable
// bytes).
func (r *Replica) ConvertHWToLocalOffsetMetadata() error {
	if !r.IsLocal() {
		return fmt.Errorf("should not construct complete high watermark on partition %s's non-local replica %d", r.TopicPartition, r.BrokerID)
	}
	hw := r.HighWatermark()
	md, err := r.Log.ConvertToOffsetMetadata(hw.MessageOffset)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.highWatermarkMetadata = md
	r.mu.Unlock()
	return nil
}

// String formats like Replica.toString.
func (r *Replica) String() string {
	return fmt.Sprintf("ReplicaId: %d, Topic: %s, PartitionId: %d, isLocal: %t", r.BrokerID, r.TopicPartition.Topic,
		r.TopicPartition.Partition, r.IsLocal())
}
