package security

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
)

// ErrAuthentication marks every error that ends a SASL authentication; the connection is
// closed without a response (as 0.10.2 closes it).
var ErrAuthentication = errors.New("authentication failed")

// saslState is SaslServerAuthenticator.SaslState.
type saslState int

const (
	gssapiOrHandshakeRequest saslState = iota // the first packet: a Kafka request or (0.9.0) a GSSAPI token
	handshakeRequest                          // after ApiVersions: only ApiVersions or SaslHandshake
	authenticate                              // size-prefixed mechanism tokens
)

// SaslServerAuthenticator runs a connection's authentication before any request reaches the
// broker: ApiVersions (answered here), SaslHandshake (the mechanism), then the mechanism's tokens,
// each a 4-byte size and the bytes, until the SaslServer is complete. It returns the principal
// "User:<name>".
//
// Kafka 0.10.2: org.apache.kafka.common.security.authenticator.SaslServerAuthenticator (driven by
// the connection's reader goroutine instead of a selector).
type SaslServerAuthenticator struct {
	EnabledMechanisms []string
	Jaas              JaasConfig
	Credentials       *CredentialCache
	MaxReceiveSize    int32
}

// Authenticate exchanges the handshake and tokens over rw (the connection, unbuffered). Any
// error wraps ErrAuthentication; the caller closes the connection.
func (a *SaslServerAuthenticator) Authenticate(rw io.ReadWriter) (string, error) {
	p, err := a.authenticate(rw)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrAuthentication, err)
	}
	return p, nil
}

func (a *SaslServerAuthenticator) authenticate(rw io.ReadWriter) (string, error) {
	state := gssapiOrHandshakeRequest
	var server SaslServer
	for {
		token, err := a.readToken(rw)
		if err != nil {
			return "", err
		}
		switch state {
		case gssapiOrHandshakeRequest, handshakeRequest:
			mech, err := a.handleKafkaRequest(rw, token, state == gssapiOrHandshakeRequest)
			if err != nil {
				return "", err
			}
			state = handshakeRequest
			if mech != "" {
				if server, err = a.createSaslServer(mech); err != nil {
					return "", err
				}
				state = authenticate
			}
		case authenticate:
			challenge, err := server.EvaluateResponse(token)
			if err != nil {
				return "", err
			}
			if challenge != nil {
				if err := writeToken(rw, challenge); err != nil {
					return "", err
				}
			}
			if server.IsComplete() {
				return "User:" + server.AuthorizationID(), nil
			}
		}
	}
}

// readToken reads one size-prefixed packet (at most MaxReceiveSize bytes; 0: unlimited).
func (a *SaslServerAuthenticator) readToken(r io.Reader) ([]byte, error) {
	limit := int(a.MaxReceiveSize)
	if limit <= 0 {
		limit = network.Unlimited
	}
	rec, err := network.ReadNetworkReceive(r, "", limit)
	if err != nil {
		return nil, err
	}
	return rec.Payload(), nil
}

func writeToken(w io.Writer, b []byte) error {
	frame := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(frame, uint32(len(b)))
	copy(frame[4:], b)
	_, err := w.Write(frame)
	return err
}

// handleKafkaRequest answers ApiVersions, or SaslHandshake with the mechanism chosen (returned);
// any other request is IllegalSaslStateException. A first packet that is not a Kafka request
// would be a 0.9.0 client's GSSAPI token: GSSAPI is not supported, so it fails.
func (a *SaslServerAuthenticator) handleKafkaRequest(w io.Writer, packet []byte, first bool) (string, error) {
	header, body, err := protocol.ReadRequestHeader(packet)
	if err == nil && !header.ApiKey.IsValid() {
		err = fmt.Errorf("Unexpected ApiKeys id `%d`, it should be between `0` and `%d` (inclusive)", int16(header.ApiKey), int16(protocol.MaxApiKey))
	}
	if err != nil {
		if first {
			return "", fmt.Errorf("Exception handling first SASL packet from client, GSSAPI is not supported by server: %w", err)
		}
		return "", err
	}
	resp := protocol.ResponseHeader{CorrelationID: header.CorrelationID}
	if !protocol.IsSupported(header.ApiKey, header.ApiVersion) {
		if header.ApiKey == protocol.ApiVersions {
			_, err := protocol.WriteResponse(w, resp, protocol.ApiVersionsResponseFor(header.ApiVersion))
			return "", err
		}
		return "", fmt.Errorf("Version %d is not supported for apiKey %s", header.ApiVersion, header.ApiKey)
	}
	switch header.ApiKey {
	case protocol.ApiVersions:
		_, err := protocol.WriteResponse(w, resp, protocol.ApiVersionsResponseFor(header.ApiVersion))
		return "", err
	case protocol.SaslHandshake:
		req := &protocol.SaslHandshakeRequest{Version: header.ApiVersion}
		if err := req.ReadFrom(body); err != nil {
			return "", err
		}
		mechs := append([]string{}, a.EnabledMechanisms...)
		for _, m := range mechs {
			if m == req.Mechanism {
				_, err := protocol.WriteResponse(w, resp, &protocol.SaslHandshakeResponse{EnabledMechanisms: mechs})
				return m, err
			}
		}
		protocol.WriteResponse(w, resp, &protocol.SaslHandshakeResponse{ErrorCode: protocol.ErrUnsupportedSaslMechanism.Code, EnabledMechanisms: mechs})
		return "", fmt.Errorf("Unsupported SASL mechanism %s", req.Mechanism)
	default:
		return "", fmt.Errorf("Unexpected Kafka request of type %s during SASL handshake.", header.ApiKey)
	}
}

func (a *SaslServerAuthenticator) createSaslServer(mechanism string) (SaslServer, error) {
	if mechanism == PlainMechanism {
		return NewPlainSaslServer(a.Jaas), nil
	}
	if m, ok := ScramMechanisms[mechanism]; ok && a.Credentials != nil {
		return NewScramSaslServer(m, a.Credentials), nil
	}
	return nil, fmt.Errorf("Unsupported SASL mechanism %s", mechanism)
}

// SupportedMechanisms are the mechanisms zkafka's broker serves.
var SupportedMechanisms = []string{PlainMechanism, "SCRAM-SHA-256", "SCRAM-SHA-512"}
