package log

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// LeaderEpochFileCache is one replica's history of leader epochs: for each epoch in which this
// replica holds messages (or which it led), the offset of the first of them. It answers the
// question a follower asks its leader after a leadership change: "where does my latest epoch end
// in your log?" (EndOffsetFor), so that the follower truncates exactly the messages the leader
// does not have, instead of everything above its high watermark. Every change is persisted in
// the partition's leader-epoch-checkpoint before the method returns.
//
// zkafka keeps message format v0/v1, whose messages carry no epoch, so the epochs come from the
// controller's LeaderAndIsr (the leader_epoch of the partition state in ZooKeeper): a leader
// records (epoch, log end offset) when it becomes leader, and a follower records (epoch, offset)
// when it appends the first message fetched from the leader of that epoch. Kafka 0.11 reads the
// epoch from each v2 batch instead; the entries mean the same: two replicas holding an entry for
// an epoch copied those messages from the one leader of that epoch.
//
// Kafka 0.11.0: kafka.server.epoch.LeaderEpochFileCache. It lives in core/log, not in a
// core/server/epoch leaf, because the Log owns it (as 0.11's Log.leaderEpochCache): the log's
// truncation, retention and recovery must edit it, and it shares the checkpoint-file code of
// OffsetCheckpoint, which the layout moved here for the same reason (kafka.server classes used by
// kafka.log).
//
// Its RWMutex is taken after Log.mu (truncation edits the cache under the log's lock) and is the
// innermost lock; leo reads the log's published end without a lock.
type LeaderEpochFileCache struct {
	topicPartition common.TopicPartition
	leo            func() int64
	checkpoint     *LeaderEpochCheckpointFile
	logger         *logrus.Entry

	mu     sync.RWMutex
	epochs []EpochEntry
}

// NewLeaderEpochFileCache loads the cache from checkpoint. A file that does not parse (it was
// cut short or altered outside the broker; the atomic write never leaves a partial file) is not
// trusted in part: the cache starts empty and the file is rewritten empty, with a warning. An
// empty cache answers every epoch request with UndefinedEpochOffset, so followers fall back to
// 0.10.2's truncation to the high watermark until new epochs are recorded.
func NewLeaderEpochFileCache(tp common.TopicPartition, leo func() int64, checkpoint *LeaderEpochCheckpointFile,
	logger *logrus.Entry) (*LeaderEpochFileCache, error) {
	c := &LeaderEpochFileCache{topicPartition: tp, leo: leo, checkpoint: checkpoint,
		logger: orNopLogger(logger).WithField("logger", "kafka.server.epoch.LeaderEpochFileCache")}
	entries, err := checkpoint.Read()
	switch {
	case errors.Is(err, ErrMalformedLeaderEpochCheckpoint):
		c.logger.Warnf("Ignoring the leader epoch checkpoint of partition %s and starting an empty cache: %v", tp, err)
		if err := c.flush(); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	default:
		c.epochs = entries
	}
	return c, nil
}

// Assign records that epoch starts at offset. Only a newer epoch at an offset not below the
// latest entry's is recorded; anything else is ignored, with a warning when it goes backwards.
func (c *LeaderEpochFileCache) Assign(epoch int32, offset int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch >= 0 && epoch > c.latestEpochLocked() && offset >= c.latestOffsetLocked() {
		c.logger.Infof("Updated PartitionLeaderEpoch. %s. Cache now contains %d entries.", c.epochChangeMsg(epoch, offset), len(c.epochs)+1)
		c.epochs = append(c.epochs, EpochEntry{Epoch: epoch, StartOffset: offset})
		return c.flush()
	}
	switch {
	case epoch < 0:
		c.logger.Warnf("Received a PartitionLeaderEpoch assignment for an epoch < 0. This should not happen. %s", c.epochChangeMsg(epoch, offset))
	case epoch < c.latestEpochLocked():
		c.logger.Warnf("Received a PartitionLeaderEpoch assignment for an epoch < latestEpoch. This implies messages have arrived out of order. %s",
			c.epochChangeMsg(epoch, offset))
	case offset < c.latestOffsetLocked():
		c.logger.Warnf("Received a PartitionLeaderEpoch assignment for an offset < latest offset for the most recent, stored PartitionLeaderEpoch. This implies messages have arrived out of order. %s",
			c.epochChangeMsg(epoch, offset))
	}
	return nil
}

// LatestEpoch is the newest epoch recorded, or UndefinedEpoch when none is.
func (c *LeaderEpochFileCache) LatestEpoch() int32 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.latestEpochLocked()
}

// EndOffsetFor is where requestedEpoch ends in this replica's log: the log end offset for the
// latest epoch, otherwise the start offset of the first later epoch. It is UndefinedEpochOffset
// for UndefinedEpoch, for an epoch older than the oldest entry, and when no later epoch exists.
func (c *LeaderEpochFileCache) EndOffsetFor(requestedEpoch int32) int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	offset := protocol.UndefinedEpochOffset
	switch {
	case requestedEpoch == protocol.UndefinedEpoch:
		// A follower with an empty cache (new, or just switched to this mode).
	case requestedEpoch == c.latestEpochLocked():
		offset = c.leo()
	case len(c.epochs) > 0 && requestedEpoch >= c.epochs[0].Epoch:
		for _, e := range c.epochs {
			if e.Epoch > requestedEpoch {
				offset = e.StartOffset
				break
			}
		}
	}
	c.logger.Debugf("Processed offset for epoch request for partition %s epoch:%d and returning offset %d from epoch list of size %d",
		c.topicPartition, requestedEpoch, offset, len(c.epochs))
	return offset
}

