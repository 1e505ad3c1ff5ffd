package server

import (
	"context"
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/fetcher"
)

// The follower's side of leader-epoch truncation (zkafka.leader.epoch.truncation.enable, Kafka
// 0.11's KIP-101): ReplicaFetcherThread implements fetcher.LogTruncationHooks. A partition added
// to the fetcher (a new leader, or a restart) is first truncated to the end offset the leader
// reports for the follower's latest leader epoch, instead of to the follower's high watermark in
// makeFollowers: a high watermark lags the leader's by up to one fetch round, and truncating to
// it throws away acknowledged messages that the next leader may then not have.

// LeaderEpochTruncationEnableProp is the broker key of the mode (a zkafka extension, off by
// default).
const LeaderEpochTruncationEnableProp = "zkafka.leader.epoch.truncation.enable"

// BuildLeaderEpochRequest asks, for every truncating partition, about the latest epoch of its
// local log (UndefinedEpoch for an empty cache: the leader then answers UndefinedEpochOffset).
//
// Kafka 0.11.0: ReplicaFetcherThread.buildLeaderEpochRequest.
func (t *ReplicaFetcherThread) BuildLeaderEpochRequest(states []fetcher.PartitionStateEntry) map[common.TopicPartition]int32 {
	out := make(map[common.TopicPartition]int32, len(states))
	for _, s := range states {
		epoch := protocol.UndefinedEpoch
		if r, err := t.localReplica(s.TopicPartition); err == nil && r.Log.LeaderEpochCache() != nil {
			epoch = r.Log.LeaderEpochCache().LatestEpoch()
		}
		out[s.TopicPartition] = epoch
	}
	t.logger.Debugf("Build leaderEpoch request %v for broker %d", out, t.sourceBroker.ID)
	return out
}

// FetchEpochsFromLeader sends OffsetsForLeaderEpoch (key 23 v0) to the leader. A failed exchange
// gives every partition its error code, so they are retried after the back-off.
//
// Kafka 0.11.0: ReplicaFetcherThread.fetchEpochsFromLeader.
func (t *ReplicaFetcherThread) FetchEpochsFromLeader(ctx context.Context, epochs map[common.TopicPartition]int32) map[common.TopicPartition]protocol.EpochEndOffset {
	tps := sortedTopicPartitions(epochs)
	req := &protocol.OffsetsForLeaderEpochRequest{Version: 0}
	for _, tp := range tps {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, protocol.OffsetsForLeaderEpochRequestTopic{Topic: tp.Topic})
		}
		last := &req.Topics[len(req.Topics)-1]
		last.Partitions = append(last.Partitions, protocol.OffsetsForLeaderEpochRequestTopicPartition{PartitionID: tp.Partition, LeaderEpoch: epochs[tp]})
	}
	out := make(map[common.TopicPartition]protocol.EpochEndOffset, len(epochs))
	fail := func(code int16) map[common.TopicPartition]protocol.EpochEndOffset {
		for _, tp := range tps {
			out[tp] = protocol.EpochEndOffset{ErrorCode: code, EndOffset: protocol.UndefinedEpochOffset}
		}
		return out
	}
	m, err := t.send.sendRequest(ctx, req)
	resp, ok := m.(*protocol.OffsetsForLeaderEpochResponse)
	if err == nil && !ok {
		err = fmt.Errorf("unexpected response %T to an OffsetsForLeaderEpoch request", m)
	}
	if err != nil {
		if ctx.Err() == nil {
			t.logger.WithError(err).Warnf("Error when sending leader epoch request for %v", epochs)
		}
		code := protocol.CodeOf(err)
		if code == protocol.ErrUnknown.Code { // the exchange failed, not the leader
			code = protocol.ErrNetworkException.Code
		}
		return fail(code)
	}
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			tp := common.TopicPartition{Topic: rt.Topic, Partition: p.PartitionID}
			if _, asked := epochs[tp]; asked {
				out[tp] = protocol.EpochEndOffset{ErrorCode: p.ErrorCode, EndOffset: p.EndOffset}
			}
		}
	}
	for _, tp := range tps {
		if _, ok := out[tp]; !ok {
			out[tp] = protocol.EpochEndOffset{ErrorCode: protocol.ErrUnknown.Code, EndOffset: protocol.UndefinedEpochOffset}
		}
	}
	t.logger.Debugf("Receive leaderEpoch response %v from broker %d", out, t.sourceBroker.ID)
	return out
}

