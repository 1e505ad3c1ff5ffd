package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/server/fetcher"
)

// ReplicaFetcherThread is a follower's fetcher for the partitions it follows on one leader: it
// fetches as replica_id = this broker's id (so the leader reads up to its LEO and records our
// position), appends what arrives without assigning offsets (the leader's offsets are kept),
// and sets the follower's HW to min(its LEO, the leader's HW).
//
// Kafka 0.10.2: kafka.server.ReplicaFetcherThread. It is the FetcherHooks of an
// fetcher.AbstractFetcherThread (Scala's subclassing). The follower replication quota (KIP-73)
// keeps a throttled, out-of-sync partition out of the fetch while the quota is exceeded, and
// counts the bytes fetched for throttled partitions.
type ReplicaFetcherThread struct {
	*fetcher.AbstractFetcherThread
	fetcherID    int
	sourceBroker cluster.BrokerEndPoint
	config       *config.KafkaConfig
	replicaMgr   *ReplicaManager
	exit         func(int)
	logger       *logrus.Entry
	quota        *ReplicationQuotaManager // the follower quota (nil: none)

	fetchRequestVersion int16
	listOffsetsVersion  int16
	replicaID           int32
	maxWait             int32
	minBytes            int32
	maxBytes            int32
	fetchSize           int32
	backoffMs           int64
	send                *replicaFetcherBlockingSend // used only by the thread's goroutine (and AddPartitions' offset lookups, under the map lock)
}

// NewReplicaFetcherThread makes the thread (not started). exit stands for System.exit/halt.
func NewReplicaFetcherThread(name string, fetcherID int, sourceBroker cluster.BrokerEndPoint, cfg *config.KafkaConfig,
	rm *ReplicaManager, clock common.Time, exit func(int), logger *logrus.Entry) *ReplicaFetcherThread {
	if logger == nil {
		logger = discardEntry()
	}
	ibp := cfg.InterBrokerProtocolVersion
	atLeast := func(v string) bool {
		o, err := config.ParseApiVersion(v)
		return err == nil && ibp.AtLeast(o)
	}
	var fetchVersion int16
	switch {
	case atLeast("0.10.1-IV1"):
		fetchVersion = 3
	case atLeast("0.10.0-IV0"):
		fetchVersion = 2
	case atLeast("0.9.0"):
		fetchVersion = 1
	}
	var listVersion int16
	if atLeast("0.10.1-IV2") {
		listVersion = 1
	}
	t := &ReplicaFetcherThread{
		fetcherID: fetcherID, sourceBroker: sourceBroker, config: cfg, replicaMgr: rm, exit: exit, quota: rm.quotaManager,
		logger:              logger.WithField("logger", "kafka.server.ReplicaFetcherThread").WithField("ident", fmt.Sprintf("[%s], ", name)),
		fetchRequestVersion: fetchVersion, listOffsetsVersion: listVersion,
		replicaID: cfg.BrokerID,
		maxWait:   cfg.ReplicaFetchWaitMaxMs,
		minBytes:  cfg.ReplicaFetchMinBytes,
		maxBytes:  cfg.ReplicaFetchResponseMaxBytes,
		fetchSize: cfg.ReplicaFetchMaxBytes,
		backoffMs: int64(cfg.ReplicaFetchBackoffMs),
		send: newReplicaFetcherBlockingSend(sourceBroker, name, msDuration(int64(cfg.ReplicaSocketTimeoutMs)),
			msDuration(int64(cfg.RequestTimeoutMs)), int(cfg.ReplicaSocketReceiveBufferBytes), cfg.ConnectionsMaxIdleMs, rm.interBroker, logger),
	}
	t.AbstractFetcherThread = fetcher.NewAbstractFetcherThread(name, name, sourceBroker, t.backoffMs, t, clock,
		logger.WithField("logger", "kafka.server.ReplicaFetcherThread"))
	if cfg.LeaderEpochTruncationEnable {
		t.IncludeLogTruncation(t) // replica_fetcher_leader_epoch.go
	}
	return t
}

// CloseFetcher implements fetcher.FetcherCloser: the connection to the leader is closed once
// the thread has stopped.
func (t *ReplicaFetcherThread) CloseFetcher() { t.send.close() }

// --- fetcher.FetcherHooks ---

// replicaFetchRequest is a built Fetch request and the offsets it asks for.
type replicaFetchRequest struct {
	underlying *protocol.FetchRequest
	offsets    map[common.TopicPartition]int64
}

