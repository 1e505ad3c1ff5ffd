package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	kconfig "github.com/zkafka/zkafka/clients/config"
)

// KafkaConfig is the broker's parsed configuration. The fields the broker reads on hot or
// structural paths are typed; every defined key is also available through Get*.
//
// Kafka 0.10.2: kafka.server.KafkaConfig.
type KafkaConfig struct {
	values    map[string]any
	originals map[string]string

	// ZooKeeper
	ZkConnect             string
	ZkSessionTimeoutMs    int32
	ZkConnectionTimeoutMs int32 // falls back to the session timeout

	// General
	BrokerID                 int32
	BrokerIDGenerationEnable bool
	MaxReservedBrokerID      int32
	MessageMaxBytes          int32
	NumNetworkThreads        int32
	NumIoThreads             int32
	BackgroundThreads        int32
	QueuedMaxRequests        int32
	DeleteTopicEnable        bool
	AutoCreateTopicsEnable   bool
	NumPartitions            int32
	DefaultReplicationFactor int32
	CompressionType          string

	// Socket server
	Listeners                    []EndPoint
	AdvertisedListeners          []EndPoint
	ListenerSecurityProtocolMap  map[string]string // listener name -> security protocol
	InterBrokerListenerName      string
	InterBrokerSecurityProtocol  string
	SocketSendBufferBytes        int32
	SocketReceiveBufferBytes     int32
	SocketRequestMaxBytes        int32
	MaxConnectionsPerIP          int32
	MaxConnectionsPerIPOverrides map[string]int32
	ConnectionsMaxIdleMs         int64
	Rack                         *string

	// Log
	LogDirs                      []string
	LogSegmentBytes              int32
	LogIndexSizeMaxBytes         int32
	LogIndexIntervalBytes        int32
	LogRollTimeMillis            int64
	LogRollTimeJitterMillis      int64
	LogRetentionTimeMillis       int64
	LogRetentionBytes            int64
	LogFlushIntervalMessages     int64
	LogFlushIntervalMs           int64
	NumRecoveryThreadsPerDataDir int32
	InterBrokerProtocolVersion   ApiVersion
	LogMessageFormatVersion      ApiVersion
}

// FromProps parses props (a server.properties map with overrides applied) into a KafkaConfig,
// running KafkaConfig's cross-field checks. Errors carry Kafka's messages.
func FromProps(props map[string]string) (*KafkaConfig, error) {
	values, err := configDef().Parse(props)
	if err != nil {
		return nil, err
	}
	c := &KafkaConfig{values: values, originals: props}
	if err := c.derive(); err != nil {
		return nil, err
	}
	if err := c.validateValues(); err != nil {
		return nil, err
	}
	return c, nil
}

// ApplyOverrides returns props with each `k=v` of overrides applied (kafka.Kafka's --override),
// using CommandLineUtils.parseKeyValueArgs' rules.
func ApplyOverrides(props map[string]string, overrides []string) (map[string]string, error) {
	out := make(map[string]string, len(props)+len(overrides))
	for k, v := range props {
		out[k] = v
	}
	for _, o := range overrides {
		parts := strings.Split(o, "=")
		switch len(parts) {
		case 1:
			out[parts[0]] = ""
		case 2:
			out[parts[0]] = parts[1]
		default:
			return nil, fmt.Errorf("Invalid command line properties: %s", strings.Join(overrides, " "))
		}
	}
	return out, nil
}

// Get returns a key's typed value (nil for an unset optional key).
func (c *KafkaConfig) Get(name string) any { return c.values[name] }

// GetString returns a STRING/CLASS/PASSWORD key ("" when null).
func (c *KafkaConfig) GetString(name string) string { s, _ := c.values[name].(string); return s }

// GetInt returns an INT key.
func (c *KafkaConfig) GetInt(name string) int32 { n, _ := c.values[name].(int32); return n }

// GetShort returns a SHORT key.
func (c *KafkaConfig) GetShort(name string) int16 { n, _ := c.values[name].(int16); return n }

// GetLong returns a LONG key.
func (c *KafkaConfig) GetLong(name string) int64 { n, _ := c.values[name].(int64); return n }

// GetDouble returns a DOUBLE key.
func (c *KafkaConfig) GetDouble(name string) float64 { n, _ := c.values[name].(float64); return n }

// GetBoolean returns a BOOLEAN key.
func (c *KafkaConfig) GetBoolean(name string) bool { b, _ := c.values[name].(bool); return b }

// GetList returns a LIST key.
func (c *KafkaConfig) GetList(name string) []string { l, _ := c.values[name].([]string); return l }

// Originals returns the raw properties the config was built from (plugins read extra keys there).
func (c *KafkaConfig) Originals() map[string]string { return c.originals }

