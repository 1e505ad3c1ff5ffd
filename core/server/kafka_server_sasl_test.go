package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/tools/configs"
	"github.com/zkafka/zkafka/zk/zktest"
)

const saslJaas = `KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin"
    password="admin-secret"
    user_admin="admin-secret"
    user_alice="alice-secret";
};
`

// franzScram adapts franz-go's SCRAM client to sarama's SCRAMClient, so sarama's own SCRAM
// exchange runs with a SCRAM implementation nobody here wrote.
type franzScram struct {
	sha512  bool
	sess    sasl.Session
	first   []byte
	started bool
	done    bool
}

func (f *franzScram) Begin(user, password, _ string) error {
	a := scram.Auth{User: user, Pass: password}
	m := a.AsSha256Mechanism()
	if f.sha512 {
		m = a.AsSha512Mechanism()
	}
	var err error
	f.sess, f.first, err = m.Authenticate(context.Background(), "")
	return err
}

func (f *franzScram) Step(challenge string) (string, error) {
	if !f.started {
		f.started = true
		return string(f.first), nil
	}
	done, resp, err := f.sess.Challenge([]byte(challenge))
	f.done = done
	return string(resp), err
}

func (f *franzScram) Done() bool { return f.done }

func saslConfig(mechanism, user, password string) *sarama.Config {
	c := sarama.NewConfig()
	c.Version = sarama.V0_10_2_0
	c.Net.SASL.Enable = true
	c.Net.SASL.Handshake = true
	c.Net.SASL.Version = sarama.SASLHandshakeV0
	c.ApiVersionsRequest = false // sarama refuses ApiVersions with handshake v0
	c.Net.SASL.Mechanism = sarama.SASLMechanism(mechanism)
	c.Net.SASL.User, c.Net.SASL.Password = user, password
	if strings.HasPrefix(mechanism, "SCRAM") {
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &franzScram{sha512: mechanism == "SCRAM-SHA-512"} }
	}
	c.Producer.Return.Successes = true
	c.Consumer.Return.Errors = true
	c.Metadata.Retry.Max = 1
	return c
}

