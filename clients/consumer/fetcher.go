package consumer

import (
	"errors"
	"fmt"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

// fetchRequestVersion is the Fetch version of 0.10.2's consumer: v3, with the response limit
// fetch.max.bytes.
const fetchRequestVersion = 3

// listOffsetRequestVersion is ListOffsets v1: one offset per partition, looked up by timestamp.
const listOffsetRequestVersion = 1

// Timestamps ListOffsets understands for the log's ends.
const (
	latestTimestamp   int64 = -1
	earliestTimestamp int64 = -2
)

// Fetcher fetches records from partition leaders for the assigned, fetchable partitions: one
// FetchRequest v3 per leader with no fetch in flight; responses queue as completed fetches, which
// fetchedRecords drains (max.poll.records at most) into deserialized ConsumerRecords. It also
// looks up offsets (ListOffsets v1) for resets and offsetsForTimes, and topic metadata for
// listTopics and partitionsFor.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.Fetcher.
type Fetcher[K, V any] struct {
	client            *ConsumerNetworkClient
	metadata          *clients.Metadata
	subscriptions     *SubscriptionState
	minBytes          int32
	maxBytes          int32
	maxWaitMs         int32
	fetchSize         int32
	retryBackoffMs    int64
	maxPollRecords    int
	checkCrcs         bool
	keyDeserializer   serialization.Deserializer[K]
	valueDeserializer serialization.Deserializer[V]
	time              common.Time
	log               *logrus.Entry
	sensors           *fetchManagerMetrics

	mu           sync.Mutex // guards completedFetches and nodesWithPendingFetches (leaf)
	completed    []*completedFetch
	pendingNodes map[int32]bool
	nextInLine   *partitionRecords
}

// completedFetch is one partition's part of a fetch response, not yet parsed.
type completedFetch struct {
	tp          common.TopicPartition
	fetchOffset int64
	data        *protocol.FetchResponseTopicPartition
}

// partitionRecords are a parsed completed fetch, handed out a few at a time.
type partitionRecords struct {
	tp          common.TopicPartition
	fetchOffset int64
	entries     []record.LogEntry
	pos         int
	nextOffset  int64 // the position the partition must be at for the next entry to be returned
}

// FetcherConfig is the Fetcher's part of ConsumerConfig.
type FetcherConfig struct {
	MinBytes, MaxBytes, MaxWaitMs, FetchSize int32
	MaxPollRecords                           int
	CheckCrcs                                bool
	RetryBackoffMs                           int64
}

// NewFetcher builds a Fetcher.
func NewFetcher[K, V any](client *ConsumerNetworkClient, metadata *clients.Metadata, subscriptions *SubscriptionState, cfg FetcherConfig,
	kd serialization.Deserializer[K], vd serialization.Deserializer[V], m *metrics.Metrics, t common.Time, log *logrus.Entry) *Fetcher[K, V] {
	return &Fetcher[K, V]{client: client, metadata: metadata, subscriptions: subscriptions, minBytes: cfg.MinBytes, maxBytes: cfg.MaxBytes,
		maxWaitMs: cfg.MaxWaitMs, fetchSize: cfg.FetchSize, retryBackoffMs: cfg.RetryBackoffMs, maxPollRecords: cfg.MaxPollRecords,
		checkCrcs: cfg.CheckCrcs, keyDeserializer: kd, valueDeserializer: vd, time: t, pendingNodes: map[int32]bool{},
		log: log.WithField("logger", "org.apache.kafka.clients.consumer.internals.Fetcher"), sensors: newFetchManagerMetrics(m, subscriptions)}
}

// SendFetches sends a FetchRequest to every leader of a fetchable partition with no fetch in
// flight and nothing buffered, and returns how many it sent.
//
// Kafka 0.10.2: Fetcher.sendFetches.
func (f *Fetcher[K, V]) SendFetches() int {
	requests := f.createFetchRequests()
	for id, req := range requests {
		node, _ := f.metadata.Fetch().NodeByID(id)
		f.mu.Lock()
		f.pendingNodes[id] = true
		f.mu.Unlock()
		sent := f.time.Milliseconds()
		fut := f.client.Send(node, req)
		offsets := map[common.TopicPartition]int64{}
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				offsets[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.FetchOffset
			}
		}
		fut.AddListener(func(r *clients.ClientResponse, err error) {
			f.mu.Lock()
			delete(f.pendingNodes, id)
			f.mu.Unlock()
			if err != nil {
				f.log.Debugf("Fetch request to node %d failed: %v", id, err)
				return
			}
			resp, ok := r.ResponseBody.(*protocol.FetchResponse)
			if !ok {
				return
			}
			f.mu.Lock()
			for _, t := range resp.Responses {
				for i := range t.PartitionResponses {
					pd := &t.PartitionResponses[i]
					tp := common.TopicPartition{Topic: t.Topic, Partition: pd.PartitionHeader.Partition}
					f.completed = append(f.completed, &completedFetch{tp: tp, fetchOffset: offsets[tp], data: pd})
				}
			}
			f.mu.Unlock()
			f.sensors.recordFetch(f.time.Milliseconds() - sent)
		})
	}
	return len(requests)
}

