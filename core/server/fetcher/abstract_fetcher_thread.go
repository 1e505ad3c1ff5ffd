package fetcher

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
)

// ErrStalePartitionData is returned (wrapped) by ProcessPartitionData for data that must not be
// appended because the partition changed hands while the fetch was in flight: the data is
// dropped and the partition treated as failed (it is about to be removed or re-added).
var ErrStalePartitionData = errors.New("stale partition data")

// FetchRequest is a request a concrete fetcher built from the partition states.
//
// Kafka 0.10.2: kafka.server.AbstractFetcherThread.FetchRequest.
type FetchRequest interface {
	// IsEmpty reports whether no partition is in the request (all delayed, or none assigned).
	IsEmpty() bool
	// Offset is the fetch offset the request asks for tp (ok=false: tp is not in it).
	Offset(tp common.TopicPartition) (offset int64, ok bool)
}

// PartitionData is one partition of a fetch response.
//
// Kafka 0.10.2: kafka.server.AbstractFetcherThread.PartitionData.
type PartitionData interface {
	// ErrorCode is the Kafka error code of the partition (0: none).
	ErrorCode() int16
	// ToRecords is the partition's record set (never nil).
	ToRecords() *record.MemoryRecords
	// HighWatermark is the source's high watermark when it answered.
	HighWatermark() int64
}

// FetchedPartition pairs a partition with its data, in response order.
type FetchedPartition struct {
	TopicPartition common.TopicPartition
	Data           PartitionData
}

// FetcherHooks are the methods a Kafka subclass of AbstractFetcherThread overrides.
type FetcherHooks interface {
	// ProcessPartitionData stores the data fetched at fetchOffset (called with the partition
	// map lock held). An error wrapping record.ErrCorruptRecord marks the partition as failed
	// and the fetcher continues; any other error stops the fetcher, as an exception escaping
	// doWork ends Kafka's thread.
	ProcessPartitionData(tp common.TopicPartition, fetchOffset int64, data PartitionData) error
	// HandleOffsetOutOfRange finds the offset to fetch from next (called with the lock held).
	HandleOffsetOutOfRange(tp common.TopicPartition) (int64, error)
	// HandlePartitionsWithErrors deals with partitions that failed (without the lock; it may
	// call DelayPartitions).
	HandlePartitionsWithErrors(tps []common.TopicPartition)
	// BuildFetchRequest makes the request for the partitions in fetch order.
	BuildFetchRequest(states []PartitionStateEntry) FetchRequest
	// Fetch sends the request and waits for the answer; ctx is cancelled on shutdown.
	Fetch(ctx context.Context, req FetchRequest) ([]FetchedPartition, error)
}

// LogTruncationHooks are Kafka 0.11's additions to the fetcher for KIP-101: before a newly added
// partition is fetched, its log is truncated to where the source broker says the partition's
// latest local leader epoch ends. A thread uses them once IncludeLogTruncation is called.
type LogTruncationHooks interface {
	// BuildLeaderEpochRequest maps every truncating partition of states to its latest local
	// leader epoch (called with the partition map lock held).
	BuildLeaderEpochRequest(states []PartitionStateEntry) map[common.TopicPartition]int32
	// FetchEpochsFromLeader asks the source broker where each epoch ends. Every partition gets
	// an answer: on a failed exchange, an error code. Called without the lock; ctx is cancelled
	// on shutdown.
	FetchEpochsFromLeader(ctx context.Context, epochs map[common.TopicPartition]int32) map[common.TopicPartition]protocol.EpochEndOffset
	// MaybeTruncate truncates each partition's log as its answer says and returns the offsets
	// to fetch from next; the partitions whose answer is an error are returned in retry (they
	// stay truncating and are held back for the fetch back-off). An error stops the thread.
	// Called with the lock held.
	MaybeTruncate(fetched map[common.TopicPartition]protocol.EpochEndOffset) (offsets map[common.TopicPartition]int64, retry []common.TopicPartition, err error)
}

