package consumer

import (
	"fmt"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/config"
)

// The consumer's configuration keys (Kafka 0.10.2's ConsumerConfig and CommonClientConfigs).
const (
	BootstrapServersConfig            = "bootstrap.servers"
	GroupIDConfig                     = "group.id"
	SessionTimeoutMsConfig            = "session.timeout.ms"
	HeartbeatIntervalMsConfig         = "heartbeat.interval.ms"
	PartitionAssignmentStrategyConfig = "partition.assignment.strategy"
	MetadataMaxAgeConfig              = "metadata.max.age.ms"
	EnableAutoCommitConfig            = "enable.auto.commit"
	AutoCommitIntervalMsConfig        = "auto.commit.interval.ms"
	ClientIDConfig                    = "client.id"
	MaxPartitionFetchBytesConfig      = "max.partition.fetch.bytes"
	SendBufferConfig                  = "send.buffer.bytes"
	ReceiveBufferConfig               = "receive.buffer.bytes"
	FetchMinBytesConfig               = "fetch.min.bytes"
	FetchMaxBytesConfig               = "fetch.max.bytes"
	FetchMaxWaitMsConfig              = "fetch.max.wait.ms"
	ReconnectBackoffMsConfig          = "reconnect.backoff.ms"
	RetryBackoffMsConfig              = "retry.backoff.ms"
	AutoOffsetResetConfig             = "auto.offset.reset"
	CheckCrcsConfig                   = "check.crcs"
	MetricsSampleWindowMsConfig       = "metrics.sample.window.ms"
	MetricsNumSamplesConfig           = "metrics.num.samples"
	MetricsRecordingLevelConfig       = "metrics.recording.level"
	MetricReporterClassesConfig       = "metric.reporters"
	KeyDeserializerClassConfig        = "key.deserializer"
	ValueDeserializerClassConfig      = "value.deserializer"
	RequestTimeoutMsConfig            = "request.timeout.ms"
	ConnectionsMaxIdleMsConfig        = "connections.max.idle.ms"
	InterceptorClassesConfig          = "interceptor.classes"
	MaxPollRecordsConfig              = "max.poll.records"
	MaxPollIntervalMsConfig           = "max.poll.interval.ms"
	ExcludeInternalTopicsConfig       = "exclude.internal.topics"
	SecurityProtocolConfig            = "security.protocol"
)

// Class names of the built-in assignors (partition.assignment.strategy).
const (
	RangeAssignorClass      = "org.apache.kafka.clients.consumer.RangeAssignor"
	RoundRobinAssignorClass = "org.apache.kafka.clients.consumer.RoundRobinAssignor"
)

// ConsumerConfig is the consumer's configuration, parsed and validated once from properties
// against Kafka 0.10.2's definitions (names, types, defaults, validators and their
// ConfigException messages), into typed fields.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.ConsumerConfig (an AbstractConfig).
type ConsumerConfig struct {
	BootstrapServers            []string
	GroupID                     string
	SessionTimeoutMs            int32
	HeartbeatIntervalMs         int32
	PartitionAssignmentStrategy []string
	MetadataMaxAgeMs            int64
	EnableAutoCommit            bool
	AutoCommitIntervalMs        int32
	ClientID                    string
	MaxPartitionFetchBytes      int32
	SendBufferBytes             int32
	ReceiveBufferBytes          int32
	FetchMinBytes               int32
	FetchMaxBytes               int32
	FetchMaxWaitMs              int32
	ReconnectBackoffMs          int64
	RetryBackoffMs              int64
	AutoOffsetReset             string
	CheckCrcs                   bool
	MetricsSampleWindowMs       int64
	MetricsNumSamples           int32
	MetricsRecordingLevel       string
	MetricReporters             []string
	KeyDeserializer             string
	ValueDeserializer           string
	RequestTimeoutMs            int32
	ConnectionsMaxIdleMs        int64
	InterceptorClasses          []string
	MaxPollRecords              int32
	MaxPollIntervalMs           int32
	ExcludeInternalTopics       bool
	SecurityProtocol            string

	// Originals are the properties as given.
	Originals map[string]string
	values    map[string]any
}

var consumerConfigDef = newConsumerConfigDef()

