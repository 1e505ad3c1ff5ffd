package protocol

import "fmt"

// Message is a request or response body of one API key at one version. Every generated type
// (ProduceRequest, ProduceResponse, ..., DeleteTopicsResponse) implements it.
//
// Kafka 0.10.2: org.apache.kafka.common.requests.AbstractRequestResponse (the struct-backed base
// of every request and response class).
type Message interface {
	// Key is the message's API key.
	Key() ApiKeys
	// GetVersion returns the version AppendTo and ReadFrom use.
	GetVersion() int16
	// SetVersion sets the version AppendTo and ReadFrom use.
	SetVersion(int16)
	// AppendTo appends the body (no size prefix, no header) encoded at the message's version.
	AppendTo(dst []byte) []byte
	// ReadFrom replaces the message's fields by the body in src, decoded at its version.
	ReadFrom(src []byte) error
}

// NewRequest returns an empty request body for key at version; it fails for an unknown key or a
// version the 0.10.2 broker does not support (SupportedVersions).
func NewRequest(key ApiKeys, version int16) (Message, error) {
	if err := checkVersion(key, version); err != nil {
		return nil, err
	}
	return newRequestMessage(key, version), nil
}

// NewResponse returns an empty response body for key at version, with the same checks as NewRequest.
func NewResponse(key ApiKeys, version int16) (Message, error) {
	if err := checkVersion(key, version); err != nil {
		return nil, err
	}
	return newResponseMessage(key, version), nil
}

func checkVersion(key ApiKeys, version int16) error {
	if !key.IsValid() {
		return fmt.Errorf("%w: unknown api key %d", ErrInvalidRequest, int16(key))
	}
	if !IsSupported(key, version) {
		return fmt.Errorf("%w: %s does not support version %d", ErrUnsupportedVersion, key, version)
	}
	return nil
}

// ParseRequest decodes the body of a request whose header is h, as the 0.10.2 broker does
// (RequestChannel.Request):
//
//   - ControlledShutdown is read with the legacy Scala reader, which accepts every version: the
//     body is decoded with the v1 layout (broker_id) and Version keeps the header's version.
//   - ApiVersions at a version the broker does not support is not decoded at all (newer clients
//     add fields to it); an empty ApiVersionsRequest carrying that version is returned so the
//     caller can answer with ApiVersionsResponseFor(version), error 35 in the v0 layout.
//   - An unknown key, any other unsupported version or a malformed body is an error wrapping
//     ErrInvalidRequest; the broker closes the connection without answering.
//
// Bytes after the body are ignored, as Kafka's Schema.read ignores them. Byte fields and record
// sets of the returned message alias body.
func ParseRequest(h RequestHeader, body []byte) (Message, error) {
	switch {
	case h.ApiKey == ControlledShutdown:
		m := &ControlledShutdownRequest{Version: 1}
		if err := m.ReadFrom(body); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		m.Version = h.ApiVersion
		return m, nil
	case h.ApiKey == ApiVersions && !IsSupported(ApiVersions, h.ApiVersion):
		return &ApiVersionsRequest{Version: h.ApiVersion}, nil
	}
	if !h.ApiKey.IsValid() {
		return nil, fmt.Errorf("%w: unknown api key %d", ErrInvalidRequest, int16(h.ApiKey))
	}
	if !IsSupported(h.ApiKey, h.ApiVersion) {
		return nil, fmt.Errorf("%w: %s does not support version %d", ErrInvalidRequest, h.ApiKey, h.ApiVersion)
	}
	m := newRequestMessage(h.ApiKey, h.ApiVersion)
	if err := m.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	return m, nil
}

// ParseResponse decodes a response body of key at version (client side), the broker-to-broker
// extension (OffsetsForLeaderEpoch v0, which the replica fetcher sends) included.
func ParseResponse(key ApiKeys, version int16, body []byte) (Message, error) {
	var m Message
	if IsInterBrokerKey(key, version) {
		m = &OffsetsForLeaderEpochResponse{Version: version}
	} else {
		var err error
		if m, err = NewResponse(key, version); err != nil {
			return nil, err
		}
	}
	if err := m.ReadFrom(body); err != nil {
		return nil, err
	}
	return m, nil
}
