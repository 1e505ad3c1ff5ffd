package protocol

import "fmt"

// RequestHeader starts every request: which API, which version, the correlation id the response
// echoes, and the client id.
//
// Kafka 0.10.2: org.apache.kafka.common.requests.RequestHeader (schema Protocol.REQUEST_HEADER).
// One exception is kept from kafka.api.ControlledShutdownRequest: a ControlledShutdown v0 header
// has no client_id at all (RequestChannel parses key 7 with that legacy reader), so for
// ApiKey == ControlledShutdown and ApiVersion <= 0 ClientID is absent on the wire (the legacy
// reader reads a client id only for versions above 0).
type RequestHeader struct {
	ApiKey        ApiKeys
	ApiVersion    int16
	CorrelationID int32
	ClientID      *string // NULLABLE_STRING; Java clients always send one
}

// ReadRequestHeader decodes the header at the start of b (the bytes after the size prefix) and
// returns the body that follows it.
func ReadRequestHeader(b []byte) (RequestHeader, []byte, error) {
	r := reader{buf: b}
	var h RequestHeader
	h.ApiKey = ApiKeys(r.int16())
	h.ApiVersion = r.int16()
	h.CorrelationID = r.int32()
	if !legacyNoClientID(h) {
		h.ClientID = r.nullableString()
	}
	if err := r.done("request header"); err != nil {
		return RequestHeader{}, nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	return h, b[r.off:], nil
}

// AppendTo appends the encoded header.
func (h RequestHeader) AppendTo(dst []byte) []byte {
	dst = appendInt16(dst, int16(h.ApiKey))
	dst = appendInt16(dst, h.ApiVersion)
	dst = appendInt32(dst, h.CorrelationID)
	if legacyNoClientID(h) {
		return dst
	}
	return appendNullableString(dst, h.ClientID)
}

// ClientIDOrEmpty returns the client id, or "" when it is null.
func (h RequestHeader) ClientIDOrEmpty() string {
	if h.ClientID == nil {
		return ""
	}
	return *h.ClientID
}

// String renders the header in the style of Kafka's request log lines.
func (h RequestHeader) String() string {
	return fmt.Sprintf("{api_key=%d,api_version=%d,correlation_id=%d,client_id=%s}",
		int16(h.ApiKey), h.ApiVersion, h.CorrelationID, h.ClientIDOrEmpty())
}

// legacyNoClientID tells whether h is a ControlledShutdown header that kafka.api's reader takes
// without a client id.
func legacyNoClientID(h RequestHeader) bool {
	return h.ApiKey == ControlledShutdown && h.ApiVersion <= 0
}
