package security

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

type testCerts struct {
	ca, server, client          *x509.Certificate
	caKey, serverKey, clientKey *ecdsa.PrivateKey
}

func makeCerts(t *testing.T) testCerts {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	n := int64(0)
	sign := func(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) *x509.Certificate {
		n++
		tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = big.NewInt(n), time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := x509.ParseCertificate(der)
		return c
	}
	var c testCerts
	c.caKey, c.serverKey, c.clientKey = key(), key(), key()
	caTmpl := &x509.Certificate{Subject: pkix.Name{CommonName: "ca"}, IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	c.ca = sign(caTmpl, caTmpl, &c.caKey.PublicKey, c.caKey)
	c.server = sign(&x509.Certificate{Subject: pkix.Name{CommonName: "broker"}, DNSNames: []string{"broker"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, c.ca, &c.serverKey.PublicKey, c.caKey)
	c.client = sign(&x509.Certificate{Subject: pkix.Name{CommonName: "bob", OrganizationalUnit: []string{"ops"}, Organization: []string{"example"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, c.ca, &c.clientKey.PublicKey, c.caKey)
	return c
}

// handshake runs a TLS handshake over a pipe and returns the server's view.
func handshake(t *testing.T, srv *tls.Config, cli *tls.Config) (tls.ConnectionState, error) {
	t.Helper()
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() {
		c := tls.Client(b, cli)
		err := c.Handshake()
		if err == nil {
			_, err = c.Read(make([]byte, 1)) // a client certificate refused arrives as an alert
		}
		done <- err
		b.Close()
	}()
	s := tls.Server(a, srv)
	err := s.Handshake()
	if err == nil {
		s.Write([]byte{1})
	}
	st := s.ConnectionState()
	a.Close()
	<-done
	return st, err
}

func TestNewServerTLSConfig(t *testing.T) {
	c := makeCerts(t)
	dir := t.TempDir()
	ks, err := pkcs12.Modern.Encode(c.serverKey, c.server, []*x509.Certificate{c.ca}, "pw")
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{c.ca}, "pw")
	keyDER, _ := x509.MarshalPKCS8PrivateKey(c.serverKey)
	pemKs := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.server.Raw}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})...)
	files := map[string][]byte{"ks.p12": ks, "ts.p12": ts, "ks.pem": pemKs, "ca.pem": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.ca.Raw})}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := func(n string) string { return filepath.Join(dir, n) }
	roots := x509.NewCertPool()
	roots.AddCert(c.ca)
	clientCert := tls.Certificate{Certificate: [][]byte{c.client.Raw}, PrivateKey: c.clientKey}

	for _, ksType := range []string{"PKCS12", "PEM"} {
		loc := path("ks.p12")
		if ksType == "PEM" {
			loc = path("ks.pem")
		}
		for _, tc := range []struct {
			clientAuth string
			withCert   bool
			principal  string
			fails      bool
		}{
			{"none", true, "User:ANONYMOUS", false},
			{"requested", false, "User:ANONYMOUS", false},
			{"requested", true, "User:CN=bob,OU=ops,O=example", false},
			{"required", false, "", true},
			{"required", true, "User:CN=bob,OU=ops,O=example", false},
		} {
			cfg, err := NewServerTLSConfig(SslConfig{KeystoreType: ksType, KeystoreLocation: loc, KeystorePassword: "pw",
				TruststoreType: "PKCS12", TruststoreLocation: path("ts.p12"), TruststorePassword: "pw", ClientAuth: tc.clientAuth,
				EnabledProtocols: []string{"TLSv1.2", "TLSv1.1", "TLSv1"}})
			if err != nil {
				t.Fatal(err)
			}
			cli := &tls.Config{RootCAs: roots, ServerName: "broker"}
			if tc.withCert {
				cli.Certificates = []tls.Certificate{clientCert}
			}
			st, err := handshake(t, cfg, cli)
			if tc.fails {
				if err == nil {
					t.Errorf("%s %s without a certificate: handshake succeeded", ksType, tc.clientAuth)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", ksType, tc.clientAuth, err)
			}
			if p := SslPrincipal(st); p != tc.principal || st.Version != tls.VersionTLS12 {
				t.Errorf("%s %s cert=%v: %q (version %x), want %q", ksType, tc.clientAuth, tc.withCert, p, st.Version, tc.principal)
			}
		}
	}

	for _, bad := range []struct {
		c    SslConfig
		want string
	}{
		{SslConfig{KeystoreType: "JKS", KeystoreLocation: "/etc/k.jks"}, "keytool -importkeystore -srckeystore /etc/k.jks -destkeystore /etc/k.p12 -deststoretype PKCS12"},
		{SslConfig{KeystoreType: "PKCS12"}, "ssl.keystore.location is required"},
		{SslConfig{KeystoreType: "PKCS12", KeystoreLocation: path("ks.p12"), KeystorePassword: "wrong"}, "Failed to load SSL keystore"},
		{SslConfig{KeystoreType: "PKCS12", KeystoreLocation: path("ks.p12"), KeystorePassword: "pw", ClientAuth: "required"}, "ssl.truststore.location is required"},
		{SslConfig{KeystoreType: "PKCS12", KeystoreLocation: path("ks.p12"), KeystorePassword: "pw", EnabledProtocols: []string{"SSLv3"}}, "Invalid value SSLv3"},
		{SslConfig{KeystoreType: "PKCS12", KeystoreLocation: path("ks.p12"), KeystorePassword: "pw", CipherSuites: []string{"TLS_NOPE"}}, "Invalid value TLS_NOPE"},
	} {
		if _, err := NewServerTLSConfig(bad.c); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.c, err, bad.want)
		}
	}
	// A cipher suite by its Java/IANA name, as Kafka configs list them.
	cfg, err := NewServerTLSConfig(SslConfig{KeystoreType: "PKCS12", KeystoreLocation: path("ks.p12"), KeystorePassword: "pw",
		CipherSuites: []string{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}})
	if err != nil || len(cfg.CipherSuites) != 1 || cfg.CipherSuites[0] != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 {
		t.Fatalf("%v %v", cfg, err)
	}
}

