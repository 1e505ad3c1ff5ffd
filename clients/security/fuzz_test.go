package security

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzSaslServerAuthenticator feeds arbitrary client bytes to the authenticator (handshake
// decoding, PLAIN and SCRAM token parsing): it must fail with ErrAuthentication or authenticate,
// never panic, and never authenticate without the right password.
func FuzzSaslServerAuthenticator(f *testing.F) {
	jaas, _ := ParseJaasConfig(testJaas)
	creds := NewCredentialCache([]string{"SCRAM-SHA-256", "SCRAM-SHA-512"})
	f.Add([]byte{0, 0, 0, 18, 0, 17, 0, 0, 0, 0, 0, 1, 0, 1, 'c', 0, 5, 'P', 'L', 'A', 'I', 'N', 0, 0, 0, 11, 0, 'a', 'd', 'm', 'i', 'n', 0, 'n', 'o', 'p', 'e'})
	f.Add([]byte{0, 0, 0, 26, 0, 17, 0, 0, 0, 0, 0, 1, 0, 1, 'c', 0, 13, 'S', 'C', 'R', 'A', 'M', '-', 'S', 'H', 'A', '-', '2', '5', '6',
		0, 0, 0, 14, 'n', ',', ',', 'n', '=', 'a', 'd', 'm', 'i', 'n', ',', 'r', '=', 'x'})
	f.Add([]byte{0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		a := &SaslServerAuthenticator{EnabledMechanisms: SupportedMechanisms, Jaas: jaas, Credentials: creds, MaxReceiveSize: 1 << 16}
		p, err := a.Authenticate(struct {
			io.Reader
			io.Writer
		}{bytes.NewReader(in), io.Discard})
		if err == nil {
			if p != "User:admin" && p != "User:alice" || !bytes.Contains(in, []byte("secret")) {
				t.Fatalf("authenticated %q from %q", p, in)
			}
			return
		}
		if !errors.Is(err, ErrAuthentication) {
			t.Fatalf("%v", err)
		}
	})
}

// FuzzParseJaasConfig: the JAAS parser answers a config or an error for any text.
func FuzzParseJaasConfig(f *testing.F) {
	f.Add(testJaas)
	f.Add("KafkaServer { m required a=\"b\"; };")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseJaasConfig(s)
		if err == nil && c == nil {
			t.Fatal("nil config without an error")
		}
	})
}
