package configs

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1)) }

type cluster struct {
	t       *testing.T
	connect string
	zk      *zkutils.ZkUtils
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	connect := zktest.Chroot(t)
	l := logrus.New()
	l.SetOutput(io.Discard)
	z, err := zkutils.Connect(connect, zktest.SessionTimeout, 20*time.Second, false, logrus.NewEntry(l), common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(z.Close)
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	if err := z.UpdatePersistentPath(zkutils.TopicPath("foo"), zkutils.ReplicaAssignmentZkData(map[int32][]int32{0: {1}})); err != nil {
		t.Fatal(err)
	}
	return &cluster{t: t, connect: connect, zk: z}
}

func (c *cluster) run(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), append([]string{"--zookeeper", c.connect}, args...), &out, &errOut)
	return out.String(), errOut.String(), code
}

func (c *cluster) mustRun(want string, args ...string) {
	c.t.Helper()
	out, errOut, code := c.run(args...)
	if code != 0 || out != want {
		c.t.Fatalf("%v: exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", args, code, out, want, errOut)
	}
}

func (c *cluster) read(path string) string {
	c.t.Helper()
	data, _, err := c.zk.ReadData(path)
	if err != nil {
		c.t.Fatalf("%s: %v", path, err)
	}
	return string(data)
}

// lastChange returns the data of the newest /config/changes notification.
func (c *cluster) lastChange() string {
	c.t.Helper()
	ch, err := c.zk.GetChildren(zkutils.ConfigChangesPath)
	if err != nil || len(ch) == 0 {
		c.t.Fatalf("no notifications: %v", err)
	}
	last := ch[0]
	for _, n := range ch {
		if n > last {
			last = n
		}
	}
	return c.read(zkutils.ConfigChangesPath + "/" + last)
}