// TestKeytoolStores loads a keystore and a truststore made by Java's keytool (the way Kafka's
// security docs make them), when keytool is installed.
func TestKeytoolStores(t *testing.T) {
	keytool, err := exec.LookPath("keytool")
	if err != nil {
		t.Skip("keytool not installed")
	}
	dir := t.TempDir()
	ks, cert, ts := filepath.Join(dir, "server.keystore.p12"), filepath.Join(dir, "broker.crt"), filepath.Join(dir, "server.truststore.p12")
	for _, args := range [][]string{
		{"-genkeypair", "-storetype", "PKCS12", "-keystore", ks, "-storepass", "pw-123456", "-keypass", "pw-123456", "-alias", "localhost",
			"-dname", "CN=broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-ext", "SAN=dns:broker"},
		{"-exportcert", "-rfc", "-keystore", ks, "-storepass", "pw-123456", "-alias", "localhost", "-file", cert},
		{"-importcert", "-noprompt", "-storetype", "PKCS12", "-keystore", ts, "-storepass", "pw-123456", "-alias", "CARoot", "-file", cert},
	} {
		if out, err := exec.Command(keytool, args...).CombinedOutput(); err != nil {
			t.Fatalf("keytool %v: %v\n%s", args, err, out)
		}
	}
	cfg, err := NewServerTLSConfig(SslConfig{KeystoreType: "PKCS12", KeystoreLocation: ks, KeystorePassword: "pw-123456",
		TruststoreType: "PKCS12", TruststoreLocation: ts, TruststorePassword: "pw-123456", ClientAuth: "requested"})
	if err != nil {
		t.Fatal(err)
	}
	pemData, _ := os.ReadFile(cert)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pemData)
	if _, err := handshake(t, cfg, &tls.Config{RootCAs: roots, ServerName: "broker"}); err != nil {
		t.Fatal(err)
	}
	if len(cfg.ClientCAs.Subjects()) != 1 { //nolint:staticcheck // the one trusted certificate
		t.Errorf("truststore: %d certificates", len(cfg.ClientCAs.Subjects()))
	}
}