func (r *replicaFetchRequest) IsEmpty() bool { return len(r.offsets) == 0 }

func (r *replicaFetchRequest) Offset(tp common.TopicPartition) (int64, bool) {
	o, ok := r.offsets[tp]
	return o, ok
}

func (r *replicaFetchRequest) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "FetchRequest(replicaId=%d, maxWait=%d, minBytes=%d, maxBytes=%d, fetchData={", r.underlying.ReplicaID,
		r.underlying.MaxWaitTime, r.underlying.MinBytes, r.underlying.MaxBytes)
	first := true
	for _, tt := range r.underlying.Topics {
		for _, p := range tt.Partitions {
			if !first {
				b.WriteString(", ")
			}
			first = false
			fmt.Fprintf(&b, "%s-%d=(offset=%d, maxBytes=%d)", tt.Topic, p.Partition, p.FetchOffset, p.MaxBytes)
		}
	}
	b.WriteString("})")
	return b.String()
}

// BuildFetchRequest asks for every active partition, replica.fetch.max.bytes each, waiting up to
// replica.fetch.wait.max.ms for replica.fetch.min.bytes. Consecutive partitions of one topic
// share a topic entry, in fetch order (FetchRequest's batchByTopic).
func (t *ReplicaFetcherThread) BuildFetchRequest(states []fetcher.PartitionStateEntry) fetcher.FetchRequest {
	req := &protocol.FetchRequest{Version: t.fetchRequestVersion, ReplicaID: t.replicaID, MaxWaitTime: t.maxWait,
		MinBytes: t.minBytes, MaxBytes: t.maxBytes}
	offsets := make(map[common.TopicPartition]int64, len(states))
	now := t.Now()
	for _, s := range states {
		tp := s.TopicPartition
		if !s.State.IsReadyForFetch(now) || t.shouldFollowerThrottle(tp) {
			continue
		}
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, protocol.FetchRequestTopic{Topic: tp.Topic})
		}
		last := &req.Topics[len(req.Topics)-1]
		last.Partitions = append(last.Partitions, protocol.FetchRequestTopicPartition{Partition: tp.Partition,
			FetchOffset: s.State.Offset, MaxBytes: t.fetchSize})
		offsets[tp] = s.State.Offset
	}
	return &replicaFetchRequest{underlying: req, offsets: offsets}
}

// replicaPartitionData is one partition of the leader's Fetch response.
type replicaPartitionData struct {
	errorCode     int16
	highWatermark int64
	records       *record.MemoryRecords
}

func (d replicaPartitionData) ErrorCode() int16                 { return d.errorCode }
func (d replicaPartitionData) HighWatermark() int64             { return d.highWatermark }
func (d replicaPartitionData) ToRecords() *record.MemoryRecords { return d.records }

// Fetch sends the request to the leader and flattens the answer.
func (t *ReplicaFetcherThread) Fetch(ctx context.Context, req fetcher.FetchRequest) ([]fetcher.FetchedPartition, error) {
	r := req.(*replicaFetchRequest)
	m, err := t.send.sendRequest(ctx, r.underlying)
	if err != nil {
		return nil, err
	}
	resp, ok := m.(*protocol.FetchResponse)
	if !ok {
		return nil, fmt.Errorf("unexpected response %T to a Fetch request", m)
	}
	var out []fetcher.FetchedPartition
	for _, tt := range resp.Responses {
		for _, p := range tt.PartitionResponses {
			mr, _ := p.RecordSet.(*record.MemoryRecords)
			if mr == nil {
				mr = record.NewMemoryRecords(nil)
			}
			out = append(out, fetcher.FetchedPartition{
				TopicPartition: common.TopicPartition{Topic: tt.Topic, Partition: p.PartitionHeader.Partition},
				Data: replicaPartitionData{errorCode: p.PartitionHeader.ErrorCode, highWatermark: p.PartitionHeader.HighWatermark,
					records: mr}})
		}
	}
	return out, nil
}

// localReplica is this broker's replica of tp (the follower side always has one).
func (t *ReplicaFetcherThread) localReplica(tp common.TopicPartition) (*cluster.Replica, error) {
	p := t.replicaMgr.GetPartition(tp)
	if p == nil {
		return nil, fmt.Errorf("partition %s is not hosted on broker %d", tp, t.replicaID)
	}
	r := p.LocalReplica()
	if r == nil || r.Log == nil {
		return nil, fmt.Errorf("no local replica of partition %s on broker %d", tp, t.replicaID)
	}
	return r, nil
}

