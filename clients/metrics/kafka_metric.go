package metrics

import (
	"sync"

	"github.com/zkafka/zkafka/clients/common"
)

// KafkaMetric is one registered metric: a name, the Measurable behind it, the config its stat
// samples with, and the lock that guards the stat (its sensor's, for stats added to a sensor).
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.KafkaMetric.
type KafkaMetric struct {
	lock       sync.Locker
	name       MetricName
	measurable Measurable
	config     *MetricConfig
	time       common.Time
}

// MetricName is the metric's name.
func (m *KafkaMetric) MetricName() MetricName { return m.name }

// Config is the metric's config.
func (m *KafkaMetric) Config() *MetricConfig { return m.config }

// Value measures the metric now.
func (m *KafkaMetric) Value() float64 { return m.value(m.time.Milliseconds()) }

func (m *KafkaMetric) value(nowMs int64) float64 {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.measurable.Measure(m.config, nowMs)
}

// Measurable is the stat or gauge behind the metric.
func (m *KafkaMetric) Measurable() Measurable { return m.measurable }