// FetcherCloser may be implemented by hooks that hold resources, such as a connection to the
// source broker: CloseFetcher runs once the loop has ended (Kafka's ReplicaFetcherThread
// overrides shutdown to close its NetworkClient).
type FetcherCloser interface {
	CloseFetcher()
}

// AbstractFetcherThread is one fetcher goroutine: it repeatedly builds a fetch request for its
// active partitions, sends it to its source broker, and hands each partition's data to the
// hooks, advancing the partition's fetch offset past what arrived.
//
// Kafka 0.10.2: kafka.server.AbstractFetcherThread (a ShutdownableThread). The condition
// variable partitionMapCond is a one-slot wake channel, since sync.Cond has no timed wait.
type AbstractFetcherThread struct {
	name           string
	clientID       string
	sourceBroker   cluster.BrokerEndPoint
	fetchBackOffMs int64
	hooks          FetcherHooks
	truncation     LogTruncationHooks // nil: 0.10.2's fetcher, no truncation phase
	time           common.Time
	logger         *logrus.Entry

	partitionMapLock sync.Mutex
	partitionStates  *partitionStates
	wake             chan struct{}
	// lags is FetcherLagStats: per partition, the source's HW minus the next offset to fetch
	// (guarded by partitionMapLock; fetcher_lag_stats.go).
	lags map[common.TopicPartition]int64
	// metrics are FetcherStats and the ConsumerLag gauges (nil: none; fetcher_lag_stats.go).
	metrics atomic.Pointer[fetcherMetrics]

	running  atomic.Bool
	started  atomic.Bool
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

// NewAbstractFetcherThread makes a fetcher that is not started yet. logger may be nil.
func NewAbstractFetcherThread(name, clientID string, sourceBroker cluster.BrokerEndPoint, fetchBackOffMs int64,
	hooks FetcherHooks, clock common.Time, logger *logrus.Entry) *AbstractFetcherThread {
	if logger == nil {
		logger = logrus.NewEntry(logrus.New())
		logger.Logger.SetLevel(logrus.PanicLevel)
	}
	if clock == nil {
		clock = common.SystemTime{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &AbstractFetcherThread{
		name: name, clientID: clientID, sourceBroker: sourceBroker, fetchBackOffMs: fetchBackOffMs,
		hooks: hooks, time: clock,
		logger:          logger.WithField("ident", fmt.Sprintf("[%s], ", name)),
		partitionStates: newPartitionStates(),
		wake:            make(chan struct{}, 1),
		ctx:             ctx, cancel: cancel,
		done: make(chan struct{}),
	}
	t.running.Store(true)
	return t
}

// IncludeLogTruncation makes every partition added from now on start in the truncating state,
// resolved through h before it is fetched (Kafka 0.11's includeLogTruncation). Call it before
// Start.
func (t *AbstractFetcherThread) IncludeLogTruncation(h LogTruncationHooks) { t.truncation = h }

// Name is the thread's name, e.g. ReplicaFetcherThread-0-1.
func (t *AbstractFetcherThread) Name() string { return t.name }

// SourceBroker is the broker this thread fetches from.
func (t *AbstractFetcherThread) SourceBroker() cluster.BrokerEndPoint { return t.sourceBroker }

// IsRunning reports whether shutdown has not been initiated.
func (t *AbstractFetcherThread) IsRunning() bool { return t.running.Load() }

// Start runs the fetch loop in its own goroutine.
func (t *AbstractFetcherThread) Start() {
	if !t.started.CompareAndSwap(false, true) {
		return
	}
	go t.run()
}

func (t *AbstractFetcherThread) run() {
	defer close(t.done)
	t.logger.Info("Starting ")
	for t.IsRunning() {
		if err := t.doWork(); err != nil {
			if t.IsRunning() {
				t.logger.WithError(err).Error("Error due to ")
			}
			break
		}
	}
	t.logger.Info("Stopped ")
}

// InitiateShutdown stops the loop without waiting (the fetch in flight is cancelled).
func (t *AbstractFetcherThread) InitiateShutdown() bool {
	if !t.running.CompareAndSwap(true, false) {
		return false
	}
	t.logger.Info("Shutting down")
	t.cancel()
	t.signal()
	return true
}

// AwaitShutdown waits until the loop has ended (at once if it never started).
func (t *AbstractFetcherThread) AwaitShutdown() {
	if t.started.Load() {
		<-t.done
	}
	t.stopOnce.Do(func() {
		if c, ok := t.hooks.(FetcherCloser); ok {
			c.CloseFetcher()
		}
		t.logger.Info("Shutdown completed")
	})
}

// Shutdown is InitiateShutdown then AwaitShutdown.
func (t *AbstractFetcherThread) Shutdown() {
	t.InitiateShutdown()
	t.AwaitShutdown()
	t.unregisterMetrics()
}

// signal wakes a loop waiting for partitions or backing off (partitionMapCond.signalAll).
func (t *AbstractFetcherThread) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// await waits up to fetchBackOffMs, or until signalled or shut down. Caller holds no lock.
func (t *AbstractFetcherThread) await() {
	if t.fetchBackOffMs <= 0 {
		return
	}
	timer := time.NewTimer(time.Duration(t.fetchBackOffMs) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-t.wake:
	case <-timer.C:
	case <-t.ctx.Done():
	}
}

func (t *AbstractFetcherThread) doWork() error {
	if t.truncation != nil {
		if err := t.maybeTruncate(); err != nil {
			return err
		}
	}
	t.partitionMapLock.Lock()
	req := t.hooks.BuildFetchRequest(t.activeEntries())
	t.partitionMapLock.Unlock()
	if req.IsEmpty() {
		t.logger.Tracef("There are no active partitions. Back off for %d ms before sending a fetch request", t.fetchBackOffMs)
		t.await()
		return nil
	}
	return t.processFetchRequest(req)
}

// maybeTruncate is Kafka 0.11's AbstractFetcherThread.maybeTruncate: ask the source where the
// truncating partitions' epochs end (without the lock: the answer may take a while), then, under
// the lock, truncate the partitions that are still truncating on this thread and mark them
// ready to fetch at the offset the hooks chose.
func (t *AbstractFetcherThread) maybeTruncate() error {
	now := t.time.Milliseconds()
	t.partitionMapLock.Lock()
	var ready []PartitionStateEntry
	for _, e := range t.partitionStates.entries() {
		if e.State.TruncatingLog && e.State.IsActive(now) {
			ready = append(ready, e)
		}
	}
	var epochs map[common.TopicPartition]int32
	if len(ready) > 0 {
		epochs = t.truncation.BuildLeaderEpochRequest(ready)
	}
	t.partitionMapLock.Unlock()
	if len(epochs) == 0 {
		return nil
	}
	fetched := t.truncation.FetchEpochsFromLeader(t.ctx, epochs)
	if !t.IsRunning() {
		return nil
	}
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	// Partitions removed (or re-added) while the answer was on its way are left alone.
	current := make(map[common.TopicPartition]protocol.EpochEndOffset, len(fetched))
	for tp, eo := range fetched {
		if s, ok := t.partitionStates.get(tp); ok && s.TruncatingLog {
			current[tp] = eo
		}
	}
	if len(current) == 0 {
		return nil
	}
	offsets, retry, err := t.truncation.MaybeTruncate(current)
	if err != nil {
		return err
	}
	for tp, offset := range offsets {
		if s, ok := t.partitionStates.get(tp); ok {
			t.partitionStates.updateAndMoveToEnd(tp, PartitionFetchState{Offset: offset, dueMs: s.dueMs})
		}
	}
	t.delayLocked(retry, t.fetchBackOffMs)
	return nil
}

// activeEntries lists every partition in order; BuildFetchRequest leaves out inactive ones.
// Caller holds partitionMapLock.
func (t *AbstractFetcherThread) activeEntries() []PartitionStateEntry {
	return t.partitionStates.entries()
}

func (t *AbstractFetcherThread) processFetchRequest(req FetchRequest) error {
	var withError []common.TopicPartition
	markError := func(tp common.TopicPartition) {
		withError = append(withError, tp)
		t.partitionStates.moveToEnd(tp)
	}
	t.logger.Tracef("Issuing to broker %d of fetch request %v", t.sourceBroker.ID, req)
	data, err := t.hooks.Fetch(t.ctx, req)
	if err != nil {
		if !t.IsRunning() {
			return nil
		}
		t.logger.WithError(err).Warnf("Error in fetch %v", req)
		t.partitionMapLock.Lock()
		for _, e := range t.partitionStates.entries() {
			markError(e.TopicPartition)
		}
		t.partitionMapLock.Unlock()
		t.await()
		data = nil
	}
	t.markRequest()
	if len(data) > 0 {
		if perr := t.processResponse(req, data, markError); perr != nil {
			return perr
		}
	}
	if len(withError) > 0 {
		t.logger.Debugf("handling partitions with error for %v", withError)
		t.hooks.HandlePartitionsWithErrors(withError)
	}
	return nil
}

func (t *AbstractFetcherThread) processResponse(req FetchRequest, data []FetchedPartition, markError func(common.TopicPartition)) error {
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	for _, fp := range data {
		tp := fp.TopicPartition
		cur, ok := t.partitionStates.get(tp)
		if !ok {
			continue // removed while the fetch was in flight
		}
		if asked, ok := req.Offset(tp); !ok || asked != cur.Offset || cur.TruncatingLog {
			continue // the offset moved meanwhile (e.g. reset), or the partition was re-added: stale data
		}
		switch code := fp.Data.ErrorCode(); code {
		case 0:
			records := fp.Data.ToRecords()
			// One walk over the headers gives both figures Kafka's loop takes from the set
			// (shallowEntries.lastOption's next offset, validBytes); the entries themselves are
			// checked by the append in ProcessPartitionData, and nothing below is used unless it
			// succeeded.
			validBytes, lastOffset := records.ShallowHeaders()
			newOffset := cur.Offset
			if validBytes > 0 {
				newOffset = lastOffset + 1
			}
			t.setLag(tp, fp.Data.HighWatermark()-newOffset)
			if err := t.hooks.ProcessPartitionData(tp, cur.Offset, fp.Data); err != nil {
				if errors.Is(err, ErrStalePartitionData) {
					t.logger.Debugf("Dropped data for partition [%s,%d] offset %d: %v", tp.Topic, tp.Partition, cur.Offset, err)
					markError(tp)
					continue
				}
				if errors.Is(err, record.ErrCorruptRecord) {
					t.logger.Errorf("Found invalid messages during fetch for partition [%s,%d] offset %d error %v",
						tp.Topic, tp.Partition, cur.Offset, err)
					markError(tp)
					continue
				}
				return fmt.Errorf("error processing data for partition [%s,%d] offset %d: %w", tp.Topic, tp.Partition, cur.Offset, err)
			}
			if validBytes > 0 {
				t.markBytes(validBytes)
				t.partitionStates.updateAndMoveToEnd(tp, NewPartitionFetchState(newOffset))
			}
		case protocol.ErrOffsetOutOfRange.Code:
			newOffset, err := t.hooks.HandleOffsetOutOfRange(tp)
			if err != nil {
				t.logger.WithError(err).Errorf("Error getting offset for partition [%s,%d] to broker %d", tp.Topic, tp.Partition, t.sourceBroker.ID)
				markError(tp)
				continue
			}
			t.partitionStates.updateAndMoveToEnd(tp, NewPartitionFetchState(newOffset))
			t.logger.Errorf("Current offset %d for partition [%s,%d] out of range; reset offset to %d",
				cur.Offset, tp.Topic, tp.Partition, newOffset)
		default:
			if t.IsRunning() {
				t.logger.Errorf("Error for partition [%s,%d] to broker %d:%v", tp.Topic, tp.Partition, t.sourceBroker.ID,
					protocol.ErrorForCode(code))
				markError(tp)
			}
		}
	}
	return nil
}

// LastNextOffset is the offset after the last complete shallow entry (ok=false: none); the
// consumer's PartitionTopicInfo moves its fetch offset with it too.
func LastNextOffset(m *record.MemoryRecords) (int64, bool) {
	var next int64
	found := false
	for e, err := range m.ShallowEntries() {
		if err != nil {
			break
		}
		next, found = e.NextOffset(), true
	}
	return next, found
}

// isOffsetInvalid: a negative offset means "ask the source where to start"
// (PartitionTopicInfo.isOffsetInvalid).
func isOffsetInvalid(offset int64) bool { return offset < 0 }

// AddPartitions starts fetching the partitions not already fetched, at the given offsets; an
// invalid (negative) offset is resolved through HandleOffsetOutOfRange.
func (t *AbstractFetcherThread) AddPartitions(partitionAndOffsets map[common.TopicPartition]int64) error {
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	for _, tp := range sortedTPs(partitionAndOffsets) {
		if t.partitionStates.contains(tp) {
			continue
		}
		offset := partitionAndOffsets[tp]
		if isOffsetInvalid(offset) {
			o, err := t.hooks.HandleOffsetOutOfRange(tp)
			if err != nil {
				return err
			}
			offset = o
		}
		t.partitionStates.updateAndMoveToEnd(tp, PartitionFetchState{Offset: offset, TruncatingLog: t.truncation != nil})
	}
	t.signal()
	return nil
}

// DelayPartitions holds the (active) partitions back for delayMs.
func (t *AbstractFetcherThread) DelayPartitions(tps []common.TopicPartition, delayMs int64) {
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	t.delayLocked(tps, delayMs)
}

// delayLocked is DelayPartitions with partitionMapLock held.
func (t *AbstractFetcherThread) delayLocked(tps []common.TopicPartition, delayMs int64) {
	now := t.time.Milliseconds()
	for _, tp := range tps {
		cur, ok := t.partitionStates.get(tp)
		if ok && cur.IsActive(now) {
			t.partitionStates.updateAndMoveToEnd(tp, PartitionFetchState{Offset: cur.Offset, TruncatingLog: cur.TruncatingLog, dueMs: now + delayMs})
		}
	}
	t.signal()
}

// RemovePartitions stops fetching the partitions. When it returns, no data of theirs is being
// or will be processed by this thread.
func (t *AbstractFetcherThread) RemovePartitions(tps map[common.TopicPartition]struct{}) {
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	for tp := range tps {
		t.partitionStates.remove(tp)
		t.removeLag(tp)
	}
}

// PartitionCount is the number of partitions this thread fetches. It does not wait for the
// partition map lock: a hook may hold that lock for long (the old consumer's
// ProcessPartitionData waits for room in its stream's queue), and the manager's idle-thread
// check must not wait behind it.
func (t *AbstractFetcherThread) PartitionCount() int { return t.partitionStates.count() }

// FetchState is the state of tp (ok=false: not fetched by this thread).
func (t *AbstractFetcherThread) FetchState(tp common.TopicPartition) (PartitionFetchState, bool) {
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	return t.partitionStates.get(tp)
}

// Context is cancelled when the thread shuts down (hooks doing I/O outside Fetch use it).
func (t *AbstractFetcherThread) Context() context.Context { return t.ctx }

// Now is the thread's clock in ms (for hooks deciding IsActive).
func (t *AbstractFetcherThread) Now() int64 { return t.time.Milliseconds() }
