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
func (m *KafkaMetric) Config() *MetricConfig {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.config
}

// SetConfig replaces the metric's config; the broker's quota managers change a client's quota
// this way while its sensor keeps its samples. The sensor goes on sampling with its own config,
// so a new config should keep the sample window and count.
//
// Kafka 0.10.2: KafkaMetric.config(MetricConfig).
func (m *KafkaMetric) SetConfig(config *MetricConfig) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.config = config
}

// WithLock runs f with the lock that guards the metric's stat held, passing the stat and the
// metric's config, so f can measure the stat and read more of it (Rate.WindowSize) consistently.
// f must not record into the metric's sensor.
func (m *KafkaMetric) WithLock(f func(stat Measurable, config *MetricConfig)) {
	m.lock.Lock()
	defer m.lock.Unlock()
	f(m.measurable, m.config)
}

// Value measures the metric now.
func (m *KafkaMetric) Value() float64 { return m.value(m.time.Milliseconds()) }

func (m *KafkaMetric) value(nowMs int64) float64 {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.measurable.Measure(m.config, nowMs)
}

// Measurable is the stat or gauge behind the metric.
func (m *KafkaMetric) Measurable() Measurable { return m.measurable }
