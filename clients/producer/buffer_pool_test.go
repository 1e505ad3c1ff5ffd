package producer

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Kafka's BufferPoolTest.testSimple: poolable buffers come back through the free list.
func TestBufferPoolSimple(t *testing.T) {
	pool := NewBufferPool(2*1024, 1024, metrics.NewMetrics(nil, nil, nil, nil), common.SystemTime{}, "g")
	b, err := pool.Allocate(1024, 0)
	if err != nil || len(b) != 1024 {
		t.Fatal(err)
	}
	if pool.UnallocatedMemory() != 1024 || pool.AvailableMemory() != 1024 {
		t.Fatalf("after allocate: %d %d", pool.UnallocatedMemory(), pool.AvailableMemory())
	}
	b[0] = 1
	pool.Deallocate(b, 1024)
	if pool.AvailableMemory() != 2048 || pool.UnallocatedMemory() != 1024 {
		t.Fatalf("after deallocate: %d %d", pool.UnallocatedMemory(), pool.AvailableMemory())
	}
	b2, _ := pool.Allocate(1024, 0)
	if &b2[0] != &b[0] {
		t.Fatal("the pooled buffer was not reused")
	}
	odd, _ := pool.Allocate(500, 0) // takes from unallocated memory
	pool.Deallocate(odd, 500)
	if pool.UnallocatedMemory() != 1024 {
		t.Fatalf("odd size: %d", pool.UnallocatedMemory())
	}
	if _, err := pool.Allocate(4096, 0); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("over the limit: %v", err)
	}
}

// An allocation blocks until memory is freed, and times out with Kafka's message when none is;
// memory gathered before the timeout is not lost (a fix Kafka made after 0.10.2).
func TestBufferPoolBlocking(t *testing.T) {
	pool := NewBufferPool(1024, 512, nil, common.SystemTime{}, "g")
	a, _ := pool.Allocate(512, 0)
	b, _ := pool.Allocate(512, 0)
	var wg sync.WaitGroup
	wg.Add(1)
	var got []byte
	var gerr error
	go func() {
		defer wg.Done()
		got, gerr = pool.Allocate(1024, 10_000)
	}()
	for pool.Queued() == 0 {
		time.Sleep(time.Millisecond)
	}
	pool.Deallocate(a, 512)
	pool.Deallocate(b, 512)
	wg.Wait()
	if gerr != nil || len(got) != 1024 || pool.AvailableMemory() != 0 {
		t.Fatalf("blocked allocation: %v %d", gerr, pool.AvailableMemory())
	}
	_, err := pool.Allocate(10, 50)
	if !errors.Is(err, protocol.ErrRequestTimedOut) || !strings.Contains(err.Error(), "Failed to allocate memory within the configured max blocking time 50 ms.") {
		t.Fatalf("timeout: %v", err)
	}
	pool.Deallocate(got, 1024)
	half, _ := pool.Allocate(512, 0)
	_, err = pool.Allocate(1024, 30) // gathers 512, then times out: the 512 goes back
	if err == nil || pool.UnallocatedMemory()+int64(len(pool.free)*512) != 512 {
		t.Fatalf("partial allocation leaked: %v %d", err, pool.AvailableMemory())
	}
	pool.Deallocate(half, 512)
	if pool.AvailableMemory() != 1024 || pool.Queued() != 0 {
		t.Fatalf("final state %d %d", pool.AvailableMemory(), pool.Queued())
	}
}

// Long.MAX_VALUE milliseconds (MirrorMaker's max.block.ms) waits for memory rather than
// overflowing into an immediate timeout.
func TestBufferPoolBlocksForLongMaxValue(t *testing.T) {
	pool := NewBufferPool(1024, 1024, metrics.NewMetrics(nil, nil, nil, nil), common.SystemTime{}, "g")
	b, err := pool.Allocate(1024, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := pool.Allocate(1024, math.MaxInt64)
		got <- err
	}()
	for pool.Queued() == 0 {
		time.Sleep(time.Millisecond)
	}
	pool.Deallocate(b, 1024)
	if err := <-got; err != nil {
		t.Fatalf("allocate with Long.MAX_VALUE ms: %v", err)
	}
	if d := clients.MillisToDuration(1500); d != 1500*time.Millisecond {
		t.Fatalf("1500 ms = %v", d)
	}
}
