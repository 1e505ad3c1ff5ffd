package consumer

import "fmt"

// OffsetAndMetadata is a committed offset and its metadata string: the offset is that of the
// next record the group will consume.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.OffsetAndMetadata.
type OffsetAndMetadata struct {
	Offset   int64
	Metadata string
}

func (o OffsetAndMetadata) String() string {
	return fmt.Sprintf("OffsetAndMetadata{offset=%d, metadata='%s'}", o.Offset, o.Metadata)
}

// OffsetAndTimestamp is offsetsForTimes' answer for one partition: the earliest offset whose
// timestamp is at least the one asked for, and that timestamp.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.OffsetAndTimestamp.
type OffsetAndTimestamp struct {
	Offset    int64
	Timestamp int64
}

func (o OffsetAndTimestamp) String() string {
	return fmt.Sprintf("(timestamp=%d, offset=%d)", o.Timestamp, o.Offset)
}
