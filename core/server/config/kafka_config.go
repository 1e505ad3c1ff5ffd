package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	kconfig "github.com/zkafka/zkafka/clients/config"
)

// KafkaConfig is the broker's parsed configuration: every key of the ConfigDef as a typed field
// of Props (filled once, so no code reads a key by its name), and the values KafkaConfig derives
// from several keys as fields of its own. FromProps validates both, with 0.10.2's messages.
//
// Kafka 0.10.2: kafka.server.KafkaConfig.
type KafkaConfig struct {
	*kconfig.AbstractConfig
	Props

	// ZooKeeper
	ZkConnectionTimeoutMs int32 // zookeeper.connection.timeout.ms, else the session timeout

	// Socket server
	Listeners                    []EndPoint
	AdvertisedListeners          []EndPoint
	ListenerSecurityProtocolMap  map[string]common.SecurityProtocol // listener name -> security protocol
	InterBrokerListenerName      string
	InterBrokerSecurityProtocol  common.SecurityProtocol
	MaxConnectionsPerIPOverrides map[string]int32
	CompressionType              string // compression.type, lower-cased

	// Log
	LogDirs                    []string // log.dirs, else log.dir; empty entries dropped
	LogRollTimeMillis          int64    // log.roll.ms, else log.roll.hours
	LogRollTimeJitterMillis    int64    // log.roll.jitter.ms, else log.roll.jitter.hours
	LogRetentionTimeMillis     int64    // log.retention.ms, else .minutes, else .hours; -1 = unlimited
	LogFlushIntervalMs         int64    // log.flush.interval.ms, else log.flush.scheduler.interval.ms
	InterBrokerProtocolVersion ApiVersion
	LogMessageFormatVersion    ApiVersion
}

