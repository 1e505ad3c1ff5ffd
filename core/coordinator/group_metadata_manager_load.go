package coordinator

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
)

// LoadGroupsForPartition schedules the load of partition p (this broker just became its
// leader): while it runs, p's groups answer GROUP_LOAD_IN_PROGRESS; afterwards p is owned,
// even if the load failed. onGroupLoaded is called for every loaded group.
//
// Kafka 0.10.2: GroupMetadataManager.loadGroupsForPartition.
func (m *GroupMetadataManager) LoadGroupsForPartition(p int32, onGroupLoaded func(*GroupMetadata)) {
	tp := offsetsTopicPartition(p)
	m.scheduler.Schedule(tp.String(), func() {
		m.logger.Infof("Loading offsets and group metadata from %s", tp)
		m.partitionMu.Lock()
		if m.loadingPartitions[p] {
			m.partitionMu.Unlock()
			m.logger.Infof("Offset load from %s already in progress.", tp)
			return
		}
		m.loadingPartitions[p] = true
		m.partitionMu.Unlock()
		defer func() {
			m.partitionMu.Lock()
			m.ownedPartitions[p] = true
			delete(m.loadingPartitions, p)
			m.partitionMu.Unlock()
		}()
		if err := m.loadGroupsAndOffsets(tp, onGroupLoaded); err != nil {
			m.logger.WithError(err).Errorf("Error loading offsets from %s", tp)
		}
	}, 0, 0)
}

