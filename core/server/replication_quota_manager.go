package server

import (
	"errors"
	"math"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	kmetrics "github.com/zkafka/zkafka/clients/metrics"
)

// ReplicationQuotaManagerConfig configures a replication quota manager: the rate before any
// dynamic override (unlimited) and the windows its rate is sampled over
// (replication.quota.window.num x replication.quota.window.size.seconds).
//
// Kafka 0.10.2: kafka.server.ReplicationQuotaManagerConfig.
type ReplicationQuotaManagerConfig struct {
	QuotaBytesPerSecondDefault int64
	NumQuotaSamples            int
	QuotaWindowSizeSeconds     int
}

// InactiveSensorExpirationTimeSeconds is how long a quota sensor may go unrecorded before the
// broker's sensor expiry removes it (one hour, for client and replication quotas alike).
const InactiveSensorExpirationTimeSeconds = 3600

// ReplicaQuota is what a fetch asks of a replication quota: is this partition throttled here,
// and is the throttled traffic over the limit right now.
//
// Kafka 0.10.2: kafka.server.ReplicaQuota.
type ReplicaQuota interface {
	IsThrottled(tp common.TopicPartition) bool
	IsQuotaExceeded() bool
}

// unboundedQuota throttles nothing: consumer fetches read with it.
type unboundedQuota struct{}

func (unboundedQuota) IsThrottled(common.TopicPartition) bool { return false }
func (unboundedQuota) IsQuotaExceeded() bool                  { return false }

// UnboundedQuota is the quota of fetches that are never replication-throttled (consumers').
//
// Kafka 0.10.2: QuotaFactory.UnboundedQuota.
var UnboundedQuota ReplicaQuota = unboundedQuota{}

// ReplicationQuotaManager meters the replication traffic of the throttled partitions on this
// broker, as leader (bytes sent to followers) or as follower (bytes fetched), and compares it
// with the broker's leader/follower.replication.throttled.rate. Which partitions count comes
// from the topics' leader/follower.replication.throttled.replicas entries naming this broker.
// Unlike client quotas nothing is delayed: the leader leaves a throttled partition's data out
// of a follower's fetch, and the follower leaves the partition out of its next fetch request,
// while the rate is above the limit (and the replica is not in sync; see
// ReplicaManager.shouldLeaderThrottle and ReplicaFetcherThread.shouldFollowerThrottle).
//
// The rate is a SimpleRate over the sampled window, registered as
// kafka.server:type=<LeaderReplication|FollowerReplication>,name=byte-rate. A nil manager
// throttles nothing.
//
// Kafka 0.10.2: kafka.server.ReplicationQuotaManager. Lock order: lock, then the sensor's and the
// registry's locks; throttledMu is a leaf.
type ReplicationQuotaManager struct {
	config          ReplicationQuotaManagerConfig
	metrics         *kmetrics.Metrics
	replicationType QuotaType
	logger          *logrus.Entry
	rateMetricName  kmetrics.MetricName

	lock  sync.RWMutex    // quota updates and sensor creation
	quota *kmetrics.Quota // nil until the first update: no limit

	throttledMu         sync.RWMutex
	throttledPartitions map[string][]int32 // topic -> partitions, AllReplicas for "*"
}

// NewReplicationQuotaManager makes a manager metering replicationType traffic.
// The rate samples with the registry's clock (Kafka passes a Time it does not use).
func NewReplicationQuotaManager(config ReplicationQuotaManagerConfig, metrics *kmetrics.Metrics, replicationType QuotaType,
	logger *logrus.Entry) *ReplicationQuotaManager {
	if logger == nil {
		logger = discardEntry()
	}
	return &ReplicationQuotaManager{config: config, metrics: metrics, replicationType: replicationType,
		logger:              logger.WithField("logger", "kafka.server.ReplicationQuotaManager"),
		rateMetricName:      metrics.MetricName("byte-rate", replicationType.String(), "Tracking byte-rate for "+replicationType.String(), nil),
		throttledPartitions: map[string][]int32{}}
}

// UpdateQuota sets the rate limit (a quota of math.MaxInt64 bytes/s is "unlimited"); a sensor
// that already exists keeps its samples and is checked against the new bound from now on.
//
// Kafka 0.10.2: ReplicationQuotaManager.updateQuota.
func (m *ReplicationQuotaManager) UpdateQuota(quota kmetrics.Quota) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.quota = &quota
	if metric := m.metrics.Metric(m.rateMetricName); metric != nil {
		metric.SetConfig(m.quotaMetricConfig())
	}
}

// IsQuotaExceeded reports whether the metered rate is above the limit now.
//
// Kafka 0.10.2: ReplicationQuotaManager.isQuotaExceeded.
func (m *ReplicationQuotaManager) IsQuotaExceeded() bool {
	if m == nil {
		return false
	}
	s := m.sensor()
	var qv *kmetrics.QuotaViolationError
	if err := s.CheckQuotas(); errors.As(err, &qv) {
		m.logger.Tracef("%s: Quota violated for sensor (%s), metric: (%s), metric-value: (%f), bound: (%f)",
			m.replicationType, s.Name(), qv.MetricName, qv.Value, qv.Bound)
		return true
	}
	return false
}

