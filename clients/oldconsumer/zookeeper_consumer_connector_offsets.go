package oldconsumer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// noOffset is OffsetMetadataAndError.NoOffset's offset: nothing committed.
const noOffset int64 = -1

// commitOffsetToZooKeeper writes /consumers/<group>/offsets/<topic>/<partition> unless that
// offset is the one written (or read) last.
//
// Kafka 0.10.2: ZookeeperConsumerConnector.commitOffsetToZooKeeper.
func (c *ZookeeperConsumerConnector) commitOffsetToZooKeeper(tp common.TopicPartition, offset int64) error {
	c.registryMu.Lock()
	last, ok := c.checkpointedZkOffsets[tp]
	c.registryMu.Unlock()
	if ok && last == offset {
		return nil
	}
	if err := c.zkUtils.UpdatePersistentPath(zkutils.ConsumerOffsetPath(c.config.GroupID, tp), zkutils.ConsumerOffsetZkData(offset)); err != nil {
		return err
	}
	c.registryMu.Lock()
	c.checkpointedZkOffsets[tp] = offset
	c.registryMu.Unlock()
	c.zkCommitMeter.Mark(1)
	return nil
}

// CommitOffsets implements ConsumerConnector: the consumed offset of every owned partition.
//
// Kafka 0.10.2: commitOffsets (= commitOffsets(isAutoCommit = true), which, despite its name,
// is the call with retries).
func (c *ZookeeperConsumerConnector) CommitOffsets() error { return c.commitOffsets(true) }

// commitOffsets commits what the streams consumed. retry is Kafka's isAutoCommit parameter:
// true gives offsets.commit.max.retries retries (the auto-commit task passes false).
func (c *ZookeeperConsumerConnector) commitOffsets(retry bool) error {
	c.registryMu.Lock()
	offsets := map[common.TopicPartition]int64{}
	for _, infos := range c.topicRegistry {
		for _, info := range infos {
			offsets[common.TopicPartition{Topic: info.Topic, Partition: info.PartitionID}] = info.GetConsumeOffset()
		}
	}
	c.registryMu.Unlock()
	return c.CommitOffsetsMap(offsets, retry)
}

// CommitOffsetsMap implements ConsumerConnector. To ZooKeeper each offset is written; to Kafka
// one OffsetCommit (v2, no generation) goes to the offset manager, retried after
// offsets.channel.backoff.ms while a retriable error comes back (MetadataTooLarge is not
// retried). With dual.commit.enabled the offsets Kafka accepted are written to ZooKeeper too.
//
// Kafka 0.10.2: commitOffsets(offsetsToCommit, isAutoCommit). Kafka logs a commit that failed
// every attempt and returns; here the error is also returned.
func (c *ZookeeperConsumerConnector) CommitOffsetsMap(offsets map[common.TopicPartition]int64, retry bool) error {
	c.log.Tracef("OffsetMap: %v", offsets)
	retriesRemaining := 1
	if retry {
		retriesRemaining += int(c.config.OffsetsCommitMaxRetries)
	}
	budget := time.Duration(retriesRemaining) * (ms(c.config.OffsetsChannelSocketTimeoutMs) + ms(c.config.OffsetsChannelBackoffMs) +
		ms(c.config.ZkSessionTimeoutMs))
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	var lastErr error
	for {
		committed, err := c.commitOnce(ctx, offsets)
		if err != nil {
			lastErr = err
		}
		retriesRemaining--
		if committed {
			return nil
		}
		if retriesRemaining == 0 || ctx.Err() != nil {
			if lastErr == nil {
				lastErr = errors.New("the offset manager refused the commit")
			}
			return fmt.Errorf("offset commit failed: %w", lastErr)
		}
		c.log.Debugf("Retrying offset commit in %d ms", c.config.OffsetsChannelBackoffMs)
		if sleepCtx(ctx, ms(c.config.OffsetsChannelBackoffMs)) != nil {
			return fmt.Errorf("offset commit failed: %w", ctx.Err())
		}
	}
}

