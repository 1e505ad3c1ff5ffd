package producer

import (
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

// The producer's configuration keys (Kafka 0.10.2's ProducerConfig and CommonClientConfigs).
const (
	BootstrapServersConfig                 = "bootstrap.servers"
	BufferMemoryConfig                     = "buffer.memory"
	RetriesConfig                          = "retries"
	AcksConfig                             = "acks"
	CompressionTypeConfig                  = "compression.type"
	BatchSizeConfig                        = "batch.size"
	TimeoutConfig                          = "timeout.ms"
	LingerMsConfig                         = "linger.ms"
	ClientIDConfig                         = "client.id"
	SendBufferConfig                       = "send.buffer.bytes"
	ReceiveBufferConfig                    = "receive.buffer.bytes"
	MaxRequestSizeConfig                   = "max.request.size"
	BlockOnBufferFullConfig                = "block.on.buffer.full"
	ReconnectBackoffMsConfig               = "reconnect.backoff.ms"
	MetricReporterClassesConfig            = "metric.reporters"
	RetryBackoffMsConfig                   = "retry.backoff.ms"
	MetadataFetchTimeoutConfig             = "metadata.fetch.timeout.ms"
	MaxBlockMsConfig                       = "max.block.ms"
	RequestTimeoutMsConfig                 = "request.timeout.ms"
	MetadataMaxAgeConfig                   = "metadata.max.age.ms"
	MetricsSampleWindowMsConfig            = "metrics.sample.window.ms"
	MetricsNumSamplesConfig                = "metrics.num.samples"
	MaxInFlightRequestsPerConnectionConfig = "max.in.flight.requests.per.connection"
	KeySerializerClassConfig               = "key.serializer"
	ValueSerializerClassConfig             = "value.serializer"
	ConnectionsMaxIdleMsConfig             = "connections.max.idle.ms"
	PartitionerClassConfig                 = "partitioner.class"
	InterceptorClassesConfig               = "interceptor.classes"
	SecurityProtocolConfig                 = "security.protocol"
)

// DefaultPartitionerClass is the partitioner.class default.
const DefaultPartitionerClass = "org.apache.kafka.clients.producer.internals.DefaultPartitioner"

// ProducerConfig is the producer's configuration, parsed and validated once from properties
// against Kafka 0.10.2's definitions (key names, types, defaults, validators and their
// ConfigException messages), into typed fields.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.ProducerConfig (an AbstractConfig).
type ProducerConfig struct {
	BootstrapServers                 []string
	BufferMemory                     int64
	Retries                          int32
	Acks                             string
	CompressionType                  string
	BatchSize                        int32
	TimeoutMs                        int32 // timeout.ms, deprecated for request.timeout.ms
	LingerMs                         int64
	ClientID                         string
	SendBufferBytes                  int32
	ReceiveBufferBytes               int32
	MaxRequestSize                   int32
	BlockOnBufferFull                bool // deprecated for max.block.ms
	ReconnectBackoffMs               int64
	MetricReporters                  []string
	RetryBackoffMs                   int64
	MetadataFetchTimeoutMs           int64 // deprecated for max.block.ms
	MaxBlockMs                       int64
	RequestTimeoutMs                 int32
	MetadataMaxAgeMs                 int64
	MetricsSampleWindowMs            int64
	MetricsNumSamples                int32
	MaxInFlightRequestsPerConnection int32
	KeySerializer                    string
	ValueSerializer                  string
	ConnectionsMaxIdleMs             int64
	PartitionerClass                 string
	InterceptorClasses               []string
	SecurityProtocol                 string

	// Originals are the properties as given.
	Originals map[string]string
	values    map[string]any
}

var producerConfigDef = newProducerConfigDef()

func newProducerConfigDef() *config.ConfigDef {
	d := config.NewConfigDef()
	d.Define(BootstrapServersConfig, config.LIST, config.NoDefault, nil, config.HIGH, "host:port pairs to bootstrap the cluster metadata from")
	d.Define(BufferMemoryConfig, config.LONG, "33554432", config.AtLeast(0), config.HIGH, "bytes of memory for records waiting to be sent")
	d.Define(RetriesConfig, config.INT, "0", config.Between(0, 2147483647), config.HIGH, "how often a batch that failed with a retriable error is sent again")
	d.Define(AcksConfig, config.STRING, "1", config.ValidString("all", "-1", "0", "1"), config.HIGH, "acknowledgements the leader waits for before answering")
	d.Define(CompressionTypeConfig, config.STRING, "none", nil, config.HIGH, "none, gzip, snappy or lz4, per batch")
	d.Define(BatchSizeConfig, config.INT, "16384", config.AtLeast(0), config.MEDIUM, "bytes of records grouped per partition in one request")
	d.Define(TimeoutConfig, config.INT, "30000", config.AtLeast(0), config.MEDIUM, "deprecated: request.timeout.ms")
	d.Define(LingerMsConfig, config.LONG, "0", config.AtLeast(0), config.MEDIUM, "how long a batch waits for more records")
	d.Define(ClientIDConfig, config.STRING, "", nil, config.MEDIUM, "the client id sent with every request")
	d.Define(SendBufferConfig, config.INT, "131072", config.AtLeast(-1), config.MEDIUM, "TCP send buffer (SO_SNDBUF), -1 for the OS default")
	d.Define(ReceiveBufferConfig, config.INT, "32768", config.AtLeast(-1), config.MEDIUM, "TCP receive buffer (SO_RCVBUF), -1 for the OS default")
	d.Define(MaxRequestSizeConfig, config.INT, "1048576", config.AtLeast(0), config.MEDIUM, "the largest request, and record, the producer sends")
	d.Define(BlockOnBufferFullConfig, config.BOOLEAN, "false", nil, config.LOW, "deprecated: max.block.ms")
	d.Define(ReconnectBackoffMsConfig, config.LONG, "50", config.AtLeast(0), config.LOW, "wait before reconnecting to a node")
	d.Define(MetricReporterClassesConfig, config.LIST, "", nil, config.LOW, "metrics reporter classes")
	d.Define(RetryBackoffMsConfig, config.LONG, "100", config.AtLeast(0), config.LOW, "wait before retrying a failed request or metadata update")
	d.Define(MetadataFetchTimeoutConfig, config.LONG, "60000", config.AtLeast(0), config.LOW, "deprecated: max.block.ms")
	d.Define(MaxBlockMsConfig, config.LONG, "60000", config.AtLeast(0), config.MEDIUM, "how long send and partitionsFor block for metadata or buffer memory")
	d.Define(RequestTimeoutMsConfig, config.INT, "30000", config.AtLeast(0), config.MEDIUM, "how long to wait for a response, and for a batch to be sent")
	d.Define(MetadataMaxAgeConfig, config.LONG, "300000", config.AtLeast(0), config.LOW, "metadata is refreshed at least this often")
	d.Define(MetricsSampleWindowMsConfig, config.LONG, "30000", config.AtLeast(0), config.LOW, "window of a metrics sample")
	d.Define(MetricsNumSamplesConfig, config.INT, "2", config.AtLeast(1), config.LOW, "samples kept per metric")
	d.Define(MaxInFlightRequestsPerConnectionConfig, config.INT, "5", config.AtLeast(1), config.LOW, "unanswered requests per connection before blocking")
	d.Define(KeySerializerClassConfig, config.CLASS, config.NoDefault, nil, config.HIGH, "serializer class of keys")
	d.Define(ValueSerializerClassConfig, config.CLASS, config.NoDefault, nil, config.HIGH, "serializer class of values")
	d.Define(ConnectionsMaxIdleMsConfig, config.LONG, "540000", nil, config.MEDIUM, "close connections idle for this long")
	d.Define(PartitionerClassConfig, config.CLASS, DefaultPartitionerClass, nil, config.MEDIUM, "partitioner class")
	d.Define(InterceptorClassesConfig, config.LIST, nil, nil, config.LOW, "interceptor classes")
	d.Define(SecurityProtocolConfig, config.STRING, "PLAINTEXT", nil, config.MEDIUM, "protocol used to talk to brokers")
	config.DefineClientSecurity(d)
	return d
}

// NewProducerConfig parses and validates props. Errors are *config.ConfigException with Kafka's
// messages ("Invalid value x for configuration batch.size: Not a number of type INT", "Missing
// required configuration \"bootstrap.servers\" which has no default value.").
func NewProducerConfig(props map[string]string) (*ProducerConfig, error) {
	v, err := producerConfigDef.Parse(props)
	if err != nil {
		return nil, err
	}
	c := &ProducerConfig{Originals: props, values: v}
	c.BootstrapServers = v[BootstrapServersConfig].([]string)
	c.BufferMemory = v[BufferMemoryConfig].(int64)
	c.Retries = v[RetriesConfig].(int32)
	c.Acks = v[AcksConfig].(string)
	c.CompressionType = v[CompressionTypeConfig].(string)
	c.BatchSize = v[BatchSizeConfig].(int32)
	c.TimeoutMs = v[TimeoutConfig].(int32)
	c.LingerMs = v[LingerMsConfig].(int64)
	c.ClientID = v[ClientIDConfig].(string)
	c.SendBufferBytes = v[SendBufferConfig].(int32)
	c.ReceiveBufferBytes = v[ReceiveBufferConfig].(int32)
	c.MaxRequestSize = v[MaxRequestSizeConfig].(int32)
	c.BlockOnBufferFull = v[BlockOnBufferFullConfig].(bool)
	c.ReconnectBackoffMs = v[ReconnectBackoffMsConfig].(int64)
	c.MetricReporters = v[MetricReporterClassesConfig].([]string)
	c.RetryBackoffMs = v[RetryBackoffMsConfig].(int64)
	c.MetadataFetchTimeoutMs = v[MetadataFetchTimeoutConfig].(int64)
	c.MaxBlockMs = v[MaxBlockMsConfig].(int64)
	c.RequestTimeoutMs = v[RequestTimeoutMsConfig].(int32)
	c.MetadataMaxAgeMs = v[MetadataMaxAgeConfig].(int64)
	c.MetricsSampleWindowMs = v[MetricsSampleWindowMsConfig].(int64)
	c.MetricsNumSamples = v[MetricsNumSamplesConfig].(int32)
	c.MaxInFlightRequestsPerConnection = v[MaxInFlightRequestsPerConnectionConfig].(int32)
	c.KeySerializer = v[KeySerializerClassConfig].(string)
	c.ValueSerializer = v[ValueSerializerClassConfig].(string)
	c.ConnectionsMaxIdleMs = v[ConnectionsMaxIdleMsConfig].(int64)
	c.PartitionerClass = v[PartitionerClassConfig].(string)
	if ic, ok := v[InterceptorClassesConfig].([]string); ok {
		c.InterceptorClasses = ic
	}
	c.SecurityProtocol = v[SecurityProtocolConfig].(string)
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// validate checks what Kafka checks when it loads the classes and protocols named, and what
// zkafka cannot offer.
func (c *ProducerConfig) validate() error {
	if c.SecurityProtocol != "PLAINTEXT" {
		return &config.ConfigException{Msg: fmt.Sprintf("Invalid value %s for configuration %s: zkafka's clients support only PLAINTEXT",
			c.SecurityProtocol, SecurityProtocolConfig)}
	}
	if c.PartitionerClass != DefaultPartitionerClass && c.PartitionerClass != goPartitionerClass {
		return classNotFound(PartitionerClassConfig, c.PartitionerClass)
	}
	if len(c.InterceptorClasses) > 0 {
		return classNotFound(InterceptorClassesConfig, c.InterceptorClasses[0])
	}
	if len(c.MetricReporters) > 0 {
		return classNotFound(MetricReporterClassesConfig, c.MetricReporters[0])
	}
	return nil
}

// goPartitionerClass marks a Partitioner given as a Go value (ProducerOptions.Partitioner).
const goPartitionerClass = "zkafka.go.Partitioner"

// classNotFound is ConfigDef.parseType's message for a CLASS value that cannot be loaded: zkafka
// loads no classes by name except the built-in serializers and the DefaultPartitioner; a Go
// program passes its own partitioner, interceptors and reporters as values (ProducerOptions).
func classNotFound(key, class string) error {
	return &config.ConfigException{Msg: fmt.Sprintf("Invalid value %s for configuration %s: Class %s could not be found.", class, key, class)}
}

// checkSerializerClass is the check for a serializer named by class only.
func checkSerializerClass(key, class string) error {
	if !serialization.KnownSerializer(class) {
		return classNotFound(key, class)
	}
	return nil
}

// compression is the codec compression.type names.
//
// Kafka 0.10.2: CompressionType.forName (an IllegalArgumentException, which the producer's
// constructor wraps in "Failed to construct kafka producer").
func (c *ProducerConfig) compression() (record.CompressionType, error) {
	t, err := record.ForName(c.CompressionType)
	if err != nil {
		return 0, fmt.Errorf("Unknown compression name: %s", c.CompressionType)
	}
	return t, nil
}

// acks parses acks ("all" is -1).
//
// Kafka 0.10.2: KafkaProducer.parseAcks.
func (c *ProducerConfig) acks() int16 {
	switch strings.TrimSpace(c.Acks) {
	case "all", "-1":
		return -1
	case "0":
		return 0
	}
	return 1
}

// maxBlockTimeMs and requestTimeoutMs apply the deprecated keys as 0.10.2 does: a supplied
// block.on.buffer.full=true blocks without limit, a supplied metadata.fetch.timeout.ms replaces
// max.block.ms, a supplied timeout.ms replaces request.timeout.ms (each with a warning).
func (c *ProducerConfig) maxBlockTimeMs(log *logrus.Entry) int64 {
	_, blockGiven := c.Originals[BlockOnBufferFullConfig]
	_, fetchGiven := c.Originals[MetadataFetchTimeoutConfig]
	if blockGiven {
		log.Warnf("%s config is deprecated and will be removed soon. Please use %s", BlockOnBufferFullConfig, MaxBlockMsConfig)
		if c.BlockOnBufferFull {
			return 1<<63 - 1
		}
	}
	if fetchGiven {
		log.Warnf("%s config is deprecated and will be removed soon. Please use %s", MetadataFetchTimeoutConfig, MaxBlockMsConfig)
		return c.MetadataFetchTimeoutMs
	}
	return c.MaxBlockMs
}

func (c *ProducerConfig) requestTimeoutMs(log *logrus.Entry) int32 {
	if _, ok := c.Originals[TimeoutConfig]; ok {
		log.Warnf("%s config is deprecated and will be removed soon. Please use %s", TimeoutConfig, RequestTimeoutMsConfig)
		return c.TimeoutMs
	}
	return c.RequestTimeoutMs
}

// logAll logs every value at INFO, as AbstractConfig does when a client starts, and warns of
// each supplied key that is not a producer configuration.
//
// Kafka 0.10.2: AbstractConfig.logAll and logUnused.
func (c *ProducerConfig) logAll(log *logrus.Entry) {
	config.LogAll(log, "ProducerConfig", producerConfigDef, c.values, c.Originals)
}