// ProcessPartitionData appends the leader's records as they are (offsets included) and moves the
// follower's HW to min(LEO, leader's HW). The follower HW carries only the offset: the segment
// position is resolved if this broker becomes leader.
func (t *ReplicaFetcherThread) ProcessPartitionData(tp common.TopicPartition, fetchOffset int64, data fetcher.PartitionData) error {
	replica, err := t.localReplica(tp)
	if err != nil {
		return err
	}
	records := data.ToRecords()
	t.maybeWarnIfOversizedRecords(records, tp)
	if leo := replica.LogEndOffset().MessageOffset; fetchOffset != leo {
		return fmt.Errorf("Offset mismatch for partition %s: fetched offset = %d, log end offset = %d.", tp, fetchOffset, leo)
	}
	traceOn := t.logger.Logger.IsLevelEnabled(logrus.TraceLevel)
	if traceOn {
		t.logger.Tracef("Follower %d has replica log end offset %d for partition %s. Received %d messages and leader hw %d",
			replica.BrokerID, replica.LogEndOffset().MessageOffset, tp, records.SizeInBytes(), data.HighWatermark())
	}
	if records.SizeInBytes() > 0 {
		ok, err := t.labelFetchedEpoch(tp, replica, fetchOffset)
		if err != nil {
			t.logger.WithError(err).Errorf("Disk error while replicating data for %s", tp)
			t.exit(1)
			return err
		}
		if !ok {
			return fmt.Errorf("partition %s is no longer led by broker %d: %w", tp, t.sourceBroker.ID, fetcher.ErrStalePartitionData)
		}
	}
	if _, err := replica.Log.Append(records, false); err != nil {
		if isStorageError(err) {
			t.logger.WithError(err).Errorf("Disk error while replicating data for %s", tp)
			t.exit(1)
		}
		return err
	}
	leo := replica.LogEndOffset().MessageOffset
	followerHW := min(leo, data.HighWatermark())
	if err := replica.SetHighWatermark(log.NewMessageOffsetOnly(followerHW)); err != nil {
		return err
	}
	if traceOn {
		t.logger.Tracef("Follower %d has replica log end offset %d after appending %d bytes of messages for partition %s",
			replica.BrokerID, leo, records.SizeInBytes(), tp)
		t.logger.Tracef("Follower %d set replica high watermark for partition %s to %d", replica.BrokerID, tp, followerHW)
	}
	if t.quota.IsThrottled(tp) {
		t.quota.Record(int64(records.SizeInBytes()))
	}
	return nil
}

// shouldFollowerThrottle leaves tp out of the next fetch when it is in this broker's follower
// throttled replica list, the follower quota is exceeded, and tp is not in sync (throttling an
// in-sync replica would only shrink the ISR). Runs under partitionMapLock (BuildFetchRequest).
//
// Kafka 0.10.2: ReplicaFetcherThread.shouldFollowerThrottle.
func (t *ReplicaFetcherThread) shouldFollowerThrottle(tp common.TopicPartition) bool {
	return t.quota.IsThrottled(tp) && t.quota.IsQuotaExceeded() && !t.IsReplicaInSync(tp)
}

// isStorageError reports an I/O failure of the log (Kafka's KafkaStorageException), as opposed
// to bad data: the file system or the kernel refused a write.
func isStorageError(err error) bool {
	var pe *fs.PathError
	var errno syscall.Errno
	return errors.Is(err, log.ErrKafkaStorage) || errors.As(err, &pe) || errors.As(err, &errno)
}

// maybeWarnIfOversizedRecords: before fetch v3 (KIP-74) a message larger than
// replica.fetch.max.bytes stops replication of its partition, which is worth an error line.
func (t *ReplicaFetcherThread) maybeWarnIfOversizedRecords(records *record.MemoryRecords, tp common.TopicPartition) {
	if t.fetchRequestVersion <= 2 && records.SizeInBytes() > 0 && records.ValidBytes() <= 0 {
		t.logger.Errorf("Replication is failing due to a message that is greater than replica.fetch.max.bytes for partition %s. "+
			"This generally occurs when the max.message.bytes has been overridden to exceed this value and a suitably large "+
			"message has also been sent. To fix this problem increase replica.fetch.max.bytes in your broker config to be "+
			"equal or larger than your settings for max.message.bytes, both at a broker and topic level.", tp)
	}
}