// commitOnce is one attempt; committed is false when it should be retried.
func (c *ZookeeperConsumerConnector) commitOnce(ctx context.Context, offsets map[common.TopicPartition]int64) (committed bool, err error) {
	c.offsetsChannelLock.Lock()
	defer c.offsetsChannelLock.Unlock()
	if len(offsets) == 0 {
		c.log.Debug("No updates to offsets since last commit.")
		return true, nil
	}
	tps := common.SortedTopicPartitions(offsets)
	if c.config.OffsetsStorage == "zookeeper" {
		for _, tp := range tps {
			if err := c.commitOffsetToZooKeeper(tp, offsets[tp]); err != nil {
				return true, err // Kafka lets a ZooKeeper failure escape: no retry
			}
		}
		return true, nil
	}
	if err := c.ensureOffsetManagerConnected(ctx); err != nil {
		return false, err
	}
	noMetadata := ""
	req := &protocol.OffsetCommitRequest{Version: 2, GroupID: c.config.GroupID, GroupGenerationID: -1, MemberID: "", RetentionTime: -1}
	for _, tp := range tps {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, protocol.OffsetCommitRequestTopic{Topic: tp.Topic})
		}
		last := &req.Topics[len(req.Topics)-1]
		last.Partitions = append(last.Partitions, protocol.OffsetCommitRequestTopicPartition{Partition: tp.Partition, Offset: offsets[tp],
			Metadata: &noMetadata})
	}
	c.kafkaCommitMeter.Mark(int64(len(offsets)))
	resp := &protocol.OffsetCommitResponse{Version: 2}
	if err := c.offsetsChannel.SendContext(ctx, req, resp); err != nil {
		c.log.WithError(err).Error("Error while committing offsets.")
		c.offsetsChannel.Disconnect()
		return false, err
	}
	c.log.Tracef("Offset commit response: %+v.", resp)
	commitFailed, retryable, refreshCoordinator, errorCount := false, false, false, 0
	var firstErr error
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if p.ErrorCode == 0 {
				if c.config.DualCommitEnabled {
					if err := c.commitOffsetToZooKeeper(tp, offsets[tp]); err != nil {
						return true, err
					}
				}
				continue
			}
			commitFailed = true
			errorCount++
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", tp, protocol.ErrorForCode(p.ErrorCode))
			}
			if p.ErrorCode != protocol.ErrOffsetMetadataTooLarge.Code {
				retryable = true
			}
			if p.ErrorCode == protocol.ErrNotCoordinatorForGroup.Code || p.ErrorCode == protocol.ErrGroupCoordinatorNotAvailable.Code {
				refreshCoordinator = true
			}
		}
	}
	c.log.Debugf("%d errors in offset commit response.", errorCount)
	if refreshCoordinator {
		c.log.Debug("Could not commit offsets (because offset coordinator has moved or is unavailable).")
		c.offsetsChannel.Disconnect()
	}
	if commitFailed && retryable {
		return false, firstErr
	}
	return true, firstErr
}

// fetchOffsetFromZooKeeper reads a committed offset (noOffset when none).
func (c *ZookeeperConsumerConnector) fetchOffsetFromZooKeeper(tp common.TopicPartition) (int64, error) {
	data, _, ok, err := c.zkUtils.ReadDataMaybeNull(zkutils.ConsumerOffsetPath(c.config.GroupID, tp))
	if err != nil || !ok {
		return noOffset, err
	}
	return zkutils.ParseConsumerOffset(data)
}

