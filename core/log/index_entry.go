package log

import "fmt"

// OffsetPosition is one offset-index entry resolved to absolute terms: a message offset and the byte
// position of its log entry in the segment's .log file.
//
// Kafka 0.10.2: kafka.log.OffsetPosition
type OffsetPosition struct {
	Offset   int64
	Position int32
}

func (p OffsetPosition) String() string {
	return fmt.Sprintf("OffsetPosition(offset=%d, position=%d)", p.Offset, p.Position)
}

// TimestampOffset is one time-index entry resolved to absolute terms: every message with a
// timestamp greater than Timestamp lies after Offset.
//
// Kafka 0.10.2: kafka.log.TimestampOffset
type TimestampOffset struct {
	Timestamp int64
	Offset    int64
}

func (t TimestampOffset) String() string {
	return fmt.Sprintf("TimestampOffset(timestamp=%d, offset=%d)", t.Timestamp, t.Offset)
}
