package fetcher

import (
	"fmt"
	"sync/atomic"

	"github.com/zkafka/zkafka/clients/common"
)

// PartitionFetchState is where a fetcher stands for one partition: the next offset to fetch,
// and until when the partition is held back after an error (a DelayedItem in Kafka).
//
// Kafka 0.10.2: kafka.server.PartitionFetchState. The DelayedItem becomes an absolute due time
// in milliseconds of the thread's clock; zero means active at once. TruncatingLog is Kafka 0.11's
// truncatingLog (KIP-101), used only by a thread with LogTruncationHooks: the partition's log
// must first be truncated to where the leader says its latest epoch ends, and is not fetched
// until then.
type PartitionFetchState struct {
	Offset        int64
	TruncatingLog bool
	dueMs         int64
}

// NewPartitionFetchState is an active state at offset.
func NewPartitionFetchState(offset int64) PartitionFetchState {
	return PartitionFetchState{Offset: offset}
}

// IsActive reports whether the partition may be fetched at nowMs (its delay, if any, is over).
func (s PartitionFetchState) IsActive(nowMs int64) bool { return nowMs >= s.dueMs }

// IsReadyForFetch reports whether the partition goes into the next fetch request: active and
// not waiting for its log truncation (Kafka 0.11's isReadyForFetch).
func (s PartitionFetchState) IsReadyForFetch(nowMs int64) bool {
	return s.IsActive(nowMs) && !s.TruncatingLog
}

// String formats like Kafka's "offset-isActive" (isActive evaluated at dueMs==0, as the state
// has no clock of its own), with "-truncating" appended while the log awaits its truncation.
func (s PartitionFetchState) String() string {
	if s.TruncatingLog {
		return fmt.Sprintf("%d-%t-truncating", s.Offset, s.dueMs == 0)
	}
	return fmt.Sprintf("%d-%t", s.Offset, s.dueMs == 0)
}

// PartitionStateEntry is one partition with its state, in the thread's fetch order.
type PartitionStateEntry struct {
	TopicPartition common.TopicPartition
	State          PartitionFetchState
}

// partitionStates keeps the states in an order where a partition can be moved to the end
// cheaply: a map for lookup and a sequence number per entry, compacted when it grows (Kafka's
// PartitionStates is a LinkedHashMap).
type partitionStates struct {
	m     map[common.TopicPartition]*stateEntry
	order []*stateEntry // may hold removed or moved entries (stale); compacted in entries()
	seq   uint64
	n     atomic.Int32 // len(m), readable without the owner's lock
}

type stateEntry struct {
	tp    common.TopicPartition
	state PartitionFetchState
	seq   uint64
}

func newPartitionStates() *partitionStates {
	return &partitionStates{m: map[common.TopicPartition]*stateEntry{}}
}

func (p *partitionStates) size() int { return len(p.m) }

// count is size() for a caller that does not hold the owner's lock.
func (p *partitionStates) count() int { return int(p.n.Load()) }

func (p *partitionStates) get(tp common.TopicPartition) (PartitionFetchState, bool) {
	e, ok := p.m[tp]
	if !ok {
		return PartitionFetchState{}, false
	}
	return e.state, true
}

func (p *partitionStates) contains(tp common.TopicPartition) bool { _, ok := p.m[tp]; return ok }

// updateAndMoveToEnd sets tp's state (adding it if absent) and puts it last.
func (p *partitionStates) updateAndMoveToEnd(tp common.TopicPartition, s PartitionFetchState) {
	p.seq++
	e := &stateEntry{tp: tp, state: s, seq: p.seq}
	p.m[tp] = e
	p.n.Store(int32(len(p.m)))
	p.order = append(p.order, e)
	if len(p.order) > 2*len(p.m)+16 {
		p.compact()
	}
}

// moveToEnd puts tp last, keeping its state.
func (p *partitionStates) moveToEnd(tp common.TopicPartition) {
	if e, ok := p.m[tp]; ok {
		p.updateAndMoveToEnd(tp, e.state)
	}
}

func (p *partitionStates) remove(tp common.TopicPartition) {
	delete(p.m, tp)
	p.n.Store(int32(len(p.m)))
}

func (p *partitionStates) compact() {
	live := p.order[:0]
	for _, e := range p.order {
		if cur, ok := p.m[e.tp]; ok && cur == e {
			live = append(live, e)
		}
	}
	clear(p.order[len(live):])
	p.order = live
}

// entries lists the partitions in fetch order.
func (p *partitionStates) entries() []PartitionStateEntry {
	p.compact()
	out := make([]PartitionStateEntry, len(p.order))
	for i, e := range p.order {
		out[i] = PartitionStateEntry{TopicPartition: e.tp, State: e.state}
	}
	return out
}
