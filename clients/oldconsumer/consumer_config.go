package oldconsumer

import (
	"fmt"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	kconfig "github.com/zkafka/zkafka/clients/config"
)

// Defaults of the old consumer's configuration (object ConsumerConfig).
const (
	RefreshMetadataBackoffMs           = 200
	SocketTimeout                      = 30 * 1000
	SocketBufferSize                   = 64 * 1024
	FetchSize                          = 1024 * 1024
	NumConsumerFetchers                = 1
	AutoCommitInterval                 = 60 * 1000
	MaxQueuedChunks                    = 2
	MaxRebalanceRetries                = 4
	MinFetchBytes                      = 1
	MaxFetchBytes                      = 50 * 1024 * 1024
	MaxFetchWaitMs                     = 100
	OffsetsChannelBackoffMs            = 1000
	OffsetsChannelSocketTimeoutMs      = 10000
	OffsetsCommitMaxRetries            = 5
	DefaultZkSessionTimeoutMs          = 6000
	DefaultZkSyncTimeMs                = 2000
	SmallestTimeString                 = "smallest"
	LargestTimeString                  = "largest"
	DefaultPartitionAssignmentStrategy = "range"
)

// ConsumerConfig is the old consumer's configuration, read from consumer properties.
//
// Kafka 0.10.2: kafka.consumer.ConsumerConfig (with kafka.utils.ZKConfig for the zookeeper.*
// keys). Every key is read at construction and validated as Kafka's validate does; unknown keys
// are logged by VerifiableProperties.Verify.
type ConsumerConfig struct {
	Props map[string]string

	ZkConnect             string
	ZkSessionTimeoutMs    int32
	ZkConnectionTimeoutMs int32
	ZkSyncTimeMs          int32

	GroupID    string
	ConsumerID string // "" unless consumer.id is set (testing only, as Kafka says)

	SocketTimeoutMs          int32
	SocketReceiveBufferBytes int32
	FetchMessageMaxBytes     int32
	NumConsumerFetchers      int32
	AutoCommitEnable         bool
	AutoCommitIntervalMs     int32
	QueuedMaxMessages        int32 // queued.max.message.chunks
	RebalanceMaxRetries      int32
	FetchMinBytes            int32
	// FetchMaxBytes is read (fetch.max.bytes) but, as in 0.10.2, the old consumer's fetch
	// requests do not use it: they ask for max_bytes = Int.MaxValue.
	FetchMaxBytes                 int32
	FetchWaitMaxMs                int32
	RebalanceBackoffMs            int32
	RefreshLeaderBackoffMs        int32
	OffsetsChannelBackoffMs       int32
	OffsetsChannelSocketTimeoutMs int32
	OffsetsCommitMaxRetries       int32
	OffsetsStorage                string // "zookeeper" or "kafka"
	DualCommitEnabled             bool
	AutoOffsetReset               string // "smallest" or "largest"
	ConsumerTimeoutMs             int32
	ClientID                      string
	ExcludeInternalTopics         bool
	PartitionAssignmentStrategy   string // "range" or "roundrobin"
}

