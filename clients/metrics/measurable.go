package metrics

// Measurable is anything that has a value at a point in time.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.Measurable.
type Measurable interface {
	Measure(config *MetricConfig, nowMs int64) float64
}

// MeasurableFunc adapts a function (a gauge: buffer-available-bytes, requests-in-flight).
type MeasurableFunc func(config *MetricConfig, nowMs int64) float64

// Measure implements Measurable.
func (f MeasurableFunc) Measure(config *MetricConfig, nowMs int64) float64 { return f(config, nowMs) }

// Stat records values.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.Stat.
type Stat interface {
	Record(config *MetricConfig, value float64, nowMs int64)
}

// MeasurableStat is a Stat with one value (Avg, Max, Rate, ...).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.MeasurableStat.
type MeasurableStat interface {
	Stat
	Measurable
}

// NamedMeasurable is one of the values of a CompoundStat.
//
// Kafka 0.10.2: CompoundStat.NamedMeasurable.
type NamedMeasurable struct {
	Name MetricName
	Stat Measurable
}

// CompoundStat is a Stat with several named values (Percentiles).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.CompoundStat.
type CompoundStat interface {
	Stat
	Stats() []NamedMeasurable
}
