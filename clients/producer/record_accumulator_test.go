package producer

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

func quietLog() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

var (
	tp1        = common.TopicPartition{Topic: "test", Partition: 0}
	tp2        = common.TopicPartition{Topic: "test", Partition: 1}
	tp3        = common.TopicPartition{Topic: "test", Partition: 2}
	accCluster = common.NewCluster("", nodes, []common.PartitionInfo{
		{Topic: "test", Partition: 0, Leader: &node0}, {Topic: "test", Partition: 1, Leader: &node0}, {Topic: "test", Partition: 2, Leader: &node1},
	}, nil, nil)
	key   = []byte("key")
	value = []byte("value")
)

const msgSize = record.LogOverhead + 14 + 8 + 3 + 5 // magic 1 overhead 22 (incl. timestamp) + key + value

func newAcc(batchSize int, lingerMs int64, mt *common.MockTime) *RecordAccumulator {
	return NewRecordAccumulator(batchSize, 10*1024, record.NONE, lingerMs, 100, metrics.NewMetrics(nil, nil, mt, nil), mt, quietLog())
}

func readyIDs(r ReadyCheckResult) []int32 {
	var out []int32
	for _, n := range r.ReadyNodes {
		out = append(out, n.ID)
	}
	return out
}

// Kafka's RecordAccumulatorTest.testFull: a partition is ready once its first batch is full.
func TestAccumulatorFull(t *testing.T) {
	mt := common.NewMockTime(0)
	acc := newAcc(1024, 10, mt)
	appends := 1024 / msgSize
	for i := 0; i < appends; i++ {
		if _, err := acc.Append(tp1, 0, key, value, nil, 0); err != nil {
			t.Fatal(err)
		}
		if got := readyIDs(acc.Ready(accCluster, mt.Milliseconds())); len(got) != 0 {
			t.Fatalf("ready after %d appends: %v", i+1, got)
		}
	}
	if _, err := acc.Append(tp1, 0, key, value, nil, 0); err != nil {
		t.Fatal(err)
	}
	if got := readyIDs(acc.Ready(accCluster, mt.Milliseconds())); len(got) != 1 || got[0] != 0 {
		t.Fatalf("full batch not ready: %v", got)
	}
	batches := acc.Drain(accCluster, []common.Node{node0}, 1<<20, 0)[0]
	if len(batches) != 1 || batches[0].recordCount != appends {
		t.Fatalf("drained %v", batches)
	}
	n := 0
	for e, err := range batches[0].records().DeepEntries() {
		if err != nil || string(e.Record.Key()) != "key" || string(e.Record.Value()) != "value" || e.Offset != int64(n) {
			t.Fatalf("record %d: %v %v", n, e, err)
		}
		n++
	}
	if n != appends {
		t.Fatalf("%d records in the batch", n)
	}
}

// Kafka's testAppendLarge and testLinger: a record above batch.size gets a batch of its own; a
// lone record is ready after linger.ms.
func TestAccumulatorLingerAndLarge(t *testing.T) {
	mt := common.NewMockTime(0)
	acc := newAcc(1024, 10, mt)
	if _, err := acc.Append(tp1, 0, key, make([]byte, 2*1024), nil, 0); err != nil {
		t.Fatal(err)
	}
	if got := readyIDs(acc.Ready(accCluster, mt.Milliseconds())); len(got) != 1 {
		t.Fatalf("large record not ready: %v", got)
	}
	acc.Drain(accCluster, []common.Node{node0}, 1<<20, 0)
	acc.Append(tp3, 0, key, value, nil, 0) //nolint:errcheck
	r := acc.Ready(accCluster, mt.Milliseconds())
	if len(r.ReadyNodes) != 0 || r.NextReadyCheckDelayMs != 10 {
		t.Fatalf("before linger: %v %d", readyIDs(r), r.NextReadyCheckDelayMs)
	}
	mt.Sleep(10 * time.Millisecond)
	if got := readyIDs(acc.Ready(accCluster, mt.Milliseconds())); len(got) != 1 || got[0] != 1 {
		t.Fatalf("after linger: %v", got)
	}
}

// Kafka's testPartialDrain: a drain stops at max.request.size but always takes one batch.
func TestAccumulatorPartialDrain(t *testing.T) {
	mt := common.NewMockTime(0)
	acc := newAcc(1024, 10, mt)
	for _, tp := range []common.TopicPartition{tp1, tp2} {
		for i := 0; i < 1024/msgSize+1; i++ {
			acc.Append(tp, 0, key, value, nil, 0) //nolint:errcheck
		}
	}
	batches := acc.Drain(accCluster, []common.Node{node0}, 1024, 0)[0]
	if len(batches) != 1 {
		t.Fatalf("drained %d batches with a 1024-byte limit", len(batches))
	}
	// The next drain starts after the partition drained last: no starvation.
	next := acc.Drain(accCluster, []common.Node{node0}, 1024, 0)[0]
	if len(next) != 1 || next[0].topicPartition == batches[0].topicPartition {
		t.Fatalf("second drain took %v after %v", next, batches)
	}
}

