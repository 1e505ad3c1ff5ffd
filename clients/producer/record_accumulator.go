package producer

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/record"
)

// ErrProducerClosed is Send's error once the producer is closing.
//
// Kafka 0.10.2: the IllegalStateException "Cannot send after the producer is closed."
var ErrProducerClosed = errors.New("Cannot send after the producer is closed.")

// errForcedClose fails the batches left when Close's timeout runs out.
var errForcedClose = errors.New("Producer is closed forcefully.")

// partitionDeque is one partition's batches, oldest first, under its own lock.
type partitionDeque struct {
	mu      sync.Mutex
	batches []*RecordBatch
}

func (d *partitionDeque) peekFirst() *RecordBatch {
	if len(d.batches) == 0 {
		return nil
	}
	return d.batches[0]
}

func (d *partitionDeque) peekLast() *RecordBatch {
	if len(d.batches) == 0 {
		return nil
	}
	return d.batches[len(d.batches)-1]
}

func (d *partitionDeque) pollFirst() *RecordBatch {
	b := d.batches[0]
	d.batches[0] = nil
	d.batches = d.batches[1:]
	return b
}

func (d *partitionDeque) remove(b *RecordBatch) {
	for i, x := range d.batches {
		if x == b {
			d.batches = append(d.batches[:i:i], d.batches[i+1:]...)
			return
		}
	}
}

// RecordAppendResult is what Append tells the caller: the record's future, whether its batch
// is full (or a later one exists) and whether a new batch was started; both wake the Sender.
//
// Kafka 0.10.2: RecordAccumulator.RecordAppendResult.
type RecordAppendResult struct {
	Future          *FutureRecordMetadata
	BatchIsFull     bool
	NewBatchCreated bool
}

// ReadyCheckResult lists the leaders with a sendable batch, how long until the next batch may
// become sendable, and the topics with data but no known leader.
//
// Kafka 0.10.2: RecordAccumulator.ReadyCheckResult.
type ReadyCheckResult struct {
	ReadyNodes            []common.Node
	NextReadyCheckDelayMs int64
	UnknownLeaderTopics   map[string]struct{}
}

// RecordAccumulator gathers records into per-partition batches (batch.size bytes) for the
// Sender: Append adds a record (allocating a batch from the BufferPool when needed), Ready finds
// the leaders with a batch to send (full, lingered linger.ms, backed off after a retry, memory
// exhausted, flushing or closing), Drain takes up to max.request.size of batches per leader,
// round robin over its partitions. A muted partition (a batch in flight with
// max.in.flight.requests.per.connection=1) is neither ready nor drained nor expired, which keeps
// records in order across retries.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.RecordAccumulator.
//
// Locks: mu (the partition map) is taken before a deque's lock; a deque's lock before the
// BufferPool's and incomplete's. muted and drainIndex belong to the Sender's goroutine.
type RecordAccumulator struct {
	closed            atomic.Bool
	flushesInProgress atomic.Int32
	appendsInProgress atomic.Int32
	batchSize         int
	compression       record.CompressionType
	lingerMs          int64
	retryBackoffMs    int64
	free              *BufferPool
	time              common.Time
	log               *logrus.Entry
	mu                sync.RWMutex
	batches           map[common.TopicPartition]*partitionDeque
	incomplete        incompleteRecordBatches
	muted             map[common.TopicPartition]struct{}
	inCallback        atomic.Bool // a user callback is running (on the Sender's goroutine)
	drainIndex        int
}

// NewRecordAccumulator builds an accumulator and its BufferPool, and registers their metrics in
// producer-metrics.
func NewRecordAccumulator(batchSize int, totalSize int64, compression record.CompressionType, lingerMs, retryBackoffMs int64,
	m *metrics.Metrics, t common.Time, log *logrus.Entry) *RecordAccumulator {
	const grp = "producer-metrics"
	a := &RecordAccumulator{batchSize: batchSize, compression: compression, lingerMs: lingerMs, retryBackoffMs: retryBackoffMs,
		free: NewBufferPool(totalSize, batchSize, m, t, grp), time: t,
		log:     log.WithField("logger", "org.apache.kafka.clients.producer.internals.RecordAccumulator"),
		batches: map[common.TopicPartition]*partitionDeque{}, incomplete: incompleteRecordBatches{set: map[*RecordBatch]struct{}{}},
		muted: map[common.TopicPartition]struct{}{}}
	if m != nil {
		gauge := func(name, desc string, f func() float64) {
			_ = m.AddMetric(m.MetricName(name, grp, desc, nil), nil, metrics.MeasurableFunc(func(*metrics.MetricConfig, int64) float64 { return f() }))
		}
		gauge("waiting-threads", "The number of user threads blocked waiting for buffer memory to enqueue their records",
			func() float64 { return float64(a.free.Queued()) })
		gauge("buffer-total-bytes", "The maximum amount of buffer memory the client can use (whether or not it is currently used).",
			func() float64 { return float64(a.free.TotalMemory()) })
		gauge("buffer-available-bytes", "The total amount of buffer memory that is not being used (either unallocated or in the free list).",
			func() float64 { return float64(a.free.AvailableMemory()) })
		s := m.Sensor("buffer-exhausted-records")
		_ = s.Add(m.MetricName("buffer-exhausted-rate", grp, "The average per-second number of record sends that are dropped due to buffer exhaustion", nil),
			metrics.NewRate(), nil)
	}
	return a
}

