package zkclient

import (
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

// TestZkEventThreadOrderAndNoDrops queues many events from several goroutines
// while the consumer is slow: every event runs, one at a time, and each
// producer's events keep their order.
func TestZkEventThreadOrderAndNoDrops(t *testing.T) {
	th := newZkEventThread(logrus.NewEntry(logrus.New()), nil)
	const producers, perProducer = 4, 500
	var mu sync.Mutex
	seen := make([][]int, producers)
	running := 0
	var wg sync.WaitGroup
	done := make(chan struct{})
	total := 0
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perProducer; i++ {
				th.send("ev", func() {
					mu.Lock()
					running++
					if running != 1 {
						t.Error("events overlap")
					}
					seen[p] = append(seen[p], i)
					total++
					if total == producers*perProducer {
						close(done)
					}
					running--
					mu.Unlock()
				})
			}
		}()
	}
	wg.Wait()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("events lost")
	}
	th.shutdown()
	th.shutdown() // idempotent
	for p, s := range seen {
		for i, v := range s {
			if v != i {
				t.Fatalf("producer %d: event %d arrived as %d", p, v, i)
			}
		}
	}
	th.send("after", func() { t.Error("event ran after shutdown") })
	time.Sleep(10 * time.Millisecond)
}
