package metrics

import (
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
)

// Metrics is a registry of sensors and metrics with a default MetricConfig (whose tags, e.g.
// client-id, are added to every MetricName it makes) and reporters that see every metric added
// and removed.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.Metrics. Sensor expiry runs when
// ExpireSensors is called (the owner schedules it) instead of on a thread of the registry's own.
type Metrics struct {
	config    *MetricConfig
	time      common.Time
	log       *logrus.Entry
	mu        sync.Mutex
	metrics   map[string]*KafkaMetric
	sensors   map[string]*Sensor
	children  map[*Sensor][]*Sensor
	reporters []MetricsReporter
}

// NewMetrics returns a registry; config nil means NewMetricConfig(), time nil SystemTime,
// log nil discards.
func NewMetrics(config *MetricConfig, reporters []MetricsReporter, time common.Time, log *logrus.Entry) *Metrics {
	if config == nil {
		config = NewMetricConfig()
	}
	if time == nil {
		time = common.SystemTime{}
	}
	if log == nil {
		l := logrus.New()
		l.SetLevel(logrus.PanicLevel)
		log = logrus.NewEntry(l)
	}
	m := &Metrics{config: config, time: time, log: log, metrics: map[string]*KafkaMetric{},
		sensors: map[string]*Sensor{}, children: map[*Sensor][]*Sensor{}}
	for _, r := range reporters {
		r.Init(nil)
		m.reporters = append(m.reporters, r)
	}
	_ = m.AddMetric(m.MetricName("count", "kafka-metrics-count", "total number of registered metrics", nil), nil,
		MeasurableFunc(func(*MetricConfig, int64) float64 { return float64(m.Len()) }))
	return m
}

// Config is the default config.
func (m *Metrics) Config() *MetricConfig { return m.config }

// MetricName makes a name in group, with the registry's default tags plus tags.
//
// Kafka 0.10.2: Metrics.metricName.
func (m *Metrics) MetricName(name, group, description string, tags map[string]string) MetricName {
	combined := make(map[string]string, len(m.config.Tags)+len(tags))
	maps.Copy(combined, m.config.Tags)
	maps.Copy(combined, tags)
	return MetricName{Name: name, Group: group, Description: description, Tags: combined}
}

// GetSensor returns the sensor called name, nil if there is none.
func (m *Metrics) GetSensor(name string) *Sensor {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sensors[name]
}

// Sensor returns the sensor called name, creating it (INFO level, the default config, never
// expiring) when absent.
func (m *Metrics) Sensor(name string, parents ...*Sensor) *Sensor {
	return m.SensorWith(name, nil, 0, INFO, parents...)
}

// SensorWith returns the sensor called name, creating it with config (nil: the default),
// an inactivity expiry in seconds (0: never) and a recording level when absent.
//
// Kafka 0.10.2: Metrics.sensor(name, config, inactiveSensorExpirationTimeSeconds, recordingLevel, parents).
func (m *Metrics) SensorWith(name string, config *MetricConfig, expirySeconds int64, level RecordingLevel, parents ...*Sensor) *Sensor {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sensors[name]; s != nil {
		return s
	}
	if config == nil {
		config = m.config
	}
	s := &Sensor{registry: m, name: name, parents: parents, config: config, time: m.time,
		recordingLevel: level, inactiveExpiry: expirySeconds * 1000}
	s.lastRecordTime.Store(m.time.Milliseconds())
	m.sensors[name] = s
	for _, p := range parents {
		m.children[p] = append(m.children[p], s)
	}
	m.log.Debugf("Added sensor with name %s", name)
	return s
}

// RemoveSensor removes a sensor, its metrics, and its child sensors.
func (m *Metrics) RemoveSensor(name string) {
	m.mu.Lock()
	s := m.sensors[name]
	m.mu.Unlock()
	if s == nil {
		return
	}
	metrics := s.metricsSnapshot()
	m.mu.Lock()
	if m.sensors[name] != s {
		m.mu.Unlock()
		return
	}
	delete(m.sensors, name)
	for _, km := range metrics {
		m.removeMetricLocked(km.name)
	}
	kids := m.children[s]
	delete(m.children, s)
	for _, p := range s.parents {
		peers := m.children[p]
		for i, c := range peers {
			if c == s {
				m.children[p] = append(peers[:i:i], peers[i+1:]...)
				break
			}
		}
	}
	m.mu.Unlock()
	m.log.Debugf("Removed sensor with name %s", name)
	for _, c := range kids {
		m.RemoveSensor(c.name)
	}
}

// ExpireSensors removes every sensor whose inactivity expiry has passed.
//
// Kafka 0.10.2: Metrics.ExpireSensorTask.
func (m *Metrics) ExpireSensors() {
	m.mu.Lock()
	var expired []string
	for name, s := range m.sensors {
		if s.HasExpired() {
			expired = append(expired, name)
		}
	}
	m.mu.Unlock()
	for _, name := range expired {
		m.log.Debugf("Removing expired sensor %s", name)
		m.RemoveSensor(name)
	}
}

// AddMetric registers a gauge (or any Measurable) as name, measured with config (nil: the
// default config).
func (m *Metrics) AddMetric(name MetricName, config *MetricConfig, measurable Measurable) error {
	if config == nil {
		config = m.config
	}
	return m.registerMetric(&KafkaMetric{lock: &sync.Mutex{}, name: name, measurable: measurable, config: config, time: m.time})
}

// RemoveMetric unregisters a metric and returns it (nil if absent).
func (m *Metrics) RemoveMetric(name MetricName) *KafkaMetric {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.removeMetricLocked(name)
}

func (m *Metrics) removeMetricLocked(name MetricName) *KafkaMetric {
	k := name.key()
	km := m.metrics[k]
	if km == nil {
		return nil
	}
	delete(m.metrics, k)
	for _, r := range m.reporters {
		r.MetricRemoval(km)
	}
	return km
}

func (m *Metrics) registerMetric(km *KafkaMetric) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := km.name.key()
	if _, dup := m.metrics[k]; dup {
		return fmt.Errorf("%w: A metric named '%s' already exists, can't register another one.", ErrDuplicateMetric, km.name)
	}
	m.metrics[k] = km
	for _, r := range m.reporters {
		r.MetricChange(km)
	}
	return nil
}

// AddReporter adds a reporter and tells it of every metric registered so far.
func (m *Metrics) AddReporter(r MetricsReporter) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r.Init(m.sortedLocked())
	m.reporters = append(m.reporters, r)
}

// Metric returns the metric called name, nil if none.
func (m *Metrics) Metric(name MetricName) *KafkaMetric {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.metrics[name.key()]
}

// Metrics returns every registered metric, sorted by group, name and tags.
func (m *Metrics) Metrics() []*KafkaMetric {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sortedLocked()
}

// Len is the number of registered metrics.
func (m *Metrics) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.metrics)
}

func (m *Metrics) sortedLocked() []*KafkaMetric {
	keys := make([]string, 0, len(m.metrics))
	for k := range m.metrics {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*KafkaMetric, len(keys))
	for i, k := range keys {
		out[i] = m.metrics[k]
	}
	return out
}

// Close closes the reporters.
func (m *Metrics) Close() {
	m.mu.Lock()
	reporters := m.reporters
	m.reporters = nil
	m.mu.Unlock()
	for _, r := range reporters {
		r.Close()
	}
}
