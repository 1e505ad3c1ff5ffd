package metrics

import (
	"strings"
	"sync"

	gometrics "github.com/rcrowley/go-metrics"
)

// MetricsReporter is told of every metric added, changed or removed.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.MetricsReporter.
type MetricsReporter interface {
	Init(metrics []*KafkaMetric)
	MetricChange(metric *KafkaMetric)
	MetricRemoval(metric *KafkaMetric)
	Close()
}

// GoMetricsReporter bridges the registry into a go-metrics registry (the one the broker exports
// over HTTP): each metric becomes a functional float gauge, read on demand, named the way
// Kafka's JmxReporter names the MBean attribute: "<prefix>:type=<group>,<tag>=<value>,...,name=<name>"
// (tags sorted).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.JmxReporter (MBean name
// prefix:type=group,tags; one attribute per metric), over go-metrics instead of JMX.
type GoMetricsReporter struct {
	prefix   string
	registry gometrics.Registry
	mu       sync.Mutex
}

// NewGoMetricsReporter reports into registry under prefix (kafka.producer for the producer).
func NewGoMetricsReporter(prefix string, registry gometrics.Registry) *GoMetricsReporter {
	return &GoMetricsReporter{prefix: prefix, registry: registry}
}

// MBeanName is the go-metrics name of a metric.
func (r *GoMetricsReporter) MBeanName(n MetricName) string {
	var b strings.Builder
	b.WriteString(r.prefix)
	b.WriteString(":type=")
	b.WriteString(n.Group)
	for _, k := range sortedKeys(n.Tags) {
		b.WriteString(",")
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(n.Tags[k])
	}
	b.WriteString(",name=")
	b.WriteString(n.Name)
	return b.String()
}

// Init implements MetricsReporter.
func (r *GoMetricsReporter) Init(metrics []*KafkaMetric) {
	for _, m := range metrics {
		r.MetricChange(m)
	}
}

// MetricChange implements MetricsReporter.
func (r *GoMetricsReporter) MetricChange(m *KafkaMetric) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := r.MBeanName(m.MetricName())
	r.registry.Unregister(name)
	_ = r.registry.Register(name, gometrics.NewFunctionalGaugeFloat64(m.Value))
}

// MetricRemoval implements MetricsReporter.
func (r *GoMetricsReporter) MetricRemoval(m *KafkaMetric) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.registry.Unregister(r.MBeanName(m.MetricName()))
}

// Close implements MetricsReporter: the gauges are unregistered by MetricRemoval only; Close
// leaves the go-metrics registry as it is.
func (r *GoMetricsReporter) Close() {}
