package oldproducer

import (
	"strconv"
	"sync"
	"time"

	"github.com/zkafka/zkafka/core/metrics"
)

// ProducerStats counts the old producer's failures.
//
// Kafka 0.10.2: kafka.producer.ProducerStats
// (kafka.producer:type=ProducerStats,name=SerializationErrorsPerSec|ResendsPerSec|FailedSendsPerSec,clientId=C).
type ProducerStats struct {
	SerializationErrorRate *metrics.Meter
	ResendRate             *metrics.Meter
	FailedSendRate         *metrics.Meter
}

func newProducerStats(reg *metrics.Registry, clientID string) *ProducerStats {
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.producer", "ProducerStats")
	tag := metrics.Tag{Key: "clientId", Value: clientID}
	return &ProducerStats{
		SerializationErrorRate: g.NewMeter("SerializationErrorsPerSec", "errors", time.Second, tag),
		ResendRate:             g.NewMeter("ResendsPerSec", "resends", time.Second, tag),
		FailedSendRate:         g.NewMeter("FailedSendsPerSec", "failed sends", time.Second, tag),
	}
}

// ProducerTopicMetrics are the message, byte and drop rates of one client, per topic or for all.
//
// Kafka 0.10.2: kafka.producer.ProducerTopicMetrics.
type ProducerTopicMetrics struct {
	MessageRate        *metrics.Meter
	ByteRate           *metrics.Meter
	DroppedMessageRate *metrics.Meter
}

// ProducerTopicStats keeps a client's ProducerTopicMetrics.
//
// Kafka 0.10.2: kafka.producer.ProducerTopicStats.
type ProducerTopicStats struct {
	group    metrics.KafkaMetricsGroup
	clientID string
	all      ProducerTopicMetrics
	mu       sync.Mutex
	topics   map[string]ProducerTopicMetrics
}

func newProducerTopicStats(reg *metrics.Registry, clientID string) *ProducerTopicStats {
	s := &ProducerTopicStats{group: metrics.NewKafkaMetricsGroup(reg, "kafka.producer", "ProducerTopicMetrics"), clientID: clientID,
		topics: map[string]ProducerTopicMetrics{}}
	s.all = s.newMetrics(metrics.Tag{Key: "clientId", Value: clientID})
	return s
}

func (s *ProducerTopicStats) newMetrics(tags ...metrics.Tag) ProducerTopicMetrics {
	return ProducerTopicMetrics{
		MessageRate:        s.group.NewMeter("MessagesPerSec", "messages", time.Second, tags...),
		ByteRate:           s.group.NewMeter("BytesPerSec", "bytes", time.Second, tags...),
		DroppedMessageRate: s.group.NewMeter("DroppedMessagesPerSec", "drops", time.Second, tags...),
	}
}

// GetProducerAllTopicsStats is the all-topics aggregate.
func (s *ProducerTopicStats) GetProducerAllTopicsStats() ProducerTopicMetrics { return s.all }

// GetProducerTopicStats is one topic's metrics.
func (s *ProducerTopicStats) GetProducerTopicStats(topic string) ProducerTopicMetrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.topics[topic]
	if !ok {
		m = s.newMetrics(metrics.Tag{Key: "clientId", Value: s.clientID}, metrics.Tag{Key: "topic", Value: topic})
		s.topics[topic] = m
	}
	return m
}

// ProducerRequestMetrics time one client's produce requests to one broker (or all).
//
// Kafka 0.10.2: kafka.producer.ProducerRequestMetrics
// (ProducerRequestRateAndTimeMs, ProducerRequestSize, ProducerRequestThrottleRateAndTimeMs).
type ProducerRequestMetrics struct {
	RequestTimer      *metrics.Timer
	RequestSizeHist   *metrics.Histogram
	ThrottleTimeStats *metrics.Timer
}

// ProducerRequestStats keeps a client's ProducerRequestMetrics.
//
// Kafka 0.10.2: kafka.producer.ProducerRequestStats.
type ProducerRequestStats struct {
	group    metrics.KafkaMetricsGroup
	clientID string
	all      ProducerRequestMetrics
	mu       sync.Mutex
	brokers  map[string]ProducerRequestMetrics
}

func newProducerRequestStats(reg *metrics.Registry, clientID string) *ProducerRequestStats {
	s := &ProducerRequestStats{group: metrics.NewKafkaMetricsGroup(reg, "kafka.producer", "ProducerRequestMetrics"), clientID: clientID,
		brokers: map[string]ProducerRequestMetrics{}}
	s.all = s.newMetrics(metrics.Tag{Key: "clientId", Value: clientID})
	return s
}

func (s *ProducerRequestStats) newMetrics(tags ...metrics.Tag) ProducerRequestMetrics {
	return ProducerRequestMetrics{
		RequestTimer:      s.group.NewTimer("ProducerRequestRateAndTimeMs", time.Millisecond, time.Second, tags...),
		RequestSizeHist:   s.group.NewHistogram("ProducerRequestSize", true, tags...),
		ThrottleTimeStats: s.group.NewTimer("ProducerRequestThrottleRateAndTimeMs", time.Millisecond, time.Second, tags...),
	}
}

func (s *ProducerRequestStats) forBroker(host string, port int32) ProducerRequestMetrics {
	key := host + ":" + strconv.Itoa(int(port))
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.brokers[key]
	if !ok {
		m = s.newMetrics(metrics.Tag{Key: "clientId", Value: s.clientID}, metrics.Tag{Key: "brokerHost", Value: host},
			metrics.Tag{Key: "brokerPort", Value: strconv.Itoa(int(port))})
		s.brokers[key] = m
	}
	return m
}
