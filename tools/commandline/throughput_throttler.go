package commandline

import (
	"context"
	"time"
)

// ThroughputThrottler paces a loop to about targetThroughput things per second: ShouldThrottle
// reports when the average since start is ahead of the target, and Throttle then sleeps off
// the accumulated deficit in steps of at least 2 ms. A negative target never throttles; 0
// blocks until Wakeup (or ctx ends).
//
// Kafka 0.10.2: org.apache.kafka.tools.ThroughputThrottler (shared by ProducerPerformance and
// VerifiableProducer; here in the one package every tool may import).
type ThroughputThrottler struct {
	startMs          int64
	targetThroughput int64
	sleepTimeNs      int64
	sleepDeficitNs   int64
	wakeup           chan struct{}
	ctx              context.Context
}

// minSleepNs is the shortest sleep the throttler takes (Kafka's MIN_SLEEP_NS).
const minSleepNs = 2_000_000

// NewThroughputThrottler starts pacing at startMs; ctx ends a blocked Throttle.
func NewThroughputThrottler(ctx context.Context, targetThroughput, startMs int64) *ThroughputThrottler {
	t := &ThroughputThrottler{startMs: startMs, targetThroughput: targetThroughput, sleepTimeNs: 1<<63 - 1,
		wakeup: make(chan struct{}, 1), ctx: ctx}
	if targetThroughput > 0 {
		t.sleepTimeNs = int64(time.Second) / targetThroughput
	}
	return t
}

// ShouldThrottle reports whether amountSoFar (things sent) at sendStartMs is ahead of the target.
func (t *ThroughputThrottler) ShouldThrottle(amountSoFar, sendStartMs int64) bool {
	if t.targetThroughput < 0 {
		return false
	}
	elapsedSec := float32(sendStartMs-t.startMs) / 1000
	return elapsedSec > 0 && float32(amountSoFar)/elapsedSec > float32(t.targetThroughput)
}

// Throttle sleeps as needed.
func (t *ThroughputThrottler) Throttle() {
	if t.targetThroughput == 0 {
		select {
		case <-t.wakeup:
		case <-t.ctx.Done():
		}
		return
	}
	t.sleepDeficitNs += t.sleepTimeNs
	if t.sleepDeficitNs < minSleepNs {
		return
	}
	start := time.Now()
	timer := time.NewTimer(time.Duration(t.sleepDeficitNs))
	select {
	case <-timer.C:
		t.sleepDeficitNs = 0
	case <-t.wakeup:
		timer.Stop()
		t.sleepDeficitNs = 0
	case <-t.ctx.Done():
		timer.Stop()
		if el := time.Since(start).Nanoseconds(); el <= t.sleepDeficitNs {
			t.sleepDeficitNs -= el
		}
	}
}

// Wakeup ends a Throttle in progress.
func (t *ThroughputThrottler) Wakeup() {
	select {
	case t.wakeup <- struct{}{}:
	default:
	}
}
