package protocol

import (
	"encoding/binary"
	"io"

	"github.com/zkafka/zkafka/clients/record"
)

// sends collects the record sets that an encoding left out of its buffer: each cut is the
// buffer position at which recs.WriteTo must be streamed.
type sends struct{ cuts []cut }

type cut struct {
	pos  int
	recs record.Records
}

// sendable is implemented by every generated message.
type sendable interface {
	appendSends(dst []byte, s *sends) []byte
}

// Encoded is a message body ready to be written: its bytes with the record sets that are not in
// memory (FileRecords) left out, to be streamed by their own WriteTo (sendfile on a TCP
// connection). It is Kafka's MultiSend of a ByteBufferSend and RecordsSends, as FetchResponse
// builds it for zero-copy reads.
//
// Kafka 0.10.2: org.apache.kafka.common.requests.RecordsSend / FetchResponse.toSend.
type Encoded struct {
	buf  []byte
	cuts []cut
}

// Encode encodes m (at its version) for writing, after prefix (for instance a size placeholder
// and a header; Size and WriteTo include it). Record sets held in memory are copied into the
// buffer; others are left out and streamed by WriteTo.
func Encode(prefix []byte, m Message) *Encoded {
	s := &sends{}
	buf := append([]byte(nil), prefix...)
	if sm, ok := m.(sendable); ok {
		buf = sm.appendSends(buf, s)
	} else {
		buf = m.AppendTo(buf)
	}
	return &Encoded{buf: buf, cuts: s.cuts}
}

// EncodeChecked is Encode with a value the wire format cannot carry (a STRING over 32767 bytes)
// reported as an error.
func EncodeChecked(prefix []byte, m Message) (e *Encoded, err error) {
	defer recoverEncode(&err)
	return Encode(prefix, m), nil
}

// Size is the number of bytes WriteTo writes.
func (e *Encoded) Size() int {
	n := len(e.buf)
	for _, c := range e.cuts {
		n += c.recs.SizeInBytes()
	}
	return n
}

// WriteTo writes the bytes and streams each left-out record set at its place.
func (e *Encoded) WriteTo(w io.Writer) (int64, error) {
	var total int64
	prev := 0
	for _, c := range e.cuts {
		n, err := w.Write(e.buf[prev:c.pos])
		total += int64(n)
		if err != nil {
			return total, err
		}
		m, err := c.recs.WriteTo(w)
		total += m
		if err != nil {
			return total, err
		}
		prev = c.pos
	}
	n, err := w.Write(e.buf[prev:])
	total += int64(n)
	return total, err
}

// SizeOf is the encoded size of m's body at its version.
func SizeOf(m Message) int { return Encode(nil, m).Size() }

// WriteResponse writes a complete response frame to w: the INT32 size, the header, then the
// body, streaming record sets that are not in memory (a FetchResponse carrying FileRecords is
// written with sendfile when w is a *net.TCPConn).
func WriteResponse(w io.Writer, h ResponseHeader, m Message) (int64, error) {
	prefix := make([]byte, 4, 64)
	prefix = h.AppendTo(prefix)
	e, err := EncodeChecked(prefix, m)
	if err != nil {
		return 0, err
	}
	binary.BigEndian.PutUint32(e.buf[:4], uint32(e.Size()-4))
	return e.WriteTo(w)
}

// WriteRequest writes a complete request frame to w: the INT32 size, the header, then the body.
func WriteRequest(w io.Writer, h RequestHeader, m Message) (n int64, err error) {
	defer recoverEncode(&err) // the header's client id
	prefix := make([]byte, 4, 64)
	prefix = h.AppendTo(prefix)
	e, err := EncodeChecked(prefix, m)
	if err != nil {
		return 0, err
	}
	binary.BigEndian.PutUint32(e.buf[:4], uint32(e.Size()-4))
	return e.WriteTo(w)
}

// WriteTo writes the body of r (no size prefix, no header) to w, streaming record sets that are
// not held in memory with their own WriteTo, so a FileRecords slice goes out with sendfile.
func (r *FetchResponse) WriteTo(w io.Writer) (int64, error) { return Encode(nil, r).WriteTo(w) }

// SizeOf is the number of bytes WriteTo writes.
func (r *FetchResponse) SizeOf() int { return SizeOf(r) }