// MaybeTruncate truncates each partition's log to where the leader says the follower's latest
// epoch ends; when the leader cannot tell (UndefinedEpochOffset: an empty cache on either side),
// to the high watermark, as 0.10.2 always does; not at all when the leader's end is at or beyond
// the follower's log end. Partitions the leader answered with an error are retried.
//
// Kafka 0.11.0: ReplicaFetcherThread.maybeTruncate. zkafka also lowers a high watermark that
// the truncation left above the log end (a leader can end the follower's epoch below the
// follower's high watermark when it recorded a later epoch while it was itself catching up).
func (t *ReplicaFetcherThread) MaybeTruncate(fetched map[common.TopicPartition]protocol.EpochEndOffset) (map[common.TopicPartition]int64, []common.TopicPartition, error) {
	points := make(map[common.TopicPartition]int64, len(fetched))
	var retry []common.TopicPartition
	replicas := map[common.TopicPartition]*cluster.Replica{}
	for tp, eo := range fetched {
		replica, err := t.localReplica(tp)
		if err != nil { // the partition is going away: its fetcher entry is about to be removed
			t.logger.WithError(err).Infof("Not truncating partition %s", tp)
			retry = append(retry, tp)
			continue
		}
		replicas[tp] = replica
		leo := replica.LogEndOffset().MessageOffset
		switch {
		case eo.HasError():
			t.logger.Infof("Retrying leaderEpoch request for partition %s as the leader reported an error: %s", tp, protocol.ErrorForCode(eo.ErrorCode))
			retry = append(retry, tp)
			continue
		case eo.EndOffset == protocol.UndefinedEpochOffset:
			hw := replica.HighWatermark().MessageOffset
			t.logger.Warnf("Based on follower's leader epoch, leader replied with an unknown offset in %s. High watermark %d will be used for truncation.", tp, hw)
			points[tp] = hw
		case eo.EndOffset >= leo:
			t.logger.Infof("Based on follower's leader epoch, leader replied with an offset %d >= the follower's log end offset %d in %s. No truncation needed.", eo.EndOffset, leo, tp)
			points[tp] = leo
		default:
			t.logger.Infof("Based on follower's leader epoch, leader replied with offset %d below the follower's log end offset %d in %s: truncating to it.", eo.EndOffset, leo, tp)
			points[tp] = eo.EndOffset
		}
	}
	if err := t.replicaMgr.LogManager().TruncateTo(points); err != nil {
		if isStorageError(err) {
			t.logger.WithError(err).Errorf("Disk error while truncating %v", points)
			t.exit(1)
		}
		return nil, nil, err
	}
	for tp, offset := range points {
		if r := replicas[tp]; r.HighWatermark().MessageOffset > offset {
			if err := r.SetHighWatermark(log.NewMessageOffsetOnly(offset)); err != nil {
				return nil, nil, err
			}
		}
	}
	return points, retry, nil
}

// labelFetchedEpoch records, before the first message of a new epoch is appended as follower,
// that the epoch of the leader it came from starts at fetchOffset. ok is false when the
// partition's leader is no longer the broker this thread fetches from (the LeaderAndIsr that
// changed it is between its state update and removing this fetcher): that data must not be
// appended under the new leader's epoch.
func (t *ReplicaFetcherThread) labelFetchedEpoch(tp common.TopicPartition, replica *cluster.Replica, fetchOffset int64) (bool, error) {
	cache := replica.Log.LeaderEpochCache()
	if cache == nil {
		return true, nil
	}
	p := t.replicaMgr.GetPartition(tp)
	if p == nil {
		return false, nil
	}
	leader, epoch := p.LeaderAndEpoch()
	if leader != t.sourceBroker.ID {
		return false, nil
	}
	if epoch > cache.LatestEpoch() {
		if err := replica.Log.MaybeAssignEpochStartOffset(epoch, fetchOffset); err != nil {
			return false, fmt.Errorf("recording leader epoch %d of %s: %w", epoch, tp, err)
		}
	}
	return true, nil
}