func newConsumerConfigDef() *config.ConfigDef {
	d := config.NewConfigDef()
	d.Define(BootstrapServersConfig, config.LIST, config.NoDefault, nil, config.HIGH, "host:port pairs to bootstrap the cluster metadata from")
	d.Define(GroupIDConfig, config.STRING, "", nil, config.HIGH, "the consumer group this consumer belongs to")
	d.Define(SessionTimeoutMsConfig, config.INT, "10000", nil, config.HIGH, "a member without heartbeats for this long is removed from the group")
	d.Define(HeartbeatIntervalMsConfig, config.INT, "3000", nil, config.HIGH, "time between heartbeats to the group coordinator")
	d.Define(PartitionAssignmentStrategyConfig, config.LIST, RangeAssignorClass, nil, config.MEDIUM, "assignors offered to the group, in order of preference")
	d.Define(MetadataMaxAgeConfig, config.LONG, "300000", config.AtLeast(0), config.LOW, "metadata is refreshed at least this often")
	d.Define(EnableAutoCommitConfig, config.BOOLEAN, "true", nil, config.MEDIUM, "commit the consumed position in the background")
	d.Define(AutoCommitIntervalMsConfig, config.INT, "5000", config.AtLeast(0), config.LOW, "time between automatic commits")
	d.Define(ClientIDConfig, config.STRING, "", nil, config.LOW, "the client id sent with every request")
	d.Define(MaxPartitionFetchBytesConfig, config.INT, "1048576", config.AtLeast(0), config.HIGH, "bytes returned per partition per fetch")
	d.Define(SendBufferConfig, config.INT, "131072", config.AtLeast(-1), config.MEDIUM, "TCP send buffer (SO_SNDBUF), -1 for the OS default")
	d.Define(ReceiveBufferConfig, config.INT, "65536", config.AtLeast(-1), config.MEDIUM, "TCP receive buffer (SO_RCVBUF), -1 for the OS default")
	d.Define(FetchMinBytesConfig, config.INT, "1", config.AtLeast(0), config.HIGH, "bytes a fetch waits for before the broker answers")
	d.Define(FetchMaxBytesConfig, config.INT, "52428800", config.AtLeast(0), config.MEDIUM, "bytes returned per fetch")
	d.Define(FetchMaxWaitMsConfig, config.INT, "500", config.AtLeast(0), config.LOW, "how long the broker waits for fetch.min.bytes")
	d.Define(ReconnectBackoffMsConfig, config.LONG, "50", config.AtLeast(0), config.LOW, "wait before reconnecting to a node")
	d.Define(RetryBackoffMsConfig, config.LONG, "100", config.AtLeast(0), config.LOW, "wait before retrying a failed request")
	d.Define(AutoOffsetResetConfig, config.STRING, "latest", config.ValidString("latest", "earliest", "none"), config.MEDIUM, "where to start without a valid offset")
	d.Define(CheckCrcsConfig, config.BOOLEAN, "true", nil, config.LOW, "check the CRC32 of consumed records")
	d.Define(MetricsSampleWindowMsConfig, config.LONG, "30000", config.AtLeast(0), config.LOW, "window of a metrics sample")
	d.Define(MetricsNumSamplesConfig, config.INT, "2", config.AtLeast(1), config.LOW, "samples kept per metric")
	d.Define(MetricsRecordingLevelConfig, config.STRING, "INFO", config.ValidString("INFO", "DEBUG"), config.LOW, "highest recording level of the metrics")
	d.Define(MetricReporterClassesConfig, config.LIST, "", nil, config.LOW, "metrics reporter classes")
	d.Define(KeyDeserializerClassConfig, config.CLASS, config.NoDefault, nil, config.HIGH, "deserializer class of keys")
	d.Define(ValueDeserializerClassConfig, config.CLASS, config.NoDefault, nil, config.HIGH, "deserializer class of values")
	d.Define(RequestTimeoutMsConfig, config.INT, "305000", config.AtLeast(0), config.MEDIUM, "how long to wait for a response")
	d.Define(ConnectionsMaxIdleMsConfig, config.LONG, "540000", nil, config.MEDIUM, "close connections idle for this long")
	d.Define(InterceptorClassesConfig, config.LIST, nil, nil, config.LOW, "interceptor classes")
	d.Define(MaxPollRecordsConfig, config.INT, "500", config.AtLeast(1), config.MEDIUM, "records returned by one poll")
	d.Define(MaxPollIntervalMsConfig, config.INT, "300000", config.AtLeast(1), config.MEDIUM, "longest time between polls before the member leaves the group")
	d.Define(ExcludeInternalTopicsConfig, config.BOOLEAN, "true", nil, config.MEDIUM, "a pattern subscription leaves out internal topics")
	d.Define(SecurityProtocolConfig, config.STRING, "PLAINTEXT", nil, config.MEDIUM, "protocol used to talk to brokers")
	config.DefineClientSecurity(d)
	return d
}

