package metrics

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/zkafka/zkafka/clients/common"
)

// Sensor records values into its stats and its parents' stats, and checks its metrics' quotas.
// It is safe for concurrent use.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.Sensor.
type Sensor struct {
	registry       *Metrics
	name           string
	parents        []*Sensor
	config         *MetricConfig
	time           common.Time
	recordingLevel RecordingLevel
	inactiveExpiry int64 // ms; 0 = never

	mu             sync.Mutex // guards stats and metrics
	stats          []Stat
	metrics        []*KafkaMetric
	lastRecordTime atomic.Int64
}

// Name is the sensor's name.
func (s *Sensor) Name() string { return s.name }

// ShouldRecord reports whether the configured recording level lets this sensor record.
func (s *Sensor) ShouldRecord() bool { return s.recordingLevel.shouldRecord(s.config.RecordingLevel) }

// Record records one occurrence (value 1).
func (s *Sensor) Record() error { return s.RecordValue(1) }

// RecordValue records value at the current time.
func (s *Sensor) RecordValue(value float64) error {
	if !s.ShouldRecord() {
		return nil
	}
	return s.RecordAt(value, s.time.Milliseconds())
}

// RecordAt records value at nowMs into this sensor and its parents. It returns a
// *QuotaViolationError when a metric of this sensor (or of a parent) is now outside its quota;
// the value is recorded in every case.
//
// Kafka 0.10.2: Sensor.record(value, timeMs).
func (s *Sensor) RecordAt(value float64, nowMs int64) error {
	if !s.ShouldRecord() {
		return nil
	}
	s.lastRecordTime.Store(nowMs)
	s.mu.Lock()
	for _, st := range s.stats {
		st.Record(s.config, value, nowMs)
	}
	err := s.checkQuotasLocked(nowMs)
	s.mu.Unlock()
	for _, p := range s.parents {
		if perr := p.RecordAt(value, nowMs); err == nil {
			err = perr
		}
	}
	return err
}

// CheckQuotas checks every metric of the sensor against its quota now.
func (s *Sensor) CheckQuotas() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checkQuotasLocked(s.time.Milliseconds())
}

func (s *Sensor) checkQuotasLocked(nowMs int64) error {
	for _, m := range s.metrics {
		if m.config == nil || m.config.Quota == nil {
			continue
		}
		v := m.measurable.Measure(m.config, nowMs)
		if !m.config.Quota.Acceptable(v) {
			return &QuotaViolationError{MetricName: m.name, Value: v, Bound: m.config.Quota.Bound()}
		}
	}
	return nil
}

// ErrDuplicateMetric is returned when a metric name is registered twice.
var ErrDuplicateMetric = errors.New("metric already exists")

// Add registers stat as metric name, sampled with config (nil: the sensor's).
//
// Kafka 0.10.2: Sensor.add(MetricName, MeasurableStat[, MetricConfig]).
func (s *Sensor) Add(name MetricName, stat MeasurableStat, config *MetricConfig) error {
	if config == nil {
		config = s.config
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &KafkaMetric{lock: &s.mu, name: name, measurable: stat, config: config, time: s.time}
	if err := s.registry.registerMetric(m); err != nil {
		return err
	}
	s.metrics = append(s.metrics, m)
	s.stats = append(s.stats, stat)
	return nil
}

// AddCompound registers each value of a compound stat (Percentiles) as its own metric.
//
// Kafka 0.10.2: Sensor.add(CompoundStat[, MetricConfig]).
func (s *Sensor) AddCompound(stat CompoundStat, config *MetricConfig) error {
	if config == nil {
		config = s.config
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = append(s.stats, stat)
	for _, nm := range stat.Stats() {
		m := &KafkaMetric{lock: &s.mu, name: nm.Name, measurable: nm.Stat, config: config, time: s.time}
		if err := s.registry.registerMetric(m); err != nil {
			return err
		}
		s.metrics = append(s.metrics, m)
	}
	return nil
}

// HasExpired reports a sensor with an expiry that has not recorded for longer than it.
func (s *Sensor) HasExpired() bool {
	return s.inactiveExpiry > 0 && s.time.Milliseconds()-s.lastRecordTime.Load() > s.inactiveExpiry
}

func (s *Sensor) metricsSnapshot() []*KafkaMetric {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*KafkaMetric(nil), s.metrics...)
}
