package topics

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/core/server"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
)

const zkJaas = `Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  username="kafka"
  password="kafka-secret";
};
`

// secureChroot writes the JAAS file and returns a fresh chroot whose tree is opened again
// (through a logged-in session) before the harness deletes it.
func secureChroot(t *testing.T) (connect, jaas string) {
	t.Helper()
	jaas = filepath.Join(t.TempDir(), "zk_jaas.conf")
	if err := os.WriteFile(jaas, []byte(zkJaas), 0o600); err != nil {
		t.Fatal(err)
	}
	connect = zktest.Chroot(t)
	t.Cleanup(func() { openTree(t, connect) })
	return connect, jaas
}

// openTree sets OPEN_ACL_UNSAFE on every znode of the chroot.
func openTree(t *testing.T, connect string) {
	c, err := zkclient.New(connect, zktest.SessionTimeout, 20*time.Second, zkclient.WithLogger(quietLog()),
		zkclient.WithAuth("digest", []byte("kafka:kafka-secret")))
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer c.Close()
	var walk func(string)
	walk = func(p string) {
		_ = c.SetACL(p, zkclient.OpenACLUnsafe(), -1)
		children, _ := c.GetChildren(p)
		for _, ch := range children {
			walk(strings.TrimSuffix(p, "/") + "/" + ch)
		}
	}
	walk("/")
}

func kafkaDigest() string {
	sum := sha1.Sum([]byte("kafka:kafka-secret"))
	return "kafka:" + base64.StdEncoding.EncodeToString(sum[:])
}

// TestBrokerWithZkSetAcl starts a broker with zookeeper.set.acl=true and the JAAS Client section,
// reads back the ACLs of the znodes it created, and checks that a session without login can read
// the non-sensitive ones but neither write nor delete them; kafka-topics creates a topic only with
// the JAAS file in KAFKA_OPTS.
func TestBrokerWithZkSetAcl(t *testing.T) {
	connect, jaas := secureChroot(t)
	b := brokertest.Start(t, connect, 0, map[string]string{"zookeeper.set.acl": "true", "zkafka.jaas.config.file": jaas})

	creator := zkclient.ACL{Perms: zkclient.PermAll, Scheme: "digest", ID: kafkaDigest()}
	read := zkclient.ACL{Perms: zkclient.PermRead, Scheme: "world", ID: "anyone"}
	secure := []zkclient.ACL{creator, read}
	// The broker's own session may read the digest; a session without login sees it redacted.
	if err := b.Zk.ZkClient.CreatePersistent("/config/users/alice", []byte(`{"version":1,"config":{}}`), true); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]zkclient.ACL{
		"/":                        secure, // the chroot, created by initZk's separate session
		"/brokers/ids":             secure,
		"/brokers/ids/0":           secure,
		"/brokers/topics":          secure,
		"/config/changes":          secure,
		"/isr_change_notification": secure,
		"/controller":              secure,
		"/cluster/id":              secure,
		"/consumers":               zkclient.OpenACLUnsafe(), // left open for old consumers
		"/config/users/alice":      {creator},                // sensitive: no world read
		"/config/users":            {creator},
	} {
		got, _, err := b.Zk.ZkClient.GetACL(path)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("GetACL(%s) = %+v, %v; want %+v", path, got, err, want)
		}
	}

	anon, err := zkclient.New(connect, zktest.SessionTimeout, 20*time.Second, zkclient.WithLogger(quietLog()))
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if data, _, err := anon.ReadData("/brokers/ids/0"); err != nil || !strings.Contains(string(data), `"port":`+strings.Split(b.Addr, ":")[1]) {
		t.Errorf("unauthenticated read of /brokers/ids/0: %s %v", data, err)
	}
	if _, _, err := anon.ReadData("/config/users/alice"); !errors.Is(err, zkclient.ErrNoAuth) {
		t.Errorf("unauthenticated read of /config/users/alice: %v, want NoAuth", err)
	}
	if err := anon.WriteData("/brokers/ids/0", []byte("{}")); !errors.Is(err, zkclient.ErrNoAuth) {
		t.Errorf("unauthenticated write of /brokers/ids/0: %v, want NoAuth", err)
	}
	if _, err := anon.Delete("/brokers/ids/0"); !errors.Is(err, zkclient.ErrNoAuth) {
		t.Errorf("unauthenticated delete of /brokers/ids/0: %v, want NoAuth", err)
	}
	if _, err := anon.Delete("/controller"); !errors.Is(err, zkclient.ErrNoAuth) {
		t.Errorf("unauthenticated delete of /controller: %v, want NoAuth", err)
	}

	c := &cluster{t: t, connect: connect, zk: b.Zk}
	t.Setenv("KAFKA_OPTS", "")
	out, _, code := c.run("--create", "--topic", "anon", "--partitions", "1", "--replication-factor", "1")
	if code == 0 || !strings.Contains(out, "NoAuth") {
		t.Errorf("kafka-topics --create without the JAAS file: exit %d, %q", code, out)
	}
	t.Setenv("KAFKA_OPTS", "-Xmx256M -Djava.security.auth.login.config="+jaas)
	c.mustRun("Created topic \"secured\".\n", "--create", "--topic", "secured", "--partitions", "1", "--replication-factor", "1")
	if got, _, err := anon.GetACL("/brokers/topics/secured"); err != nil || len(got) != 2 || got[1] != read || got[0].Scheme != "digest" {
		t.Errorf("ACL of the topic kafka-topics created: %+v %v", got, err)
	}
	// The broker (logged in) sees the topic and leads it.
	brokertest.Produce(t, []string{b.Addr}, "secured", 1, 0, 3)
}

// TestBrokerZkSetAclNeedsJaas is KafkaServer.initZk's check: zookeeper.set.acl=true without a JAAS
// Client section fails startup with 0.10.2's message.
func TestBrokerZkSetAclNeedsJaas(t *testing.T) {
	connect := zktest.Chroot(t)
	cfg, err := config.FromProps(map[string]string{"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0",
		"log.dirs": t.TempDir(), "zookeeper.connect": connect, "zookeeper.set.acl": "true"})
	if err != nil {
		t.Fatal(err)
	}
	l := logrus.New()
	l.SetOutput(io.Discard)
	e := logrus.NewEntry(l)
	srv := server.NewKafkaServer(cfg, nil, server.Loggers{Server: e, StateChange: e, Request: e}, func(string) string { return "-Xmx1G" })
	err = srv.Startup()
	srv.Shutdown()
	if err == nil || !strings.Contains(err.Error(), "zookeeper.set.acl is true, but the verification of the JAAS login file failed.") {
		t.Fatalf("Startup: %v", err)
	}
}
