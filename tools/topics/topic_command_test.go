package topics

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestMain runs one real ZooKeeper for the package. go-metrics' meter arbiter (started by the
// broker's and sarama's registries in the zookeeper.set.acl test) is a process-wide goroutine that
// never stops.
func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// cluster is a chroot with Kafka's persistent paths and live brokers, as a
// running cluster would leave it (no broker processes: registrations only).
type cluster struct {
	t       *testing.T
	connect string
	zk      *zkutils.ZkUtils
}

func newCluster(t *testing.T, brokerIDs ...int32) *cluster {
	t.Helper()
	connect := zktest.Chroot(t)
	z, err := zkutils.Connect(connect, zktest.SessionTimeout, 20*time.Second, false, quietLog(), common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(z.Close)
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	for _, id := range brokerIDs {
		ep := zkutils.RegisteredEndPoint{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT, Host: "localhost", Port: 9092 + id}
		if err := z.RegisterBrokerInZk(zkutils.NewBrokerInfo(id, 4, []zkutils.RegisteredEndPoint{ep}, -1, "", 1)); err != nil {
			t.Fatal(err)
		}
	}
	return &cluster{t: t, connect: connect, zk: z}
}

// run runs kafka-topics with --zookeeper prepended.
func (c *cluster) run(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = RunWithRand(context.Background(), append([]string{"--zookeeper", c.connect}, args...), &out, &errOut, rand.New(rand.NewPCG(1, 1)))
	return out.String(), errOut.String(), code
}

func (c *cluster) mustRun(want string, args ...string) {
	c.t.Helper()
	out, errOut, code := c.run(args...)
	if code != 0 || out != want {
		c.t.Fatalf("kafka-topics %v: exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", args, code, out, want, errOut)
	}
}

// setState writes a partition state node as the controller would.
func (c *cluster) setState(topic string, p, leader int32, isr ...int32) {
	c.t.Helper()
	data := zkutils.LeaderAndIsrZkData(zkutils.NewLeaderAndIsr(leader, isr), 1)
	if err := c.zk.UpdatePersistentPath(zkutils.TopicPartitionLeaderAndIsrPath(topic, p), data); err != nil {
		c.t.Fatal(err)
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

const collisionWarning = "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\n"

// quietLog discards the setup client's logging.
func quietLog() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

// TestCreateWritesKafkaZnodes: the printed line and the 0.10.2 JSON.
func TestCreateWritesKafkaZnodes(t *testing.T) {
	c := newCluster(t, 0, 1, 2)
	c.mustRun("Created topic \"foo\".\n", "--create", "--topic", "foo", "--replica-assignment", "0:1,1:2,2:0",
		"--config", "retention.ms=86400000", "--config", "cleanup.policy = compact")
	if got := c.read("/brokers/topics/foo"); got != `{"version":1,"partitions":{"2":[2,0],"1":[1,2],"0":[0,1]}}` {
		t.Errorf("topic znode %s", got)
	}
	if got := c.read("/config/topics/foo"); got != `{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}` {
		t.Errorf("config znode %s", got)
	}
	// Partitions and replication factor from the algorithm: 3 partitions, RF 2.
	c.mustRun("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\nCreated topic \"a.b\".\n",
		"--create", "--topic", "a.b", "--partitions", "3", "--replication-factor", "2")
	a, err := zkutils.ParseReplicaAssignment([]byte(c.read("/brokers/topics/a.b")))
	if err != nil || len(a) != 3 || len(a[0]) != 2 || len(a[2]) != 2 {
		t.Errorf("a.b assignment %v %v", a, err)
	}
	if got := c.read("/config/topics/a.b"); got != `{"version":1,"config":{}}` {
		t.Errorf("a.b config %s", got)
	}
	// Already exists: error (exit 1) unless --if-not-exists.
	out, _, code := c.run("--create", "--topic", "foo", "--partitions", "1", "--replication-factor", "1")
	if code != 1 || out != "Error while executing topic command : Topic 'foo' already exists.\n" {
		t.Errorf("exists: %d %q", code, out)
	}
	c.mustRun("", "--create", "--topic", "foo", "--partitions", "1", "--replication-factor", "1", "--if-not-exists")

	errs := []struct {
		args []string
		out  string
	}{
		{[]string{"--create", "--topic", "x", "--partitions", "1", "--replication-factor", "4"},
			"Error while executing topic command : replication factor: 4 larger than available brokers: 3\n"},
		{[]string{"--create", "--topic", "a_b", "--partitions", "1", "--replication-factor", "1"},
			"WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\n" +
				"Error while executing topic command : Topic 'a_b' collides with existing topics: a.b\n"},
		{[]string{"--create", "--topic", "x", "--partitions", "1", "--replication-factor", "1", "--config", "foo=bar"},
			"Error while executing topic command : Unknown Log configuration foo.\n"},
		{[]string{"--create", "--topic", "x", "--partitions", "1", "--replication-factor", "1", "--config", "retention.ms"},
			"Error while executing topic command : requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\".\n"},
		{[]string{"--create", "--topic", "x y", "--partitions", "1", "--replication-factor", "1"},
			"Error while executing topic command : topic name x y is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'\n"},
		{[]string{"--create", "--topic", strings.Repeat("x", 250), "--partitions", "1", "--replication-factor", "1"},
			"Error while executing topic command : topic name is illegal, can't be longer than 249 characters\n"},
		{[]string{"--create", "--topic", "x", "--replica-assignment", "0:1,1"},
			"Error while executing topic command : Partition 1 has different replication factor: [I@"},
		{[]string{"--create", "--topic", "x", "--partitions", "abc", "--replication-factor", "1"},
			"Error while executing topic command : Cannot parse argument 'abc' of option partitions\n"},
		{[]string{"--create", "--topic", "x", "--replica-assignment", "0:0"},
			"Error while executing topic command : Partition replica lists may not contain duplicate entries: 0\n"},
	}
	for _, e := range errs {
		out, errOut, code := c.run(e.args...)
		// A JVM int[] rendering ("[I@<hex>") is compared up to the '@'.
		if code != 1 || (out != e.out && !(strings.HasSuffix(e.out, "[I@") && strings.HasPrefix(out, e.out))) {
			t.Errorf("%v: exit %d\n got %q\nwant %q", e.args, code, out, e.out)
		}
		if !strings.Contains(errOut, " ERROR ") || !strings.Contains(errOut, "(kafka.admin.TopicCommand$)") {
			t.Errorf("%v: stderr lacks the ERROR log line: %q", e.args, errOut)
		}
	}
	if ok, _ := c.zk.PathExists("/brokers/topics/x"); ok {
		t.Error("a failed create left /brokers/topics/x behind")
	}
}

// TestDescribeGolden covers the plain describe and its three filters, with
// partition state written as the controller would.
func TestDescribeGolden(t *testing.T) {
	c := newCluster(t, 1, 2)
	c.mustRun("Created topic \"foo\".\n", "--create", "--topic", "foo", "--replica-assignment", "1:2,2:1", "--config", "cleanup.policy=compact")
	c.mustRun("Created topic \"bar\".\n", "--create", "--topic", "bar", "--replica-assignment", "1:2,2:1,1:2")
	c.setState("foo", 0, 1, 1, 2)
	c.setState("foo", 1, 2, 2)
	// bar-0 has no state node (Leader: none); bar-1's leader 3 is not registered; bar-2 is fine.
	c.setState("bar", 1, 3, 3)
	c.setState("bar", 2, 1, 1, 2)

	c.mustRun("Topic:bar\tPartitionCount:3\tReplicationFactor:2\tConfigs:\n"+
		"\tTopic: bar\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \n"+
		"\tTopic: bar\tPartition: 1\tLeader: 3\tReplicas: 2,1\tIsr: 3\n"+
		"\tTopic: bar\tPartition: 2\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\n"+
		"Topic:foo\tPartitionCount:2\tReplicationFactor:2\tConfigs:cleanup.policy=compact\n"+
		"\tTopic: foo\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\n"+
		"\tTopic: foo\tPartition: 1\tLeader: 2\tReplicas: 2,1\tIsr: 2\n", "--describe")
	c.mustRun("Topic:foo\tPartitionCount:2\tReplicationFactor:2\tConfigs:cleanup.policy=compact\n"+
		"\tTopic: foo\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\n"+
		"\tTopic: foo\tPartition: 1\tLeader: 2\tReplicas: 2,1\tIsr: 2\n", "--describe", "--topic", "fo.*")
	c.mustRun("\tTopic: bar\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \n"+
		"\tTopic: bar\tPartition: 1\tLeader: 3\tReplicas: 2,1\tIsr: 3\n"+
		"\tTopic: foo\tPartition: 1\tLeader: 2\tReplicas: 2,1\tIsr: 2\n", "--describe", "--under-replicated-partitions")
	c.mustRun("\tTopic: bar\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \n"+
		"\tTopic: bar\tPartition: 1\tLeader: 3\tReplicas: 2,1\tIsr: 3\n", "--describe", "--unavailable-partitions")
	c.mustRun("Topic:foo\tPartitionCount:2\tReplicationFactor:2\tConfigs:cleanup.policy=compact\n", "--describe", "--topics-with-overrides")
	// A --topic matching nothing prints nothing and succeeds.
	c.mustRun("", "--describe", "--topic", "nothing")
	// Whitelist: commas are alternatives, quotes and spaces are dropped, whole-name match.
	c.mustRun("bar\nfoo\n", "--list", "--topic", `"bar, foo"`)
	c.mustRun("", "--list", "--topic", "fo")
	out, _, code := c.run("--list", "--topic", "fo(")
	if code != 1 || out != "Error while executing topic command : fo( is an invalid regex.\n" {
		t.Errorf("bad regex: %d %q", code, out)
	}
}

func TestListDeleteAlter(t *testing.T) {
	c := newCluster(t, 0, 1, 2, 3)
	c.mustRun("Created topic \"foo\".\n", "--create", "--topic", "foo", "--replica-assignment", "0:1,1:2,2:3,3:0")
	c.mustRun("Created topic \"bar\".\n", "--create", "--topic", "bar", "--replica-assignment", "0")
	c.mustRun(collisionWarning+"Created topic \"__consumer_offsets\".\n", "--create", "--topic", "__consumer_offsets", "--replica-assignment", "0")
	c.mustRun("__consumer_offsets\nbar\nfoo\n", "--list")

	c.mustRun("Topic bar is marked for deletion.\nNote: This will have no impact if delete.topic.enable is not set to true.\n", "--delete", "--topic", "bar")
	if got := c.read("/admin/delete_topics/bar"); got != "" {
		t.Errorf("deletion marker data %q", got)
	}
	c.mustRun("Topic bar is already marked for deletion.\n", "--delete", "--topic", "bar")
	c.mustRun("__consumer_offsets\nbar - marked for deletion\nfoo\n", "--list")

	out, _, code := c.run("--delete", "--topic", "__consumer_offsets")
	if code != 1 || out != "Error while executing topic command : Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion.\n" {
		t.Errorf("internal delete: %d %q", code, out)
	}
	out, _, code = c.run("--delete", "--topic", "nope")
	if code != 1 || out != "Error while executing topic command : Topic nope does not exist on ZK path "+c.connect+"\n" {
		t.Errorf("missing delete: %d %q", code, out)
	}
	c.mustRun("", "--delete", "--topic", "nope", "--if-exists")

	// --alter --partitions: AdminUtils.addPartitions starts from the index of partition 0's
	// first replica (partition 0 led by broker 0 → start index 0).
	c.mustRun("WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected\nAdding partitions succeeded!\n",
		"--alter", "--topic", "foo", "--partitions", "8")
	a, _ := zkutils.ParseReplicaAssignment([]byte(c.read("/brokers/topics/foo")))
	want := map[int32]string{4: "0,2", 5: "1,3", 6: "2,0", 7: "3,1"}
	for p, w := range want {
		if joinInts(a[p]) != w {
			t.Errorf("partition %d = %v, want %s", p, a[p], w)
		}
	}
	out, _, code = c.run("--alter", "--topic", "foo", "--partitions", "2")
	if code != 1 || !strings.HasSuffix(out, "Error while executing topic command : The number of partitions for a topic can only be increased\n") {
		t.Errorf("shrink: %d %q", code, out)
	}
	out, _, code = c.run("--alter", "--topic", "__consumer_offsets", "--partitions", "2")
	if code != 1 || out != "Error while executing topic command : The number of partitions for the offsets topic cannot be changed.\n" {
		t.Errorf("offsets topic: %d %q", code, out)
	}

	// --alter --config / --delete-config: deprecated path, writes config + notification.
	c.mustRun("WARNING: Altering topic configuration from this script has been deprecated and may be removed in future releases.\n"+
		"         Going forward, please use kafka-configs.sh for this functionality\n"+
		"Updated config for topic \"foo\".\n", "--alter", "--topic", "foo", "--config", "retention.ms=1000", "--config", "cleanup.policy=compact")
	c.mustRun("WARNING: Altering topic configuration from this script has been deprecated and may be removed in future releases.\n"+
		"         Going forward, please use kafka-configs.sh for this functionality\n"+
		"Updated config for topic \"foo\".\n", "--alter", "--topic", "foo", "--delete-config", "retention.ms")
	if got := c.read("/config/topics/foo"); got != `{"version":1,"config":{"cleanup.policy":"compact"}}` {
		t.Errorf("config after alter %s", got)
	}
	changes, _ := c.zk.GetChildren("/config/changes")
	if len(changes) != 2 || c.read("/config/changes/"+changes[0]) != `{"version":2,"entity_path":"topics/foo"}` {
		t.Errorf("notifications %v", changes)
	}
}

// TestUsageErrors: Kafka's messages on stderr followed by the help, exit 1.
func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{nil, "Create, delete, describe, or change a topic."},
		{[]string{"--zookeeper", "x"}, "Command must include exactly one action: --list, --describe, --create, --alter or --delete"},
		{[]string{"--list", "--describe", "--zookeeper", "x"}, "Command must include exactly one action: --list, --describe, --create, --alter or --delete"},
		{[]string{"--list"}, `Missing required argument "[zookeeper]"`},
		{[]string{"--create", "--zookeeper", "x"}, `Missing required argument "[topic]"`},
		{[]string{"--describe", "--zookeeper", "x", "--config", "a=b"}, `Option "[config]" can't be used with option"[describe]"`},
		{[]string{"--create", "--zookeeper", "x", "--topic", "t", "--replica-assignment", "0", "--partitions", "1"}, `Option "[replica-assignment]" can't be used with option"[partitions]"`},
		{[]string{"--describe", "--zookeeper", "x", "--under-replicated-partitions", "--unavailable-partitions"}, `Option "[under-replicated-partitions]" can't be used with option"[unavailable-partitions]"`},
		{[]string{"--delete", "--zookeeper", "x", "--topic", "t", "--if-not-exists"}, `Option "[if-not-exists]" can't be used with option"[delete]"`},
		{[]string{"--list", "--zookeeper"}, `Exception in thread "main" joptsimple.OptionMissingRequiredArgumentException: Option zookeeper requires an argument`},
		{[]string{"--list", "--bogus"}, `Exception in thread "main" joptsimple.UnrecognizedOptionException: bogus is not a recognized option`},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), c.args, &out, &errOut)
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if code != 1 || first != c.msg || out.Len() != 0 {
			t.Errorf("%v: exit %d, first stderr line %q, want %q (stdout %q)", c.args, code, first, c.msg, out.String())
		}
		if !strings.HasPrefix(c.msg, "Exception") && !strings.Contains(errOut.String(), "--replication-factor <Integer: replication factor>") {
			t.Errorf("%v: no help table on stderr:\n%s", c.args, errOut.String())
		}
	}
	// --create without sizes fails inside the action, with the usage message.
	cl := newCluster(t, 0)
	_, errOut, code := cl.run("--create", "--topic", "t")
	if first, _, _ := strings.Cut(errOut, "\n"); code != 1 || first != `Missing required argument "[partitions]"` {
		t.Errorf("create without partitions: %d %q", code, errOut)
	}
}