// createFetchRequests groups the fetchable partitions by leader.
func (f *Fetcher[K, V]) createFetchRequests() map[int32]*protocol.FetchRequest {
	cluster := f.metadata.Fetch()
	buffered := f.bufferedPartitions()
	out := map[int32]*protocol.FetchRequest{}
	topicIdx := map[int32]map[string]int{}
	for _, tp := range f.subscriptions.FetchablePartitions() {
		if buffered[tp] {
			continue
		}
		leader := cluster.LeaderFor(tp)
		if leader == nil {
			f.metadata.RequestUpdate()
			continue
		}
		f.mu.Lock()
		pending := f.pendingNodes[leader.ID]
		f.mu.Unlock()
		if pending || f.client.PendingRequestCount(*leader) > 0 {
			continue
		}
		pos := f.subscriptions.Position(tp)
		if pos == nil {
			continue
		}
		req := out[leader.ID]
		if req == nil {
			req = &protocol.FetchRequest{Version: fetchRequestVersion, ReplicaID: -1, MaxWaitTime: f.maxWaitMs, MinBytes: f.minBytes, MaxBytes: f.maxBytes}
			out[leader.ID] = req
			topicIdx[leader.ID] = map[string]int{}
		}
		i, ok := topicIdx[leader.ID][tp.Topic]
		if !ok {
			i = len(req.Topics)
			topicIdx[leader.ID][tp.Topic] = i
			req.Topics = append(req.Topics, protocol.FetchRequestTopic{Topic: tp.Topic})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, protocol.FetchRequestTopicPartition{Partition: tp.Partition, FetchOffset: *pos, MaxBytes: f.fetchSize})
		f.log.Tracef("Added fetch request for partition %s at offset %d to node %s", tp, *pos, leader)
	}
	return out
}

func (f *Fetcher[K, V]) bufferedPartitions() map[common.TopicPartition]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[common.TopicPartition]bool{}
	for _, c := range f.completed {
		out[c.tp] = true
	}
	if f.nextInLine != nil && f.nextInLine.pos < len(f.nextInLine.entries) {
		out[f.nextInLine.tp] = true
	}
	return out
}

// HasCompletedFetches reports fetched data waiting to be returned.
func (f *Fetcher[K, V]) HasCompletedFetches() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.completed) > 0
}

// FetchedRecords returns up to max.poll.records records of completed fetches, moving each
// partition's position past what it returns. An error about one partition (offset out of range
// with no reset policy, a record too large, a corrupt or undeserializable record) is returned
// once the records before it have been; the position stays at the bad record.
//
// Kafka 0.10.2: Fetcher.fetchedRecords.
func (f *Fetcher[K, V]) FetchedRecords() (map[common.TopicPartition][]ConsumerRecord[K, V], []common.TopicPartition, error) {
	out := map[common.TopicPartition][]ConsumerRecord[K, V]{}
	var order []common.TopicPartition
	remaining := f.maxPollRecords
	for remaining > 0 {
		f.mu.Lock()
		next := f.nextInLine
		if next == nil || next.pos >= len(next.entries) {
			if len(f.completed) == 0 {
				f.mu.Unlock()
				break
			}
			c := f.completed[0]
			f.completed = f.completed[1:]
			f.nextInLine = nil
			f.mu.Unlock()
			pr, err := f.parseCompletedFetch(c)
			if err != nil {
				if len(out) > 0 {
					f.pushFront(c)
					return out, order, nil
				}
				return nil, nil, err
			}
			f.mu.Lock()
			f.nextInLine = pr
			f.mu.Unlock()
			continue
		}
		f.mu.Unlock()
		recs, err := f.drainPartition(next, remaining)
		if len(recs) > 0 {
			if _, seen := out[next.tp]; !seen {
				order = append(order, next.tp)
			}
			out[next.tp] = append(out[next.tp], recs...)
			remaining -= len(recs)
		}
		if err != nil {
			if len(out) > 0 {
				return out, order, nil
			}
			return nil, nil, err
		}
	}
	return out, order, nil
}