// ClearAndFlushLatest removes the entries starting at or after offset (the log was truncated
// to offset).
func (c *LeaderEpochFileCache) ClearAndFlushLatest(offset int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if offset < 0 || offset > c.latestOffsetLocked() {
		return nil
	}
	i := slices.IndexFunc(c.epochs, func(e EpochEntry) bool { return e.StartOffset >= offset })
	removed := slices.Clone(c.epochs[i:])
	c.epochs = c.epochs[:i]
	c.logger.Infof("Cleared latest %v entries from epoch cache based on passed offset %d leaving %d in EpochFile for partition %s",
		removed, offset, len(c.epochs), c.topicPartition)
	return c.flush()
}

// ClearAndFlushEarliest forgets the history below offset (the segments before it were deleted):
// the entries starting below offset go, and the last of them comes back starting at offset
// unless an entry already starts there. It is exclusive: an entry at offset stays.
func (c *LeaderEpochFileCache) ClearAndFlushEarliest(offset int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if offset < 0 || len(c.epochs) == 0 || c.epochs[0].StartOffset >= offset {
		return nil
	}
	n := 0
	for n < len(c.epochs) && c.epochs[n].StartOffset < offset {
		n++
	}
	last := c.epochs[n-1]
	rest := c.epochs[n:]
	if len(rest) == 0 || offset < rest[0].StartOffset {
		rest = append([]EpochEntry{{Epoch: last.Epoch, StartOffset: offset}}, rest...)
	}
	c.epochs = slices.Clone(rest)
	c.logger.Infof("Cleared earliest %d entries from epoch cache based on passed offset %d leaving %d in EpochFile for partition %s",
		n, offset, len(c.epochs), c.topicPartition)
	return c.flush()
}

// ClearAndFlush deletes every entry (the log was emptied and restarted elsewhere).
func (c *LeaderEpochFileCache) ClearAndFlush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epochs = nil
	return c.flush()
}

// Clear deletes every entry in memory only.
func (c *LeaderEpochFileCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epochs = nil
}

// EpochEntries is a copy of the entries, oldest first.
func (c *LeaderEpochFileCache) EpochEntries() []EpochEntry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.epochs) == 0 {
		return nil
	}
	return slices.Clone(c.epochs)
}

// CheckpointPath is the leader-epoch-checkpoint file behind the cache.
func (c *LeaderEpochFileCache) CheckpointPath() string { return c.checkpoint.Path() }

func (c *LeaderEpochFileCache) latestEpochLocked() int32 {
	if len(c.epochs) == 0 {
		return protocol.UndefinedEpoch
	}
	return c.epochs[len(c.epochs)-1].Epoch
}

func (c *LeaderEpochFileCache) latestOffsetLocked() int64 {
	if len(c.epochs) == 0 {
		return -1
	}
	return c.epochs[len(c.epochs)-1].StartOffset
}

func (c *LeaderEpochFileCache) flush() error {
	if err := c.checkpoint.Write(c.epochs); err != nil {
		return fmt.Errorf("%w: %w", ErrKafkaStorage, err)
	}
	return nil
}

func (c *LeaderEpochFileCache) epochChangeMsg(epoch int32, offset int64) string {
	return fmt.Sprintf("New: {epoch:%d, offset:%d}, Current: {epoch:%d, offset:%d} for Partition: %s",
		epoch, offset, c.latestEpochLocked(), c.latestOffsetLocked(), c.topicPartition)
}

// --- the Log's side ---

// initializeLeaderEpochCache gives the log its epoch cache when enabled (after loading, so the
// cache can be cut back to what recovery kept). Disabled, it does nothing: a stale file is
// removed by removeLeaderEpochCheckpoint once the broker knows it may run (LogManager).
func (l *Log) initializeLeaderEpochCache(enabled bool) error {
	if !enabled {
		return nil
	}
	path := filepath.Join(l.Dir(), LeaderEpochCheckpointFilename)
	cp, err := NewLeaderEpochCheckpointFile(path)
	if err != nil {
		return err
	}
	cache, err := NewLeaderEpochFileCache(l.TopicPartition(), l.LogEndOffset, cp, l.logger)
	if err != nil {
		return err
	}
	// Entries beyond what recovery kept (a crash lost the tail they started) go. An entry at the
	// log end offset is kept: a leader records its epoch before its first append.
	if err := cache.ClearAndFlushLatest(l.LogEndOffset() + 1); err != nil {
		return err
	}
	l.leaderEpochCache.Store(cache)
	return nil
}

// removeLeaderEpochCheckpoint deletes a leader-epoch-checkpoint left by a run with the mode on:
// a history not kept up to date while the mode is off must not be trusted if it is switched on
// again (an empty cache falls back to the high watermark instead).
func (l *Log) removeLeaderEpochCheckpoint() {
	path := filepath.Join(l.Dir(), LeaderEpochCheckpointFilename)
	if err := os.Remove(path); err == nil {
		l.logger.Warnf("Deleted %s of log %s: zkafka.leader.epoch.truncation.enable is off, and a history not kept while it is off cannot be trusted later",
			LeaderEpochCheckpointFilename, l.Name())
	}
	_ = os.Remove(path + ".tmp")
}

// LeaderEpochCache is the log's epoch cache, or nil when zkafka.leader.epoch.truncation.enable
// is off.
func (l *Log) LeaderEpochCache() *LeaderEpochFileCache { return l.leaderEpochCache.Load() }

// MaybeAssignEpochStartOffset records that leaderEpoch starts at startOffset in this log, when
// the log keeps an epoch cache (a no-op otherwise).
func (l *Log) MaybeAssignEpochStartOffset(leaderEpoch int32, startOffset int64) error {
	if c := l.LeaderEpochCache(); c != nil {
		return c.Assign(leaderEpoch, startOffset)
	}
	return nil
}