// fetchOffsets reads the group's committed offsets of partitions: from ZooKeeper, or from the
// offset manager (retried until it answers or the connector shuts down; with dual commit the
// larger of the two). ok is false when the connector shut down first.
//
// Kafka 0.10.2: ZookeeperConsumerConnector.fetchOffsets.
func (c *ZookeeperConsumerConnector) fetchOffsets(partitions []common.TopicPartition) (map[common.TopicPartition]int64, bool, error) {
	out := make(map[common.TopicPartition]int64, len(partitions))
	if len(partitions) == 0 {
		return out, true, nil
	}
	if c.config.OffsetsStorage == "zookeeper" {
		for _, tp := range partitions {
			o, err := c.fetchOffsetFromZooKeeper(tp)
			if err != nil {
				return nil, false, err
			}
			out[tp] = o
		}
		return out, true, nil
	}
	req := &protocol.OffsetFetchRequest{Version: 2, GroupID: c.config.GroupID}
	for _, tp := range common.SortedTopicPartitions(toSet(partitions)) {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, protocol.OffsetFetchRequestTopic{Topic: tp.Topic})
		}
		last := &req.Topics[len(req.Topics)-1]
		last.Partitions = append(last.Partitions, protocol.OffsetFetchRequestTopicPartition{Partition: tp.Partition})
	}
	for !c.isShuttingDown.Load() {
		got, err := c.fetchOffsetsOnce(req, partitions)
		if err != nil {
			return nil, false, err
		}
		if got != nil {
			return got, true, nil
		}
		c.log.Debugf("Retrying offset fetch in %d ms", c.config.OffsetsChannelBackoffMs)
		if sleepCtx(c.ctx, ms(c.config.OffsetsChannelBackoffMs)) != nil {
			break
		}
	}
	return nil, false, nil
}

// fetchOffsetsOnce is one OffsetFetch; nil offsets mean "retry".
func (c *ZookeeperConsumerConnector) fetchOffsetsOnce(req *protocol.OffsetFetchRequest, partitions []common.TopicPartition) (map[common.TopicPartition]int64, error) {
	c.offsetsChannelLock.Lock()
	defer c.offsetsChannelLock.Unlock()
	if err := c.ensureOffsetManagerConnected(c.ctx); err != nil {
		return nil, nil // shutting down
	}
	resp := &protocol.OffsetFetchResponse{Version: req.Version}
	if err := c.offsetsChannel.SendContext(c.ctx, req, resp); err != nil {
		c.log.Warnf("Error while fetching offsets from %s:%d. Possible cause: %v", c.offsetsChannel.Host(), c.offsetsChannel.Port(), err)
		c.offsetsChannel.Disconnect()
		return nil, nil
	}
	c.log.Tracef("Offset fetch response: %+v.", resp)
	leaderChanged, loadInProgress := false, false
	switch resp.ErrorCode {
	case 0:
	case protocol.ErrGroupLoadInProgress.Code:
		loadInProgress = true
	default:
		leaderChanged = true
	}
	got := map[common.TopicPartition]int64{}
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			switch p.ErrorCode {
			case protocol.ErrNotCoordinatorForGroup.Code:
				leaderChanged = true
			case protocol.ErrGroupLoadInProgress.Code:
				loadInProgress = true
			}
			got[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.Offset
		}
	}
	switch {
	case leaderChanged:
		c.offsetsChannel.Disconnect()
		c.log.Debug("Could not fetch offsets (because offset manager has moved).")
		return nil, nil
	case loadInProgress:
		c.log.Debug("Could not fetch offsets (because offset cache is being loaded).")
		return nil, nil
	}
	for _, tp := range partitions {
		o, ok := got[tp]
		if !ok {
			return nil, fmt.Errorf("no offset for %s in the offset fetch response", tp)
		}
		if c.config.DualCommitEnabled {
			zkOffset, err := c.fetchOffsetFromZooKeeper(tp)
			if err != nil {
				return nil, err
			}
			got[tp] = max(o, zkOffset)
		}
	}
	return got, nil
}

func toSet(tps []common.TopicPartition) map[common.TopicPartition]int64 {
	m := make(map[common.TopicPartition]int64, len(tps))
	for _, tp := range tps {
		m[tp] = 0
	}
	return m
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