// LogString renders the "KafkaConfig values:" block the broker logs at startup: every defined key,
// sorted, passwords hidden.
func (c *KafkaConfig) LogString() string {
	var b strings.Builder
	b.WriteString("KafkaConfig values: \n")
	d := configDef()
	for _, name := range d.SortedNames() {
		k, _ := d.Key(name)
		v := c.values[name]
		s := "null"
		switch {
		case v == nil:
		case k.Type == kconfig.PASSWORD:
			s = "[hidden]"
		case k.Type == kconfig.LIST:
			s = "[" + strings.Join(v.([]string), ", ") + "]"
		default:
			s = fmt.Sprint(v)
		}
		fmt.Fprintf(&b, "\t%s = %s\n", name, s)
	}
	return b.String()
}

func (c *KafkaConfig) optInt(name string) (int32, bool) {
	n, ok := c.values[name].(int32)
	return n, ok
}
func (c *KafkaConfig) optLong(name string) (int64, bool) {
	n, ok := c.values[name].(int64)
	return n, ok
}

// derive fills the typed fields and the fallbacks of config.md §4.
func (c *KafkaConfig) derive() error {
	c.ZkConnect = c.GetString("zookeeper.connect")
	c.ZkSessionTimeoutMs = c.GetInt("zookeeper.session.timeout.ms")
	c.ZkConnectionTimeoutMs = c.ZkSessionTimeoutMs
	if n, ok := c.optInt("zookeeper.connection.timeout.ms"); ok {
		c.ZkConnectionTimeoutMs = n
	}
	c.BrokerID = c.GetInt("broker.id")
	c.BrokerIDGenerationEnable = c.GetBoolean("broker.id.generation.enable")
	c.MaxReservedBrokerID = c.GetInt("reserved.broker.max.id")
	c.MessageMaxBytes = c.GetInt("message.max.bytes")
	c.NumNetworkThreads = c.GetInt("num.network.threads")
	c.NumIoThreads = c.GetInt("num.io.threads")
	c.BackgroundThreads = c.GetInt("background.threads")
	c.QueuedMaxRequests = c.GetInt("queued.max.requests")
	c.DeleteTopicEnable = c.GetBoolean("delete.topic.enable")
	c.AutoCreateTopicsEnable = c.GetBoolean("auto.create.topics.enable")
	c.NumPartitions = c.GetInt("num.partitions")
	c.DefaultReplicationFactor = c.GetInt("default.replication.factor")
	c.CompressionType = strings.ToLower(c.GetString("compression.type"))
	c.SocketSendBufferBytes = c.GetInt("socket.send.buffer.bytes")
	c.SocketReceiveBufferBytes = c.GetInt("socket.receive.buffer.bytes")
	c.SocketRequestMaxBytes = c.GetInt("socket.request.max.bytes")
	c.MaxConnectionsPerIP = c.GetInt("max.connections.per.ip")
	c.ConnectionsMaxIdleMs = c.GetLong("connections.max.idle.ms")
	if r, ok := c.values["broker.rack"].(string); ok {
		c.Rack = &r
	}
	overrides, err := parseCsvMap("max.connections.per.ip.overrides", c.GetString("max.connections.per.ip.overrides"))
	if err != nil {
		return err
	}
	c.MaxConnectionsPerIPOverrides = map[string]int32{}
	for h, n := range overrides {
		v, err := strconv.ParseInt(n, 10, 32)
		if err != nil {
			return fmt.Errorf("Error parsing configuration property 'max.connections.per.ip.overrides': %v", err)
		}
		c.MaxConnectionsPerIPOverrides[h] = int32(v)
	}
	if err := c.deriveListeners(); err != nil {
		return err
	}

	// Log directories: log.dirs, else log.dir; empty entries dropped.
	dirs := c.GetString("log.dir")
	if s, ok := c.values["log.dirs"].(string); ok {
		dirs = s
	}
	for _, d := range strings.Split(dirs, ",") {
		if d = strings.TrimSpace(d); d != "" {
			c.LogDirs = append(c.LogDirs, d)
		}
	}
	c.LogSegmentBytes = c.GetInt("log.segment.bytes")
	c.LogIndexSizeMaxBytes = c.GetInt("log.index.size.max.bytes")
	c.LogIndexIntervalBytes = c.GetInt("log.index.interval.bytes")
	c.LogRollTimeMillis = int64(c.GetInt("log.roll.hours")) * 3600000
	if n, ok := c.optLong("log.roll.ms"); ok {
		c.LogRollTimeMillis = n
	}
	c.LogRollTimeJitterMillis = int64(c.GetInt("log.roll.jitter.hours")) * 3600000
	if n, ok := c.optLong("log.roll.jitter.ms"); ok {
		c.LogRollTimeJitterMillis = n
	}
	c.LogRetentionTimeMillis = int64(c.GetInt("log.retention.hours")) * 3600000
	if n, ok := c.optInt("log.retention.minutes"); ok {
		c.LogRetentionTimeMillis = int64(n) * 60000
	}
	if n, ok := c.optLong("log.retention.ms"); ok {
		c.LogRetentionTimeMillis = n
	}
	if c.LogRetentionTimeMillis < 0 {
		c.LogRetentionTimeMillis = -1
	}
	c.LogRetentionBytes = c.GetLong("log.retention.bytes")
	c.LogFlushIntervalMessages = c.GetLong("log.flush.interval.messages")
	c.LogFlushIntervalMs = c.GetLong("log.flush.scheduler.interval.ms")
	if n, ok := c.optLong("log.flush.interval.ms"); ok {
		c.LogFlushIntervalMs = n
	}
	c.NumRecoveryThreadsPerDataDir = c.GetInt("num.recovery.threads.per.data.dir")
	ibp, err := ParseApiVersion(c.GetString("inter.broker.protocol.version"))
	if err != nil {
		return err
	}
	lmf, err := ParseApiVersion(c.GetString("log.message.format.version"))
	if err != nil {
		return err
	}
	c.InterBrokerProtocolVersion, c.LogMessageFormatVersion = ibp, lmf
	return nil
}

