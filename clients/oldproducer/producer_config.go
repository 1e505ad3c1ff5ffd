package oldproducer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"

	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/record"
)

// Class names the old producer's configuration may name (the only implementations zkafka has).
const (
	DefaultPartitionerClass   = "kafka.producer.DefaultPartitioner"
	ByteArrayPartitionerClass = "kafka.producer.ByteArrayPartitioner"
	DefaultEncoderClass       = "kafka.serializer.DefaultEncoder"
	StringEncoderClass        = "kafka.serializer.StringEncoder"
	NullEncoderClass          = "kafka.serializer.NullEncoder"
)

// ProducerConfig is the old producer's configuration.
//
// Kafka 0.10.2: kafka.producer.ProducerConfig with AsyncProducerConfig and
// SyncProducerConfigShared. Keys are read at construction and checked as Kafka's validate does;
// unknown keys are logged by VerifiableProperties.Verify.
type ProducerConfig struct {
	Props map[string]string

	BrokerList                     string
	Brokers                        []oldclient.BrokerEndPoint
	PartitionerClass               string
	ProducerType                   string // "sync" or "async"
	CompressionCodec               record.CompressionType
	CompressedTopics               []string
	MessageSendMaxRetries          int32
	RetryBackoffMs                 int32
	TopicMetadataRefreshIntervalMs int32

	// AsyncProducerConfig.
	QueueBufferingMaxMs       int32
	QueueBufferingMaxMessages int32
	QueueEnqueueTimeoutMs     int32
	BatchNumMessages          int32
	SerializerClass           string
	KeySerializerClass        string

	// SyncProducerConfigShared.
	SendBufferBytes     int32
	ClientID            string
	RequestRequiredAcks int16
	RequestTimeoutMs    int32
}

// NewProducerConfig reads and validates props; log (may be nil) hears the verification lines.
func NewProducerConfig(props map[string]string, log *logrus.Entry) (*ProducerConfig, error) {
	v := kconfig.NewVerifiableProperties(props)
	c := &ProducerConfig{Props: props}
	c.BrokerList = v.GetString("metadata.broker.list")
	c.PartitionerClass = v.GetStringDefault("partitioner.class", DefaultPartitionerClass)
	c.ProducerType = v.GetStringDefault("producer.type", "sync")
	codec := v.GetStringDefault("compression.codec", "none")
	c.CompressedTopics = oldclient.ParseCsvList(v.GetStringDefault("compressed.topics", ""))
	c.MessageSendMaxRetries = v.GetInt("message.send.max.retries", 3)
	c.RetryBackoffMs = v.GetInt("retry.backoff.ms", 100)
	c.TopicMetadataRefreshIntervalMs = v.GetInt("topic.metadata.refresh.interval.ms", 600000)
	c.QueueBufferingMaxMs = v.GetInt("queue.buffering.max.ms", 5000)
	c.QueueBufferingMaxMessages = v.GetInt("queue.buffering.max.messages", 10000)
	c.QueueEnqueueTimeoutMs = v.GetInt("queue.enqueue.timeout.ms", -1)
	c.BatchNumMessages = v.GetInt("batch.num.messages", 200)
	c.SerializerClass = v.GetStringDefault("serializer.class", DefaultEncoderClass)
	c.KeySerializerClass = v.GetStringDefault("key.serializer.class", c.SerializerClass)
	c.SendBufferBytes = v.GetInt("send.buffer.bytes", 100*1024)
	c.ClientID = v.GetStringDefault("client.id", "")
	c.RequestRequiredAcks = v.GetShortInRange("request.required.acks", 0, -1, 1)
	c.RequestTimeoutMs = v.GetIntInRange("request.timeout.ms", 10000, 1, math.MaxInt32)
	if err := v.Err(); err != nil {
		return nil, err
	}
	v.Verify(log)
	var err error
	if c.CompressionCodec, err = compressionCodec(codec); err != nil {
		return nil, err
	}
	if c.Brokers, err = oldclient.ParseBrokerList(c.BrokerList); err != nil {
		return nil, err
	}
	if err := kconfig.ValidateChars("client.id", c.ClientID); err != nil {
		return nil, err
	}
	if c.BatchNumMessages > c.QueueBufferingMaxMessages {
		return nil, &kconfig.ConfigException{Msg: fmt.Sprintf("Batch size = %d can't be larger than queue size = %d",
			c.BatchNumMessages, c.QueueBufferingMaxMessages)}
	}
	if c.ProducerType != "sync" && c.ProducerType != "async" {
		return nil, &kconfig.ConfigException{Msg: "Invalid value " + c.ProducerType + " for producer.type, valid values are sync/async"}
	}
	return c, nil
}

// compressionCodec reads compression.codec: a codec id (0-3) or name, as
// VerifiableProperties.getCompressionCodec.
func compressionCodec(s string) (record.CompressionType, error) {
	if n, err := strconv.Atoi(s); err == nil {
		c, err := record.ForID(n)
		if err != nil {
			return 0, fmt.Errorf("kafka.common.UnknownCodecException: %d is an unknown compression codec", n)
		}
		return c, nil
	}
	c, err := record.ForName(strings.ToLower(s))
	if err != nil {
		return 0, fmt.Errorf("kafka.common.UnknownCodecException: %s is an unknown compression codec", s)
	}
	return c, nil
}

// compressionFor is the codec of a topic: compression.codec, limited to compressed.topics when
// that list is not empty.
func (c *ProducerConfig) compressionFor(topic string) record.CompressionType {
	if c.CompressionCodec == record.NONE || len(c.CompressedTopics) == 0 {
		return c.CompressionCodec
	}
	for _, t := range c.CompressedTopics {
		if t == topic {
			return c.CompressionCodec
		}
	}
	return record.NONE
}
