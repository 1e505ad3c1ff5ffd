package purgatory

import (
	"github.com/zkafka/zkafka/core/metrics"
)

// RegisterMetrics registers the purgatory's two gauges, PurgatorySize (Watched) and
// NumDelayedOperations (Delayed), under kafka.server:type=DelayedOperationPurgatory tagged
// delayedOperation=<purgatory name>. A nil registry registers nothing.
//
// Kafka 0.10.2 registers them in DelayedOperationPurgatory's constructor, on the process-wide
// registry; here the owner of the purgatory calls this with its broker's registry, since a
// purgatory is also built where there is none (tests, tools).
func (p *DelayedOperationPurgatory[T]) RegisterMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.server", "DelayedOperationPurgatory")
	tags := metrics.TagsFromMap(p.MetricTags())
	g.NewGauge("PurgatorySize", func() int64 { return int64(p.Watched()) }, tags...)
	g.NewGauge("NumDelayedOperations", func() int64 { return int64(p.Delayed()) }, tags...)
}
