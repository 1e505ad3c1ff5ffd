package fetcher

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/zk/zktest"
)

// fakeTruncation is LogTruncationHooks over a script of answers: each exchange pops the next
// answer per partition (nil: the exchange itself fails).
type fakeTruncation struct {
	thread *AbstractFetcherThread
	hooks  *fakeHooks

	fetchedBefore int // non-empty fetch requests built before the first truncation

	mu        sync.Mutex
	latest    map[common.TopicPartition]int32
	answers   []map[common.TopicPartition]protocol.EpochEndOffset
	asked     []map[common.TopicPartition]int32
	truncated map[common.TopicPartition]int64
}

func (f *fakeTruncation) BuildLeaderEpochRequest(states []PartitionStateEntry) map[common.TopicPartition]int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[common.TopicPartition]int32{}
	for _, s := range states {
		if !s.State.TruncatingLog {
			panic("a partition that is not truncating in the epoch request")
		}
		out[s.TopicPartition] = f.latest[s.TopicPartition]
	}
	return out
}

func (f *fakeTruncation) FetchEpochsFromLeader(_ context.Context, epochs map[common.TopicPartition]int32) map[common.TopicPartition]protocol.EpochEndOffset {
	if !f.thread.partitionMapLock.TryLock() {
		panic("FetchEpochsFromLeader called with the partition map lock held")
	}
	f.thread.partitionMapLock.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, epochs)
	var a map[common.TopicPartition]protocol.EpochEndOffset
	if len(f.answers) > 0 {
		a, f.answers = f.answers[0], f.answers[1:]
	}
	out := map[common.TopicPartition]protocol.EpochEndOffset{}
	for tp := range epochs {
		if eo, ok := a[tp]; ok {
			out[tp] = eo
		} else {
			out[tp] = protocol.EpochEndOffset{ErrorCode: protocol.ErrUnknown.Code, EndOffset: protocol.UndefinedEpochOffset}
		}
	}
	return out
}

func (f *fakeTruncation) MaybeTruncate(fetched map[common.TopicPartition]protocol.EpochEndOffset) (map[common.TopicPartition]int64, []common.TopicPartition, error) {
	if f.thread.partitionMapLock.TryLock() {
		f.thread.partitionMapLock.Unlock()
		return nil, nil, errors.New("MaybeTruncate called without the partition map lock")
	}
	f.hooks.mu.Lock()
	nonEmpty := 0
	for _, r := range f.hooks.builtActive {
		if len(r) > 0 {
			nonEmpty++
		}
	}
	f.hooks.mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.truncated) == 0 {
		f.fetchedBefore = nonEmpty
	}
	offsets := map[common.TopicPartition]int64{}
	var retry []common.TopicPartition
	for tp, eo := range fetched {
		if eo.HasError() {
			retry = append(retry, tp)
			continue
		}
		offsets[tp] = eo.EndOffset
		f.truncated[tp] = eo.EndOffset
	}
	return offsets, retry, nil
}

func newTruncatingThread(t *testing.T, backoffMs int64) (*AbstractFetcherThread, *fakeHooks, *fakeTruncation) {
	th, h := newFakeThread(t, backoffMs)
	f := &fakeTruncation{thread: th, hooks: h, latest: map[common.TopicPartition]int32{}, truncated: map[common.TopicPartition]int64{}}
	th.IncludeLogTruncation(f)
	return th, h, f
}

// A partition added to a truncating fetcher is not fetched until the exchange with the source has
// told where its latest epoch ends; a failed answer is retried after the back-off; then fetching
// resumes at the offset MaybeTruncate chose.
func TestFetcherThreadTruncatesBeforeFetching(t *testing.T) {
	th, h, f := newTruncatingThread(t, 20)
	h.logEnd[tp0] = 9
	f.latest[tp0] = 4
	f.answers = []map[common.TopicPartition]protocol.EpochEndOffset{
		{tp0: {ErrorCode: protocol.ErrNotLeaderForPartition.Code, EndOffset: -1}},
		nil, // the exchange itself failed
		{tp0: {EndOffset: 6}},
	}
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 8}); err != nil {
		t.Fatal(err)
	}
	if s, _ := th.FetchState(tp0); !s.TruncatingLog || s.IsReadyForFetch(th.Now()) || s.String() != "8-true-truncating" {
		t.Fatalf("new partition state %v", s)
	}
	th.Start()
	zktest.WaitUntilTrue(t, func() bool { return fetchOffset(th, tp0) == 9 }, "fetched up to 9 after truncating to 6", 10*time.Second)
	f.mu.Lock()
	asked := slices.Clone(f.asked)
	truncated, before := f.truncated[tp0], f.fetchedBefore
	f.mu.Unlock()
	if len(asked) != 3 || asked[0][tp0] != 4 || truncated != 6 {
		t.Fatalf("asked %v, truncated to %d", asked, truncated)
	}
	if before != 0 {
		t.Fatalf("%d fetch requests carried the partition before its truncation", before)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Equal(h.processed, []string{"t-0@6"}) {
		t.Fatalf("processed %v, want [t-0@6]", h.processed)
	}
}

// Data that arrives for a partition which meanwhile went back to truncating (it was removed and
// added again) is stale and not processed.
func TestFetcherThreadDropsDataForTruncatingPartition(t *testing.T) {
	th, h, _ := newTruncatingThread(t, 20)
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 5}); err != nil {
		t.Fatal(err)
	}
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 5, 0, 0)
	if _, err := b.AppendWithOffset(5, 1, nil, []byte("stale")); err != nil {
		t.Fatal(err)
	}
	data := []FetchedPartition{{tp0, fakeData{hw: 6, records: b.Build()}}}
	if err := th.processResponse(fakeRequest{tp0: 5}, data, func(common.TopicPartition) {}); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.processed) != 0 || fetchOffset(th, tp0) != 5 {
		t.Fatalf("processed %v, offset %d", h.processed, fetchOffset(th, tp0))
	}
}
