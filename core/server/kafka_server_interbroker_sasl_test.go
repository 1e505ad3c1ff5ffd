package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/tools/configs"
	"github.com/zkafka/zkafka/zk/zktest"
)

// TestInterBrokerSasl runs two brokers whose only shared listener is SASL_PLAINTEXT
// (security.inter.broker.protocol=SASL_PLAINTEXT) with SCRAM-SHA-512 between them, the broker
// user's credential created by kafka-configs before they start and its password in the JAAS
// file's ScramLoginModule entry. The controller's requests and the follower's fetches
// authenticate: a topic with replication factor 2 gets both replicas in its ISR, and messages
// produced with acks=all (which wait for the follower) are acknowledged.
func TestInterBrokerSasl(t *testing.T) {
	testInterBroker(t, "SASL_PLAINTEXT", nil)
}

// TestInterBrokerSsl: the same over SSL only (security.inter.broker.protocol=SSL,
// ssl.client.auth=required, so each broker presents its keystore's certificate to the other).
func TestInterBrokerSsl(t *testing.T) {
	pki := newTestPKI(t)
	testInterBroker(t, "SSL", map[string]string{
		"ssl.keystore.type": "PKCS12", "ssl.keystore.location": pki.keystore, "ssl.keystore.password": "secret",
		"ssl.truststore.type": "PKCS12", "ssl.truststore.location": pki.truststore, "ssl.truststore.password": "secret",
		"ssl.client.auth": "required",
	})
}

func testInterBroker(t *testing.T, proto string, extra map[string]string) {
	connect := zktest.Chroot(t)
	var out, errOut bytes.Buffer
	if rc := configs.Run(context.Background(), []string{"--zookeeper", connect, "--alter", "--add-config",
		"SCRAM-SHA-512=[password=broker-secret]", "--entity-type", "users", "--entity-name", "broker"}, &out, &errOut); rc != 0 {
		t.Fatalf("kafka-configs: %s %s", out.String(), errOut.String())
	}
	jaas := filepath.Join(t.TempDir(), "jaas.conf")
	if err := os.WriteFile(jaas, []byte(`KafkaServer {
    org.apache.kafka.common.security.scram.ScramLoginModule required
    username="broker"
    password="broker-secret";
    org.apache.kafka.common.security.plain.PlainLoginModule required
    user_alice="alice-secret";
};
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var brokers []*KafkaServer
	for id := 0; id < 2; id++ {
		loggers, _ := testLoggers(t)
		props := map[string]string{
			"broker.id": fmt.Sprint(id), "listeners": proto + "://127.0.0.1:0",
			"security.inter.broker.protocol": proto, "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
			"sasl.enabled.mechanisms": "SCRAM-SHA-512,PLAIN", "zkafka.jaas.config.file": jaas,
		}
		for k, v := range extra {
			props[k] = v
		}
		cfg := brokerConfig(t, connect, t.TempDir(), props)
		srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
		if err := srv.Startup(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Shutdown)
		brokers = append(brokers, srv)
	}
	const topic = "replicated"
	if err := admin.NewAdminUtils(brokers[0].ZkUtils(), nil, nil).CreateTopic(topic, 1, 2, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		for _, b := range brokers {
			p := b.ReplicaManager().GetPartition(tpOf(topic, 0))
			if p != nil && p.LeaderReplicaIfLocal() != nil && len(p.InSyncReplicas()) == 2 {
				return true
			}
		}
		return false
	}, "both replicas in the ISR (LeaderAndIsr and the follower's fetches over "+proto+")", 30*time.Second)

	var addrs []string
	for _, b := range brokers {
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", b.BoundPort(proto)))
	}
	conf := saslConfig("PLAIN", "alice", "alice-secret")
	if proto == "SSL" {
		conf = sarama.NewConfig()
		conf.Version = sarama.V0_10_2_0
		conf.Producer.Return.Successes = true
		conf.Net.TLS.Enable = true
		conf.Net.TLS.Config = &tls.Config{RootCAs: x509.NewCertPool(), InsecureSkipVerify: true, //nolint:gosec // a test CA
			Certificates: []tls.Certificate{sslClientCert(t, extra)}}
	}
	conf.Producer.RequiredAcks = sarama.WaitForAll
	prod, err := sarama.NewSyncProducer(addrs, conf)
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	for i := 0; i < 20; i++ {
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	zktest.WaitUntilTrue(t, func() bool {
		for _, b := range brokers {
			r, err := b.ReplicaManager().getReplicaOrException(tpOf(topic, 0))
			if err != nil || r.LogEndOffset().MessageOffset != 20 {
				return false
			}
		}
		return true
	}, "both replicas hold the 20 messages", 30*time.Second)
}

// sslClientCert is the test PKI's client certificate, read back from the PEM files beside the
// keystore (ssl.client.auth=required asks the producer for one too).
func sslClientCert(t *testing.T, props map[string]string) tls.Certificate {
	dir := filepath.Dir(props["ssl.keystore.location"])
	c, err := tls.LoadX509KeyPair(filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
