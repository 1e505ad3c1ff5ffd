package metrics

import (
	"sync/atomic"
	"time"

	gometrics "github.com/rcrowley/go-metrics"
)

// Clock is the time source of a Registry's meters: a monotonic reading in nanoseconds.
// clients/common.Time (SystemTime, MockTime) satisfies it; this package cannot import it (rank 0).
type Clock interface {
	Nanoseconds() int64
}

type systemClock struct{ start time.Time }

func (c systemClock) Nanoseconds() int64 { return int64(time.Since(c.start)) }

// tickInterval is the EWMA period, as in Yammer/Dropwizard and go-metrics.
const tickInterval = int64(5 * time.Second)

// Meter counts events and gives their mean rate and one-, five- and fifteen-minute exponentially
// weighted rates, in events per rate unit.
//
// Kafka 0.10.2: com.yammer.metrics.core.Meter, as created by KafkaMetricsGroup.newMeter(name,
// eventType, timeUnit). Go difference: there is no ticking thread; the meter catches up missed
// five-second ticks whenever it is marked or read (see the package doc).
type Meter struct {
	clock     Clock
	eventType string
	unitSecs  float64 // rate unit in seconds: rates are per-second rates times this
	start     int64
	lastTick  atomic.Int64
	count     atomic.Int64
	m1        gometrics.EWMA
	m5        gometrics.EWMA
	m15       gometrics.EWMA
}

func newMeter(clock Clock, eventType string, rateUnit time.Duration) *Meter {
	if rateUnit <= 0 {
		rateUnit = time.Second
	}
	now := clock.Nanoseconds()
	m := &Meter{clock: clock, eventType: eventType, unitSecs: rateUnit.Seconds(), start: now,
		m1: gometrics.NewEWMA1(), m5: gometrics.NewEWMA5(), m15: gometrics.NewEWMA15()}
	m.lastTick.Store(now)
	return m
}

// tickIfNecessary applies every five-second tick that has elapsed since the last one. Exactly one
// caller wins the compare-and-swap and applies them; a concurrent Mark lands in the next period.
func (m *Meter) tickIfNecessary() {
	old := m.lastTick.Load()
	now := m.clock.Nanoseconds()
	age := now - old
	if age < tickInterval {
		return
	}
	if !m.lastTick.CompareAndSwap(old, now-age%tickInterval) {
		return
	}
	for n := age / tickInterval; n > 0; n-- {
		m.m1.Tick()
		m.m5.Tick()
		m.m15.Tick()
	}
}

// Mark records n events.
func (m *Meter) Mark(n int64) {
	m.tickIfNecessary()
	m.count.Add(n)
	m.m1.Update(n)
	m.m5.Update(n)
	m.m15.Update(n)
}

// EventType is what the meter counts ("messages", "bytes", "requests").
func (m *Meter) EventType() string { return m.eventType }

// Count is the number of events marked so far.
func (m *Meter) Count() int64 { return m.count.Load() }

// Rate1 is the one-minute rate (Kafka's OneMinuteRate).
func (m *Meter) Rate1() float64 { m.tickIfNecessary(); return m.m1.Rate() * m.unitSecs }

// Rate5 is the five-minute rate (FiveMinuteRate).
func (m *Meter) Rate5() float64 { m.tickIfNecessary(); return m.m5.Rate() * m.unitSecs }

// Rate15 is the fifteen-minute rate (FifteenMinuteRate).
func (m *Meter) Rate15() float64 { m.tickIfNecessary(); return m.m15.Rate() * m.unitSecs }

// RateMean is the mean rate since the meter was created (MeanRate).
func (m *Meter) RateMean() float64 {
	elapsed := m.clock.Nanoseconds() - m.start
	if elapsed <= 0 {
		return 0
	}
	return float64(m.Count()) / (float64(elapsed) / 1e9) * m.unitSecs
}

// Snapshot returns a read-only copy (go-metrics' Meter interface).
func (m *Meter) Snapshot() gometrics.Meter {
	return meterSnapshot{count: m.Count(), r1: m.Rate1(), r5: m.Rate5(), r15: m.Rate15(), mean: m.RateMean()}
}

// Stop does nothing: there is no goroutine to stop (go-metrics' Meter interface).
func (m *Meter) Stop() {}

type meterSnapshot struct {
	count             int64
	r1, r5, r15, mean float64
}

func (s meterSnapshot) Count() int64              { return s.count }
func (s meterSnapshot) Mark(int64)                {}
func (s meterSnapshot) Rate1() float64            { return s.r1 }
func (s meterSnapshot) Rate5() float64            { return s.r5 }
func (s meterSnapshot) Rate15() float64           { return s.r15 }
func (s meterSnapshot) RateMean() float64         { return s.mean }
func (s meterSnapshot) Snapshot() gometrics.Meter { return s }
func (s meterSnapshot) Stop()                     {}

// Histogram records a distribution of values in a reservoir.
//
// Kafka 0.10.2: com.yammer.metrics.core.Histogram as created by KafkaMetricsGroup.newHistogram:
// biased = an exponentially decaying reservoir of 1028 values with alpha 0.015 (favouring the last
// five minutes), unbiased = a uniform reservoir of 1028 values; go-metrics has the same two samples.
type Histogram struct {
	h gometrics.Histogram
}

func newHistogramSample(biased bool) gometrics.Histogram {
	if biased {
		return gometrics.NewHistogram(gometrics.NewExpDecaySample(1028, 0.015))
	}
	return gometrics.NewHistogram(gometrics.NewUniformSample(1028))
}

// Update records a value.
func (h *Histogram) Update(v int64) { h.h.Update(v) }

// Count is the number of values recorded (not only those still in the reservoir).
func (h *Histogram) Count() int64 { return h.h.Count() }

// Min is the smallest value in the reservoir.
func (h *Histogram) Min() int64 { return h.h.Min() }

// Max is the largest value in the reservoir.
func (h *Histogram) Max() int64 { return h.h.Max() }

// Mean is the mean of the reservoir.
func (h *Histogram) Mean() float64 { return h.h.Mean() }

// Percentile gives the p-quantile (0 < p < 1) of the reservoir.
func (h *Histogram) Percentile(p float64) float64 { return h.h.Percentile(p) }
