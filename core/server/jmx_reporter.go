package server

import (
	"sort"
	"sync"

	kmetrics "github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/core/metrics"
)

// JmxReporter shows the broker's client-metrics-library sensors (the quota managers' byte-rate,
// throttle-time and queue-size) in the broker's registry, beside the Yammer-style metrics, as
// float gauges read when the registry is read. A metric named (name, group, tags) becomes
// "<prefix>:type=<group>,name=<name>,<tags>", empty tags left out: the MBean Kafka's JmxReporter
// registers is "<prefix>:type=<group>,<tags>" with the metric as its attribute <name>, and the
// registry writes the attribute as the name key, as it does for every other metric.
//
// Tags keep Kafka's order where it is known: the quota metrics' "user" then "client-id" (Kafka's
// tag maps are insertion-ordered; Go's are not); any other tags follow, sorted.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.JmxReporter as KafkaServer registers it, with
// the prefix "kafka.server".
type JmxReporter struct {
	prefix   string
	registry *metrics.Registry

	mu         sync.Mutex
	registered map[string]*kmetrics.KafkaMetric // by MBean name, for Close
}

// NewJmxReporter reports into registry under prefix.
func NewJmxReporter(prefix string, registry *metrics.Registry) *JmxReporter {
	return &JmxReporter{prefix: prefix, registry: registry, registered: map[string]*kmetrics.KafkaMetric{}}
}

// kafkaTagOrder is the order of the tags Kafka's broker metrics use together.
var kafkaTagOrder = map[string]int{"user": 0, "client-id": 1}

func (r *JmxReporter) name(n kmetrics.MetricName) (metrics.KafkaMetricsGroup, []metrics.Tag) {
	keys := make([]string, 0, len(n.Tags))
	for k := range n.Tags {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		oi, iKnown := kafkaTagOrder[keys[i]]
		oj, jKnown := kafkaTagOrder[keys[j]]
		switch {
		case iKnown && jKnown:
			return oi < oj
		case iKnown != jKnown:
			return iKnown
		}
		return keys[i] < keys[j]
	})
	tags := make([]metrics.Tag, len(keys))
	for i, k := range keys {
		tags[i] = metrics.Tag{Key: k, Value: n.Tags[k]}
	}
	return metrics.NewKafkaMetricsGroup(r.registry, r.prefix, n.Group), tags
}

// Init implements kmetrics.MetricsReporter.
func (r *JmxReporter) Init(ms []*kmetrics.KafkaMetric) {
	for _, m := range ms {
		r.MetricChange(m)
	}
}

// MetricChange implements kmetrics.MetricsReporter: the gauge measures the metric when read.
func (r *JmxReporter) MetricChange(m *kmetrics.KafkaMetric) {
	g, tags := r.name(m.MetricName())
	n := g.NewGaugeFloat64(m.MetricName().Name, m.Value, tags...)
	r.mu.Lock()
	r.registered[n.MBeanName()] = m
	r.mu.Unlock()
}

// MetricRemoval implements kmetrics.MetricsReporter.
func (r *JmxReporter) MetricRemoval(m *kmetrics.KafkaMetric) {
	g, tags := r.name(m.MetricName())
	g.RemoveMetric(m.MetricName().Name, tags...)
	r.mu.Lock()
	delete(r.registered, g.MetricName(m.MetricName().Name, tags...).MBeanName())
	r.mu.Unlock()
}

// Close implements kmetrics.MetricsReporter: the gauges it registered leave the registry (which
// outlives a KafkaServer restart, unlike the metrics they read).
func (r *JmxReporter) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range r.registered {
		r.registry.Remove(name)
	}
	clear(r.registered)
}
