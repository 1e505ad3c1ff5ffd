package log

import "github.com/zkafka/zkafka/clients/record"

// LogAppendInfo describes an append: the offsets it got, its max timestamp and the offset carrying
// it, the log append time (-1 unless the topic uses LogAppendTime), the codecs, how many shallow
// messages and valid bytes it had, and whether its offsets were increasing (for follower appends).
//
// Kafka 0.10.2: kafka.log.LogAppendInfo
type LogAppendInfo struct {
	FirstOffset          int64
	LastOffset           int64
	MaxTimestamp         int64
	OffsetOfMaxTimestamp int64
	LogAppendTime        int64
	SourceCodec          record.CompressionType
	TargetCodec          record.CompressionType
	ShallowCount         int
	ValidBytes           int
	OffsetsMonotonic     bool

	// shallowMagics is a bit set of the magic values seen in the shallow scan (bit m for magic m),
	// so the validator need not scan again to know whether every message has the topic's magic.
	shallowMagics uint8
}

// UnknownLogAppendInfo is the info of an append that did not happen.
var UnknownLogAppendInfo = LogAppendInfo{FirstOffset: -1, LastOffset: -1, MaxTimestamp: record.NoTimestamp,
	OffsetOfMaxTimestamp: -1, LogAppendTime: record.NoTimestamp, SourceCodec: record.NONE, TargetCodec: record.NONE,
	ShallowCount: -1, ValidBytes: -1}

// targetCompressionCodec is BrokerCompressionCodec.getTargetCompressionCodec: "producer" keeps the
// producer's codec, "uncompressed" means none, any other name is that codec.
func targetCompressionCodec(compressionType string, producerCodec record.CompressionType) record.CompressionType {
	switch compressionType {
	case "producer":
		return producerCodec
	case "uncompressed":
		return record.NONE
	}
	c, err := record.ForName(compressionType)
	if err != nil {
		return producerCodec
	}
	return c
}
