package metrics

import (
	"sync"
	"time"
)

// The BrokerTopicMetrics meter names (Kafka: the BrokerTopicStats object's constants).
const (
	MessagesInPerSec            = "MessagesInPerSec"
	BytesInPerSec               = "BytesInPerSec"
	BytesOutPerSec              = "BytesOutPerSec"
	BytesRejectedPerSec         = "BytesRejectedPerSec"
	FailedProduceRequestsPerSec = "FailedProduceRequestsPerSec"
	FailedFetchRequestsPerSec   = "FailedFetchRequestsPerSec"
	TotalProduceRequestsPerSec  = "TotalProduceRequestsPerSec"
	TotalFetchRequestsPerSec    = "TotalFetchRequestsPerSec"
)

// BrokerTopicMetrics are the produce and fetch meters of one topic, or of all topics together when
// it has no topic tag.
//
// Kafka 0.10.2: kafka.server.BrokerTopicMetrics (KafkaRequestHandler.scala). The MBean names keep
// Kafka's "kafka.server:type=BrokerTopicMetrics" although the Go type lives in core/metrics.
type BrokerTopicMetrics struct {
	group KafkaMetricsGroup
	tags  []Tag

	MessagesInRate           *Meter
	BytesInRate              *Meter
	BytesOutRate             *Meter
	BytesRejectedRate        *Meter
	FailedProduceRequestRate *Meter
	FailedFetchRequestRate   *Meter
	TotalProduceRequestRate  *Meter
	TotalFetchRequestRate    *Meter
}

func newBrokerTopicMetrics(reg *Registry, topic string) *BrokerTopicMetrics {
	m := &BrokerTopicMetrics{group: NewKafkaMetricsGroup(reg, "kafka.server", "BrokerTopicMetrics")}
	if topic != "" {
		m.tags = []Tag{{Key: "topic", Value: topic}}
	}
	meter := func(name, eventType string) *Meter { return m.group.NewMeter(name, eventType, time.Second, m.tags...) }
	m.MessagesInRate = meter(MessagesInPerSec, "messages")
	m.BytesInRate = meter(BytesInPerSec, "bytes")
	m.BytesOutRate = meter(BytesOutPerSec, "bytes")
	m.BytesRejectedRate = meter(BytesRejectedPerSec, "bytes")
	m.FailedProduceRequestRate = meter(FailedProduceRequestsPerSec, "requests")
	m.FailedFetchRequestRate = meter(FailedFetchRequestsPerSec, "requests")
	m.TotalProduceRequestRate = meter(TotalProduceRequestsPerSec, "requests")
	m.TotalFetchRequestRate = meter(TotalFetchRequestsPerSec, "requests")
	return m
}

// Close unregisters the meters.
func (m *BrokerTopicMetrics) Close() {
	for _, name := range []string{MessagesInPerSec, BytesInPerSec, BytesOutPerSec, BytesRejectedPerSec,
		FailedProduceRequestsPerSec, FailedFetchRequestsPerSec, TotalProduceRequestsPerSec, TotalFetchRequestsPerSec} {
		m.group.RemoveMetric(name, m.tags...)
	}
}

// BrokerTopicStats holds the all-topics BrokerTopicMetrics and one per topic, made on first use.
//
// Kafka 0.10.2: kafka.server.BrokerTopicStats, a Scala object (a JVM-wide singleton); here one
// value per broker, built over the broker's Registry.
type BrokerTopicStats struct {
	reg      *Registry
	all      *BrokerTopicMetrics
	mu       sync.Mutex
	perTopic map[string]*BrokerTopicMetrics
}

// NewBrokerTopicStats registers the all-topics meters at once, as Kafka does.
func NewBrokerTopicStats(reg *Registry) *BrokerTopicStats {
	return &BrokerTopicStats{reg: reg, all: newBrokerTopicMetrics(reg, ""), perTopic: map[string]*BrokerTopicMetrics{}}
}

// BrokerAllTopicsStats is Kafka's getBrokerAllTopicsStats.
func (s *BrokerTopicStats) BrokerAllTopicsStats() *BrokerTopicMetrics { return s.all }

// TopicStats is Kafka's getBrokerTopicStats(topic): the topic's meters, registered on first use.
func (s *BrokerTopicStats) TopicStats(topic string) *BrokerTopicMetrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.perTopic[topic]
	if !ok {
		m = newBrokerTopicMetrics(s.reg, topic)
		s.perTopic[topic] = m
	}
	return m
}

// RemoveMetrics unregisters a topic's meters (topic deletion, or the broker stops leading it).
func (s *BrokerTopicStats) RemoveMetrics(topic string) {
	s.mu.Lock()
	m, ok := s.perTopic[topic]
	delete(s.perTopic, topic)
	s.mu.Unlock()
	if ok {
		m.Close()
	}
}