func (f *Fetcher[K, V]) pushFront(c *completedFetch) {
	f.mu.Lock()
	f.completed = append([]*completedFetch{c}, f.completed...)
	f.mu.Unlock()
}

// drainPartition turns up to n entries into records, if the partition is still fetchable at the
// position where the entries start.
func (f *Fetcher[K, V]) drainPartition(pr *partitionRecords, n int) ([]ConsumerRecord[K, V], error) {
	if !f.subscriptions.IsAssigned(pr.tp) || !f.subscriptions.IsFetchable(pr.tp) {
		f.log.Debugf("Not returning fetched records for partition %s since it is no longer fetchable", pr.tp)
		pr.pos = len(pr.entries)
		return nil, nil
	}
	pos := f.subscriptions.Position(pr.tp)
	if pos == nil || pr.pos >= len(pr.entries) || *pos != pr.nextOffset {
		if pos != nil && pr.pos < len(pr.entries) {
			f.log.Debugf("Ignoring fetched records for %s at offset %d since the current position is %d", pr.tp, pr.nextOffset, *pos)
		}
		pr.pos = len(pr.entries)
		return nil, nil
	}
	var out []ConsumerRecord[K, V]
	bytes := 0
	for pr.pos < len(pr.entries) && len(out) < n {
		e := pr.entries[pr.pos]
		rec, err := f.parseRecord(pr.tp, e)
		if err != nil {
			f.sensors.recordConsumed(pr.tp.Topic, len(out), bytes)
			return out, err
		}
		out = append(out, rec)
		bytes += e.Size()
		pr.pos++
		pr.nextOffset = e.Offset + 1
		f.subscriptions.Seek(pr.tp, pr.nextOffset)
	}
	f.sensors.recordConsumed(pr.tp.Topic, len(out), bytes)
	if lag := f.subscriptions.PartitionLag(pr.tp); lag >= 0 {
		f.sensors.recordLag(lag)
	}
	return out, nil
}

// parseRecord checks (check.crcs) and deserializes one record.
//
// Kafka 0.10.2: Fetcher.parseRecord.
func (f *Fetcher[K, V]) parseRecord(tp common.TopicPartition, e record.LogEntry) (ConsumerRecord[K, V], error) {
	r := e.Record
	if f.checkCrcs {
		if err := r.EnsureValid(); err != nil {
			return ConsumerRecord[K, V]{}, fmt.Errorf("Record for partition %s at offset %d is invalid, cause: %w", tp, e.Offset, err)
		}
	}
	keyBytes, valueBytes := r.Key(), r.Value()
	k, err := f.keyDeserializer.Deserialize(tp.Topic, keyBytes)
	if err != nil {
		return ConsumerRecord[K, V]{}, &SerializationException{Partition: tp, Offset: e.Offset, Cause: err}
	}
	v, err := f.valueDeserializer.Deserialize(tp.Topic, valueBytes)
	if err != nil {
		return ConsumerRecord[K, V]{}, &SerializationException{Partition: tp, Offset: e.Offset, Cause: err}
	}
	ks, vs := int32(-1), int32(-1)
	if keyBytes != nil {
		ks = int32(len(keyBytes))
	}
	if valueBytes != nil {
		vs = int32(len(valueBytes))
	}
	ts, tsType := NoTimestamp, record.NoTimestampType
	if r.Magic() > 0 {
		ts, tsType = r.Timestamp(), r.TimestampType()
	}
	return ConsumerRecord[K, V]{Topic: tp.Topic, Partition: tp.Partition, Offset: e.Offset, Timestamp: ts, TimestampType: tsType,
		Checksum: r.Checksum(), SerializedKeySize: ks, SerializedValueSize: vs, Key: k, Value: v}, nil
}