// BufferPool is the accumulator's memory pool.
func (a *RecordAccumulator) BufferPool() *BufferPool { return a.free }

// Append adds a record to tp's last batch, or to a new one (waiting up to maxTimeToBlockMs for
// memory).
//
// Kafka 0.10.2: RecordAccumulator.append.
func (a *RecordAccumulator) Append(tp common.TopicPartition, timestamp int64, key, value []byte, callback Callback, maxTimeToBlockMs int64) (RecordAppendResult, error) {
	a.appendsInProgress.Add(1)
	defer a.appendsInProgress.Add(-1)
	nowMs := a.time.Milliseconds()
	dq := a.getOrCreateDeque(tp)
	dq.mu.Lock()
	if a.closed.Load() {
		dq.mu.Unlock()
		return RecordAppendResult{}, ErrProducerClosed
	}
	res, ok, err := a.tryAppend(timestamp, key, value, callback, dq, nowMs)
	dq.mu.Unlock()
	if ok || err != nil {
		return res, err
	}
	size := max(a.batchSize, record.LogOverhead+record.RecordSize(record.MagicValueV1, key, value))
	a.log.Tracef("Allocating a new %d byte message buffer for topic %s partition %d", size, tp.Topic, tp.Partition)
	buf, err := a.free.Allocate(size, maxTimeToBlockMs)
	if err != nil {
		return RecordAppendResult{}, err
	}
	dq.mu.Lock()
	defer dq.mu.Unlock()
	if a.closed.Load() {
		a.free.Deallocate(buf, size)
		return RecordAppendResult{}, ErrProducerClosed
	}
	nowMs = a.time.Milliseconds()
	if res, ok, err := a.tryAppend(timestamp, key, value, callback, dq, nowMs); ok || err != nil {
		a.free.Deallocate(buf, size) // somebody else started a batch meanwhile
		return res, err
	}
	builder := record.NewMemoryRecordsBuilderWithBuffer(buf, record.MagicValueV1, a.compression, record.CreateTime, 0, -1, a.batchSize)
	recordSize := record.LogOverhead + record.RecordSize(record.MagicValueV1, key, value)
	batch := newRecordBatch(tp, builder, buf, nowMs, a.batchSize/recordSize+1)
	future, err := batch.tryAppend(timestamp, key, value, callback, nowMs)
	if err != nil || future == nil {
		a.free.Deallocate(buf, size)
		if err == nil {
			err = errors.New("a new batch had no room for its first record")
		}
		return RecordAppendResult{}, err
	}
	dq.batches = append(dq.batches, batch)
	a.incomplete.add(batch)
	return RecordAppendResult{Future: future, BatchIsFull: len(dq.batches) > 1 || batch.isFull(), NewBatchCreated: true}, nil
}

// tryAppend appends to the last batch of dq (caller holds dq.mu); ok is false when there is
// none or it is full (then it is closed).
func (a *RecordAccumulator) tryAppend(timestamp int64, key, value []byte, callback Callback, dq *partitionDeque, nowMs int64) (RecordAppendResult, bool, error) {
	last := dq.peekLast()
	if last == nil {
		return RecordAppendResult{}, false, nil
	}
	future, err := last.tryAppend(timestamp, key, value, callback, nowMs)
	if err != nil {
		return RecordAppendResult{}, false, err
	}
	if future == nil {
		last.close()
		return RecordAppendResult{}, false, nil
	}
	return RecordAppendResult{Future: future, BatchIsFull: len(dq.batches) > 1 || last.isFull()}, true, nil
}

// deques is a snapshot of the partition map.
func (a *RecordAccumulator) deques() map[common.TopicPartition]*partitionDeque {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make(map[common.TopicPartition]*partitionDeque, len(a.batches))
	for tp, d := range a.batches {
		out[tp] = d
	}
	return out
}

