package fetcher

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/zk/zktest"
)

var tp0 = common.TopicPartition{Topic: "t", Partition: 0}

// fakeRequest is what fakeHooks.BuildFetchRequest makes.
type fakeRequest map[common.TopicPartition]int64

func (r fakeRequest) IsEmpty() bool { return len(r) == 0 }
func (r fakeRequest) Offset(tp common.TopicPartition) (int64, bool) {
	o, ok := r[tp]
	return o, ok
}

type fakeData struct {
	code    int16
	hw      int64
	records *record.MemoryRecords
}

func (d fakeData) ErrorCode() int16                 { return d.code }
func (d fakeData) HighWatermark() int64             { return d.hw }
func (d fakeData) ToRecords() *record.MemoryRecords { return d.records }

// fakeHooks is a source broker with logEnd messages per partition (offsets 0..logEnd-1),
// optional per-partition errors, and a record of what was processed.
type fakeHooks struct {
	thread *AbstractFetcherThread

	mu          sync.Mutex
	logEnd      map[common.TopicPartition]int64
	errs        map[common.TopicPartition]int16
	resetTo     int64
	processed   []string // "tp@fetchOffset"
	withErrors  []common.TopicPartition
	builtActive [][]common.TopicPartition
	fetchErr    error
}

func (h *fakeHooks) ProcessPartitionData(tp common.TopicPartition, fetchOffset int64, d PartitionData) error {
	if h.thread.partitionMapLock.TryLock() {
		h.thread.partitionMapLock.Unlock()
		return errors.New("ProcessPartitionData called without the partition map lock")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if d.ToRecords().SizeInBytes() > 0 {
		h.processed = append(h.processed, fmt.Sprintf("%s@%d", tp, fetchOffset))
	}
	return nil
}

func (h *fakeHooks) HandleOffsetOutOfRange(tp common.TopicPartition) (int64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.errs, tp)
	return h.resetTo, nil
}

func (h *fakeHooks) HandlePartitionsWithErrors(tps []common.TopicPartition) {
	h.mu.Lock()
	h.withErrors = append(h.withErrors, tps...)
	h.mu.Unlock()
	h.thread.DelayPartitions(tps, 60_000)
}

func (h *fakeHooks) BuildFetchRequest(states []PartitionStateEntry) FetchRequest {
	req := fakeRequest{}
	var active []common.TopicPartition
	now := h.thread.Now()
	for _, s := range states {
		if s.State.IsReadyForFetch(now) {
			req[s.TopicPartition] = s.State.Offset
			active = append(active, s.TopicPartition)
		}
	}
	h.mu.Lock()
	h.builtActive = append(h.builtActive, active)
	h.mu.Unlock()
	return req
}

func (h *fakeHooks) Fetch(ctx context.Context, req FetchRequest) ([]FetchedPartition, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fetchErr != nil {
		return nil, h.fetchErr
	}
	var out []FetchedPartition
	for tp, off := range req.(fakeRequest) {
		if code, ok := h.errs[tp]; ok {
			out = append(out, FetchedPartition{tp, fakeData{code: code, hw: -1, records: record.NewMemoryRecords(nil)}})
			continue
		}
		b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, off, 0, 0)
		for o := off; o < h.logEnd[tp]; o++ {
			if _, err := b.AppendWithOffset(o, 1, nil, []byte("v")); err != nil {
				return nil, err
			}
		}
		out = append(out, FetchedPartition{tp, fakeData{hw: h.logEnd[tp], records: b.Build()}})
	}
	if len(out) == 0 || allEmpty(out) {
		// a real leader would wait max_wait for data; do not spin
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
	return out, nil
}

func allEmpty(fs []FetchedPartition) bool {
	for _, f := range fs {
		if f.Data.ToRecords().SizeInBytes() > 0 || f.Data.ErrorCode() != 0 {
			return false
		}
	}
	return true
}

func newFakeThread(t *testing.T, backoffMs int64) (*AbstractFetcherThread, *fakeHooks) {
	t.Helper()
	h := &fakeHooks{logEnd: map[common.TopicPartition]int64{}, errs: map[common.TopicPartition]int16{}}
	th := NewAbstractFetcherThread("FakeFetcherThread-0-1", "fake", cluster.BrokerEndPoint{ID: 1, Host: "localhost", Port: 9092},
		backoffMs, h, common.SystemTime{}, nil)
	h.thread = th
	t.Cleanup(th.Shutdown)
	return th, h
}

func fetchOffset(th *AbstractFetcherThread, tp common.TopicPartition) int64 {
	s, ok := th.FetchState(tp)
	if !ok {
		return -100
	}
	return s.Offset
}

