package purgatory

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

type benchOp struct {
	DelayedOperation
	completable atomic.Bool
}

func (o *benchOp) TryComplete() bool {
	if o.completable.Load() {
		return o.ForceComplete()
	}
	return false
}
func (*benchOp) OnComplete()   {}
func (*benchOp) OnExpiration() {}

func benchKeys(n int) []DelayedOperationKey {
	ks := make([]DelayedOperationKey, n)
	for i := range ks {
		ks[i] = TopicPartitionOperationKey{Topic: fmt.Sprintf("topic-%d", i%50), Partition: int32(i)}
	}
	return ks
}

func newBenchPurgatory(b *testing.B) *DelayedOperationPurgatory[*benchOp] {
	p := NewDelayedOperationPurgatory[*benchOp]("bench", 0, 1000, common.SystemTime{}, nil)
	b.Cleanup(func() {
		if err := p.Shutdown(context.Background()); err != nil {
			b.Error(err)
		}
	})
	return p
}

func reportOpsPerSec(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "ops/s")
	}
}

// BenchmarkPurgatoryTryCompleteElseWatch measures watching a not-yet-completable operation under
// one key and putting it into the timer (30 s timeout, so nothing expires meanwhile).
func BenchmarkPurgatoryTryCompleteElseWatch(b *testing.B) {
	p := newBenchPurgatory(b)
	keys := benchKeys(1000)
	ops := make([]benchOp, b.N)
	for i := range ops {
		ops[i].Init(30_000, &ops[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range ops {
		p.TryCompleteElseWatch(&ops[i], keys[i%len(keys):i%len(keys)+1])
	}
	b.StopTimer()
	reportOpsPerSec(b)
	for i := range ops {
		ops[i].ForceComplete()
	}
}

// BenchmarkPurgatoryCheckAndComplete measures completing watched operations through their key:
// b.N operations are watched over 1000 keys, then every key is checked.
func BenchmarkPurgatoryCheckAndComplete(b *testing.B) {
	p := newBenchPurgatory(b)
	keys := benchKeys(1000)
	ops := make([]benchOp, b.N)
	for i := range ops {
		ops[i].Init(30_000, &ops[i])
		p.TryCompleteElseWatch(&ops[i], keys[i%len(keys):i%len(keys)+1])
		ops[i].completable.Store(true)
	}
	b.ReportAllocs()
	b.ResetTimer()
	completed := 0
	for _, k := range keys {
		completed += p.CheckAndComplete(k)
	}
	b.StopTimer()
	if completed != b.N {
		b.Fatalf("completed %d of %d", completed, b.N)
	}
	reportOpsPerSec(b)
}

// BenchmarkPurgatoryTryCompleteElseWatchAndCheckAndComplete is one operation's whole life when it
// is answered before its timeout: watch it (two keys), then complete it via one key, from
// GOMAXPROCS goroutines at once.
func BenchmarkPurgatoryTryCompleteElseWatchAndCheckAndComplete(b *testing.B) {
	p := newBenchPurgatory(b)
	keys := benchKeys(1000)
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(next.Add(1))
			op := &benchOp{}
			op.Init(30_000, op)
			k1, k2 := keys[i%len(keys)], keys[(i*31+7)%len(keys)]
			p.TryCompleteElseWatch(op, []DelayedOperationKey{k1, k2})
			op.completable.Store(true)
			p.CheckAndComplete(k1)
		}
	})
	b.StopTimer()
	reportOpsPerSec(b)
}
