package security

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
)

// SaslServer is one mechanism's server side of an authentication exchange.
//
// Kafka 0.10.2: javax.security.sasl.SaslServer.
type SaslServer interface {
	// EvaluateResponse takes the client's next token and returns the challenge to send back
	// (nil: nothing to send). An error fails the authentication.
	EvaluateResponse(response []byte) ([]byte, error)
	IsComplete() bool
	// AuthorizationID is the authenticated user name once IsComplete.
	AuthorizationID() string
	MechanismName() string
}

// SaslError is javax.security.sasl.SaslException: authentication failed.
type SaslError struct{ Msg string }

func (e *SaslError) Error() string { return e.Msg }

func saslError(format string, args ...any) error {
	return &SaslError{Msg: fmt.Sprintf(format, args...)}
}

// PlainMechanism is the PLAIN mechanism's name.
const PlainMechanism = "PLAIN"

// PlainSaslServer is the server side of SASL/PLAIN (RFC 4616): one client message
// [authzid] NUL authcid NUL passwd, checked against the user_<authcid> option of the JAAS
// file's KafkaServer section (the PlainLoginModule entry's options).
//
// Kafka 0.10.2: org.apache.kafka.common.security.plain.PlainSaslServer.
type PlainSaslServer struct {
	jaas       JaasConfig
	complete   bool
	authzID    string
	evaluating bool
}

// NewPlainSaslServer is PlainSaslServerFactory.createSaslServer.
func NewPlainSaslServer(jaas JaasConfig) *PlainSaslServer { return &PlainSaslServer{jaas: jaas} }

// EvaluateResponse implements SaslServer. On success the answer is an empty token (0.10.2's
// server writes a zero-length frame, which clients read before going on).
func (s *PlainSaslServer) EvaluateResponse(response []byte) ([]byte, error) {
	if s.evaluating {
		return nil, errors.New("Unexpected challenge in Sasl server state COMPLETE")
	}
	s.evaluating = true
	parts := bytes.Split(response, []byte{0})
	if len(parts) != 3 {
		return nil, saslError("Invalid SASL/PLAIN response: expected 3 tokens, got %d", len(parts))
	}
	authzid, username, password := string(parts[0]), string(parts[1]), string(parts[2])
	if username == "" {
		return nil, saslError("Authentication failed: username not specified")
	}
	if password == "" {
		return nil, saslError("Authentication failed: password not specified")
	}
	expected, ok := s.jaas.ConfigEntryOption(JaasServerContext, "user_"+username, "")
	if !ok || subtle.ConstantTimeCompare([]byte(expected), []byte(password)) != 1 {
		return nil, saslError("Authentication failed: Invalid username or password")
	}
	if authzid != "" && authzid != username {
		return nil, saslError("Authentication failed: Client requested an authorization id that is different from username")
	}
	s.authzID = username
	s.complete = true
	return []byte{}, nil
}

// IsComplete implements SaslServer.
func (s *PlainSaslServer) IsComplete() bool { return s.complete }

// AuthorizationID implements SaslServer.
func (s *PlainSaslServer) AuthorizationID() string { return s.authzID }

// MechanismName implements SaslServer.
func (s *PlainSaslServer) MechanismName() string { return PlainMechanism }