// parseCompletedFetch handles one partition's fetch result: records from the fetch offset on
// (a compressed set may start before it; a message cut at the end of the response is left for
// the next fetch), or the partition's error.
//
// Kafka 0.10.2: Fetcher.parseCompletedFetch.
func (f *Fetcher[K, V]) parseCompletedFetch(c *completedFetch) (*partitionRecords, error) {
	tp := c.tp
	hdr := c.data.PartitionHeader
	if !f.subscriptions.IsFetchable(tp) {
		f.log.Debugf("Ignoring fetched records for partition %s since it is no longer fetchable", tp)
		return nil, nil
	}
	switch err := protocol.ErrorForCode(hdr.ErrorCode); {
	case err == nil:
		pos := f.subscriptions.Position(tp)
		if pos == nil || *pos != c.fetchOffset {
			f.log.Debugf("Discarding stale fetch response for partition %s since its offset %d does not match the expected offset %v", tp, c.fetchOffset, pos)
			return nil, nil
		}
		var entries []record.LogEntry
		var buf []byte
		if c.data.RecordSet != nil {
			if mr, ok := c.data.RecordSet.(*record.MemoryRecords); ok {
				buf = mr.Bytes()
			}
		}
		mr := record.NewMemoryRecords(buf)
		for e, err := range mr.DeepEntries() {
			if err != nil {
				return nil, fmt.Errorf("Record batch for partition %s at offset %d is invalid, cause: %w", tp, c.fetchOffset, err)
			}
			if e.Offset >= c.fetchOffset {
				entries = append(entries, e)
			}
		}
		f.subscriptions.UpdateHighWatermark(tp, hdr.HighWatermark)
		if len(entries) == 0 && len(buf) > 0 && mr.ValidBytes() == 0 {
			return nil, &RecordTooLargeException{Offsets: map[common.TopicPartition]int64{tp: c.fetchOffset}, FetchSize: f.fetchSize}
		}
		return &partitionRecords{tp: tp, fetchOffset: c.fetchOffset, entries: entries, nextOffset: c.fetchOffset}, nil
	case errors.Is(err, protocol.ErrNotLeaderForPartition), errors.Is(err, protocol.ErrUnknownTopicOrPartition):
		f.metadata.RequestUpdate()
	case errors.Is(err, protocol.ErrOffsetOutOfRange):
		pos := f.subscriptions.Position(tp)
		if pos == nil || *pos != c.fetchOffset {
			f.log.Debugf("Discarding stale fetch response for partition %s since the fetched offset %d does not match the current offset %v", tp, c.fetchOffset, pos)
		} else if f.subscriptions.HasDefaultOffsetResetPolicy() {
			f.log.Infof("Fetch offset %d is out of range for partition %s, resetting offset", c.fetchOffset, tp)
			f.subscriptions.NeedOffsetReset(tp, nil)
		} else {
			return nil, &OffsetOutOfRangeException{Offsets: map[common.TopicPartition]int64{tp: c.fetchOffset}}
		}
	case errors.Is(err, protocol.ErrTopicAuthorizationFailed):
		return nil, fmt.Errorf("%w: Not authorized to read from topic %s", err, tp.Topic)
	default:
		f.log.Warnf("Unknown error fetching data for topic-partition %s: %v", tp, err)
	}
	return nil, nil
}

