package metrics

import (
	"time"

	gometrics "github.com/rcrowley/go-metrics"
)

// Timer is a meter of events plus a histogram of their durations. Durations are recorded in
// nanoseconds and reported in the timer's duration unit (milliseconds for every Kafka timer), so
// the JSON and Prometheus views read like Kafka's JMX attributes (Mean, 99thPercentile in ms).
//
// Kafka 0.10.2: com.yammer.metrics.core.Timer as created by KafkaMetricsGroup.newTimer(name,
// durationUnit, rateUnit).
type Timer struct {
	meter *Meter
	hist  gometrics.Histogram // nanoseconds
	unit  float64             // nanoseconds per duration unit
}

func newTimer(clock Clock, durationUnit, rateUnit time.Duration) *Timer {
	if durationUnit <= 0 {
		durationUnit = time.Millisecond
	}
	return &Timer{meter: newMeter(clock, "calls", rateUnit), hist: newHistogramSample(true), unit: float64(durationUnit)}
}

// Update records one event that took d.
func (t *Timer) Update(d time.Duration) {
	if d < 0 {
		d = 0
	}
	t.hist.Update(int64(d))
	t.meter.Mark(1)
}

// UpdateSince records one event that started at ts.
func (t *Timer) UpdateSince(ts time.Time) { t.Update(time.Since(ts)) }

// Time runs f and records how long it took.
func (t *Timer) Time(f func()) {
	start := time.Now()
	defer t.UpdateSince(start)
	f()
}

// Count is the number of events.
func (t *Timer) Count() int64 { return t.meter.Count() }

// Min is the shortest duration in the reservoir, in the duration unit (truncated).
func (t *Timer) Min() int64 { return int64(float64(t.hist.Min()) / t.unit) }

// Max is the longest duration in the reservoir, in the duration unit (truncated).
func (t *Timer) Max() int64 { return int64(float64(t.hist.Max()) / t.unit) }

// Mean is the mean duration, in the duration unit.
func (t *Timer) Mean() float64 { return t.hist.Mean() / t.unit }

// StdDev is the standard deviation of the durations, in the duration unit.
func (t *Timer) StdDev() float64 { return t.hist.StdDev() / t.unit }

// Variance is the variance of the durations, in the duration unit squared.
func (t *Timer) Variance() float64 { return t.hist.Variance() / (t.unit * t.unit) }

// Sum is the total of the durations in the reservoir, in the duration unit (truncated).
func (t *Timer) Sum() int64 { return int64(float64(t.hist.Sum()) / t.unit) }

// Percentile gives the p-quantile of the durations, in the duration unit.
func (t *Timer) Percentile(p float64) float64 { return t.hist.Percentile(p) / t.unit }

// Percentiles gives several quantiles at once, in the duration unit.
func (t *Timer) Percentiles(ps []float64) []float64 {
	vs := t.hist.Percentiles(ps)
	for i := range vs {
		vs[i] /= t.unit
	}
	return vs
}

// Rate1 is the one-minute event rate.
func (t *Timer) Rate1() float64 { return t.meter.Rate1() }

// Rate5 is the five-minute event rate.
func (t *Timer) Rate5() float64 { return t.meter.Rate5() }

// Rate15 is the fifteen-minute event rate.
func (t *Timer) Rate15() float64 { return t.meter.Rate15() }

// RateMean is the mean event rate.
func (t *Timer) RateMean() float64 { return t.meter.RateMean() }

// Snapshot returns a frozen copy (go-metrics' Timer interface).
func (t *Timer) Snapshot() gometrics.Timer {
	return &Timer{meter: t.meter, hist: t.hist.Snapshot(), unit: t.unit}
}

// Stop does nothing (go-metrics' Timer interface).
func (t *Timer) Stop() {}

// KafkaTimer times blocks of code into a Timer.
//
// Kafka 0.10.2: kafka.metrics.KafkaTimer (used for LeaderElectionRateAndTimeMs and
// LogFlushRateAndTimeMs). Scala's by-name block becomes a func.
type KafkaTimer struct {
	Metric *Timer
}

// NewKafkaTimer wraps a timer.
func NewKafkaTimer(t *Timer) *KafkaTimer { return &KafkaTimer{Metric: t} }

// Time runs f and records its duration, even if f panics.
func (k *KafkaTimer) Time(f func()) { k.Metric.Time(f) }

// TimeErr runs f, records its duration and returns f's error.
func (k *KafkaTimer) TimeErr(f func() error) error {
	var err error
	k.Metric.Time(func() { err = f() })
	return err
}