// readChunk reads up to the load buffer size of the log from offset, as one in-memory set.
func readChunk(recs record.Records) ([]byte, error) {
	switch r := recs.(type) {
	case *record.MemoryRecords:
		return r.Bytes(), nil
	case *record.FileRecords:
		buf := make([]byte, r.SizeInBytes())
		n, err := r.ReadInto(buf, 0)
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected records type %T", recs)
}

type groupTopicPartition struct {
	group string
	tp    common.TopicPartition
}

// loadGroupsAndOffsets replays the partition log from its start to the high watermark: the
// last value per key wins, null values delete; then builds the groups and caches them.
//
// Kafka 0.10.2: GroupMetadataManager.loadGroupsAndOffsets.
func (m *GroupMetadataManager) loadGroupsAndOffsets(tp common.TopicPartition, onGroupLoaded func(*GroupMetadata)) error {
	highWatermark := func() int64 {
		hw, ok := m.replicaManager.GetHighWatermark(tp)
		if !ok {
			return -1
		}
		return hw
	}
	startMs := m.time.Milliseconds()
	lg, ok := m.replicaManager.GetLog(tp)
	if !ok {
		m.logger.Warnf("Attempted to load offsets and group metadata from %s, but found no log", tp)
		return nil
	}
	loadedOffsets := map[groupTopicPartition]OffsetAndMetadata{}
	var offsetOrder []groupTopicPartition
	loadedGroups := map[string]*GroupMetadata{}
	var groupOrder []string
	removedGroups := map[string]bool{}

	curr := lg.LogStartOffset()
	for curr < highWatermark() && !m.shuttingDown.Load() {
		fetch, err := lg.Read(curr, m.config.LoadBufferSize, nil, true)
		if err != nil {
			return err
		}
		buf, err := readChunk(fetch.Records)
		if err != nil {
			return err
		}
		before := curr
		for e, err := range record.NewMemoryRecords(buf).DeepEntries() {
			if err != nil {
				return err
			}
			r := e.Record
			if !r.HasKey() {
				return fmt.Errorf("group metadata/offset entry key should not be null (offset %d)", e.Offset)
			}
			key, err := ReadMessageKey(r.Key())
			if err != nil {
				return fmt.Errorf("unexpected message key at offset %d while loading offsets and group metadata: %w", e.Offset, err)
			}
			switch k := key.(type) {
			case OffsetKey:
				gtp := groupTopicPartition{k.Group, k.TopicPartition}
				if r.HasNullValue() {
					delete(loadedOffsets, gtp)
				} else {
					o, err := ReadOffsetMessageValue(r.Value())
					if err != nil {
						return err
					}
					if _, seen := loadedOffsets[gtp]; !seen {
						offsetOrder = append(offsetOrder, gtp)
					}
					loadedOffsets[gtp] = *o
				}
			case GroupMetadataKeyData:
				var value []byte
				if !r.HasNullValue() {
					value = r.Value()
				}
				g, err := ReadGroupMessageValue(k.Group, value)
				if err != nil {
					return err
				}
				if g != nil {
					delete(removedGroups, k.Group)
					if _, seen := loadedGroups[k.Group]; !seen {
						groupOrder = append(groupOrder, k.Group)
					}
					loadedGroups[k.Group] = g
				} else {
					delete(loadedGroups, k.Group)
					removedGroups[k.Group] = true
				}
			}
			curr = e.NextOffset()
		}
		if curr == before {
			break // nothing readable below the HW (should not happen); do not spin
		}
	}

	groupOffsets := map[string]map[common.TopicPartition]OffsetAndMetadata{}
	var emptyGroupOrder []string
	for _, gtp := range offsetOrder {
		o, ok := loadedOffsets[gtp]
		if !ok {
			continue
		}
		if groupOffsets[gtp.group] == nil {
			groupOffsets[gtp.group] = map[common.TopicPartition]OffsetAndMetadata{}
			if loadedGroups[gtp.group] == nil {
				emptyGroupOrder = append(emptyGroupOrder, gtp.group)
			}
		}
		groupOffsets[gtp.group][gtp.tp] = o
	}
	for _, id := range groupOrder {
		g, ok := loadedGroups[id]
		if !ok {
			continue
		}
		m.loadGroup(g, groupOffsets[id])
		onGroupLoaded(g)
	}
	for _, id := range emptyGroupOrder {
		g := NewGroupMetadata(id)
		m.loadGroup(g, groupOffsets[id])
		onGroupLoaded(g)
	}
	for id := range removedGroups {
		if m.GetGroup(id) != nil && groupOffsets[id] == nil {
			return fmt.Errorf("unexpected unload of active group %s while loading partition %s", id, tp)
		}
	}
	if !m.shuttingDown.Load() {
		m.logger.Infof("Finished loading offsets from %s in %d milliseconds.", tp, m.time.Milliseconds()-startMs)
	}
	return nil
}

// loadGroup attaches offsets (a v0 offset expires retention after its commit) and caches g
// unless a group with its id is already cached.
func (m *GroupMetadataManager) loadGroup(g *GroupMetadata, offsets map[common.TopicPartition]OffsetAndMetadata) {
	fixed := make(map[common.TopicPartition]OffsetAndMetadata, len(offsets))
	for tp, o := range offsets {
		if o.ExpireTimestamp == DefaultTimestamp {
			o.ExpireTimestamp = o.CommitTimestamp + m.config.OffsetsRetentionMs
		}
		fixed[tp] = o
	}
	g.mu.Lock()
	g.InitializeOffsets(fixed)
	g.mu.Unlock()
	if cur := m.AddGroup(g); cur != g {
		m.logger.Debugf("Attempt to load group %s from log with generation %d failed because there is already a cached group",
			g.GroupID, g.generationID)
	}
}

// RemoveGroupsForPartition schedules the unload of partition p (this broker stopped leading
// it): p is no longer owned, and each of its cached groups goes through onGroupUnloaded and
// leaves the cache.
//
// Kafka 0.10.2: GroupMetadataManager.removeGroupsForPartition.
func (m *GroupMetadataManager) RemoveGroupsForPartition(p int32, onGroupUnloaded func(*GroupMetadata)) {
	tp := offsetsTopicPartition(p)
	m.scheduler.Schedule(tp.String(), func() {
		m.partitionMu.Lock()
		delete(m.ownedPartitions, p)
		m.partitionMu.Unlock()
		numGroups, numOffsets := 0, 0
		for _, g := range m.CurrentGroups() {
			if m.PartitionFor(g.GroupID) != p {
				continue
			}
			onGroupUnloaded(g)
			m.removeGroup(g)
			numGroups++
			g.mu.Lock()
			numOffsets += g.NumOffsets()
			g.mu.Unlock()
		}
		if numOffsets > 0 {
			m.logger.Infof("Removed %d cached offsets for %s on follower transition.", numOffsets, tp)
		}
		if numGroups > 0 {
			m.logger.Infof("Removed %d cached groups for %s on follower transition.", numGroups, tp)
		}
	}, 0, 0)
}
