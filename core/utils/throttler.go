package utils

import (
	"math"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/common"
)

// Throttler keeps a caller's rate of "observed" units (bytes, for the log cleaner) at or
// below a desired rate per second by sleeping in MaybeThrottle.
//
// Kafka 0.10.2: kafka.utils.Throttler. Every check interval it compares the rate seen since
// the last check with the desired one and, if it is too high (or too low, with throttleDown
// false), sleeps long enough to bring the period's average to the desired rate. Kafka's meter
// of the observed units is left to the caller's metrics.
type Throttler struct {
	desiredRatePerSec float64
	checkInterval     time.Duration
	throttleDown      bool
	time              common.Time

	mu            sync.Mutex
	periodStartNs int64
	observedSoFar float64
}

// NewThrottler returns a throttler. A desired rate of +Inf or <= 0 never sleeps.
func NewThrottler(desiredRatePerSec float64, checkInterval time.Duration, throttleDown bool, t common.Time) *Throttler {
	return &Throttler{desiredRatePerSec: desiredRatePerSec, checkInterval: checkInterval, throttleDown: throttleDown,
		time: t, periodStartNs: t.Nanoseconds()}
}

// MaybeThrottle records observed units and sleeps if the rate since the last check is off.
func (th *Throttler) MaybeThrottle(observed float64) {
	if th == nil || th.desiredRatePerSec <= 0 || math.IsInf(th.desiredRatePerSec, 1) || th.desiredRatePerSec == math.MaxFloat64 {
		return
	}
	th.mu.Lock()
	defer th.mu.Unlock()
	th.observedSoFar += observed
	now := th.time.Nanoseconds()
	elapsedNs := now - th.periodStartNs
	if elapsedNs > th.checkInterval.Nanoseconds() && th.observedSoFar > 0 {
		rate := th.observedSoFar * 1e9 / float64(elapsedNs)
		if th.throttleDown == (rate > th.desiredRatePerSec) {
			desiredRateMs := th.desiredRatePerSec / 1000
			sleepMs := math.Round(th.observedSoFar/desiredRateMs - float64(elapsedNs/1e6))
			if sleepMs > 0 {
				th.time.Sleep(time.Duration(sleepMs) * time.Millisecond)
			}
		}
		th.periodStartNs = now
		th.observedSoFar = 0
	}
}