// UpdateFetchPositions sets a position for each of partitions that lacks one: a pending reset,
// else the committed offset, else auto.offset.reset (NoOffsetForPartitionException for none).
//
// Kafka 0.10.2: Fetcher.updateFetchPositions and resetOffsets.
func (f *Fetcher[K, V]) UpdateFetchPositions(partitions []common.TopicPartition) error {
	reset := map[common.TopicPartition]int64{}
	var noOffset []common.TopicPartition
	for _, tp := range partitions {
		if !f.subscriptions.IsAssigned(tp) || f.subscriptions.Position(tp) != nil {
			continue
		}
		if !f.subscriptions.IsOffsetResetNeeded(tp) {
			if c := f.subscriptions.Committed(tp); c != nil {
				f.log.Debugf("Resetting offset for partition %s to the committed offset %d", tp, c.Offset)
				f.subscriptions.Seek(tp, c.Offset)
				continue
			}
			f.subscriptions.NeedOffsetReset(tp, nil)
		}
		switch f.subscriptions.ResetStrategy(tp) {
		case ResetEarliest:
			reset[tp] = earliestTimestamp
		case ResetLatest:
			reset[tp] = latestTimestamp
		default:
			noOffset = append(noOffset, tp)
		}
	}
	if len(noOffset) > 0 {
		return &NoOffsetForPartitionException{Partitions: noOffset}
	}
	if len(reset) == 0 {
		return nil
	}
	offsets, err := f.retrieveOffsetsByTimes(reset, -1, false)
	if err != nil {
		return err
	}
	for tp, o := range offsets {
		if o == nil || !f.subscriptions.IsAssigned(tp) || !f.subscriptions.IsOffsetResetNeeded(tp) {
			continue
		}
		f.log.Debugf("Resetting offset for partition %s to %d.", tp, o.Offset)
		f.subscriptions.Seek(tp, o.Offset)
	}
	return nil
}

// GetOffsetsByTimes is offsetsForTimes: the earliest offset at or after each timestamp (nil
// where there is none), within timeoutMs.
//
// Kafka 0.10.2: Fetcher.getOffsetsByTimes.
func (f *Fetcher[K, V]) GetOffsetsByTimes(timestamps map[common.TopicPartition]int64, timeoutMs int64) (map[common.TopicPartition]*OffsetAndTimestamp, error) {
	return f.retrieveOffsetsByTimes(timestamps, timeoutMs, true)
}

// BeginningOffsets and EndOffsets are the log's first and next offsets.
//
// Kafka 0.10.2: Fetcher.beginningOffsets and endOffsets.
func (f *Fetcher[K, V]) BeginningOffsets(partitions []common.TopicPartition, timeoutMs int64) (map[common.TopicPartition]int64, error) {
	return f.offsetsAt(partitions, earliestTimestamp, timeoutMs)
}

// EndOffsets: see BeginningOffsets.
func (f *Fetcher[K, V]) EndOffsets(partitions []common.TopicPartition, timeoutMs int64) (map[common.TopicPartition]int64, error) {
	return f.offsetsAt(partitions, latestTimestamp, timeoutMs)
}

func (f *Fetcher[K, V]) offsetsAt(partitions []common.TopicPartition, ts, timeoutMs int64) (map[common.TopicPartition]int64, error) {
	m := map[common.TopicPartition]int64{}
	for _, tp := range partitions {
		m[tp] = ts
	}
	res, err := f.retrieveOffsetsByTimes(m, timeoutMs, false)
	if err != nil {
		return nil, err
	}
	out := map[common.TopicPartition]int64{}
	for tp, o := range res {
		if o != nil {
			out[tp] = o.Offset
		}
	}
	return out, nil
}

// retrieveOffsetsByTimes sends ListOffsets v1 to each partition's leader, retrying retriable
// failures after a metadata refresh until timeoutMs passes (negative: no limit).
func (f *Fetcher[K, V]) retrieveOffsetsByTimes(timestamps map[common.TopicPartition]int64, timeoutMs int64, requireTimestamps bool) (map[common.TopicPartition]*OffsetAndTimestamp, error) {
	out := map[common.TopicPartition]*OffsetAndTimestamp{}
	if len(timestamps) == 0 {
		return out, nil
	}
	start := f.time.Milliseconds()
	remaining := func() int64 {
		if timeoutMs < 0 {
			return -1
		}
		return timeoutMs - (f.time.Milliseconds() - start)
	}
	todo := map[common.TopicPartition]int64{}
	for tp, ts := range timestamps {
		todo[tp] = ts
	}
	for {
		retry, err := f.sendListOffsets(todo, out, remaining())
		if err != nil {
			return nil, err
		}
		if len(retry) == 0 {
			return out, nil
		}
		todo = retry
		if r := remaining(); r >= 0 && r <= 0 {
			return nil, fmt.Errorf("%w: Failed to get offsets by times in %d ms", ErrTimeout, timeoutMs)
		}
		if _, err := f.client.AwaitMetadataUpdate(remaining()); err != nil {
			return nil, err
		}
		f.time.Sleep(0)
	}
}

