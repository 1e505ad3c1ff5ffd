package commandline

import (
	"context"
	"testing"
	"time"
)

func TestThroughputThrottler(t *testing.T) {
	if NewThroughputThrottler(context.Background(), -1, 0).ShouldThrottle(1<<40, 1) {
		t.Fatal("a negative target throttles")
	}
	th := NewThroughputThrottler(context.Background(), 100, 0)
	if th.ShouldThrottle(50, 0) || !th.ShouldThrottle(101, 1000) || th.ShouldThrottle(99, 1000) {
		t.Fatal("ShouldThrottle")
	}
	// 100/s: each Throttle adds 10 ms of deficit and sleeps it off.
	start := time.Now()
	for i := 0; i < 5; i++ {
		th.Throttle()
	}
	if time.Since(start) < 40*time.Millisecond {
		t.Fatalf("5 throttles at 100/s took %v", time.Since(start))
	}
	// A target of 0 blocks until woken.
	zero := NewThroughputThrottler(context.Background(), 0, 0)
	done := make(chan struct{})
	go func() { zero.Throttle(); close(done) }()
	zero.Wakeup()
	<-done
}
