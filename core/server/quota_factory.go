package server

import (
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	kmetrics "github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/server/config"
)

// QuotaType names what a quota manager meters; its String is the metric group of the manager's
// sensors ("Produce" gives kafka.server:type=Produce,...) and the prefix of their sensor names.
//
// Kafka 0.10.2: kafka.server.QuotaType (Fetch, Produce, LeaderReplication, FollowerReplication).
type QuotaType int

// The quota types.
const (
	QuotaTypeFetch QuotaType = iota
	QuotaTypeProduce
	QuotaTypeLeaderReplication
	QuotaTypeFollowerReplication
)

func (t QuotaType) String() string {
	switch t {
	case QuotaTypeFetch:
		return "Fetch"
	case QuotaTypeProduce:
		return "Produce"
	case QuotaTypeLeaderReplication:
		return "LeaderReplication"
	case QuotaTypeFollowerReplication:
		return "FollowerReplication"
	}
	return "Unknown"
}

// QuotaManagers are the broker's four quota managers: client byte rates of fetches and produces,
// and the replication throttles of this broker as a leader and as a follower. A nil
// *QuotaManagers (or a nil manager in it) enforces nothing, so components and tests built
// without quotas need no checks.
//
// Kafka 0.10.2: kafka.server.QuotaFactory.QuotaManagers.
type QuotaManagers struct {
	Fetch    *ClientQuotaManager
	Produce  *ClientQuotaManager
	Leader   *ReplicationQuotaManager
	Follower *ReplicationQuotaManager
}

// Shutdown stops the client quota managers' reapers; responses still delayed are dropped with
// them, as 0.10.2's shutdown drops its DelayQueue (their connections are closing anyway).
func (q *QuotaManagers) Shutdown() {
	if q == nil {
		return
	}
	q.Fetch.Shutdown()
	q.Produce.Shutdown()
}

// NewQuotaManagers builds the four managers from the broker config over the broker's client
// metrics registry and starts the two throttled-response reapers.
//
// Kafka 0.10.2: QuotaFactory.instantiate.
func NewQuotaManagers(cfg *config.KafkaConfig, metrics *kmetrics.Metrics, clock common.Time, logger *logrus.Entry) *QuotaManagers {
	return &QuotaManagers{
		Fetch:    NewClientQuotaManager(ClientFetchConfig(cfg), metrics, QuotaTypeFetch, clock, logger),
		Produce:  NewClientQuotaManager(ClientProduceConfig(cfg), metrics, QuotaTypeProduce, clock, logger),
		Leader:   NewReplicationQuotaManager(ReplicationConfig(cfg), metrics, QuotaTypeLeaderReplication, logger),
		Follower: NewReplicationQuotaManager(ReplicationConfig(cfg), metrics, QuotaTypeFollowerReplication, logger),
	}
}

// ClientProduceConfig is the produce quota config: quota.producer.default, quota.window.num and
// quota.window.size.seconds.
//
// Kafka 0.10.2: QuotaFactory.clientProduceConfig.
func ClientProduceConfig(cfg *config.KafkaConfig) ClientQuotaManagerConfig {
	return ClientQuotaManagerConfig{QuotaBytesPerSecondDefault: cfg.ProducerQuotaBytesPerSecondDefault,
		NumQuotaSamples: int(cfg.NumQuotaSamples), QuotaWindowSizeSeconds: int(cfg.QuotaWindowSizeSeconds)}
}

// ClientFetchConfig is the fetch quota config: quota.consumer.default and the same windows.
//
// Kafka 0.10.2: QuotaFactory.clientFetchConfig.
func ClientFetchConfig(cfg *config.KafkaConfig) ClientQuotaManagerConfig {
	return ClientQuotaManagerConfig{QuotaBytesPerSecondDefault: cfg.ConsumerQuotaBytesPerSecondDefault,
		NumQuotaSamples: int(cfg.NumQuotaSamples), QuotaWindowSizeSeconds: int(cfg.QuotaWindowSizeSeconds)}
}

// ReplicationConfig is the replication quota config: replication.quota.window.num and
// replication.quota.window.size.seconds (the rate itself is dynamic, per broker).
//
// Kafka 0.10.2: QuotaFactory.replicationConfig.
func ReplicationConfig(cfg *config.KafkaConfig) ReplicationQuotaManagerConfig {
	return ReplicationQuotaManagerConfig{QuotaBytesPerSecondDefault: DefaultReplicationThrottledRate,
		NumQuotaSamples: int(cfg.NumReplicationQuotaSamples), QuotaWindowSizeSeconds: int(cfg.ReplicationQuotaWindowSizeSeconds)}
}

// startQuotaManagers builds the broker's client-metrics registry (metrics.num.samples samples of
// metrics.sample.window.ms at metrics.recording.level, its metrics shown in the broker's
// registry under kafka.server by a JmxReporter), schedules its sensor expiry every 30 s, and
// builds the quota managers on it.
//
// Kafka 0.10.2: KafkaServer.startup's `new Metrics(metricConfig, reporters, time, true)` (whose
// ExpireSensorTask runs every 30 s) and `QuotaFactory.instantiate(config, metrics, time)`.
func (s *KafkaServer) startQuotaManagers() {
	mc := kmetrics.NewMetricConfig()
	mc.Samples = int(s.config.MetricNumSamples)
	mc.TimeWindowMs = s.config.MetricSampleWindowMs
	if s.config.MetricRecordingLevel == kmetrics.DEBUG.String() {
		mc.RecordingLevel = kmetrics.DEBUG
	}
	s.clientMetrics = kmetrics.NewMetrics(mc, []kmetrics.MetricsReporter{NewJmxReporter("kafka.server", s.Metrics)}, s.time,
		s.loggers.Server.WithField("logger", "org.apache.kafka.common.metrics.Metrics"))
	s.kafkaScheduler.Schedule("SensorExpiryThread", s.clientMetrics.ExpireSensors, sensorExpiryInterval, sensorExpiryInterval)
	s.Quotas = NewQuotaManagers(s.config, s.clientMetrics, s.time, s.loggers.Server)
}

// sensorExpiryInterval is how often expired sensors are removed (Metrics' ExpireSensorTask).
const sensorExpiryInterval = 30 * time.Second

// produce, fetch and leader are the managers of a possibly nil QuotaManagers (nil: none).
func (q *QuotaManagers) produce() *ClientQuotaManager {
	if q == nil {
		return nil
	}
	return q.Produce
}

func (q *QuotaManagers) fetch() *ClientQuotaManager {
	if q == nil {
		return nil
	}
	return q.Fetch
}

func (q *QuotaManagers) leader() *ReplicationQuotaManager {
	if q == nil {
		return nil
	}
	return q.Leader
}

// sessionSanitizedUser is the quota user of a request: its session principal's name (the part
// after "User:"; ANONYMOUS on a PLAINTEXT listener), sanitized as /config/users/<user> names it.
//
// Kafka 0.10.2: RequestChannel.Session.sanitizedUser (QuotaId.sanitize(principal.getName)).
func sessionSanitizedUser(s network.Session) string {
	name := s.Principal
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	return SanitizeQuotaUser(name)
}

// requestSize is the size of a request as the produce quota counts it: header and body.
//
// Kafka 0.10.2: request.header.sizeOf + produceRequest.sizeOf in KafkaApis.handleProducerRequest.
func requestSize(req *network.Request) int {
	body := len(req.RawBody)
	if req.RawBody == nil && req.Body != nil { // built in process (tests), never read off a socket
		body = protocol.SizeOf(req.Body)
	}
	return len(req.Header.AppendTo(nil)) + body
}