// sendListOffsets sends one round and returns the partitions to retry.
func (f *Fetcher[K, V]) sendListOffsets(todo map[common.TopicPartition]int64, out map[common.TopicPartition]*OffsetAndTimestamp, timeoutMs int64) (map[common.TopicPartition]int64, error) {
	cluster := f.metadata.Fetch()
	retry := map[common.TopicPartition]int64{}
	byNode := map[int32]*protocol.ListOffsetRequest{}
	for tp, ts := range todo {
		if _, ok := cluster.Partition(tp); !ok {
			f.metadata.Add(tp.Topic)
			retry[tp] = ts
			continue
		}
		leader := cluster.LeaderFor(tp)
		if leader == nil {
			retry[tp] = ts
			continue
		}
		req := byNode[leader.ID]
		if req == nil {
			req = &protocol.ListOffsetRequest{Version: listOffsetRequestVersion, ReplicaID: -1}
			byNode[leader.ID] = req
		}
		i := -1
		for j := range req.Topics {
			if req.Topics[j].Topic == tp.Topic {
				i = j
			}
		}
		if i < 0 {
			i = len(req.Topics)
			req.Topics = append(req.Topics, protocol.ListOffsetRequestTopic{Topic: tp.Topic})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, protocol.ListOffsetRequestTopicPartition{Partition: tp.Partition, Timestamp: ts})
	}
	type pending struct {
		node int32
		fut  *RequestFuture[*clients.ClientResponse]
		req  *protocol.ListOffsetRequest
	}
	var ps []pending
	for id, req := range byNode {
		node, _ := cluster.NodeByID(id)
		ps = append(ps, pending{id, f.client.Send(node, req), req})
	}
	for _, p := range ps {
		done, err := PollFuture(f.client, p.fut, timeoutMs)
		if err != nil {
			return nil, err
		}
		if !done || p.fut.Failed() {
			for _, t := range p.req.Topics {
				for _, pp := range t.Partitions {
					retry[common.TopicPartition{Topic: t.Topic, Partition: pp.Partition}] = pp.Timestamp
				}
			}
			continue
		}
		resp, _ := p.fut.Value().ResponseBody.(*protocol.ListOffsetResponse)
		if resp == nil {
			continue
		}
		for _, t := range resp.Responses {
			for _, pr := range t.PartitionResponses {
				tp := common.TopicPartition{Topic: t.Topic, Partition: pr.Partition}
				err := protocol.ErrorForCode(pr.ErrorCode)
				switch {
				case err == nil:
					if pr.Offset < 0 {
						out[tp] = nil
					} else {
						out[tp] = &OffsetAndTimestamp{Offset: pr.Offset, Timestamp: pr.Timestamp}
					}
				case errors.Is(err, protocol.ErrUnsupportedForMessageFormat):
					out[tp] = nil
				case isRetriable(err):
					f.metadata.RequestUpdate()
					retry[tp] = todo[tp]
				default:
					return nil, fmt.Errorf("Attempt to fetch offsets for partition %s failed: %w", tp, err)
				}
			}
		}
	}
	return retry, nil
}

