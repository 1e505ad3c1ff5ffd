package fetcher

import (
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/cluster"
)

// blockingHooks are fakeHooks whose ProcessPartitionData waits (holding the partition map
// lock) until the thread shuts down, as the old consumer's does while its stream queue is full.
type blockingHooks struct {
	*fakeHooks
	entered chan struct{}
}

func (h *blockingHooks) ProcessPartitionData(common.TopicPartition, int64, PartitionData) error {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	<-h.thread.Context().Done()
	return h.thread.Context().Err()
}

// TestPartitionCountDoesNotWaitForTheLock: while a hook holds the partition map lock, the
// thread's partition count (what ShutdownIdleFetcherThreads reads under the manager's lock) is
// still answered, and shutdown ends the blocked hook.
func TestPartitionCountDoesNotWaitForTheLock(t *testing.T) {
	fh := &fakeHooks{logEnd: map[common.TopicPartition]int64{tp0: 3}, errs: map[common.TopicPartition]int16{}}
	h := &blockingHooks{fakeHooks: fh, entered: make(chan struct{}, 1)}
	th := NewAbstractFetcherThread("BlockingFetcherThread-0-1", "fake", cluster.BrokerEndPoint{ID: 1, Host: "localhost", Port: 9092},
		10, h, common.SystemTime{}, nil)
	fh.thread = th
	th.Start()
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 0}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the hook was never called")
	}
	got := make(chan int, 1)
	go func() { got <- th.PartitionCount() }()
	select {
	case n := <-got:
		if n != 1 {
			t.Fatalf("partition count %d", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("PartitionCount waited for the partition map lock")
	}
	done := make(chan struct{})
	go func() { th.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown did not end the blocked hook")
	}
}
