package oldconsumer

import (
	"strconv"
	"sync"
	"time"

	"github.com/zkafka/zkafka/core/metrics"
)

// ConsumerTopicMetrics are the message and byte rates of one client, for one topic or for all.
//
// Kafka 0.10.2: kafka.consumer.ConsumerTopicMetrics
// (kafka.consumer:type=ConsumerTopicMetrics,name=MessagesPerSec|BytesPerSec,clientId=C[,topic=T]).
type ConsumerTopicMetrics struct {
	MessageRate *metrics.Meter
	ByteRate    *metrics.Meter
}

// ConsumerTopicStats keeps the ConsumerTopicMetrics of one client.
//
// Kafka 0.10.2: kafka.consumer.ConsumerTopicStats. Kafka keeps one per client id in a global
// registry (ConsumerTopicStatsRegistry); here the owner makes it from its metrics registry, and
// two owners with the same client id share the meters through the registry.
type ConsumerTopicStats struct {
	group    metrics.KafkaMetricsGroup
	clientID string
	all      ConsumerTopicMetrics

	mu    sync.Mutex
	stats map[string]ConsumerTopicMetrics
}

// NewConsumerTopicStats makes the stats of clientID in reg (nil: counted, not registered).
func NewConsumerTopicStats(reg *metrics.Registry, clientID string) *ConsumerTopicStats {
	s := &ConsumerTopicStats{group: metrics.NewKafkaMetricsGroup(reg, "kafka.consumer", "ConsumerTopicMetrics"),
		clientID: clientID, stats: map[string]ConsumerTopicMetrics{}}
	s.all = s.newMetrics(metrics.Tag{Key: "clientId", Value: clientID})
	return s
}

func (s *ConsumerTopicStats) newMetrics(tags ...metrics.Tag) ConsumerTopicMetrics {
	return ConsumerTopicMetrics{
		MessageRate: s.group.NewMeter("MessagesPerSec", "messages", time.Second, tags...),
		ByteRate:    s.group.NewMeter("BytesPerSec", "bytes", time.Second, tags...),
	}
}

// GetConsumerAllTopicStats is the all-topics aggregate.
func (s *ConsumerTopicStats) GetConsumerAllTopicStats() ConsumerTopicMetrics { return s.all }

// GetConsumerTopicStats is one topic's metrics, made on first use.
func (s *ConsumerTopicStats) GetConsumerTopicStats(topic string) ConsumerTopicMetrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.stats[topic]
	if !ok {
		m = s.newMetrics(metrics.Tag{Key: "clientId", Value: s.clientID}, metrics.Tag{Key: "topic", Value: topic})
		s.stats[topic] = m
	}
	return m
}

// FetchRequestAndResponseMetrics time the fetch requests of one client to one broker (or all).
//
// Kafka 0.10.2: kafka.consumer.FetchRequestAndResponseMetrics
// (kafka.consumer:type=FetchRequestAndResponseMetrics,name=FetchRequestRateAndTimeMs|FetchResponseSize|
// FetchRequestThrottleRateAndTimeMs,clientId=C[,brokerHost=H,brokerPort=P]).
type FetchRequestAndResponseMetrics struct {
	RequestTimer      *metrics.Timer
	RequestSizeHist   *metrics.Histogram
	ThrottleTimeStats *metrics.Timer
}

// FetchRequestAndResponseStats keeps the FetchRequestAndResponseMetrics of one client.
//
// Kafka 0.10.2: kafka.consumer.FetchRequestAndResponseStats.
type FetchRequestAndResponseStats struct {
	group    metrics.KafkaMetricsGroup
	clientID string
	all      FetchRequestAndResponseMetrics

	mu    sync.Mutex
	stats map[string]FetchRequestAndResponseMetrics
}

// NewFetchRequestAndResponseStats makes the stats of clientID in reg (nil: not registered).
func NewFetchRequestAndResponseStats(reg *metrics.Registry, clientID string) *FetchRequestAndResponseStats {
	s := &FetchRequestAndResponseStats{group: metrics.NewKafkaMetricsGroup(reg, "kafka.consumer", "FetchRequestAndResponseMetrics"),
		clientID: clientID, stats: map[string]FetchRequestAndResponseMetrics{}}
	s.all = s.newMetrics(metrics.Tag{Key: "clientId", Value: clientID})
	return s
}

func (s *FetchRequestAndResponseStats) newMetrics(tags ...metrics.Tag) FetchRequestAndResponseMetrics {
	return FetchRequestAndResponseMetrics{
		RequestTimer:      s.group.NewTimer("FetchRequestRateAndTimeMs", time.Millisecond, time.Second, tags...),
		RequestSizeHist:   s.group.NewHistogram("FetchResponseSize", true, tags...),
		ThrottleTimeStats: s.group.NewTimer("FetchRequestThrottleRateAndTimeMs", time.Millisecond, time.Second, tags...),
	}
}

// GetFetchRequestAndResponseAllBrokersStats is the all-brokers aggregate.
func (s *FetchRequestAndResponseStats) GetFetchRequestAndResponseAllBrokersStats() FetchRequestAndResponseMetrics {
	return s.all
}

// GetFetchRequestAndResponseStats is one broker's metrics, made on first use.
func (s *FetchRequestAndResponseStats) GetFetchRequestAndResponseStats(host string, port int32) FetchRequestAndResponseMetrics {
	key := host + ":" + strconv.Itoa(int(port))
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.stats[key]
	if !ok {
		m = s.newMetrics(metrics.Tag{Key: "clientId", Value: s.clientID}, metrics.Tag{Key: "brokerHost", Value: host},
			metrics.Tag{Key: "brokerPort", Value: strconv.Itoa(int(port))})
		s.stats[key] = m
	}
	return m
}