// validBrokerCompression is BrokerCompressionCodec.brokerCompressionOptions.
var validBrokerCompression = []string{"uncompressed", "snappy", "lz4", "gzip", "producer"}

// validateValues is KafkaConfig.validateValues: each failed check is a "requirement failed"
// error with Kafka's message.
func (c *KafkaConfig) validateValues() error {
	req := func(ok bool, msg string) error {
		if ok {
			return nil
		}
		if msg == "" {
			return fmt.Errorf("requirement failed")
		}
		return fmt.Errorf("requirement failed: %s", msg)
	}
	compressionOK := false
	for _, v := range validBrokerCompression {
		compressionOK = compressionOK || v == c.CompressionType
	}
	adv := names(c.AdvertisedListeners)
	lst := names(c.Listeners)
	checks := []error{}
	if c.BrokerIDGenerationEnable {
		checks = append(checks, req(c.BrokerID >= -1 && c.BrokerID <= c.MaxReservedBrokerID, "broker.id must be equal or greater than -1 and not greater than reserved.broker.max.id"))
	} else {
		checks = append(checks, req(c.BrokerID >= 0, "broker.id must be equal or greater than 0"))
	}
	threads := int64(c.GetInt("log.cleaner.threads"))
	dedupeOK := threads == 0 || c.GetLong("log.cleaner.dedupe.buffer.size")/threads > 1024*1024
	checks = append(checks,
		req(c.LogRollTimeMillis >= 1, "log.roll.ms must be equal or greater than 1"),
		req(c.LogRollTimeJitterMillis >= 0, "log.roll.jitter.ms must be equal or greater than 0"),
		req(c.LogRetentionTimeMillis >= 1 || c.LogRetentionTimeMillis == -1, "log.retention.ms must be unlimited (-1) or, equal or greater than 1"),
		req(len(c.LogDirs) > 0, ""),
		req(dedupeOK, "log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread."),
		req(c.GetInt("replica.fetch.wait.max.ms") <= c.GetInt("replica.socket.timeout.ms"), "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts"),
		req(int64(c.GetInt("replica.fetch.wait.max.ms")) <= c.GetLong("replica.lag.time.max.ms"), "replica.fetch.wait.max.ms should always be at least replica.lag.time.max.ms to prevent frequent changes in ISR"),
		req(c.GetShort("offsets.commit.required.acks") >= -1 && c.GetShort("offsets.commit.required.acks") <= c.GetShort("offsets.topic.replication.factor"), "offsets.commit.required.acks must be greater or equal -1 and less or equal to offsets.topic.replication.factor"),
		req(compressionOK, "compression.type : "+c.CompressionType+" is not valid. Valid options are "+strings.Join(validBrokerCompression, ",")),
		req(contains(adv, c.InterBrokerListenerName), "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are "+strings.Join(adv, ",")),
		req(subset(adv, lst), "advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found "+strings.Join(adv, ",")+". The valid options based on the current configuration are "+strings.Join(lst, ",")),
		req(c.InterBrokerProtocolVersion.AtLeast(c.LogMessageFormatVersion), "log.message.format.version "+c.GetString("log.message.format.version")+" cannot be used when inter.broker.protocol.version is set to "+c.GetString("inter.broker.protocol.version")),
	)
	sasl := c.InterBrokerSecurityProtocol == "SASL_PLAINTEXT" || c.InterBrokerSecurityProtocol == "SASL_SSL"
	mech := c.GetString("sasl.mechanism.inter.broker.protocol")
	checks = append(checks,
		req(!sasl || c.InterBrokerProtocolVersion.AtLeast(KAFKA_0_10_0_IV1) || mech == "GSSAPI", "Only GSSAPI mechanism is supported for inter-broker communication with SASL when inter.broker.protocol.version is set to "+c.GetString("inter.broker.protocol.version")),
		req(!sasl || contains(c.GetList("sasl.enabled.mechanisms"), mech), "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms when SASL is used for inter-broker communication"),
	)
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

func names(eps []EndPoint) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range eps {
		if !seen[e.ListenerName] {
			seen[e.ListenerName] = true
			out = append(out, e.ListenerName)
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func subset(a, b []string) bool {
	for _, e := range a {
		if !contains(b, e) {
			return false
		}
	}
	return true
}
