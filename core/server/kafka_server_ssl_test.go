package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zktest"
)

// testPKI is a CA, the broker's certificate for 127.0.0.1 and a client certificate, written as
// the files a Kafka operator has: a PKCS12 keystore and truststore (passwords "secret"), and PEM
// copies for the clients.
type testPKI struct {
	dir                                string
	keystore, truststore               string
	caPEM, clientCertPEM, clientKeyPEM string
	clientCert                         tls.Certificate
	caPool                             *x509.CertPool
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	serial := int64(1)
	sign := func(tmpl, parent *x509.Certificate, pub, signer any) *x509.Certificate {
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	caKey := newKey()
	caTmpl := &x509.Certificate{Subject: pkix.Name{CommonName: "zkafka test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	ca := sign(caTmpl, caTmpl, &caKey.PublicKey, caKey)
	srvKey := newKey()
	srv := sign(&x509.Certificate{Subject: pkix.Name{CommonName: "localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames: []string{"localhost"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, &srvKey.PublicKey, caKey)
	cliKey := newKey()
	cli := sign(&x509.Certificate{Subject: pkix.Name{CommonName: "alice", Organization: []string{"zkafka"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}, ca, &cliKey.PublicKey, caKey)

	p := &testPKI{dir: dir, keystore: filepath.Join(dir, "server.keystore.p12"), truststore: filepath.Join(dir, "server.truststore.p12"),
		caPEM: filepath.Join(dir, "ca.pem"), clientCertPEM: filepath.Join(dir, "client.pem"), clientKeyPEM: filepath.Join(dir, "client.key")}
	ks, err := pkcs12.Modern.Encode(srvKey, srv, []*x509.Certificate{ca}, "secret")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{ca}, "secret")
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(cliKey)
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string][]byte{
		p.keystore: ks, p.truststore: ts,
		p.caPEM:         pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}),
		p.clientCertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cli.Raw}),
		p.clientKeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(ca)
	p.clientCert = tls.Certificate{Certificate: [][]byte{cli.Raw}, PrivateKey: cliKey, Leaf: cli}
	return p
}

// TestKafkaServerSsl runs a broker with SSL and SASL_SSL listeners (PKCS12 keystore and
// truststore, ssl.client.auth=requested) beside its PLAINTEXT one. sarama, kafka-python and kcat
// produce and consume over SSL (with and without a client certificate) and over SASL_SSL with
// PLAIN; the principal of an SSL connection is its client certificate's subject; a client that
// does not trust the broker's CA fails the handshake and the broker logs it.
func TestKafkaServerSsl(t *testing.T) {
	pki := newTestPKI(t)
	connect := zktest.Chroot(t)
	loggers, logs := testLoggers(t)
	loggers.Server.Logger.SetLevel(logrus.TraceLevel) // the request logger's "principal:" line
	jaas := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(jaas, []byte(saslJaas), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := brokerConfig(t, connect, t.TempDir(), map[string]string{
		"listeners":         "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
		"ssl.keystore.type": "PKCS12", "ssl.keystore.location": pki.keystore, "ssl.keystore.password": "secret", "ssl.key.password": "secret",
		"ssl.truststore.type": "PKCS12", "ssl.truststore.location": pki.truststore, "ssl.truststore.password": "secret",
		"ssl.client.auth":         "requested",
		"sasl.enabled.mechanisms": "PLAIN", "zkafka.jaas.config.file": jaas,
	})
	srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	const topic = "tls"
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, 1, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		_, err := srv.ReplicaManager().getLeaderReplicaIfLocal(tpOf(topic, 0))
		return err == nil && srv.MetadataCache().Contains(topic)
	}, "leader of the new partition", 20*time.Second)
	sslAddr := fmt.Sprintf("127.0.0.1:%d", srv.BoundPort("SSL"))
	saslSslAddr := fmt.Sprintf("127.0.0.1:%d", srv.BoundPort("SASL_SSL"))

	// The principal of an SSL connection: the client certificate's subject, or ANONYMOUS.
	for _, c := range []struct {
		certs []tls.Certificate
		want  string
	}{{[]tls.Certificate{pki.clientCert}, "User:CN=alice,O=zkafka"}, {nil, "User:ANONYMOUS"}} {
		conn, err := tls.Dial("tcp", sslAddr, &tls.Config{RootCAs: pki.caPool, Certificates: c.certs})
		if err != nil {
			t.Fatal(err)
		}
		raw := &rawClient{conn: conn}
		raw.roundTrip(t, &protocol.MetadataRequest{})
		zktest.WaitUntilTrue(t, func() bool { return logs.contains("securityProtocol:SSL,principal:" + c.want) },
			"a request logged with principal "+c.want, 10*time.Second)
		conn.Close()
	}

	sslConf := func(withCert bool) *sarama.Config {
		c := sarama.NewConfig()
		c.Version = sarama.V0_10_2_0
		c.Net.TLS.Enable = true
		c.Net.TLS.Config = &tls.Config{RootCAs: pki.caPool}
		if withCert {
			c.Net.TLS.Config.Certificates = []tls.Certificate{pki.clientCert}
		}
		c.Producer.Return.Successes = true
		c.Metadata.Retry.Max = 1
		return c
	}
	want := map[string]bool{}
	produce := func(addr string, conf *sarama.Config, v string) {
		t.Helper()
		p, err := sarama.NewSyncProducer([]string{addr}, conf)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		defer p.Close()
		if _, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(v)}); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		want[v] = true
	}
	produce(sslAddr, sslConf(true), "sarama SSL with a client certificate")
	produce(sslAddr, sslConf(false), "sarama SSL without a client certificate")
	saslSsl := saslConfig("PLAIN", "alice", "alice-secret")
	saslSsl.Net.TLS.Enable, saslSsl.Net.TLS.Config = true, &tls.Config{RootCAs: pki.caPool}
	produce(saslSslAddr, saslSsl, "sarama SASL_SSL PLAIN")

	if exec.Command("/usr/bin/python3", "-c", "import kafka").Run() == nil {
		for _, c := range []struct{ proto, addr string }{{"SSL", sslAddr}, {"SASL_SSL", saslSslAddr}} {
			v := "kafka-python " + c.proto
			out, err := exec.Command("/usr/bin/python3", "-c", kafkaPythonSslScript, c.addr, c.proto, pki.caPEM, pki.clientCertPEM, pki.clientKeyPEM, topic, v).CombinedOutput()
			if err != nil || !strings.Contains(string(out), v) {
				t.Fatalf("kafka-python %s: %v\n%s", c.proto, err, out)
			}
			want[v] = true
		}
	} else {
		t.Log("kafka-python not installed: its half is skipped")
	}

	if kcat, err := exec.LookPath("kcat"); err == nil {
		v := "kcat SASL_SSL"
		cmd := exec.Command(kcat, "-P", "-b", saslSslAddr, "-t", topic, "-X", "security.protocol=SASL_SSL", "-X", "ssl.ca.location="+pki.caPEM,
			"-X", "sasl.mechanisms=PLAIN", "-X", "sasl.username=admin", "-X", "sasl.password=admin-secret")
		cmd.Stdin = strings.NewReader(v + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat produce: %v\n%s", err, out)
		}
		want[v] = true
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, kcat, "-C", "-b", sslAddr, "-t", topic, "-o", "beginning", "-e", "-q",
			"-X", "security.protocol=SSL", "-X", "ssl.ca.location="+pki.caPEM,
			"-X", "ssl.certificate.location="+pki.clientCertPEM, "-X", "ssl.key.location="+pki.clientKeyPEM).CombinedOutput()
		if err != nil {
			t.Fatalf("kcat consume: %v\n%s", err, out)
		}
		for v := range want {
			if !strings.Contains(string(out), v) {
				t.Errorf("kcat over SSL did not consume %q:\n%s", v, out)
			}
		}
	} else {
		t.Log("kcat not installed: its half is skipped")
	}

	// A client that does not trust the broker's CA: the handshake fails, the broker logs it.
	bad := sslConf(false)
	bad.Net.TLS.Config = &tls.Config{RootCAs: x509.NewCertPool(), ServerName: "localhost"}
	b := sarama.NewBroker(sslAddr)
	if err := b.Open(bad); err == nil {
		if _, err := b.GetMetadata(&sarama.MetadataRequest{}); err == nil {
			t.Error("a client that does not trust the CA got metadata")
		}
	}
	b.Close()
	zktest.WaitUntilTrue(t, func() bool { return logs.contains("SSL handshake failed") }, "the failed handshake logged", 20*time.Second)
}

const kafkaPythonSslScript = `
import sys
from kafka import KafkaProducer, KafkaConsumer
addr, proto, ca, cert, key, topic, value = sys.argv[1:8]
kw = dict(bootstrap_servers=addr, security_protocol=proto, ssl_cafile=ca, ssl_check_hostname=False, api_version=(0, 10, 2))
if proto == 'SSL':
    kw.update(ssl_certfile=cert, ssl_keyfile=key)
else:
    kw.update(sasl_mechanism='PLAIN', sasl_plain_username='alice', sasl_plain_password='alice-secret')
p = KafkaProducer(**kw)
p.send(topic, value.encode()).get(timeout=30)
p.close()
c = KafkaConsumer(topic, auto_offset_reset='earliest', consumer_timeout_ms=5000, **kw)
for m in c:
    print(m.value.decode())
c.close()
`
