package metrics

import "time"

// Rate is a per-unit-of-time rate: a sampled stat (a total by default, a Count for an
// occurrence rate) divided by the window it covers.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Rate.
type Rate struct {
	unit   time.Duration
	stat   *SampledStat
	simple bool // SimpleRate: only the first window counts as full
}

// NewRate is a per-second rate of the recorded values' sum.
func NewRate() *Rate { return &Rate{unit: time.Second, stat: NewSampledTotal()} }

// NewRateIn is a rate per unit (time.Nanosecond gives bufferpool-wait-ratio: waited ns per ns).
func NewRateIn(unit time.Duration) *Rate { return &Rate{unit: unit, stat: NewSampledTotal()} }

// NewRateOf is a per-second rate of stat (NewCount for a rate of occurrences).
func NewRateOf(stat *SampledStat) *Rate { return &Rate{unit: time.Second, stat: stat} }

// Record implements Stat.
func (r *Rate) Record(config *MetricConfig, value float64, nowMs int64) {
	r.stat.Record(config, value, nowMs)
}

// NewSimpleRate is a per-second rate of the recorded values' sum whose window is the time since
// its oldest live sample, at least one sample window: unlike Rate it does not pretend that
// Samples-1 windows have passed, so a rate measured soon after the first record is not diluted.
// The replication quotas use it.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.SimpleRate.
func NewSimpleRate() *Rate { return &Rate{unit: time.Second, stat: NewSampledTotal(), simple: true} }

// Measure implements Measurable.
func (r *Rate) Measure(config *MetricConfig, nowMs int64) float64 {
	v := r.stat.Measure(config, nowMs)
	ms := r.WindowSize(config, nowMs)
	return v / (float64(ms) * float64(time.Millisecond) / float64(r.unit))
}

// WindowSize is the time (ms) the live samples cover at nowMs, counting at least Samples-1 full
// windows (a SimpleRate: at least one). It purges obsolete samples, so the caller must hold the
// lock of the metric the rate belongs to (KafkaMetric.WithLock); the client quotas use it to
// turn a rate above the quota into a delay.
//
// Kafka 0.10.2: Rate.windowSize and SimpleRate.windowSize.
func (r *Rate) WindowSize(config *MetricConfig, nowMs int64) int64 {
	r.stat.purgeObsoleteSamples(config, nowMs)
	elapsed := nowMs - r.stat.oldest(nowMs).lastWindowMs
	if r.simple {
		return max(elapsed, config.TimeWindowMs)
	}
	full := elapsed / config.TimeWindowMs
	minFull := int64(config.Samples - 1)
	if full < minFull {
		elapsed += (minFull - full) * config.TimeWindowMs
	}
	return elapsed
}