// IsThrottled reports whether tp is in this broker's throttled replica list of its topic.
//
// Kafka 0.10.2: ReplicationQuotaManager.isThrottled.
func (m *ReplicationQuotaManager) IsThrottled(tp common.TopicPartition) bool {
	if m == nil {
		return false
	}
	m.throttledMu.RLock()
	defer m.throttledMu.RUnlock()
	partitions, ok := m.throttledPartitions[tp.Topic]
	if !ok {
		return false
	}
	if isAllReplicas(partitions) {
		return true
	}
	for _, p := range partitions {
		if p == tp.Partition {
			return true
		}
	}
	return false
}

// Record adds value bytes to the metered rate, whatever the quota says (the check is
// IsQuotaExceeded, before the next read).
//
// Kafka 0.10.2: ReplicationQuotaManager.record.
func (m *ReplicationQuotaManager) Record(value int64) {
	if m == nil {
		return
	}
	s := m.sensor()
	var qv *kmetrics.QuotaViolationError
	if err := s.RecordValue(float64(value)); errors.As(err, &qv) {
		m.logger.Tracef("Record: Quota violated, but ignored, for sensor (%s), metric: (%s), value : (%f), bound: (%f), recordedValue (%d)",
			s.Name(), qv.MetricName, qv.Value, qv.Bound, value)
	}
}

// MarkThrottled replaces the throttled partitions of topic (AllReplicas: every partition).
//
// Kafka 0.10.2: ReplicationQuotaManager.markThrottled.
func (m *ReplicationQuotaManager) MarkThrottled(topic string, partitions []int32) {
	m.throttledMu.Lock()
	defer m.throttledMu.Unlock()
	m.throttledPartitions[topic] = partitions
}

// RemoveThrottle forgets the throttled partitions of topic.
//
// Kafka 0.10.2: ReplicationQuotaManager.removeThrottle.
func (m *ReplicationQuotaManager) RemoveThrottle(topic string) {
	m.throttledMu.Lock()
	defer m.throttledMu.Unlock()
	delete(m.throttledPartitions, topic)
}

// ThrottledPartitions lists the throttled partitions of topic on this broker (AllReplicas for
// "*"; nil when none).
func (m *ReplicationQuotaManager) ThrottledPartitions(topic string) []int32 {
	m.throttledMu.RLock()
	defer m.throttledMu.RUnlock()
	return m.throttledPartitions[topic]
}

// UpperBound is the configured limit in bytes/s (math.MaxInt64 when none).
//
// Kafka 0.10.2: ReplicationQuotaManager.upperBound.
func (m *ReplicationQuotaManager) UpperBound() int64 {
	m.lock.RLock()
	defer m.lock.RUnlock()
	if m.quota == nil || m.quota.Bound() >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(m.quota.Bound())
}

// quotaMetricConfig is the rate's sampling with the current quota. Caller holds lock (either mode).
func (m *ReplicationQuotaManager) quotaMetricConfig() *kmetrics.MetricConfig {
	c := kmetrics.NewMetricConfig()
	c.TimeWindowMs = int64(m.config.QuotaWindowSizeSeconds) * 1000
	c.Samples = m.config.NumQuotaSamples
	c.Quota = m.quota
	return c
}

func (m *ReplicationQuotaManager) sensor() *kmetrics.Sensor {
	return getOrCreateSensor(&m.lock, m.metrics, m.replicationType.String(), InactiveSensorExpirationTimeSeconds,
		func() kmetrics.MetricName { return m.rateMetricName },
		m.quotaMetricConfig,
		func() kmetrics.MeasurableStat { return kmetrics.NewSimpleRate() })
}

// isAllReplicas reports the "*" marker.
func isAllReplicas(partitions []int32) bool {
	return len(partitions) == 1 && partitions[0] == AllReplicas[0]
}

// getOrCreateSensor returns the sensor called name, creating it with config() and one metric
// (metricName(), stat()) when absent. lock keeps a sensor from being used before its metric is
// added: readers look under the read lock, the creator adds under the write lock.
//
// Kafka 0.10.2: kafka.server.SensorAccess.getOrCreate.
func getOrCreateSensor(lock *sync.RWMutex, metrics *kmetrics.Metrics, name string, expirySeconds int64,
	metricName func() kmetrics.MetricName, config func() *kmetrics.MetricConfig, stat func() kmetrics.MeasurableStat) *kmetrics.Sensor {
	lock.RLock()
	s := metrics.GetSensor(name)
	lock.RUnlock()
	if s != nil {
		return s
	}
	lock.Lock()
	defer lock.Unlock()
	if s = metrics.GetSensor(name); s != nil {
		return s
	}
	s = metrics.SensorWith(name, config(), expirySeconds, kmetrics.INFO)
	if err := s.Add(metricName(), stat(), nil); err != nil {
		// Only a metric left behind by a sensor removed concurrently can collide; the sensor then
		// records without a registered metric until it expires.
		metrics.RemoveMetric(metricName())
		_ = s.Add(metricName(), stat(), nil)
	}
	return s
}
