package log

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/record"
)

// Per-topic configuration keys (the names stored under /config/topics/<topic>).
const (
	SegmentBytesProp                         = "segment.bytes"
	SegmentMsProp                            = "segment.ms"
	SegmentJitterMsProp                      = "segment.jitter.ms"
	SegmentIndexBytesProp                    = "segment.index.bytes"
	FlushMessagesProp                        = "flush.messages"
	FlushMsProp                              = "flush.ms"
	RetentionBytesProp                       = "retention.bytes"
	RetentionMsProp                          = "retention.ms"
	MaxMessageBytesProp                      = "max.message.bytes"
	IndexIntervalBytesProp                   = "index.interval.bytes"
	DeleteRetentionMsProp                    = "delete.retention.ms"
	MinCompactionLagMsProp                   = "min.compaction.lag.ms"
	FileDeleteDelayMsProp                    = "file.delete.delay.ms"
	MinCleanableDirtyRatioProp               = "min.cleanable.dirty.ratio"
	CleanupPolicyProp                        = "cleanup.policy"
	UncleanLeaderElectionEnableProp          = "unclean.leader.election.enable"
	MinInSyncReplicasProp                    = "min.insync.replicas"
	CompressionTypeProp                      = "compression.type"
	PreAllocateEnableProp                    = "preallocate"
	MessageFormatVersionProp                 = "message.format.version"
	MessageTimestampTypeProp                 = "message.timestamp.type"
	MessageTimestampDifferenceMaxMsProp      = "message.timestamp.difference.max.ms"
	LeaderReplicationThrottledReplicasProp   = "leader.replication.throttled.replicas"
	FollowerReplicationThrottledReplicasProp = "follower.replication.throttled.replicas"

	// Cleanup policies.
	Delete  = "delete"
	Compact = "compact"
)

// LogConfigDefaults are the per-topic defaults when every broker key has its default value
// (kafka.log.Defaults, which reads kafka.server.Defaults).
var logConfigDefaults = map[string]string{
	SegmentBytesProp:                         "1073741824",
	SegmentMsProp:                            "604800000",
	SegmentJitterMsProp:                      "0",
	SegmentIndexBytesProp:                    "10485760",
	FlushMessagesProp:                        "9223372036854775807",
	FlushMsProp:                              "9223372036854775807",
	RetentionBytesProp:                       "-1",
	RetentionMsProp:                          "604800000",
	MaxMessageBytesProp:                      "1000012",
	IndexIntervalBytesProp:                   "4096",
	DeleteRetentionMsProp:                    "86400000",
	MinCompactionLagMsProp:                   "0",
	FileDeleteDelayMsProp:                    "60000",
	MinCleanableDirtyRatioProp:               "0.5",
	CleanupPolicyProp:                        "delete",
	UncleanLeaderElectionEnableProp:          "true",
	MinInSyncReplicasProp:                    "1",
	CompressionTypeProp:                      "producer",
	PreAllocateEnableProp:                    "false",
	MessageFormatVersionProp:                 "0.10.2-IV0",
	MessageTimestampTypeProp:                 "CreateTime",
	MessageTimestampDifferenceMaxMsProp:      "9223372036854775807",
	LeaderReplicationThrottledReplicasProp:   "",
	FollowerReplicationThrottledReplicasProp: "",
}

// LogConfigDefaultsMap returns a copy of the 0.10.2 per-topic defaults, keyed by topic config name.
func LogConfigDefaultsMap() map[string]string {
	m := make(map[string]string, len(logConfigDefaults))
	for k, v := range logConfigDefaults {
		m[k] = v
	}
	return m
}