func TestFetcherThreadAdvancesPastFetchedData(t *testing.T) {
	th, h := newFakeThread(t, 10)
	h.logEnd[tp0] = 5
	th.Start()
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 0}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return fetchOffset(th, tp0) == 5 }, "offset 5", 5*time.Second)
	h.mu.Lock()
	h.logEnd[tp0] = 8
	h.mu.Unlock()
	zktest.WaitUntilTrue(t, func() bool { return fetchOffset(th, tp0) == 8 }, "offset 8", 5*time.Second)
	h.mu.Lock()
	got := slices.Clone(h.processed)
	h.mu.Unlock()
	if want := []string{"t-0@0", "t-0@5"}; !slices.Equal(got, want) {
		t.Fatalf("processed %v, want %v", got, want)
	}
	// adding a partition already fetched keeps its current offset
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 0}); err != nil {
		t.Fatal(err)
	}
	if o := fetchOffset(th, tp0); o != 8 {
		t.Fatalf("re-adding reset the offset to %d", o)
	}
}

func TestFetcherThreadOffsetOutOfRangeResets(t *testing.T) {
	th, h := newFakeThread(t, 10)
	h.logEnd[tp0] = 10
	h.errs[tp0] = protocol.ErrOffsetOutOfRange.Code
	h.resetTo = 7
	th.Start()
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 100}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return fetchOffset(th, tp0) == 10 }, "reset then catch up to 10", 5*time.Second)
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Equal(h.processed, []string{"t-0@7"}) {
		t.Fatalf("processed %v, want [t-0@7]", h.processed)
	}
}

func TestFetcherThreadInvalidInitialOffsetAsksHook(t *testing.T) {
	th, h := newFakeThread(t, 10)
	h.resetTo = 3
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: -1}); err != nil {
		t.Fatal(err)
	}
	if o := fetchOffset(th, tp0); o != 3 {
		t.Fatalf("offset %d, want 3", o)
	}
}

func TestFetcherThreadErrorPartitionIsDelayed(t *testing.T) {
	tp1 := common.TopicPartition{Topic: "t", Partition: 1}
	th, h := newFakeThread(t, 10)
	h.logEnd[tp0], h.logEnd[tp1] = 3, 3
	h.errs[tp1] = protocol.ErrNotLeaderForPartition.Code
	th.Start()
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 0, tp1: 0}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return slices.Contains(h.withErrors, tp1)
	}, "tp1 reported with error", 5*time.Second)
	zktest.WaitUntilTrue(t, func() bool { return fetchOffset(th, tp0) == 3 }, "tp0 fetched", 5*time.Second)
	// once delayed, tp1 is left out of the requests while tp0 keeps being fetched
	h.mu.Lock()
	n := len(h.builtActive)
	h.mu.Unlock()
	zktest.WaitUntilTrue(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.builtActive) >= n+2
	}, "two more requests", 5*time.Second)
	h.mu.Lock()
	last := h.builtActive[len(h.builtActive)-1]
	h.mu.Unlock()
	if !slices.Equal(last, []common.TopicPartition{tp0}) {
		t.Fatalf("last request had %v, want only %v", last, tp0)
	}
	if o := fetchOffset(th, tp1); o != 0 {
		t.Fatalf("errored partition moved to %d", o)
	}
}

func TestFetcherThreadFetchErrorBacksOffAllPartitions(t *testing.T) {
	th, h := newFakeThread(t, 20)
	h.fetchErr = errors.New("connection refused")
	th.Start()
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 0}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return slices.Contains(h.withErrors, tp0)
	}, "partition reported", 5*time.Second)
	s, _ := th.FetchState(tp0)
	if s.IsActive(th.Now()) {
		t.Fatal("partition still active after a failed fetch")
	}
}

func TestFetcherThreadRemovedPartitionIsNoLongerProcessed(t *testing.T) {
	th, h := newFakeThread(t, 10)
	h.logEnd[tp0] = 1
	th.Start()
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 0}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return fetchOffset(th, tp0) == 1 }, "offset 1", 5*time.Second)
	th.RemovePartitions(map[common.TopicPartition]struct{}{tp0: {}})
	h.mu.Lock()
	before := len(h.processed)
	h.logEnd[tp0] = 100
	h.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	h.mu.Lock()
	after := len(h.processed)
	h.mu.Unlock()
	if after != before || th.PartitionCount() != 0 {
		t.Fatalf("processed %d -> %d after removal, count %d", before, after, th.PartitionCount())
	}
}

func TestFetcherThreadShutdownIsPrompt(t *testing.T) {
	th, _ := newFakeThread(t, 60_000)
	th.Start()
	start := time.Now()
	th.Shutdown()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("shutdown took %s", d)
	}
	if th.IsRunning() {
		t.Fatal("still running")
	}
}

func TestPartitionStatesOrder(t *testing.T) {
	p := newPartitionStates()
	a, b, c := common.TopicPartition{Topic: "a"}, common.TopicPartition{Topic: "b"}, common.TopicPartition{Topic: "c"}
	for _, tp := range []common.TopicPartition{a, b, c} {
		p.updateAndMoveToEnd(tp, NewPartitionFetchState(0))
	}
	for i := 0; i < 100; i++ { // many moves: compaction must keep the order right
		p.moveToEnd(a)
		p.moveToEnd(b)
		p.moveToEnd(c)
	}
	p.moveToEnd(a)
	p.remove(b)
	got := p.entries()
	if len(got) != 2 || got[0].TopicPartition != c || got[1].TopicPartition != a {
		t.Fatalf("order %v, want [c a]", got)
	}
}
