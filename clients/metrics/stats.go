package metrics

import "math"

// NewAvg is a sampled average: the sum of the values over the live samples divided by their
// number of events (0 without events).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Avg.
func NewAvg() *SampledStat {
	return newSampledStat(0,
		func(s *sample, _ *MetricConfig, v float64, _ int64) { s.value += v },
		func(samples []*sample, _ *MetricConfig, _ int64) float64 {
			var total float64
			var count int64
			for _, s := range samples {
				total += s.value
				count += s.eventCount
			}
			if count == 0 {
				return 0
			}
			return total / float64(count)
		})
}

// NewMax is the sampled maximum (-Inf without values).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Max.
func NewMax() *SampledStat {
	return newSampledStat(math.Inf(-1),
		func(s *sample, _ *MetricConfig, v float64, _ int64) { s.value = math.Max(s.value, v) },
		func(samples []*sample, _ *MetricConfig, _ int64) float64 {
			m := math.Inf(-1)
			for _, s := range samples {
				m = math.Max(m, s.value)
			}
			return m
		})
}

// NewMin is the sampled minimum (+Inf without values).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Min.
func NewMin() *SampledStat {
	return newSampledStat(math.Inf(1),
		func(s *sample, _ *MetricConfig, v float64, _ int64) { s.value = math.Min(s.value, v) },
		func(samples []*sample, _ *MetricConfig, _ int64) float64 {
			m := math.Inf(1)
			for _, s := range samples {
				m = math.Min(m, s.value)
			}
			return m
		})
}

// NewCount is the sampled number of records.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Count.
func NewCount() *SampledStat {
	return newSampledStat(0, func(s *sample, _ *MetricConfig, _ float64, _ int64) { s.value++ }, sumSamples)
}

// NewSampledTotal is the sampled sum of the values (Rate's default numerator).
//
// Kafka 0.10.2: Rate.SampledTotal.
func NewSampledTotal() *SampledStat {
	return newSampledStat(0, func(s *sample, _ *MetricConfig, v float64, _ int64) { s.value += v }, sumSamples)
}

func sumSamples(samples []*sample, _ *MetricConfig, _ int64) float64 {
	var total float64
	for _, s := range samples {
		total += s.value
	}
	return total
}

// Total is an unwindowed running sum.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Total.
type Total struct{ total float64 }

// NewTotal returns a zero Total.
func NewTotal() *Total { return &Total{} }

// Record implements Stat.
func (t *Total) Record(_ *MetricConfig, value float64, _ int64) { t.total += value }

// Measure implements Measurable.
func (t *Total) Measure(*MetricConfig, int64) float64 { return t.total }

// Value is the last value recorded.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Value.
type Value struct{ value float64 }

// NewValue returns a zero Value.
func NewValue() *Value { return &Value{} }

// Record implements Stat.
func (v *Value) Record(_ *MetricConfig, value float64, _ int64) { v.value = value }

// Measure implements Measurable.
func (v *Value) Measure(*MetricConfig, int64) float64 { return v.value }