// AbortExpiredBatches fails the batches that waited longer than request.timeout.ms in the
// accumulator (only in partitions without a batch in flight) and returns them.
//
// Kafka 0.10.2: RecordAccumulator.abortExpiredBatches.
func (a *RecordAccumulator) AbortExpiredBatches(requestTimeoutMs int32, nowMs int64) []*RecordBatch {
	var expired []*RecordBatch
	for tp, dq := range a.deques() {
		if _, m := a.muted[tp]; m {
			continue
		}
		dq.mu.Lock()
		last := dq.peekLast()
		for len(dq.batches) > 0 {
			b := dq.batches[0]
			isFull := b != last || b.isFull()
			if !b.maybeExpire(requestTimeoutMs, a.retryBackoffMs, nowMs, a.lingerMs, isFull) {
				break
			}
			expired = append(expired, dq.pollFirst())
		}
		dq.mu.Unlock()
	}
	if len(expired) > 0 {
		a.log.Tracef("Expired %d batches in accumulator", len(expired))
		for _, b := range expired {
			b.expirationDone(a.log, &a.inCallback)
			a.Deallocate(b)
		}
	}
	return expired
}

// Reenqueue puts a batch that failed with a retriable error back at the head of its deque.
//
// Kafka 0.10.2: RecordAccumulator.reenqueue.
func (a *RecordAccumulator) Reenqueue(b *RecordBatch, nowMs int64) {
	b.attempts++
	b.lastAttemptMs = nowMs
	b.lastAppendTime = nowMs
	b.setRetry()
	dq := a.getOrCreateDeque(b.topicPartition)
	dq.mu.Lock()
	dq.batches = append([]*RecordBatch{b}, dq.batches...)
	dq.mu.Unlock()
}

// Ready finds the leaders with a sendable batch.
//
// Kafka 0.10.2: RecordAccumulator.ready.
func (a *RecordAccumulator) Ready(cluster *common.Cluster, nowMs int64) ReadyCheckResult {
	res := ReadyCheckResult{NextReadyCheckDelayMs: math.MaxInt64}
	ready := map[int32]bool{}
	exhausted := a.free.Queued() > 0
	for tp, dq := range a.deques() {
		leader := cluster.LeaderFor(tp)
		dq.mu.Lock()
		switch {
		case leader == nil && len(dq.batches) > 0:
			if res.UnknownLeaderTopics == nil {
				res.UnknownLeaderTopics = map[string]struct{}{}
			}
			res.UnknownLeaderTopics[tp.Topic] = struct{}{}
		case leader != nil && !ready[leader.ID]:
			if _, m := a.muted[tp]; m {
				break
			}
			b := dq.peekFirst()
			if b == nil {
				break
			}
			backingOff := b.attempts > 0 && b.lastAttemptMs+a.retryBackoffMs > nowMs
			waited := nowMs - b.lastAttemptMs
			timeToWait := a.lingerMs
			if backingOff {
				timeToWait = a.retryBackoffMs
			}
			timeLeft := max(timeToWait-waited, 0)
			full := len(dq.batches) > 1 || b.isFull()
			expired := waited >= timeToWait
			sendable := full || expired || exhausted || a.closed.Load() || a.flushInProgress()
			if sendable && !backingOff {
				ready[leader.ID] = true
				res.ReadyNodes = append(res.ReadyNodes, *leader)
			} else {
				res.NextReadyCheckDelayMs = min(res.NextReadyCheckDelayMs, timeLeft)
			}
		}
		dq.mu.Unlock()
	}
	return res
}

