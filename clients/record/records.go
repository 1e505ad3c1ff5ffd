package record

import "io"

// Records is a set of messages in Kafka's on-wire/on-disk message-set format, whether held in
// memory (MemoryRecords) or as a slice of a segment file (FileRecords). Protocol messages carry
// record sets as Records so a FetchResponse can stream a file slice with sendfile.
//
// Kafka 0.10.2: org.apache.kafka.common.record.Records.
type Records interface {
	// SizeInBytes is the number of bytes WriteTo writes.
	SizeInBytes() int
	// WriteTo writes the whole set to w (for FileRecords, with sendfile when w is a *net.TCPConn).
	WriteTo(w io.Writer) (int64, error)
}

// Compile-time checks that both message-set kinds are Records.
var (
	_ Records = (*MemoryRecords)(nil)
	_ Records = (*FileRecords)(nil)
)

// maxInt32 is Java's Integer.MAX_VALUE, the "no limit" record size of the iterators.
const maxInt32 = 1<<31 - 1