// NewConsumerConfig reads and validates props; log (may be nil) hears VerifiableProperties'
// verification lines.
func NewConsumerConfig(props map[string]string, log *logrus.Entry) (*ConsumerConfig, error) {
	v := kconfig.NewVerifiableProperties(props)
	c := &ConsumerConfig{Props: props}
	c.ZkConnect = v.GetString("zookeeper.connect")
	c.ZkSessionTimeoutMs = v.GetInt("zookeeper.session.timeout.ms", DefaultZkSessionTimeoutMs)
	c.ZkConnectionTimeoutMs = v.GetInt("zookeeper.connection.timeout.ms", c.ZkSessionTimeoutMs)
	c.ZkSyncTimeMs = v.GetInt("zookeeper.sync.time.ms", DefaultZkSyncTimeMs)
	c.GroupID = v.GetString("group.id")
	c.ConsumerID = v.GetStringDefault("consumer.id", "")
	c.SocketTimeoutMs = v.GetInt("socket.timeout.ms", SocketTimeout)
	c.SocketReceiveBufferBytes = v.GetInt("socket.receive.buffer.bytes", SocketBufferSize)
	c.FetchMessageMaxBytes = v.GetInt("fetch.message.max.bytes", FetchSize)
	c.NumConsumerFetchers = v.GetInt("num.consumer.fetchers", NumConsumerFetchers)
	c.AutoCommitEnable = v.GetBoolean("auto.commit.enable", true)
	c.AutoCommitIntervalMs = v.GetInt("auto.commit.interval.ms", AutoCommitInterval)
	c.QueuedMaxMessages = v.GetInt("queued.max.message.chunks", MaxQueuedChunks)
	c.RebalanceMaxRetries = v.GetInt("rebalance.max.retries", MaxRebalanceRetries)
	c.FetchMinBytes = v.GetInt("fetch.min.bytes", MinFetchBytes)
	c.FetchMaxBytes = v.GetInt("fetch.max.bytes", MaxFetchBytes)
	c.FetchWaitMaxMs = v.GetInt("fetch.wait.max.ms", MaxFetchWaitMs)
	c.RebalanceBackoffMs = v.GetInt("rebalance.backoff.ms", c.ZkSyncTimeMs)
	c.RefreshLeaderBackoffMs = v.GetInt("refresh.leader.backoff.ms", RefreshMetadataBackoffMs)
	c.OffsetsChannelBackoffMs = v.GetInt("offsets.channel.backoff.ms", OffsetsChannelBackoffMs)
	c.OffsetsChannelSocketTimeoutMs = v.GetInt("offsets.channel.socket.timeout.ms", OffsetsChannelSocketTimeoutMs)
	c.OffsetsCommitMaxRetries = v.GetInt("offsets.commit.max.retries", OffsetsCommitMaxRetries)
	c.OffsetsStorage = strings.ToLower(v.GetStringDefault("offsets.storage", "zookeeper"))
	c.DualCommitEnabled = v.GetBoolean("dual.commit.enabled", c.OffsetsStorage == "kafka")
	c.AutoOffsetReset = v.GetStringDefault("auto.offset.reset", LargestTimeString)
	c.ConsumerTimeoutMs = v.GetInt("consumer.timeout.ms", -1)
	c.ClientID = v.GetStringDefault("client.id", c.GroupID)
	c.ExcludeInternalTopics = v.GetBoolean("exclude.internal.topics", true)
	c.PartitionAssignmentStrategy = v.GetStringDefault("partition.assignment.strategy", DefaultPartitionAssignmentStrategy)
	if err := v.Err(); err != nil {
		return nil, err
	}
	v.Verify(log)
	if c.FetchWaitMaxMs > c.SocketTimeoutMs {
		return nil, fmt.Errorf("requirement failed: socket.timeout.ms should always be at least fetch.wait.max.ms" +
			" to prevent unnecessary socket timeouts")
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// validate is object ConsumerConfig.validate, plus the queue capacity a LinkedBlockingQueue
// requires (Kafka fails with IllegalArgumentException when creating the queue).
func (c *ConsumerConfig) validate() error {
	if err := kconfig.ValidateChars("client.id", c.ClientID); err != nil {
		return err
	}
	if err := kconfig.ValidateChars("group.id", c.GroupID); err != nil {
		return err
	}
	switch c.AutoOffsetReset {
	case SmallestTimeString, LargestTimeString:
	default:
		return &kconfig.ConfigException{Msg: "Wrong value " + c.AutoOffsetReset + " of auto.offset.reset in ConsumerConfig; " +
			"Valid values are " + SmallestTimeString + " and " + LargestTimeString}
	}
	switch c.OffsetsStorage {
	case "zookeeper", "kafka":
	default:
		return &kconfig.ConfigException{Msg: "Wrong value " + c.OffsetsStorage + " of offsets.storage in consumer config; " +
			"Valid values are 'zookeeper' and 'kafka'"}
	}
	switch c.PartitionAssignmentStrategy {
	case "range", "roundrobin":
	default:
		return &kconfig.ConfigException{Msg: "Wrong value " + c.PartitionAssignmentStrategy + " of partition.assignment.strategy in consumer config; " +
			"Valid values are 'range' and 'roundrobin'"}
	}
	if c.QueuedMaxMessages < 1 {
		return fmt.Errorf("queued.max.message.chunks must be at least 1, not %d", c.QueuedMaxMessages)
	}
	return nil
}

func ms(n int32) time.Duration { return time.Duration(n) * time.Millisecond }
