package security

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
)

// SaslClientAuthenticate runs the client side of 0.10.2's SASL exchange on a fresh connection:
// SaslHandshake v0 naming the mechanism, then the mechanism's tokens (PLAIN, SCRAM-SHA-256 or
// SCRAM-SHA-512) until the server accepts. A refused authentication is an error (the server
// closes the connection).
//
// Kafka 0.10.2: org.apache.kafka.common.security.authenticator.SaslClientAuthenticator with
// PlainSaslClient / ScramSaslClient.
func SaslClientAuthenticate(rw io.ReadWriter, clientID, mechanism, username, password string) error {
	if _, err := protocol.WriteRequest(rw, protocol.RequestHeader{ApiKey: protocol.SaslHandshake, ApiVersion: 0, CorrelationID: 0, ClientID: &clientID},
		&protocol.SaslHandshakeRequest{Mechanism: mechanism}); err != nil {
		return err
	}
	frame, err := readSaslFrame(rw)
	if err != nil {
		return err
	}
	_, body, err := protocol.ReadResponseHeader(frame)
	if err != nil {
		return err
	}
	resp := &protocol.SaslHandshakeResponse{}
	if err := resp.ReadFrom(body); err != nil {
		return err
	}
	if resp.ErrorCode != 0 {
		return fmt.Errorf("%s: %s mechanism, enabled mechanisms are %v", protocol.ErrorForCode(resp.ErrorCode), mechanism, resp.EnabledMechanisms)
	}
	exchange := func(token []byte) ([]byte, error) {
		if err := writeToken(rw, token); err != nil {
			return nil, err
		}
		b, err := readSaslFrame(rw)
		if err != nil {
			return nil, fmt.Errorf("Authentication failed due to invalid credentials with SASL mechanism %s: %w", mechanism, err)
		}
		return b, nil
	}
	if mechanism == PlainMechanism {
		_, err := exchange([]byte("\x00" + username + "\x00" + password))
		return err
	}
	m, ok := ScramMechanisms[mechanism]
	if !ok {
		return fmt.Errorf("Unsupported SASL mechanism %s", mechanism)
	}
	return scramClient(m, username, password, exchange)
}

func readSaslFrame(r io.Reader) ([]byte, error) {
	rec, err := network.ReadNetworkReceive(r, "", 1<<20)
	if err != nil {
		return nil, err
	}
	return rec.Payload(), nil
}

// scramClient is RFC 5802's client: client-first, client-final with the proof, and the server
// signature checked.
//
// Kafka 0.10.2: ScramSaslClient.
func scramClient(m ScramMechanism, username, password string, exchange func([]byte) ([]byte, error)) error {
	f := scramFormatter{h: m.Hash}
	nonce := secureRandomString()
	saslName := strings.ReplaceAll(strings.ReplaceAll(username, "=", "=3D"), ",", "=2C")
	bare := "n=" + saslName + ",r=" + nonce
	serverFirst, err := exchange([]byte("n,," + bare))
	if err != nil {
		return err
	}
	attrs := map[string]string{}
	for _, kv := range strings.Split(string(serverFirst), ",") {
		if len(kv) > 2 && kv[1] == '=' {
			attrs[kv[:1]] = kv[2:]
		}
	}
	salt, err := base64.StdEncoding.DecodeString(attrs["s"])
	iterations, ierr := strconv.Atoi(attrs["i"])
	if err != nil || ierr != nil || !strings.HasPrefix(attrs["r"], nonce) || iterations < m.MinIterations {
		return fmt.Errorf("Invalid SCRAM server first message %q", serverFirst)
	}
	salted, err := pbkdf2.Key(m.Hash, password, salt, iterations, m.Hash().Size())
	if err != nil {
		return err
	}
	withoutProof := "c=biws,r=" + attrs["r"]
	authMessage := bare + "," + string(serverFirst) + "," + withoutProof
	clientKey := f.hmac(salted, "Client Key")
	signature := f.hmac(f.hash(clientKey), authMessage)
	proof := make([]byte, len(clientKey))
	for i := range proof {
		proof[i] = clientKey[i] ^ signature[i]
	}
	serverFinal, err := exchange([]byte(withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)))
	if err != nil {
		return err
	}
	want := "v=" + base64.StdEncoding.EncodeToString(f.hmac(f.hmac(salted, "Server Key"), authMessage))
	if !hmac.Equal([]byte(serverFinal), []byte(want)) {
		return errors.New("Invalid server signature in SCRAM server final message")
	}
	return nil
}

// InterBrokerSecurity secures a broker's own connections to other brokers on the inter-broker
// listener: TLS for SSL and SASL_SSL, then SASL with sasl.mechanism.inter.broker.protocol and
// the username/password of the JAAS file's KafkaServer section.
//
// Kafka 0.10.2: the client-mode channel builder of the inter-broker listener (SaslChannelBuilder
// or SslChannelBuilder in Mode.CLIENT).
type InterBrokerSecurity struct {
	Protocol           common.SecurityProtocol
	Mechanism          string
	Username, Password string
	TLS                *tls.Config // client side: the truststore's CAs; nil for plaintext protocols
}

// Secure wraps a freshly dialled connection; the caller closes conn on error.
func (s *InterBrokerSecurity) Secure(conn net.Conn, clientID string, timeout time.Duration) (net.Conn, error) {
	if s == nil || s.Protocol == common.PLAINTEXT {
		return conn, nil
	}
	if timeout > 0 {
		conn.SetDeadline(time.Now().Add(timeout))
		defer conn.SetDeadline(time.Time{})
	}
	if s.Protocol == common.SSL || s.Protocol == common.SASL_SSL {
		tc := tls.Client(conn, s.TLS)
		if err := tc.HandshakeContext(context.Background()); err != nil {
			return nil, fmt.Errorf("SSL handshake failed: %w", err)
		}
		conn = tc
	}
	if s.Protocol == common.SASL_PLAINTEXT || s.Protocol == common.SASL_SSL {
		if err := SaslClientAuthenticate(conn, clientID, s.Mechanism, s.Username, s.Password); err != nil {
			return nil, err
		}
	}
	return conn, nil
}

// Dial is a network.SelectorConfig.Dial that connects and then secures the connection with s;
// nil (the Selector's plain dial) when s is nil or PLAINTEXT.
func (s *InterBrokerSecurity) Dial(clientID string, timeout time.Duration) func(ctx context.Context, address string) (net.Conn, error) {
	if s == nil || s.Protocol == common.PLAINTEXT {
		return nil
	}
	d := &net.Dialer{KeepAlive: 30 * time.Second}
	return func(ctx context.Context, address string) (net.Conn, error) {
		raw, err := d.DialContext(ctx, "tcp", address)
		if err != nil {
			return nil, err
		}
		c, err := s.Secure(raw, clientID, timeout)
		if err != nil {
			raw.Close()
			return nil, err
		}
		return c, nil
	}
}

// ClientTLSConfig is the TLS client side of inter-broker SSL: the truststore's CAs, no host name
// check (0.10.2's ssl.endpoint.identification.algorithm defaults to none).
func ClientTLSConfig(c SslConfig) (*tls.Config, error) {
	if c.TruststoreLocation == "" {
		return nil, errors.New("ssl.truststore.location is required for SSL between brokers")
	}
	pool, err := loadTruststore(c)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{InsecureSkipVerify: true} // the chain is verified below, without a host name
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("no server certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter})
		return err
	}
	if c.KeystoreLocation != "" { // presented when the other broker asks for client certificates
		cert, err := loadKeystore(c)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