// HandleOffsetOutOfRange decides where to fetch from when the leader rejected our offset.
//
// If the leader's log ends before ours, the leader was elected without our data (an unclean
// election): we truncate to its end, unless the topic forbids unclean election, in which case
// the broker exits rather than silently losing data. Otherwise our offset is below the leader's
// log start (retention deleted it): we restart at the leader's start offset, emptying our log if
// it lies entirely below that.
func (t *ReplicaFetcherThread) HandleOffsetOutOfRange(tp common.TopicPartition) (int64, error) {
	replica, err := t.localReplica(tp)
	if err != nil {
		return 0, err
	}
	ctx := t.Context()
	leaderEndOffset, err := t.earliestOrLatestOffset(ctx, tp, log.LatestTimestamp)
	if err != nil {
		return 0, err
	}
	leo := replica.LogEndOffset().MessageOffset
	lm := t.replicaMgr.LogManager()
	if leaderEndOffset < leo {
		lc, err := t.replicaMgr.LogConfigFor(tp.Topic)
		if err != nil {
			return 0, err
		}
		if !lc.UncleanLeaderElectionEnable {
			t.logger.Errorf("Exiting because log truncation is not allowed for partition %s, Current leader %d's latest offset %d is less than replica %d's latest offset %d",
				tp, t.sourceBroker.ID, leaderEndOffset, t.replicaID, leo)
			t.exit(1)
			return 0, fmt.Errorf("log truncation is not allowed for partition %s", tp)
		}
		t.logger.Warnf("Replica %d for partition %s reset its fetch offset from %d to current leader %d's latest offset %d",
			t.replicaID, tp, leo, t.sourceBroker.ID, leaderEndOffset)
		if err := lm.TruncateTo(map[common.TopicPartition]int64{tp: leaderEndOffset}); err != nil {
			return 0, err
		}
		return leaderEndOffset, nil
	}
	leaderStartOffset, err := t.earliestOrLatestOffset(ctx, tp, log.EarliestTimestamp)
	if err != nil {
		return 0, err
	}
	t.logger.Warnf("Replica %d for partition %s reset its fetch offset from %d to current leader %d's start offset %d",
		t.replicaID, tp, leo, t.sourceBroker.ID, leaderStartOffset)
	offsetToFetch := max(leaderStartOffset, leo)
	if leaderStartOffset > leo {
		if err := lm.TruncateFullyAndStartAt(tp, leaderStartOffset); err != nil {
			return 0, err
		}
	}
	return offsetToFetch, nil
}

// earliestOrLatestOffset asks the leader (ListOffsets as this replica) for its log start or end.
func (t *ReplicaFetcherThread) earliestOrLatestOffset(ctx context.Context, tp common.TopicPartition, ts int64) (int64, error) {
	req := &protocol.ListOffsetRequest{Version: t.listOffsetsVersion, ReplicaID: t.replicaID,
		Topics: []protocol.ListOffsetRequestTopic{{Topic: tp.Topic, Partitions: []protocol.ListOffsetRequestTopicPartition{
			{Partition: tp.Partition, Timestamp: ts, MaxNumOffsets: 1}}}}}
	m, err := t.send.sendRequest(ctx, req)
	if err != nil {
		return 0, err
	}
	resp, ok := m.(*protocol.ListOffsetResponse)
	if !ok {
		return 0, fmt.Errorf("unexpected response %T to a ListOffsets request", m)
	}
	for _, tt := range resp.Responses {
		if tt.Topic != tp.Topic {
			continue
		}
		for _, p := range tt.PartitionResponses {
			if p.Partition != tp.Partition {
				continue
			}
			if p.ErrorCode != 0 {
				return 0, protocol.ErrorForCode(p.ErrorCode)
			}
			if req.Version >= 1 {
				return p.Offset, nil
			}
			if len(p.Offsets) == 0 {
				return 0, fmt.Errorf("no offset for partition %s in the ListOffsets answer of broker %d", tp, t.sourceBroker.ID)
			}
			return p.Offsets[0], nil
		}
	}
	return 0, fmt.Errorf("partition %s missing from the ListOffsets answer of broker %d", tp, t.sourceBroker.ID)
}

// HandlePartitionsWithErrors backs the partitions off for replica.fetch.backoff.ms (their leader
// may be moving; the controller will tell us).
func (t *ReplicaFetcherThread) HandlePartitionsWithErrors(tps []common.TopicPartition) {
	t.DelayPartitions(tps, t.backoffMs)
}
