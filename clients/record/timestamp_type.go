package record

// TimestampType says what a v1 message's timestamp means; bit 3 of the attributes carries it.
//
// Kafka 0.10.2: org.apache.kafka.common.record.TimestampType.
type TimestampType int8

// The timestamp types. NoTimestampType is what a magic-0 message reports.
const (
	NoTimestampType TimestampType = -1
	CreateTime      TimestampType = 0
	LogAppendTime   TimestampType = 1
)

// NoTimestamp is the timestamp of a message that has none (magic 0, or a producer that sent -1).
//
// Kafka 0.10.2: Record.NO_TIMESTAMP.
const NoTimestamp int64 = -1

// Name is Kafka's display name ("NoTimestampType", "CreateTime", "LogAppendTime").
func (t TimestampType) Name() string {
	switch t {
	case CreateTime:
		return "CreateTime"
	case LogAppendTime:
		return "LogAppendTime"
	}
	return "NoTimestampType"
}

// String returns Name.
func (t TimestampType) String() string { return t.Name() }

// UpdateAttributes returns attributes with bit 3 set for LogAppendTime and cleared otherwise.
func (t TimestampType) UpdateAttributes(attributes int8) int8 {
	if t == LogAppendTime {
		return attributes | TimestampTypeMask
	}
	return attributes &^ TimestampTypeMask
}

// TimestampTypeForAttributes reads bit 3: set = LogAppendTime, clear = CreateTime. (Whether the
// message has a timestamp at all depends on its magic; Record.TimestampType handles that.)
func TimestampTypeForAttributes(attributes int8) TimestampType {
	if attributes&TimestampTypeMask != 0 {
		return LogAppendTime
	}
	return CreateTime
}
