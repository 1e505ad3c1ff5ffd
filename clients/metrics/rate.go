package metrics

import "time"

// Rate is a per-unit-of-time rate: a sampled stat (a total by default, a Count for an
// occurrence rate) divided by the window it covers.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Rate.
type Rate struct {
	unit time.Duration
	stat *SampledStat
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

// Measure implements Measurable.
func (r *Rate) Measure(config *MetricConfig, nowMs int64) float64 {
	v := r.stat.Measure(config, nowMs)
	ms := r.windowSize(config, nowMs)
	return v / (float64(ms) * float64(time.Millisecond) / float64(r.unit))
}

// windowSize is the time the live samples cover, counting at least Samples-1 full windows.
//
// Kafka 0.10.2: Rate.windowSize.
func (r *Rate) windowSize(config *MetricConfig, nowMs int64) int64 {
	r.stat.purgeObsoleteSamples(config, nowMs)
	elapsed := nowMs - r.stat.oldest(nowMs).lastWindowMs
	full := elapsed / config.TimeWindowMs
	minFull := int64(config.Samples - 1)
	if full < minFull {
		elapsed += (minFull - full) * config.TimeWindowMs
	}
	return elapsed
}