// TestKafkaServerSaslPlaintext runs a broker with a PLAINTEXT listener (between brokers) and a
// SASL_PLAINTEXT listener enabling PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, its JAAS file named by
// -Djava.security.auth.login.config in KAFKA_OPTS. SCRAM users are created with kafka-configs
// (--alter --add-config 'SCRAM-SHA-256=[password=...]') while the broker runs. sarama (with
// franz-go's SCRAM client), kafka-python and kcat produce and consume over each mechanism; a wrong
// password and an unknown user are refused with the connection closed and a log line; the
// quota user of an authenticated request is its SASL user.
func TestKafkaServerSaslPlaintext(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, logs := testLoggers(t)
	jaas := filepath.Join(t.TempDir(), "kafka_server_jaas.conf")
	if err := os.WriteFile(jaas, []byte(saslJaas), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := brokerConfig(t, connect, t.TempDir(), map[string]string{
		"listeners":               "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
		"sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
	})
	env := map[string]string{"KAFKA_OPTS": "-Xmx1G -Djava.security.auth.login.config=" + jaas}
	srv := NewKafkaServer(cfg, nil, loggers, func(k string) string { return env[k] })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	const topic = "sasl"
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, 1, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		_, err := srv.ReplicaManager().getLeaderReplicaIfLocal(tpOf(topic, 0))
		return err == nil && srv.MetadataCache().Contains(topic)
	}, "leader of the new partition", 20*time.Second)
	addr := fmt.Sprintf("127.0.0.1:%d", srv.BoundPort("SASL_PLAINTEXT"))

	// SCRAM users, as an operator creates them.
	for _, args := range [][]string{
		{"--alter", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=bob-secret],SCRAM-SHA-512=[password=bob-secret]", "--entity-type", "users", "--entity-name", "bob"},
		{"--alter", "--add-config", "SCRAM-SHA-512=[password=carol-secret]", "--entity-type", "users", "--entity-name", "carol"},
		{"--alter", "--add-config", "producer_byte_rate=104857600", "--entity-type", "users", "--entity-name", "alice"},
	} {
		var out, errOut bytes.Buffer
		if rc := configs.Run(context.Background(), append([]string{"--zookeeper", connect}, args...), &out, &errOut); rc != 0 {
			t.Fatalf("kafka-configs %v: %d %s %s", args, rc, out.String(), errOut.String())
		}
	}
	zktest.WaitUntilTrue(t, func() bool {
		_, b := srv.credentialCache.Get("SCRAM-SHA-256", "bob")
		_, c := srv.credentialCache.Get("SCRAM-SHA-512", "carol")
		return b && c && srv.Quotas.Produce.Quota("alice", "sarama").Bound() == 104857600
	}, "SCRAM credentials and alice's quota in the broker", 20*time.Second)

	want := map[string]bool{}
	for _, c := range []struct{ mech, user, pass string }{
		{"PLAIN", "alice", "alice-secret"},
		{"SCRAM-SHA-256", "bob", "bob-secret"},
		{"SCRAM-SHA-512", "bob", "bob-secret"},
		{"SCRAM-SHA-512", "carol", "carol-secret"},
	} {
		conf := saslConfig(c.mech, c.user, c.pass)
		prod, err := sarama.NewSyncProducer([]string{addr}, conf)
		if err != nil {
			t.Fatalf("%s %s: %v", c.mech, c.user, err)
		}
		v := "sarama " + c.mech + " " + c.user
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(v)}); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		prod.Close()
		want[v] = true
	}
	// The quota metrics name the authenticated user (sessionSanitizedUser): alice's user quota
	// metered her requests.
	if !metricsNameUser(srv, "alice") {
		t.Errorf("no produce quota sensor for user alice: %v", srv.Metrics.Names())
	}

	// kafka-python with sasl_plain_username/password and SCRAM.
	if exec.Command("/usr/bin/python3", "-c", "import kafka").Run() == nil {
		for _, c := range []struct{ mech, user, pass string }{
			{"PLAIN", "admin", "admin-secret"}, {"SCRAM-SHA-256", "bob", "bob-secret"}, {"SCRAM-SHA-512", "carol", "carol-secret"},
		} {
			v := "kafka-python " + c.mech + " " + c.user
			out, err := exec.Command("/usr/bin/python3", "-c", kafkaPythonSaslScript, addr, c.mech, c.user, c.pass, topic, v).CombinedOutput()
			if err != nil {
				t.Fatalf("kafka-python %s: %v\n%s", c.mech, err, out)
			}
			want[v] = true
			if !strings.Contains(string(out), v) {
				t.Fatalf("kafka-python %s consumed:\n%s", c.mech, out)
			}
		}
		// A wrong password: kafka-python reports the broker closing the connection.
		out, err := exec.Command("/usr/bin/python3", "-c", kafkaPythonSaslScript, addr, "PLAIN", "alice", "wrong", topic, "x", "3000").CombinedOutput()
		if err == nil {
			t.Fatalf("kafka-python with a wrong password succeeded:\n%s", out)
		}
	} else {
		t.Log("kafka-python not installed: its half is skipped")
	}

	// kcat (librdkafka) produces with SCRAM-SHA-256 and consumes everything with PLAIN.
	if kcat, err := exec.LookPath("kcat"); err == nil {
		v := "kcat SCRAM-SHA-256 bob"
		cmd := exec.Command(kcat, "-P", "-b", addr, "-t", topic, "-X", "security.protocol=SASL_PLAINTEXT",
			"-X", "sasl.mechanisms=SCRAM-SHA-256", "-X", "sasl.username=bob", "-X", "sasl.password=bob-secret")
		cmd.Stdin = strings.NewReader(v + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat produce: %v\n%s", err, out)
		}
		want[v] = true
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, kcat, "-C", "-b", addr, "-t", topic, "-o", "beginning", "-e", "-q",
			"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
			"-X", "sasl.username=alice", "-X", "sasl.password=alice-secret").CombinedOutput()
		if err != nil {
			t.Fatalf("kcat consume: %v\n%s", err, out)
		}
		for v := range want {
			if !strings.Contains(string(out), v) {
				t.Errorf("kcat did not consume %q:\n%s", v, out)
			}
		}
	} else {
		t.Log("kcat not installed: its half is skipped")
	}

	// sarama consumes everything with SCRAM-SHA-512.
	cons, err := sarama.NewConsumer([]string{addr}, saslConfig("SCRAM-SHA-512", "carol", "carol-secret"))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := cons.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	deadline := time.After(30 * time.Second)
	for len(got) < len(want) {
		select {
		case m := <-pc.Messages():
			got[string(m.Value)] = true
		case <-deadline:
			t.Fatalf("consumed %v, want %v", got, want)
		}
	}
	pc.Close()
	cons.Close()

	// Refused: wrong password, unknown user, SCRAM user on a mechanism it has no credential for.
	for _, c := range []struct{ mech, user, pass, reason string }{
		{"PLAIN", "alice", "wrong", "Invalid username or password"},
		{"PLAIN", "mallory", "x", "Invalid username or password"},
		{"SCRAM-SHA-256", "bob", "wrong", "Invalid client credentials"},
		{"SCRAM-SHA-256", "carol", "carol-secret", "Invalid user credentials"},
		{"SCRAM-SHA-512", "nobody", "x", "Invalid user credentials"},
	} {
		b := sarama.NewBroker(addr)
		if err := b.Open(saslConfig(c.mech, c.user, c.pass)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.GetMetadata(&sarama.MetadataRequest{Version: 2}); err == nil {
			t.Errorf("%s %s/%s accepted", c.mech, c.user, c.pass)
		}
		b.Close()
		zktest.WaitUntilTrue(t, func() bool { return logs.contains("Failed authentication with") && logs.contains(c.reason) },
			"the failed authentication logged: "+c.reason, 20*time.Second)
	}

	// The raw view: after a wrong PLAIN token the broker closes without a byte.
	c := dialRaw(t, srv.BoundPort("SASL_PLAINTEXT"))
	hs := []byte{0, 0, 0, 0x15, 0, 17, 0, 0, 0, 0, 0, 1, 0, 1, 'c', 0, 5, 'P', 'L', 'A', 'I', 'N'}
	hs[3] = byte(len(hs) - 4)
	c.conn.Write(hs)
	if _, err := c.readFrame(); err != nil {
		t.Fatal(err)
	}
	c.conn.Write(append([]byte{0, 0, 0, 11}, "\x00alice\x00nope"...))
	c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if n, err := c.conn.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("after a bad password: %d bytes, %v (want the connection closed)", n, err)
	}
}

// metricsNameUser tells whether the produce quota manager has metered the user.
func metricsNameUser(srv *KafkaServer, user string) bool {
	for _, name := range srv.Metrics.Names() {
		if strings.Contains(name, "type=Produce") && strings.Contains(name, "user="+user) {
			return true
		}
	}
	return false
}

const kafkaPythonSaslScript = `
import sys
from kafka import KafkaProducer, KafkaConsumer
addr, mech, user, pw, topic, value = sys.argv[1:7]
kw = dict(bootstrap_servers=addr, security_protocol='SASL_PLAINTEXT', sasl_mechanism=mech,
          sasl_plain_username=user, sasl_plain_password=pw, api_version=(0, 10, 2))
p = KafkaProducer(max_block_ms=int(sys.argv[7]) if len(sys.argv) > 7 else 60000, **kw)
p.send(topic, value.encode()).get(timeout=30)
p.close()
c = KafkaConsumer(topic, auto_offset_reset='earliest', consumer_timeout_ms=5000, **kw)
for m in c:
    print(m.value.decode())
c.close()
`