// NewConsumerConfig parses and validates props. Errors are *config.ConfigException with Kafka's
// messages.
func NewConsumerConfig(props map[string]string) (*ConsumerConfig, error) {
	v, err := consumerConfigDef.Parse(props)
	if err != nil {
		return nil, err
	}
	c := &ConsumerConfig{Originals: props, values: v}
	c.BootstrapServers = v[BootstrapServersConfig].([]string)
	c.GroupID = v[GroupIDConfig].(string)
	c.SessionTimeoutMs = v[SessionTimeoutMsConfig].(int32)
	c.HeartbeatIntervalMs = v[HeartbeatIntervalMsConfig].(int32)
	c.PartitionAssignmentStrategy = v[PartitionAssignmentStrategyConfig].([]string)
	c.MetadataMaxAgeMs = v[MetadataMaxAgeConfig].(int64)
	c.EnableAutoCommit = v[EnableAutoCommitConfig].(bool)
	c.AutoCommitIntervalMs = v[AutoCommitIntervalMsConfig].(int32)
	c.ClientID = v[ClientIDConfig].(string)
	c.MaxPartitionFetchBytes = v[MaxPartitionFetchBytesConfig].(int32)
	c.SendBufferBytes = v[SendBufferConfig].(int32)
	c.ReceiveBufferBytes = v[ReceiveBufferConfig].(int32)
	c.FetchMinBytes = v[FetchMinBytesConfig].(int32)
	c.FetchMaxBytes = v[FetchMaxBytesConfig].(int32)
	c.FetchMaxWaitMs = v[FetchMaxWaitMsConfig].(int32)
	c.ReconnectBackoffMs = v[ReconnectBackoffMsConfig].(int64)
	c.RetryBackoffMs = v[RetryBackoffMsConfig].(int64)
	c.AutoOffsetReset = v[AutoOffsetResetConfig].(string)
	c.CheckCrcs = v[CheckCrcsConfig].(bool)
	c.MetricsSampleWindowMs = v[MetricsSampleWindowMsConfig].(int64)
	c.MetricsNumSamples = v[MetricsNumSamplesConfig].(int32)
	c.MetricsRecordingLevel = v[MetricsRecordingLevelConfig].(string)
	c.MetricReporters = v[MetricReporterClassesConfig].([]string)
	c.KeyDeserializer = v[KeyDeserializerClassConfig].(string)
	c.ValueDeserializer = v[ValueDeserializerClassConfig].(string)
	c.RequestTimeoutMs = v[RequestTimeoutMsConfig].(int32)
	c.ConnectionsMaxIdleMs = v[ConnectionsMaxIdleMsConfig].(int64)
	if ic, ok := v[InterceptorClassesConfig].([]string); ok {
		c.InterceptorClasses = ic
	}
	c.MaxPollRecords = v[MaxPollRecordsConfig].(int32)
	c.MaxPollIntervalMs = v[MaxPollIntervalMsConfig].(int32)
	c.ExcludeInternalTopics = v[ExcludeInternalTopicsConfig].(bool)
	c.SecurityProtocol = v[SecurityProtocolConfig].(string)
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// validate checks what KafkaConsumer's constructor checks, and what zkafka cannot offer.
func (c *ConsumerConfig) validate() error {
	if c.SecurityProtocol != "PLAINTEXT" {
		return &config.ConfigException{Msg: fmt.Sprintf("Invalid value %s for configuration %s: zkafka's clients support only PLAINTEXT",
			c.SecurityProtocol, SecurityProtocolConfig)}
	}
	if c.RequestTimeoutMs <= c.SessionTimeoutMs || c.RequestTimeoutMs <= c.FetchMaxWaitMs {
		return &config.ConfigException{Msg: RequestTimeoutMsConfig + " should be greater than " + SessionTimeoutMsConfig + " and " + FetchMaxWaitMsConfig}
	}
	for _, a := range c.PartitionAssignmentStrategy {
		if a != RangeAssignorClass && a != RoundRobinAssignorClass && a != goAssignorClass {
			return classNotFound(PartitionAssignmentStrategyConfig, a)
		}
	}
	if len(c.InterceptorClasses) > 0 {
		return classNotFound(InterceptorClassesConfig, c.InterceptorClasses[0])
	}
	if len(c.MetricReporters) > 0 {
		return classNotFound(MetricReporterClassesConfig, c.MetricReporters[0])
	}
	return nil
}

// goAssignorClass marks assignors given as Go values (ConsumerOptions.Assignors).
const goAssignorClass = "zkafka.go.PartitionAssignor"

// goDeserializerClass marks a deserializer given as a Go value.
const goDeserializerClass = "zkafka.go.Deserializer"

// classNotFound is ConfigDef.parseType's message for a CLASS value that cannot be loaded.
func classNotFound(key, class string) error {
	return &config.ConfigException{Msg: fmt.Sprintf("Invalid value %s for configuration %s: Class %s could not be found.", class, key, class)}
}

// logAll logs every value at INFO, as AbstractConfig does when a client starts, and warns of
// each supplied key that is not a consumer configuration.
//
// Kafka 0.10.2: AbstractConfig.logAll and logUnused.
func (c *ConsumerConfig) logAll(log *logrus.Entry) {
	if !log.Logger.IsLevelEnabled(logrus.InfoLevel) && !log.Logger.IsLevelEnabled(logrus.WarnLevel) {
		return
	}
	config.LogAll(log, "ConsumerConfig", consumerConfigDef, c.values, c.Originals)
}
