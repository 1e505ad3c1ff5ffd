package metrics

import (
	"time"

	gometrics "github.com/rcrowley/go-metrics"
)

// KafkaMetricsGroup makes metrics named after one Kafka class: the group is the class's Scala
// package ("kafka.server") and the type its simple name ("ReplicaManager").
//
// Kafka 0.10.2: kafka.metrics.KafkaMetricsGroup. Scala mixes the trait in and derives group and
// type from getClass; Go has no such reflection over Kafka's class names, so each owner builds its
// group with the Kafka names spelled out, e.g. NewKafkaMetricsGroup(reg, "kafka.server",
// "ReplicaManager").
type KafkaMetricsGroup struct {
	Registry *Registry
	Group    string
	Type     string
}

// NewKafkaMetricsGroup makes a group; reg may be nil (no registration).
func NewKafkaMetricsGroup(reg *Registry, group, typeName string) KafkaMetricsGroup {
	return KafkaMetricsGroup{Registry: reg, Group: group, Type: typeName}
}

// MetricName is the name of one of this group's metrics.
func (g KafkaMetricsGroup) MetricName(name string, tags ...Tag) MetricName {
	return NewMetricName(g.Group, g.Type, name, tags...)
}

// NewGauge registers an integer gauge read by calling value (Int and Long gauges in Kafka). A gauge
// already under the name is replaced (see Registry.replace: Yammer would keep the old one).
func (g KafkaMetricsGroup) NewGauge(name string, value func() int64, tags ...Tag) MetricName {
	n := g.MetricName(name, tags...)
	g.Registry.replace(n.MBeanName(), gometrics.NewFunctionalGauge(value))
	return n
}

// NewGaugeFloat64 registers a floating-point gauge (Double gauges in Kafka).
func (g KafkaMetricsGroup) NewGaugeFloat64(name string, value func() float64, tags ...Tag) MetricName {
	n := g.MetricName(name, tags...)
	g.Registry.replace(n.MBeanName(), gometrics.NewFunctionalGaugeFloat64(value))
	return n
}

// NewMeter returns the meter under the name, creating it if needed. eventType is informational
// ("messages", "bytes"); rates are per rateUnit (time.Second for almost every Kafka meter).
func (g KafkaMetricsGroup) NewMeter(name, eventType string, rateUnit time.Duration, tags ...Tag) *Meter {
	n := g.MetricName(name, tags...)
	m := newMeter(g.Registry.clockOrSystem(), eventType, rateUnit)
	if got, ok := g.Registry.getOrAdd(n.MBeanName(), m).(*Meter); ok {
		return got
	}
	return m // another kind of metric holds the name: count privately rather than fail
}

// NewHistogram returns the histogram under the name, creating it if needed (biased: exponentially
// decaying reservoir, as every Kafka histogram).
func (g KafkaMetricsGroup) NewHistogram(name string, biased bool, tags ...Tag) *Histogram {
	n := g.MetricName(name, tags...)
	h := newHistogramSample(biased)
	if got, ok := g.Registry.getOrAdd(n.MBeanName(), h).(gometrics.Histogram); ok {
		return &Histogram{h: got}
	}
	return &Histogram{h: h}
}

// NewTimer returns the timer under the name, creating it if needed; durations are reported in
// durationUnit and rates per rateUnit (Kafka: TimeUnit.MILLISECONDS, TimeUnit.SECONDS).
func (g KafkaMetricsGroup) NewTimer(name string, durationUnit, rateUnit time.Duration, tags ...Tag) *Timer {
	n := g.MetricName(name, tags...)
	t := newTimer(g.Registry.clockOrSystem(), durationUnit, rateUnit)
	if got, ok := g.Registry.getOrAdd(n.MBeanName(), t).(*Timer); ok {
		return got
	}
	return t
}

// RemoveMetric unregisters one of this group's metrics.
func (g KafkaMetricsGroup) RemoveMetric(name string, tags ...Tag) {
	g.Registry.Remove(g.MetricName(name, tags...).MBeanName())
}