// Kafka's testExpiredBatches and testMutedPartitions: a batch waiting longer than
// request.timeout.ms fails with Kafka's message, except in a muted partition.
func TestAccumulatorExpiryAndMute(t *testing.T) {
	mt := common.NewMockTime(0)
	acc := newAcc(1024, 10, mt)
	var cbErr error
	fut, err := acc.Append(tp1, 0, key, value, func(_ *RecordMetadata, err error) { cbErr = err }, 0)
	if err != nil {
		t.Fatal(err)
	}
	acc.MutePartition(tp1)
	mt.Sleep(200 * time.Millisecond)
	if exp := acc.AbortExpiredBatches(100, mt.Milliseconds()); len(exp) != 0 {
		t.Fatal("a muted partition's batch expired")
	}
	if r := acc.Ready(accCluster, mt.Milliseconds()); len(r.ReadyNodes) != 0 {
		t.Fatal("a muted partition is ready")
	}
	acc.UnmutePartition(tp1)
	exp := acc.AbortExpiredBatches(100, mt.Milliseconds())
	if len(exp) != 1 || cbErr == nil || !errors.Is(cbErr, protocol.ErrRequestTimedOut) ||
		!strings.Contains(cbErr.Error(), "Expiring 1 record(s) for test-0: 190 ms has passed since batch creation plus linger time") {
		t.Fatalf("expired %d, callback %v", len(exp), cbErr)
	}
	if _, err := fut.Future.Get(t.Context()); err != cbErr {
		t.Fatalf("future: %v", err)
	}
	if acc.BufferPool().AvailableMemory() != 10*1024 {
		t.Fatal("expired batch's buffer not returned")
	}
}

// Kafka's testRetryBackoff: a re-enqueued batch is not ready before retry.backoff.ms.
func TestAccumulatorRetryBackoff(t *testing.T) {
	mt := common.NewMockTime(0)
	acc := newAcc(1024, 0, mt)
	acc.Append(tp1, 0, key, value, nil, 0) //nolint:errcheck
	b := acc.Drain(accCluster, []common.Node{node0}, 1<<20, mt.Milliseconds())[0][0]
	acc.Reenqueue(b, mt.Milliseconds())
	if r := acc.Ready(accCluster, mt.Milliseconds()+50); len(r.ReadyNodes) != 0 || r.NextReadyCheckDelayMs != 50 {
		t.Fatalf("ready during backoff: %v %d", readyIDs(r), r.NextReadyCheckDelayMs)
	}
	if got := acc.Drain(accCluster, []common.Node{node0}, 1<<20, mt.Milliseconds()+50)[0]; len(got) != 0 {
		t.Fatal("drained during backoff")
	}
	if r := acc.Ready(accCluster, mt.Milliseconds()+101); len(r.ReadyNodes) != 1 {
		t.Fatal("not ready after backoff")
	}
}

// Kafka's testAbortIncompleteBatches and testFlush: a forced close fails every batch with
// "Producer is closed forcefully."; Close refuses appends; appends race with aborts safely.
func TestAccumulatorAbortAndClose(t *testing.T) {
	mt := common.NewMockTime(0)
	acc := NewRecordAccumulator(1024, 64*1024, record.NONE, 10, 100, nil, mt, quietLog())
	var mu sync.Mutex
	failed, appended := 0, 0
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			tp := common.TopicPartition{Topic: "test", Partition: int32(g % 3)}
			for i := 0; i < 100; i++ {
				_, err := acc.Append(tp, 0, key, value, func(_ *RecordMetadata, err error) {
					mu.Lock()
					if err != nil && err.Error() == "Producer is closed forcefully." {
						failed++
					}
					mu.Unlock()
				}, 0)
				mu.Lock()
				if err == nil {
					appended++
				} else {
					t.Error(err)
				}
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	acc.BeginFlush()
	if r := acc.Ready(accCluster, mt.Milliseconds()); len(r.ReadyNodes) != 2 {
		t.Fatalf("flushing: every leader is ready, got %v", readyIDs(r))
	}
	acc.Close()
	if _, err := acc.Append(tp1, 0, key, value, nil, 0); !errors.Is(err, ErrProducerClosed) {
		t.Fatalf("append after close: %v", err)
	}
	acc.AbortIncompleteBatches()
	acc.AwaitFlushCompletion()
	if appended != 400 || failed != appended || acc.HasUnsent() || acc.BufferPool().AvailableMemory() != 64*1024 {
		t.Fatalf("aborted %d of %d; unsent %v; memory %d", failed, appended, acc.HasUnsent(), acc.BufferPool().AvailableMemory())
	}
}