// FromProps parses props (a server.properties map with overrides applied) into a KafkaConfig:
// ConfigDef.parse (types, defaults, validators: a *ConfigException), the derived values, then
// KafkaConfig.validateValues' cross-key checks (an *IllegalArgumentException for a failed
// require). Keys the ConfigDef does not define are kept; Unknown lists them.
func FromProps(props map[string]string) (*KafkaConfig, error) {
	ac, err := kconfig.NewAbstractConfig(configDef(), props)
	if err != nil {
		return nil, err
	}
	c := &KafkaConfig{AbstractConfig: ac}
	if err := ac.Fill(&c.Props); err != nil {
		return nil, err
	}
	if err := c.derive(); err != nil {
		return nil, err
	}
	if err := c.validateValues(); err != nil {
		return nil, err
	}
	if err := c.validateSupported(); err != nil {
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

// LogString renders the "KafkaConfig values:" block the broker logs at startup: every defined key,
// sorted, passwords hidden.
func (c *KafkaConfig) LogString() string { return c.AbstractConfig.LogString("KafkaConfig") }

// IllegalArgumentException is the exception 0.10.2 throws for a failed require() of
// KafkaConfig.validateValues and for listeners it cannot parse; kafka.Kafka prints its class
// beside the message when startup fails.
type IllegalArgumentException struct{ Msg string }

func (e *IllegalArgumentException) Error() string { return e.Msg }

func illegalArgument(format string, args ...any) error {
	return &IllegalArgumentException{Msg: fmt.Sprintf(format, args...)}
}

func configException(format string, args ...any) error {
	return &kconfig.ConfigException{Msg: fmt.Sprintf(format, args...)}
}

// derive fills the values KafkaConfig computes from several keys, with 0.10.2's fallbacks.
func (c *KafkaConfig) derive() error {
	p := &c.Props
	c.ZkConnectionTimeoutMs = p.ZkSessionTimeoutMs
	if p.ZkConnectionTimeoutMs != nil {
		c.ZkConnectionTimeoutMs = *p.ZkConnectionTimeoutMs
	}
	c.CompressionType = strings.ToLower(p.CompressionType)
	overrides, err := parseCsvMap("max.connections.per.ip.overrides", p.MaxConnectionsPerIPOverrides)
	if err != nil {
		return err
	}
	c.MaxConnectionsPerIPOverrides = map[string]int32{}
	for h, n := range overrides {
		v, err := strconv.ParseInt(n, 10, 32)
		if err != nil {
			return illegalArgument("Error parsing configuration property 'max.connections.per.ip.overrides': For input string: \"%s\"", n)
		}
		c.MaxConnectionsPerIPOverrides[h] = int32(v)
	}
	if err := c.deriveListeners(); err != nil {
		return err
	}

	// Log directories: log.dirs, else log.dir; empty entries dropped.
	dirs := p.LogDir
	if p.LogDirs != nil {
		dirs = *p.LogDirs
	}
	c.LogDirs = nil
	for _, d := range strings.Split(dirs, ",") {
		if d = strings.TrimSpace(d); d != "" {
			c.LogDirs = append(c.LogDirs, d)
		}
	}
	const hour, minute = 3600000, 60000
	c.LogRollTimeMillis = int64(p.LogRollTimeHours) * hour
	if p.LogRollTimeMillis != nil {
		c.LogRollTimeMillis = *p.LogRollTimeMillis
	}
	c.LogRollTimeJitterMillis = int64(p.LogRollTimeJitterHours) * hour
	if p.LogRollTimeJitterMillis != nil {
		c.LogRollTimeJitterMillis = *p.LogRollTimeJitterMillis
	}
	c.LogRetentionTimeMillis = int64(p.LogRetentionTimeHours) * hour
	if p.LogRetentionTimeMinutes != nil {
		c.LogRetentionTimeMillis = int64(*p.LogRetentionTimeMinutes) * minute
	}
	if p.LogRetentionTimeMillis != nil {
		c.LogRetentionTimeMillis = *p.LogRetentionTimeMillis
	}
	if c.LogRetentionTimeMillis < 0 {
		c.LogRetentionTimeMillis = -1
	}
	c.LogFlushIntervalMs = p.LogFlushSchedulerIntervalMs
	if p.LogFlushIntervalMs != nil {
		c.LogFlushIntervalMs = *p.LogFlushIntervalMs
	}
	if c.InterBrokerProtocolVersion, err = ParseApiVersion(p.InterBrokerProtocolVersion); err != nil {
		return err
	}
	if c.LogMessageFormatVersion, err = ParseApiVersion(p.LogMessageFormatVersion); err != nil {
		return err
	}
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
			return illegalArgument("requirement failed")
		}
		return illegalArgument("requirement failed: %s", msg)
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
	threads := int64(c.LogCleanerThreads)
	dedupeOK := threads == 0 || c.LogCleanerDedupeBufferSize/threads > 1024*1024
	checks = append(checks,
		req(c.LogRollTimeMillis >= 1, "log.roll.ms must be equal or greater than 1"),
		req(c.LogRollTimeJitterMillis >= 0, "log.roll.jitter.ms must be equal or greater than 0"),
		req(c.LogRetentionTimeMillis >= 1 || c.LogRetentionTimeMillis == -1, "log.retention.ms must be unlimited (-1) or, equal or greater than 1"),
		req(len(c.LogDirs) > 0, ""),
		req(dedupeOK, "log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread."),
		req(c.ReplicaFetchWaitMaxMs <= c.ReplicaSocketTimeoutMs, "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts"),
		req(int64(c.ReplicaFetchWaitMaxMs) <= c.ReplicaLagTimeMaxMs, "replica.fetch.wait.max.ms should always be at least replica.lag.time.max.ms to prevent frequent changes in ISR"),
		req(c.OffsetCommitRequiredAcks >= -1 && c.OffsetCommitRequiredAcks <= c.OffsetsTopicReplicationFactor, "offsets.commit.required.acks must be greater or equal -1 and less or equal to offsets.topic.replication.factor"),
		req(compressionOK, "compression.type : "+c.CompressionType+" is not valid. Valid options are "+strings.Join(validBrokerCompression, ",")),
		req(contains(adv, c.InterBrokerListenerName), "inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are "+strings.Join(adv, ",")),
		req(subset(adv, lst), "advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found "+strings.Join(adv, ",")+". The valid options based on the current configuration are "+strings.Join(lst, ",")),
		req(c.InterBrokerProtocolVersion.AtLeast(c.LogMessageFormatVersion), "log.message.format.version "+c.Props.LogMessageFormatVersion+" cannot be used when inter.broker.protocol.version is set to "+c.Props.InterBrokerProtocolVersion),
	)
	sasl := c.InterBrokerSecurityProtocol == common.SASL_PLAINTEXT || c.InterBrokerSecurityProtocol == common.SASL_SSL
	mech := c.SaslMechanismInterBrokerProtocol
	checks = append(checks,
		req(!sasl || c.InterBrokerProtocolVersion.AtLeast(KAFKA_0_10_0_IV1) || mech == "GSSAPI", "Only GSSAPI mechanism is supported for inter-broker communication with SASL when inter.broker.protocol.version is set to "+c.Props.InterBrokerProtocolVersion),
		req(!sasl || contains(c.SaslEnabledMechanisms, mech), "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms when SASL is used for inter-broker communication"),
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
