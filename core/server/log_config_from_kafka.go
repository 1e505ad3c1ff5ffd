package server

import (
	"fmt"
	"strings"

	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/config"
)

// logConfigFromKafka is the broker-level LogConfig: each topic-level key takes the value of its
// broker-level log.* setting.
//
// Kafka 0.10.2: KafkaServer.copyKafkaConfigToLog.
func logConfigFromKafka(c *config.KafkaConfig) (*log.LogConfig, error) {
	str := func(v any) string {
		switch x := v.(type) {
		case []string:
			return strings.Join(x, ",")
		case nil:
			return ""
		}
		return fmt.Sprint(v)
	}
	props := map[string]string{
		"segment.bytes":                       str(c.LogSegmentBytes),
		"segment.ms":                          str(c.LogRollTimeMillis),
		"segment.jitter.ms":                   str(c.LogRollTimeJitterMillis),
		"segment.index.bytes":                 str(c.LogIndexSizeMaxBytes),
		"flush.messages":                      str(c.LogFlushIntervalMessages),
		"flush.ms":                            str(c.LogFlushIntervalMs),
		"retention.bytes":                     str(c.LogRetentionBytes),
		"retention.ms":                        str(c.LogRetentionTimeMillis),
		"max.message.bytes":                   str(c.MessageMaxBytes),
		"index.interval.bytes":                str(c.LogIndexIntervalBytes),
		"delete.retention.ms":                 str(c.LogCleanerDeleteRetentionMs),
		"min.compaction.lag.ms":               str(c.LogCleanerMinCompactionLagMs),
		"file.delete.delay.ms":                str(c.LogDeleteDelayMs),
		"min.cleanable.dirty.ratio":           str(c.LogCleanerMinCleanRatio),
		"cleanup.policy":                      str(c.LogCleanupPolicy),
		"min.insync.replicas":                 str(c.MinInSyncReplicas),
		"compression.type":                    str(c.CompressionType),
		"unclean.leader.election.enable":      str(c.UncleanLeaderElectionEnable),
		"preallocate":                         str(c.LogPreAllocate),
		"message.format.version":              c.LogMessageFormatVersion.String(),
		"message.timestamp.type":              str(c.LogMessageTimestampType),
		"message.timestamp.difference.max.ms": str(c.LogMessageTimestampDifferenceMaxMs),
	}
	return log.FromProps(log.LogConfigDefaultsMap(), props)
}