func TestAlterAndDescribe(t *testing.T) {
	c := newCluster(t)
	steps := []struct {
		args     []string
		out      string
		node     string
		nodeData string
		change   string
	}{
		{[]string{"--alter", "--entity-type", "topics", "--entity-name", "foo", "--add-config", "retention.ms=86400000,cleanup.policy=compact"},
			"Completed Updating config for entity: topic 'foo'.\n",
			"/config/topics/foo", `{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}`, `{"version":2,"entity_path":"topics/foo"}`},
		{[]string{"--alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config", "leader.replication.throttled.rate=700000000,follower.replication.throttled.rate=700000000"},
			"Completed Updating config for entity: brokers '1'.\n",
			"/config/brokers/1", string(zkutils.EntityConfigZkData(map[string]string{"leader.replication.throttled.rate": "700000000", "follower.replication.throttled.rate": "700000000"})), `{"version":2,"entity_path":"brokers/1"}`},
		{[]string{"--alter", "--entity-type", "clients", "--entity-default", "--add-config", "producer_byte_rate=1024"},
			"Completed Updating config for entity: default client-id.\n",
			"/config/clients/<default>", `{"version":1,"config":{"producer_byte_rate":"1024"}}`, `{"version":2,"entity_path":"clients/<default>"}`},
		// clients before users: the entity is still <user, client>.
		{[]string{"--alter", "--entity-type", "clients", "--entity-name", "c1", "--entity-type", "users", "--entity-name", "alice smith", "--add-config", "consumer_byte_rate=2048"},
			"Completed Updating config for entity: user-principal 'alice smith', client-id 'c1'.\n",
			"/config/users/alice%20smith/clients/c1", `{"version":1,"config":{"consumer_byte_rate":"2048"}}`, `{"version":2,"entity_path":"users/alice%20smith/clients/c1"}`},
		{[]string{"--alter", "--entity-type", "users", "--entity-name", "bob", "--add-config", "producer_byte_rate=10"},
			"Completed Updating config for entity: user-principal 'bob'.\n",
			"/config/users/bob", `{"version":1,"config":{"producer_byte_rate":"10"}}`, `{"version":2,"entity_path":"users/bob"}`},
		{[]string{"--alter", "--entity-type", "topics", "--entity-name", "foo", "--delete-config", "retention.ms", "--add-config", "min.insync.replicas = 2"},
			"Completed Updating config for entity: topic 'foo'.\n",
			"/config/topics/foo", string(zkutils.EntityConfigZkData(map[string]string{"min.insync.replicas": "2", "cleanup.policy": "compact"})), `{"version":2,"entity_path":"topics/foo"}`},
		// Square brackets group a value containing commas.
		{[]string{"--alter", "--entity-type", "topics", "--entity-name", "foo", "--add-config", "leader.replication.throttled.replicas=[0:1,1:2],cleanup.policy=delete"},
			"Completed Updating config for entity: topic 'foo'.\n",
			"/config/topics/foo", string(zkutils.EntityConfigZkData(map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete", "leader.replication.throttled.replicas": "0:1,1:2"})), `{"version":2,"entity_path":"topics/foo"}`},
	}
	for _, s := range steps {
		c.mustRun(s.out, s.args...)
		if got := c.read(s.node); got != s.nodeData {
			t.Errorf("%s\n got %s\nwant %s", s.node, got, s.nodeData)
		}
		if got := c.lastChange(); got != s.change {
			t.Errorf("notification %s, want %s", got, s.change)
		}
	}
	c.mustRun("Configs for topic 'foo' are "+propsLine(map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete", "leader.replication.throttled.replicas": "0:1,1:2"})+"\n",
		"--describe", "--entity-type", "topics", "--entity-name", "foo")
	c.mustRun("Configs for brokers '1' are leader.replication.throttled.rate=700000000,follower.replication.throttled.rate=700000000\n",
		"--describe", "--entity-type", "brokers", "--entity-name", "1")
	c.mustRun("Configs for topic 'nope' are \n", "--describe", "--entity-type", "topics", "--entity-name", "nope")
	c.mustRun("Configs for default client-id are producer_byte_rate=1024\n", "--describe", "--entity-type", "clients")
	// All users: alice smith has only a <user, client> override and is skipped.
	c.mustRun("Configs for user-principal 'bob' are producer_byte_rate=10\n", "--describe", "--entity-type", "users")
	c.mustRun("Configs for user-principal 'alice smith', client-id 'c1' are consumer_byte_rate=2048\n", "--describe", "--entity-type", "users", "--entity-type", "clients")
	c.mustRun("Configs for user-principal 'alice smith', client-id 'c1' are consumer_byte_rate=2048\n", "--describe", "--entity-type", "users", "--entity-name", "alice smith", "--entity-type", "clients")
}

// propsLine is the expected "k=v,..." in Properties order (the same order the
// znode JSON carries), read back from the znode encoding.
func propsLine(m map[string]string) string {
	js := string(zkutils.EntityConfigZkData(m))
	re := regexp.MustCompile(`"([^"]+)":"([^"]*)"`)
	var parts []string
	for _, kv := range re.FindAllStringSubmatch(js, -1) {
		parts = append(parts, kv[1]+"="+kv[2])
	}
	return strings.Join(parts, ",")
}

func TestScramCredential(t *testing.T) {
	c := newCluster(t)
	c.mustRun("Completed Updating config for entity: user-principal 'alice'.\n",
		"--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]")
	cfg, err := zkutils.ParseEntityConfig([]byte(c.read("/config/users/alice")))
	if err != nil {
		t.Fatal(err)
	}
	re256 := regexp.MustCompile(`^salt=[A-Za-z0-9+/=]+,stored_key=[A-Za-z0-9+/]{43}=,server_key=[A-Za-z0-9+/]{43}=,iterations=8192$`)
	re512 := regexp.MustCompile(`^salt=[A-Za-z0-9+/=]+,stored_key=[A-Za-z0-9+/]{86}==,server_key=[A-Za-z0-9+/]{86}==,iterations=4096$`)
	if !re256.MatchString(cfg["SCRAM-SHA-256"]) || !re512.MatchString(cfg["SCRAM-SHA-512"]) {
		t.Errorf("credentials %v", cfg)
	}
	out, _, _ := c.run("--alter", "--entity-type", "users", "--entity-name", "alice", "--add-config", "SCRAM-SHA-256=[iterations=100,password=x]")
	if !strings.HasPrefix(out, "Error while executing config command Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-256\n") {
		t.Errorf("low iterations: %q", out)
	}
}

func TestAlterErrors(t *testing.T) {
	c := newCluster(t)
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--alter", "--entity-type", "topics", "--entity-name", "nope", "--add-config", "cleanup.policy=compact"}, `Topic "nope" does not exist.`},
		{[]string{"--alter", "--entity-type", "topics", "--entity-name", "foo", "--add-config", "bogus=1"}, "Unknown Log configuration bogus."},
		{[]string{"--alter", "--entity-type", "topics", "--entity-name", "foo", "--add-config", "retention.ms"}, `requirement failed: Invalid entity config: all configs to be added must be in the format "key=val".`},
		{[]string{"--alter", "--entity-type", "topics", "--entity-name", "foo", "--delete-config", "a,b"}, "Invalid config(s): a,b"},
		{[]string{"--alter", "--entity-type", "brokers", "--entity-name", "x", "--add-config", "leader.replication.throttled.rate=1"}, "Error parsing broker x. The broker's Entity Name must be a single integer value"},
		{[]string{"--alter", "--entity-type", "brokers", "--entity-name", "1", "--add-config", "producer_byte_rate=1"}, "requirement failed: Unknown Dynamic Configuration 'producer_byte_rate'."},
		{[]string{"--alter", "--entity-type", "clients", "--entity-name", "bad id", "--add-config", "producer_byte_rate=1"}, "Client-id bad id is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'"},
		{[]string{"--alter", "--entity-type", "users", "--entity-type", "clients", "--entity-name", "u", "--add-config", "producer_byte_rate=1"}, "--entity-name or --entity-default must be specified with each --entity-type for --alter"},
	}
	for _, e := range cases {
		out, _, code := c.run(e.args...)
		if code != 0 || !strings.HasPrefix(out, "Error while executing config command "+e.msg+"\n") {
			t.Errorf("%v: exit %d %q", e.args, code, out)
		}
	}
	if ok, _ := c.zk.PathExists("/config/changes/config_change_0000000000"); ok {
		t.Error("a failed alter wrote a notification")
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
		help bool
	}{
		{nil, "Add/Remove entity config for a topic, client, user or broker", true},
		{[]string{"--zookeeper", "x", "--entity-type", "topics"}, "Command must include exactly one action: --describe, --alter", true},
		{[]string{"--describe", "--entity-type", "topics"}, `Missing required argument "[zookeeper]"`, true},
		{[]string{"--describe", "--zookeeper", "x"}, `Missing required argument "[entity-type]"`, true},
		{[]string{"--describe", "--zookeeper", "x", "--entity-type", "topics", "--add-config", "a=b"}, `Option "[describe]" can't be used with option"[add-config]"`, true},
		{[]string{"--alter", "--zookeeper", "x", "--entity-type", "topics", "--add-config", "a=b"}, `Exception in thread "main" java.lang.IllegalArgumentException: --entity-name must be specified with --alter of Buffer(topics)`, false},
		{[]string{"--alter", "--zookeeper", "x", "--entity-type", "users", "--add-config", "a=b"}, `Exception in thread "main" java.lang.IllegalArgumentException: --entity-name or --entity-default must be specified with --alter of users/clients`, false},
		{[]string{"--alter", "--zookeeper", "x", "--entity-type", "topics", "--entity-name", "t"}, `Exception in thread "main" java.lang.IllegalArgumentException: At least one of --add-config or --delete-config must be specified with --alter`, false},
		{[]string{"--describe", "--zookeeper", "x", "--entity-type", "foo"}, `Exception in thread "main" java.lang.IllegalArgumentException: Invalid entity-type foo, --entity-type must be one of List(topics, clients, users, brokers)`, false},
		{[]string{"--describe", "--zookeeper", "x", "--entity-type", "topics", "--entity-type", "brokers"}, `Exception in thread "main" java.lang.IllegalArgumentException: Only 'users' and 'clients' entity types may be specified together`, false},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), c.args, &out, &errOut)
		first, rest, _ := strings.Cut(errOut.String(), "\n")
		if code != 1 || first != c.msg || out.Len() != 0 || c.help != strings.Contains(rest, "--entity-type <String>") {
			t.Errorf("%v: exit %d stderr %q", c.args, code, errOut.String())
		}
	}
}
