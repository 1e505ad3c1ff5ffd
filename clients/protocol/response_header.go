package protocol

// ResponseHeader starts every response: the correlation id copied from the request.
//
// Kafka 0.10.2: org.apache.kafka.common.requests.ResponseHeader (schema Protocol.RESPONSE_HEADER).
type ResponseHeader struct {
	CorrelationID int32
}

// ReadResponseHeader decodes the header at the start of b and returns the body after it.
func ReadResponseHeader(b []byte) (ResponseHeader, []byte, error) {
	r := reader{buf: b}
	h := ResponseHeader{CorrelationID: r.int32()}
	if err := r.done("response header"); err != nil {
		return ResponseHeader{}, nil, err
	}
	return h, b[r.off:], nil
}

// AppendTo appends the encoded header.
func (h ResponseHeader) AppendTo(dst []byte) []byte { return appendInt32(dst, h.CorrelationID) }
