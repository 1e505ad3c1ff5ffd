package security

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/zkafka/zkafka/clients/protocol"
)

const testJaas = `
// the broker's section, as in Kafka's security docs
KafkaServer {
   org.apache.kafka.common.security.plain.PlainLoginModule required
   username="admin"
   password="admin-secret"
   user_admin="admin-secret"
   user_alice="alice \"quoted\" secret";
   /* a second module */
   org.apache.kafka.common.security.scram.ScramLoginModule optional username=admin password='x';
};
Client { org.apache.zookeeper.server.auth.DigestLoginModule required username="zk" password="zkpw"; };
`

func TestParseJaasConfig(t *testing.T) {
	c, err := ParseJaasConfig(testJaas)
	if err != nil {
		t.Fatal(err)
	}
	srv := c[JaasServerContext]
	if len(srv) != 2 || srv[0].LoginModuleName != PlainLoginModule || srv[0].ControlFlag != "required" ||
		srv[1].LoginModuleName != ScramLoginModule || srv[1].ControlFlag != "optional" || srv[1].Options["password"] != "x" {
		t.Fatalf("%+v", srv)
	}
	if v, _ := c.ConfigEntryOption(JaasServerContext, "user_alice", ""); v != `alice "quoted" secret` {
		t.Fatalf("user_alice = %q", v)
	}
	if v, ok := c.ConfigEntryOption("Client", "username", ""); !ok || v != "zk" {
		t.Fatalf("Client username = %q", v)
	}
	for in, want := range map[string]string{
		"KafkaServer { m required a=b }; ":   "Configuration Error: Line 1: expected [option key], found [}]",
		"KafkaServer { m mandatory a=b; };":  "Configuration Error: Line 1: Invalid control flag, mandatory",
		"KafkaServer m required a=b; };":     "Configuration Error: Line 1: expected [{], found [m]",
		"KafkaServer {\n m required a b; };": "Configuration Error: Line 2: expected [=], found [b]",
		"KafkaServer { m required a=b; }":    "Configuration Error: Line 1: expected [;], found [end of file]",
	} {
		if _, err := ParseJaasConfig(in); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

func TestJaasFileFromOpts(t *testing.T) {
	for in, want := range map[string]string{
		"-Xmx1G -Djava.security.auth.login.config=/etc/kafka/jaas.conf -Dx=y": "/etc/kafka/jaas.conf",
		"-Djava.security.auth.login.config==/j.conf":                          "/j.conf",
		"-Dother=1": "",
		"":          "",
	} {
		if got := JaasFileFromOpts(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestPlainSaslServer(t *testing.T) {
	jaas, _ := ParseJaasConfig(testJaas)
	for _, c := range []struct {
		msg, user, err string
	}{
		{"\x00admin\x00admin-secret", "admin", ""},
		{"admin\x00admin\x00admin-secret", "admin", ""},
		{"\x00alice\x00alice \"quoted\" secret", "alice", ""},
		{"\x00admin\x00wrong", "", "Authentication failed: Invalid username or password"},
		{"\x00bob\x00admin-secret", "", "Authentication failed: Invalid username or password"},
		{"alice\x00admin\x00admin-secret", "", "Authentication failed: Client requested an authorization id that is different from username"},
		{"\x00\x00pw", "", "Authentication failed: username not specified"},
		{"\x00admin\x00", "", "Authentication failed: password not specified"},
		{"admin", "", "Invalid SASL/PLAIN response: expected 3 tokens, got 1"},
	} {
		s := NewPlainSaslServer(jaas)
		out, err := s.EvaluateResponse([]byte(c.msg))
		if c.err != "" {
			if err == nil || err.Error() != c.err || s.IsComplete() {
				t.Errorf("%q: %v, want %s", c.msg, err, c.err)
			}
			continue
		}
		if err != nil || out == nil || len(out) != 0 || !s.IsComplete() || s.AuthorizationID() != c.user {
			t.Errorf("%q: %q %v %v", c.msg, out, err, s.AuthorizationID())
		}
	}
}

// scramCred builds a stored credential as kafka-configs does (ScramFormatter.generateCredential).
func scramCred(t *testing.T, mech ScramMechanism, password string, iterations int) string {
	t.Helper()
	f := scramFormatter{h: mech.Hash}
	salt := []byte("salt-" + mech.Name)
	salted := saltedPassword(mech, password, salt, iterations)
	storedKey := f.hash(f.hmac(salted, "Client Key"))
	serverKey := f.hmac(salted, "Server Key")
	b64 := func(b []byte) string { return encodeB64(b) }
	return "salt=" + b64(salt) + ",stored_key=" + b64(storedKey) + ",server_key=" + b64(serverKey) + ",iterations=" + itoa(iterations)
}

// TestScramWithFranzGoClient runs franz-go's SCRAM client (code nobody here wrote) against
// ScramSaslServer for both mechanisms: the right password completes with the server signature
// the client verifies, a wrong one and an unknown user fail.
func TestScramWithFranzGoClient(t *testing.T) {
	for _, name := range []string{"SCRAM-SHA-256", "SCRAM-SHA-512"} {
		mech := ScramMechanisms[name]
		cache := NewCredentialCache([]string{"PLAIN", name})
		if err := cache.UpdateCredentials("ali,ce=", map[string]string{name: scramCred(t, mech, "pw", 4096)}); err != nil {
			t.Fatal(err)
		}
		run := func(user, pass string) (string, error) {
			a := scram.Auth{User: user, Pass: pass}
			m := a.AsSha256Mechanism()
			if name == "SCRAM-SHA-512" {
				m = a.AsSha512Mechanism()
			}
			sess, first, err := m.Authenticate(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			s := NewScramSaslServer(mech, cache)
			msg := first
			for !s.IsComplete() {
				challenge, err := s.EvaluateResponse(msg)
				if err != nil {
					return "", err
				}
				done, resp, err := sess.Challenge(challenge)
				if err != nil {
					return "", err
				}
				if done {
					break
				}
				msg = resp
			}
			return s.AuthorizationID(), nil
		}
		if id, err := run("ali,ce=", "pw"); err != nil || id != "ali,ce=" {
			t.Fatalf("%s: %q %v", name, id, err)
		}
		if _, err := run("ali,ce=", "wrong"); err == nil || err.Error() != "Invalid client credentials" {
			t.Fatalf("%s wrong password: %v", name, err)
		}
		if _, err := run("bob", "pw"); err == nil || err.Error() != "Authentication failed: Invalid user credentials" {
			t.Fatalf("%s unknown user: %v", name, err)
		}
		cache.UpdateCredentials("ali,ce=", map[string]string{}) // the credential deleted by kafka-configs
		if _, err := run("ali,ce=", "pw"); err == nil {
			t.Fatalf("%s: deleted credential still accepted", name)
		}
	}
	if _, err := NewScramSaslServer(ScramMechanisms["SCRAM-SHA-256"], NewCredentialCache(nil)).EvaluateResponse([]byte("p=tls,,n=a,r=x")); err == nil ||
		!strings.HasPrefix(err.Error(), "Invalid SCRAM client first message format") {
		t.Fatalf("channel binding: %v", err)
	}
}

func TestScramCredentialFromString(t *testing.T) {
	good := "salt=c2FsdA==,stored_key=AAE=,server_key=AgM=,iterations=8192"
	c, err := ScramCredentialFromString(good)
	if err != nil || string(c.Salt) != "salt" || c.Iterations != 8192 || len(c.StoredKey) != 2 {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"", "salt=c2FsdA==", "salt=c2FsdA==,stored_key=AAE=,server_key=AgM=,iterations=x",
		"salt=c2FsdA==,stored_key=AAE=,server_key=AgM=,rounds=1", "salt=c2FsdA==,stored_key=AAE=,server_key=AgM=,iterations=1,x=y"} {
		if _, err := ScramCredentialFromString(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// exchange drives a SaslServerAuthenticator over a pipe with a client function.
func exchange(t *testing.T, a *SaslServerAuthenticator, client func(c net.Conn)) (string, error) {
	t.Helper()
	srv, cli := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cli.Close()
		client(cli)
	}()
	p, err := a.Authenticate(srv)
	srv.Close()
	<-done
	return p, err
}

func writeReq(t *testing.T, c net.Conn, key protocol.ApiKeys, version int16, m protocol.Message) {
	if _, err := protocol.WriteRequest(c, protocol.RequestHeader{ApiKey: key, ApiVersion: version, CorrelationID: 7, ClientID: ptr("c")}, m); err != nil {
		t.Error(err)
	}
}

func readFrame(c net.Conn) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(size[:]))
	_, err := io.ReadFull(c, b)
	return b, err
}

func TestSaslServerAuthenticator(t *testing.T) {
	jaas, _ := ParseJaasConfig(testJaas)
	a := &SaslServerAuthenticator{EnabledMechanisms: []string{"PLAIN", "SCRAM-SHA-256"}, Jaas: jaas,
		Credentials: NewCredentialCache([]string{"SCRAM-SHA-256"}), MaxReceiveSize: 1 << 20}

	// ApiVersions, SaslHandshake PLAIN, the token, the empty answer.
	p, err := exchange(t, a, func(c net.Conn) {
		writeReq(t, c, protocol.ApiVersions, 0, &protocol.ApiVersionsRequest{})
		if b, err := readFrame(c); err != nil || len(b) < 10 {
			t.Errorf("ApiVersions answer %x %v", b, err)
		}
		writeReq(t, c, protocol.SaslHandshake, 0, &protocol.SaslHandshakeRequest{Mechanism: "PLAIN"})
		b, err := readFrame(c)
		if err != nil {
			t.Error(err)
			return
		}
		resp := &protocol.SaslHandshakeResponse{}
		if err := resp.ReadFrom(b[4:]); err != nil || resp.ErrorCode != 0 || strings.Join(resp.EnabledMechanisms, ",") != "PLAIN,SCRAM-SHA-256" {
			t.Errorf("%+v %v", resp, err)
		}
		c.Write(append([]byte{0, 0, 0, 19}, "\x00admin\x00admin-secret"...))
		if b, err := readFrame(c); err != nil || len(b) != 0 {
			t.Errorf("PLAIN answer %x %v", b, err)
		}
	})
	if err != nil || p != "User:admin" {
		t.Fatalf("%q %v", p, err)
	}

	// An unsupported mechanism: error 33 with the enabled list, then the connection closes.
	_, err = exchange(t, a, func(c net.Conn) {
		writeReq(t, c, protocol.SaslHandshake, 0, &protocol.SaslHandshakeRequest{Mechanism: "GSSAPI"})
		b, _ := readFrame(c)
		resp := &protocol.SaslHandshakeResponse{}
		if len(b) < 4 || resp.ReadFrom(b[4:]) != nil || resp.ErrorCode != protocol.ErrUnsupportedSaslMechanism.Code {
			t.Errorf("%x %+v", b, resp)
		}
	})
	if !errors.Is(err, ErrAuthentication) || !strings.Contains(err.Error(), "Unsupported SASL mechanism GSSAPI") {
		t.Fatal(err)
	}

	// Any other request before authentication, and a first packet that is no Kafka request.
	for _, c := range []struct {
		send func(c net.Conn)
		want string
	}{
		{func(c net.Conn) { writeReq(t, c, protocol.Metadata, 0, &protocol.MetadataRequest{}) }, "Unexpected Kafka request of type Metadata during SASL handshake."},
		{func(c net.Conn) { c.Write([]byte{0, 0, 0, 4, 0x60, 1, 2, 3}) }, "GSSAPI is not supported by server"},
		{func(c net.Conn) { c.Write([]byte{0x7f, 0, 0, 0}) }, "Invalid receive (size = 2130706432 larger than 1048576)"},
		{func(c net.Conn) {
			writeReq(t, c, protocol.SaslHandshake, 0, &protocol.SaslHandshakeRequest{Mechanism: "PLAIN"})
			readFrame(c)
			c.Write(append([]byte{0, 0, 0, 12}, "\x00admin\x00wrong"...))
		}, "Authentication failed: Invalid username or password"},
	} {
		if _, err := exchange(t, a, c.send); !errors.Is(err, ErrAuthentication) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %s", err, c.want)
		}
	}
}

func ptr(s string) *string { return &s }

// TestSaslClientAuthenticate runs the broker-side client against the authenticator for each
// mechanism, with the right and a wrong password.
func TestSaslClientAuthenticate(t *testing.T) {
	jaas, _ := ParseJaasConfig(testJaas)
	creds := NewCredentialCache([]string{"SCRAM-SHA-256", "SCRAM-SHA-512"})
	creds.UpdateCredentials("broker", map[string]string{ // one user config holds both, as kafka-configs writes it
		"SCRAM-SHA-256": scramCred(t, ScramMechanisms["SCRAM-SHA-256"], "broker-secret", 4096),
		"SCRAM-SHA-512": scramCred(t, ScramMechanisms["SCRAM-SHA-512"], "broker-secret", 4096)})
	a := &SaslServerAuthenticator{EnabledMechanisms: SupportedMechanisms, Jaas: jaas, Credentials: creds, MaxReceiveSize: 1 << 20}
	for _, c := range []struct{ mech, user, pass, principal string }{
		{"PLAIN", "admin", "admin-secret", "User:admin"},
		{"SCRAM-SHA-256", "broker", "broker-secret", "User:broker"},
		{"SCRAM-SHA-512", "broker", "broker-secret", "User:broker"},
		{"PLAIN", "admin", "wrong", ""},
		{"SCRAM-SHA-512", "broker", "wrong", ""},
		{"SCRAM-SHA-256", "nobody", "x", ""},
	} {
		var clientErr error
		p, err := exchange(t, a, func(conn net.Conn) { clientErr = SaslClientAuthenticate(conn, "1", c.mech, c.user, c.pass) })
		if c.principal == "" {
			if err == nil || clientErr == nil {
				t.Errorf("%s %s/%s: server %v, client %v", c.mech, c.user, c.pass, err, clientErr)
			}
			continue
		}
		if err != nil || clientErr != nil || p != c.principal {
			t.Errorf("%s %s: %q server %v client %v", c.mech, c.user, p, err, clientErr)
		}
	}
}