// ConfigNames lists the per-topic keys in sorted order.
func ConfigNames() []string {
	names := make([]string, 0, len(logConfigDefaults))
	for k := range logConfigDefaults {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// LogConfig is the effective configuration of one log: broker-derived defaults overridden by the
// topic's own keys. It is immutable; a config change builds a new one and swaps it into the Log.
//
// Kafka 0.10.2: kafka.log.LogConfig
type LogConfig struct {
	SegmentSize                          int
	SegmentMs                            int64
	SegmentJitterMs                      int64
	MaxIndexSize                         int
	FlushInterval                        int64
	FlushMs                              int64
	RetentionSize                        int64
	RetentionMs                          int64
	MaxMessageSize                       int
	IndexInterval                        int
	FileDeleteDelayMs                    int64
	DeleteRetentionMs                    int64
	CompactionLagMs                      int64
	MinCleanableRatio                    float64
	CleanupPolicy                        []string
	Compact                              bool
	Delete                               bool
	UncleanLeaderElectionEnable          bool
	MinInSyncReplicas                    int
	CompressionType                      string // lower-cased: uncompressed, snappy, lz4, gzip, producer
	Preallocate                          bool
	MessageFormatVersion                 string // the ApiVersion string as configured
	MessageFormatMagic                   int8   // 0 before 0.10.0-IV0, 1 from it on
	MessageTimestampType                 record.TimestampType
	MessageTimestampDifferenceMaxMs      int64
	LeaderReplicationThrottledReplicas   []string
	FollowerReplicationThrottledReplicas []string
	// Originals holds the raw key/value pairs the config was built from (defaults included).
	Originals map[string]string
}

// NewLogConfig builds a LogConfig from the 0.10.2 defaults overridden by props. Unknown keys are
// rejected (LogConfig.validateNames), values are parsed and range-checked with ConfigDef's messages.
func NewLogConfig(props map[string]string) (*LogConfig, error) {
	return FromProps(nil, props)
}

// DefaultLogConfig is the configuration with every default.
func DefaultLogConfig() *LogConfig {
	c, err := FromProps(nil, nil)
	if err != nil {
		panic("log: defaults do not parse: " + err.Error()) // unreachable: the table above is static
	}
	return c
}

// FromProps merges broker-derived defaults and topic overrides (LogConfig.fromProps): keys missing
// from both take the 0.10.2 defaults.
func FromProps(defaults, overrides map[string]string) (*LogConfig, error) {
	if err := ValidateNames(overrides); err != nil {
		return nil, err
	}
	m := LogConfigDefaultsMap()
	for k, v := range defaults {
		m[k] = v
	}
	for k, v := range overrides {
		m[k] = v
	}
	return parseLogConfig(m)
}

// ValidateNames rejects keys that are not per-topic configuration names.
func ValidateNames(props map[string]string) error {
	for k := range props {
		if _, ok := logConfigDefaults[k]; !ok {
			return fmt.Errorf("Unknown Log configuration %s.: %w", k, ErrConfig)
		}
	}
	return nil
}

// Validate checks the names and values of topic overrides (LogConfig.validate).
func Validate(props map[string]string) error {
	_, err := FromProps(nil, props)
	return err
}

// RandomSegmentJitter draws the roll jitter of a new segment: 0 when segment.jitter.ms is 0,
// otherwise a uniform value below min(segment.jitter.ms, segment.ms).
func (c *LogConfig) RandomSegmentJitter() int64 {
	if c.SegmentJitterMs == 0 {
		return 0
	}
	bound := c.SegmentJitterMs
	if c.SegmentMs < bound {
		bound = c.SegmentMs
	}
	if bound <= 0 {
		return 0
	}
	v := int64(rand.Int32())
	return v % bound
}

func configErr(name, value, msg string) error {
	return fmt.Errorf("Invalid value %s for configuration %s: %s: %w", value, name, msg, ErrConfig)
}

type configParser struct {
	m   map[string]string
	err error
}

func (p *configParser) str(name string) string { return strings.TrimSpace(p.m[name]) }

func (p *configParser) int(name string, min int64) int {
	if p.err != nil {
		return 0
	}
	s := p.str(name)
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		p.err = configErr(name, s, "Not a number of type INT")
		return 0
	}
	if v < min {
		p.err = configErr(name, s, fmt.Sprintf("Value must be at least %d", min))
	}
	return int(v)
}

func (p *configParser) long(name string, min int64) int64 {
	if p.err != nil {
		return 0
	}
	s := p.str(name)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.err = configErr(name, s, "Not a number of type LONG")
		return 0
	}
	if v < min {
		p.err = configErr(name, s, fmt.Sprintf("Value must be at least %d", min))
	}
	return v
}

func (p *configParser) bool(name string) bool {
	if p.err != nil {
		return false
	}
	s := p.str(name)
	switch strings.ToLower(s) {
	case "true":
		return true
	case "false":
		return false
	}
	p.err = configErr(name, s, "Expected value to be either true or false")
	return false
}