// GetTopicMetadata asks any broker for the metadata of topics (nil: every topic) within
// timeoutMs, retrying through disconnections and leader elections.
//
// Kafka 0.10.2: Fetcher.getTopicMetadata and getAllTopicMetadata.
func (f *Fetcher[K, V]) GetTopicMetadata(topics []string, timeoutMs int64) (map[string][]common.PartitionInfo, error) {
	start := f.time.Milliseconds()
	for {
		remaining := timeoutMs - (f.time.Milliseconds() - start)
		if remaining <= 0 {
			return nil, fmt.Errorf("%w: Timeout expired while fetching topic metadata", ErrTimeout)
		}
		node := f.client.LeastLoadedNode()
		if node == nil {
			if err := f.client.Poll(min(remaining, f.retryBackoffMs)); err != nil {
				return nil, err
			}
			continue
		}
		fut := f.client.Send(*node, &protocol.MetadataRequest{Version: 2, Topics: topics})
		done, err := PollFuture(f.client, fut, remaining)
		if err != nil {
			return nil, err
		}
		if !done || fut.Failed() {
			f.time.Sleep(0)
			if err := f.client.Poll(min(remaining, f.retryBackoffMs)); err != nil {
				return nil, err
			}
			continue
		}
		resp := fut.Value().ResponseBody.(*protocol.MetadataResponse)
		cluster := clients.ClusterFromMetadataResponse(resp)
		out := map[string][]common.PartitionInfo{}
		retry := false
		for _, t := range resp.TopicMetadata {
			err := protocol.ErrorForCode(t.TopicErrorCode)
			switch {
			case err == nil:
				out[t.Topic] = cluster.PartitionsForTopic(t.Topic)
			case errors.Is(err, protocol.ErrUnknownTopicOrPartition) && topics != nil:
			case isRetriable(err):
				retry = true
			default:
				return nil, fmt.Errorf("%w (topic %s)", err, t.Topic)
			}
		}
		if !retry {
			return out, nil
		}
		if err := f.client.Poll(min(remaining, f.retryBackoffMs)); err != nil {
			return nil, err
		}
	}
}

// fetchManagerMetrics are the consumer-fetch-manager-metrics. A nil one records nothing.
//
// Kafka 0.10.2: Fetcher.FetchManagerMetrics (same sensor and metric names).
type fetchManagerMetrics struct {
	bytesFetched, recordsFetched, fetchLatency, recordsLag *metrics.Sensor
}

const fetchGrp = "consumer-fetch-manager-metrics"

func newFetchManagerMetrics(m *metrics.Metrics, _ *SubscriptionState) *fetchManagerMetrics {
	if m == nil {
		return nil
	}
	fm := &fetchManagerMetrics{}
	name := func(n, desc string) metrics.MetricName { return m.MetricName(n, fetchGrp, desc, nil) }
	add := func(s *metrics.Sensor, n metrics.MetricName, st metrics.MeasurableStat) { _ = s.Add(n, st, nil) }
	fm.bytesFetched = m.Sensor("bytes-fetched")
	add(fm.bytesFetched, name("fetch-size-avg", "The average number of bytes fetched per request"), metrics.NewAvg())
	add(fm.bytesFetched, name("fetch-size-max", "The maximum number of bytes fetched per request"), metrics.NewMax())
	add(fm.bytesFetched, name("bytes-consumed-rate", "The average number of bytes consumed per second"), metrics.NewRate())
	fm.recordsFetched = m.Sensor("records-fetched")
	add(fm.recordsFetched, name("records-per-request-avg", "The average number of records in each request"), metrics.NewAvg())
	add(fm.recordsFetched, name("records-consumed-rate", "The average number of records consumed per second"), metrics.NewRate())
	fm.fetchLatency = m.Sensor("fetch-latency")
	add(fm.fetchLatency, name("fetch-latency-avg", "The average time taken for a fetch request."), metrics.NewAvg())
	add(fm.fetchLatency, name("fetch-latency-max", "The max time taken for any fetch request."), metrics.NewMax())
	add(fm.fetchLatency, name("fetch-rate", "The number of fetch requests per second."), metrics.NewRateOf(metrics.NewCount()))
	fm.recordsLag = m.Sensor("records-lag")
	add(fm.recordsLag, name("records-lag-max", "The maximum lag in terms of number of records for any partition in this window"), metrics.NewMax())
	return fm
}

func (fm *fetchManagerMetrics) recordFetch(latencyMs int64) {
	if fm != nil {
		_ = fm.fetchLatency.RecordValue(float64(latencyMs))
	}
}

func (fm *fetchManagerMetrics) recordConsumed(_ string, records, bytes int) {
	if fm != nil && records > 0 {
		_ = fm.bytesFetched.RecordValue(float64(bytes))
		_ = fm.recordsFetched.RecordValue(float64(records))
	}
}

func (fm *fetchManagerMetrics) recordLag(lag int64) {
	if fm != nil {
		_ = fm.recordsLag.RecordValue(float64(lag))
	}
}