// HasUnsent reports a batch waiting in any partition.
func (a *RecordAccumulator) HasUnsent() bool {
	for _, dq := range a.deques() {
		dq.mu.Lock()
		n := len(dq.batches)
		dq.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

// Drain takes, for each node, the first batch of each of its partitions (not muted, not
// backing off) up to maxSize bytes, starting after where the last drain stopped so that no
// partition starves. The batches are closed (compressed) here.
//
// Kafka 0.10.2: RecordAccumulator.drain.
func (a *RecordAccumulator) Drain(cluster *common.Cluster, nodes []common.Node, maxSize int, nowMs int64) map[int32][]*RecordBatch {
	if len(nodes) == 0 {
		return nil
	}
	out := make(map[int32][]*RecordBatch, len(nodes))
	for _, node := range nodes {
		parts := cluster.PartitionsForNode(node.ID)
		if len(parts) == 0 {
			continue
		}
		size := 0
		var ready []*RecordBatch
		a.drainIndex %= len(parts)
		start := a.drainIndex
		for {
			p := parts[a.drainIndex]
			tp := common.TopicPartition{Topic: p.Topic, Partition: p.Partition}
			if _, m := a.muted[tp]; !m {
				if dq := a.getDeque(tp); dq != nil && a.drainFirst(dq, &ready, &size, maxSize, nowMs) {
					break
				}
			}
			a.drainIndex = (a.drainIndex + 1) % len(parts)
			if a.drainIndex == start {
				break
			}
		}
		out[node.ID] = ready
	}
	return out
}

// drainFirst moves dq's first batch into ready if it fits; true means the request is full.
func (a *RecordAccumulator) drainFirst(dq *partitionDeque, ready *[]*RecordBatch, size *int, maxSize int, nowMs int64) bool {
	dq.mu.Lock()
	defer dq.mu.Unlock()
	first := dq.peekFirst()
	if first == nil {
		return false
	}
	if first.attempts > 0 && first.lastAttemptMs+a.retryBackoffMs > nowMs {
		return false
	}
	if *size+first.sizeInBytes() > maxSize && len(*ready) > 0 {
		// A single batch above maxSize (compression estimates) is still sent on its own.
		return true
	}
	b := dq.pollFirst()
	b.close()
	*size += b.sizeInBytes()
	*ready = append(*ready, b)
	b.drainedMs = nowMs
	return false
}

func (a *RecordAccumulator) getDeque(tp common.TopicPartition) *partitionDeque {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.batches[tp]
}

func (a *RecordAccumulator) getOrCreateDeque(tp common.TopicPartition) *partitionDeque {
	if d := a.getDeque(tp); d != nil {
		return d
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if d := a.batches[tp]; d != nil {
		return d
	}
	d := &partitionDeque{}
	a.batches[tp] = d
	return d
}

// Deallocate forgets a completed batch and returns its buffer to the pool.
func (a *RecordAccumulator) Deallocate(b *RecordBatch) {
	a.incomplete.remove(b)
	a.free.Deallocate(b.buffer, b.initialSize)
	b.buffer = nil
}

func (a *RecordAccumulator) flushInProgress() bool { return a.flushesInProgress.Load() > 0 }

// BeginFlush makes every batch sendable at once until AwaitFlushCompletion returns.
func (a *RecordAccumulator) BeginFlush() { a.flushesInProgress.Add(1) }

// AwaitFlushCompletion waits for every batch incomplete when it was called.
//
// Kafka 0.10.2: RecordAccumulator.awaitFlushCompletion.
func (a *RecordAccumulator) AwaitFlushCompletion() {
	defer a.flushesInProgress.Add(-1)
	for _, b := range a.incomplete.all() {
		<-b.produceFuture.done
	}
}

// AbortIncompleteBatches fails every batch not yet completed (a forced close), until no
// append is in progress.
//
// Kafka 0.10.2: RecordAccumulator.abortIncompleteBatches.
func (a *RecordAccumulator) AbortIncompleteBatches() {
	for {
		a.abortBatches()
		if a.appendsInProgress.Load() == 0 {
			break
		}
	}
	a.abortBatches()
	a.mu.Lock()
	a.batches = map[common.TopicPartition]*partitionDeque{}
	a.mu.Unlock()
}

func (a *RecordAccumulator) abortBatches() {
	for _, b := range a.incomplete.all() {
		if dq := a.getDeque(b.topicPartition); dq != nil {
			dq.mu.Lock()
			b.close()
			dq.remove(b)
			dq.mu.Unlock()
		}
		b.done(-1, record.NoTimestamp, errForcedClose, a.log, &a.inCallback)
		a.Deallocate(b)
	}
}

// MutePartition stops tp from being drained (its batch is in flight).
func (a *RecordAccumulator) MutePartition(tp common.TopicPartition) { a.muted[tp] = struct{}{} }

// UnmutePartition lets tp be drained again.
func (a *RecordAccumulator) UnmutePartition(tp common.TopicPartition) { delete(a.muted, tp) }

// Close refuses further appends.
func (a *RecordAccumulator) Close() { a.closed.Store(true) }

// incompleteRecordBatches are the batches appended to and not yet completed (Flush waits for them).
//
// Kafka 0.10.2: RecordAccumulator.IncompleteRecordBatches.
type incompleteRecordBatches struct {
	mu  sync.Mutex
	set map[*RecordBatch]struct{}
}

func (s *incompleteRecordBatches) add(b *RecordBatch) {
	s.mu.Lock()
	s.set[b] = struct{}{}
	s.mu.Unlock()
}

func (s *incompleteRecordBatches) remove(b *RecordBatch) {
	s.mu.Lock()
	delete(s.set, b)
	s.mu.Unlock()
}

func (s *incompleteRecordBatches) all() []*RecordBatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*RecordBatch, 0, len(s.set))
	for b := range s.set {
		out = append(out, b)
	}
	return out
}