func (p *configParser) list(name string) []string {
	s := p.str(name)
	if s == "" {
		return []string{}
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func parseLogConfig(m map[string]string) (*LogConfig, error) {
	p := &configParser{m: m}
	c := &LogConfig{Originals: m}
	c.SegmentSize = p.int(SegmentBytesProp, 14) // Message.MinMessageOverhead
	c.SegmentMs = p.long(SegmentMsProp, 0)
	c.SegmentJitterMs = p.long(SegmentJitterMsProp, 0)
	c.MaxIndexSize = p.int(SegmentIndexBytesProp, 0)
	c.FlushInterval = p.long(FlushMessagesProp, 0)
	c.FlushMs = p.long(FlushMsProp, 0)
	c.RetentionSize = p.long(RetentionBytesProp, math.MinInt64)
	c.RetentionMs = p.long(RetentionMsProp, math.MinInt64)
	c.MaxMessageSize = p.int(MaxMessageBytesProp, 0)
	c.IndexInterval = p.int(IndexIntervalBytesProp, 0)
	c.DeleteRetentionMs = p.long(DeleteRetentionMsProp, 0)
	c.CompactionLagMs = p.long(MinCompactionLagMsProp, 0)
	c.FileDeleteDelayMs = p.long(FileDeleteDelayMsProp, 0)
	if p.err == nil {
		s := p.str(MinCleanableDirtyRatioProp)
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil:
			p.err = configErr(MinCleanableDirtyRatioProp, s, "Not a number of type DOUBLE")
		case v < 0:
			p.err = configErr(MinCleanableDirtyRatioProp, s, "Value must be at least 0")
		case v > 1:
			p.err = configErr(MinCleanableDirtyRatioProp, s, "Value must be no more than 1")
		}
		c.MinCleanableRatio = v
	}
	if p.err == nil {
		c.CleanupPolicy = p.list(CleanupPolicyProp)
		for _, pol := range c.CleanupPolicy {
			switch pol {
			case Compact:
				c.Compact = true
			case Delete:
				c.Delete = true
			default:
				p.err = configErr(CleanupPolicyProp, pol, "String must be one of: compact, delete")
			}
		}
	}
	c.UncleanLeaderElectionEnable = p.bool(UncleanLeaderElectionEnableProp)
	c.MinInSyncReplicas = p.int(MinInSyncReplicasProp, 1)
	if p.err == nil {
		s := p.str(CompressionTypeProp)
		switch s {
		case "uncompressed", "snappy", "lz4", "gzip", "producer":
			c.CompressionType = strings.ToLower(s)
		default:
			p.err = configErr(CompressionTypeProp, s, "String must be one of: uncompressed, snappy, lz4, gzip, producer")
		}
	}
	c.Preallocate = p.bool(PreAllocateEnableProp)
	if p.err == nil {
		s := p.str(MessageFormatVersionProp)
		magic, ok := apiVersionMagic(s)
		if !ok {
			p.err = configErr(MessageFormatVersionProp, s, fmt.Sprintf("Version `%s` is not a valid version", s))
		}
		c.MessageFormatVersion, c.MessageFormatMagic = s, magic
	}
	if p.err == nil {
		s := p.str(MessageTimestampTypeProp)
		switch s {
		case "CreateTime":
			c.MessageTimestampType = record.CreateTime
		case "LogAppendTime":
			c.MessageTimestampType = record.LogAppendTime
		default:
			p.err = configErr(MessageTimestampTypeProp, s, "String must be one of: CreateTime, LogAppendTime")
		}
	}
	c.MessageTimestampDifferenceMaxMs = p.long(MessageTimestampDifferenceMaxMsProp, 0)
	if p.err == nil {
		c.LeaderReplicationThrottledReplicas = p.list(LeaderReplicationThrottledReplicasProp)
		c.FollowerReplicationThrottledReplicas = p.list(FollowerReplicationThrottledReplicasProp)
		for _, name := range []string{LeaderReplicationThrottledReplicasProp, FollowerReplicationThrottledReplicasProp} {
			if !validThrottledReplicas(p.list(name)) {
				v := p.str(name)
				p.err = configErr(name, v, name+"  must match for format [partitionId],[brokerId]:[partitionId],[brokerId]:[partitionId],[brokerId] etc")
				break
			}
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return c, nil
}

// validThrottledReplicas is ThrottledReplicaListValidator: "*" alone, or "partition:broker" pairs.
func validThrottledReplicas(items []string) bool {
	if len(items) == 1 && items[0] == "*" {
		return true
	}
	for _, it := range items {
		pb := strings.Split(it, ":")
		if len(pb) != 2 {
			return false
		}
		for _, x := range pb {
			if _, err := strconv.Atoi(strings.TrimSpace(x)); err != nil {
				return false
			}
		}
	}
	return true
}

// apiVersionMagic maps an ApiVersion string (kafka.api.ApiVersion) to its message format magic. As in
// ApiVersion.apply only the first three dot-separated parts count, so "0.10.2.1" is "0.10.2".
func apiVersionMagic(v string) (int8, bool) {
	parts := strings.Split(v, ".")
	if len(parts) > 3 {
		parts = parts[:3]
	}
	switch strings.Join(parts, ".") {
	case "0.8.0", "0.8.1", "0.8.2", "0.9.0":
		return record.MagicValueV0, true
	case "0.10.0-IV0", "0.10.0-IV1", "0.10.0", "0.10.1-IV0", "0.10.1-IV1", "0.10.1-IV2", "0.10.1", "0.10.2-IV0", "0.10.2":
		return record.MagicValueV1, true
	}
	return 0, false
}
