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

// MemoryRecords is a message set held in a byte slice.
//
// Kafka 0.10.2: org.apache.kafka.common.record.MemoryRecords.
type MemoryRecords struct {
	buf []byte
}

// NewMemoryRecords wraps b (not copied).
func NewMemoryRecords(b []byte) *MemoryRecords { return &MemoryRecords{buf: b} }

// Bytes returns the underlying bytes.
func (m *MemoryRecords) Bytes() []byte { return m.buf }

// SizeInBytes implements Records.
func (m *MemoryRecords) SizeInBytes() int { return len(m.buf) }

// WriteTo implements Records.
func (m *MemoryRecords) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(m.buf)
	return int64(n), err
}
