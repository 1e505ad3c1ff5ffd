package zksecuritymigration

import (
	"bytes"
	"context"
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

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1)) }

const jaasText = `Client {
  org.apache.zookeeper.server.auth.DigestLoginModule required username="kafka" password="kafka-secret";
};
`

func quiet() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func migrate(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// aclsOf maps every znode of the tree below root (inclusive) to its ACL.
func aclsOf(t *testing.T, c *zkclient.Client, root string) map[string][]zkclient.ACL {
	t.Helper()
	out := map[string][]zkclient.ACL{}
	var walk func(string)
	walk = func(p string) {
		acl, _, err := c.GetACL(p)
		if err != nil {
			t.Fatalf("GetACL(%s): %v", p, err)
		}
		out[p] = acl
		children, err := c.GetChildren(p)
		if err != nil {
			t.Fatalf("GetChildren(%s): %v", p, err)
		}
		for _, ch := range children {
			walk(strings.TrimSuffix(p, "/") + "/" + ch)
		}
	}
	walk(root)
	return out
}

// TestMigrateSecureAndBack builds an unsecured cluster's znodes, runs the migrator with
// --zookeeper.acl secure and reads every ACL back (CREATOR_ALL for the logged-in user plus world
// READ, CREATOR_ALL alone under /config/users, /consumers untouched); a session without login can
// then no longer write. --zookeeper.acl unsecure opens everything again.
func TestMigrateSecureAndBack(t *testing.T) {
	connect := zktest.Chroot(t)
	jaas := writeFile(t, "jaas.conf", jaasText)
	z, err := zkutils.Connect(connect, zktest.SessionTimeout, 20*time.Second, false, quiet(), common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/brokers/topics/t/partitions/0/state", "/config/topics/t", "/config/users/alice", "/consumers/g/offsets/t/0", "/kafka-acl/Topic/t"} {
		if err := z.ZkClient.CreatePersistent(p, []byte("{}"), true); err != nil {
			t.Fatal(err)
		}
	}
	anon := z.ZkClient
	owner, err := zkclient.New(connect, zktest.SessionTimeout, 20*time.Second, zkclient.WithLogger(quiet()),
		zkclient.WithAuth("digest", []byte("kafka:kafka-secret")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(owner.Close)
	// If the test fails half-way, open the tree so that the harness can delete it.
	t.Cleanup(func() {
		for p := range aclsOf(t, owner, "/") {
			_ = owner.SetACL(p, zkclient.OpenACLUnsafe(), -1)
		}
	})

	t.Setenv("KAFKA_OPTS", "-Djava.security.auth.login.config="+jaas)
	out, errOut, code := migrate("--zookeeper.acl", "secure", "--zookeeper.connect", connect,
		"--zookeeper.session.timeout", "10000", "--zookeeper.connection.timeout", "20000")
	if code != 0 || out != "" {
		t.Fatalf("secure: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	sum := sha1.Sum([]byte("kafka:kafka-secret"))
	creator := zkclient.ACL{Perms: zkclient.PermAll, Scheme: "digest", ID: "kafka:" + base64.StdEncoding.EncodeToString(sum[:])}
	read := zkclient.ACL{Perms: zkclient.PermRead, Scheme: "world", ID: "anyone"}
	open := zkclient.OpenACLUnsafe()
	secured := 0
	// ZooKeeper answers getACL only with READ or ADMIN permission (3.6+), and shows the digest
	// only to ADMIN: read back through the logged-in session.
	for p, acl := range aclsOf(t, owner, "/") {
		want := []zkclient.ACL{creator, read}
		switch {
		case p == "/consumers" || strings.HasPrefix(p, "/consumers/"):
			want = open
		case strings.HasPrefix(p, "/config/users"):
			want = []zkclient.ACL{creator}
		default:
			secured++
		}
		if !reflect.DeepEqual(acl, want) {
			t.Errorf("after secure, ACL of %s = %+v, want %+v", p, acl, want)
		}
	}
	if secured < 20 {
		t.Errorf("only %d znodes secured", secured)
	}
	if _, _, err := anon.ReadData("/config/topics/t"); err != nil {
		t.Errorf("unauthenticated read after secure: %v", err)
	}
	if _, _, err := anon.ReadData("/config/users/alice"); !errors.Is(err, zkclient.ErrNoAuth) {
		t.Errorf("unauthenticated read of /config/users/alice after secure: %v, want NoAuth", err)
	}
	if err := anon.WriteData("/config/topics/t", []byte("x")); !errors.Is(err, zkclient.ErrNoAuth) {
		t.Errorf("unauthenticated write after secure: %v, want NoAuth", err)
	}
	if err := owner.WriteData("/config/topics/t", []byte("{}")); err != nil {
		t.Errorf("logged-in write after secure: %v", err)
	}

	out, errOut, code = migrate("--zookeeper.acl", "unsecure", "--zookeeper.connect", connect)
	if code != 0 || out != "" {
		t.Fatalf("unsecure: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for p, acl := range aclsOf(t, anon, "/") {
		if !reflect.DeepEqual(acl, open) {
			t.Errorf("after unsecure, ACL of %s = %+v", p, acl)
		}
	}
	if err := anon.WriteData("/config/topics/t", []byte("x")); err != nil {
		t.Errorf("unauthenticated write after unsecure: %v", err)
	}
}

// TestMigratorRefusals: 0.10.2 prints the configuration errors and still exits 0 (main catches
// the exception); usage errors exit 1.
func TestMigratorRefusals(t *testing.T) {
	jaas := writeFile(t, "jaas.conf", jaasText)
	noClient := writeFile(t, "server.conf", `KafkaServer { org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="b"; };`)
	cases := []struct {
		opts           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"", []string{"--zookeeper.acl", "secure"}, 0,
			"ERROR: No JAAS configuration file has been specified. Please make sure that you have set the system property java.security.auth.login.config\n",
			"java.lang.IllegalArgumentException: Incorrect configuration\n"},
		{"-Djava.security.auth.login.config=" + noClient, []string{"--zookeeper.acl", "secure"}, 0,
			"ERROR: Security isn't enabled, most likely the file isn't set properly: " + noClient + "\n",
			"java.lang.IllegalArgumentException: Incorrect configuration\n"},
		{"-Djava.security.auth.login.config=" + jaas, []string{"--zookeeper.acl", "maybe"}, 1, "", UsageMessage + "\n"},
		{"-Djava.security.auth.login.config=" + jaas, nil, 1, "", UsageMessage + "\n"},
		{"", []string{"--help"}, 1, "", UsageMessage + "\n"},
		{"", []string{"--bogus"}, 0, "", "joptsimple.UnrecognizedOptionException: bogus is not a recognized option\n"},
	}
	for _, c := range cases {
		t.Setenv("KAFKA_OPTS", c.opts)
		out, errOut, code := migrate(c.args...)
		if code != c.code || out != c.stdout || !strings.HasPrefix(errOut, c.stderr) {
			t.Errorf("%s %v: exit %d stdout %q stderr %q; want %d %q %q", c.opts, c.args, code, out, errOut, c.code, c.stdout, c.stderr)
		}
	}
}
