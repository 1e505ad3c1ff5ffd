package reassign

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	dir     string
}

func newCluster(t *testing.T, brokerIDs ...int32) *cluster {
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
	for _, id := range brokerIDs {
		ep := zkutils.RegisteredEndPoint{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT, Host: "localhost", Port: 9000 + id}
		if err := z.RegisterBrokerInZk(zkutils.NewBrokerInfo(id, 4, []zkutils.RegisteredEndPoint{ep}, -1, "", 1)); err != nil {
			t.Fatal(err)
		}
	}
	return &cluster{t: t, connect: connect, zk: z, dir: t.TempDir()}
}

func (c *cluster) file(name, content string) string {
	p := filepath.Join(c.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

func (c *cluster) topic(name string, a map[int32][]int32) {
	c.t.Helper()
	if err := c.zk.UpdatePersistentPath(zkutils.TopicPath(name), zkutils.ReplicaAssignmentZkData(a)); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) run(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := RunWithRand(context.Background(), append([]string{"--zookeeper", c.connect}, args...), &out, &errOut, rand.New(rand.NewPCG(3, 4)))
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

// completeReassignment does what the controller does at the end of a move.
func (c *cluster) completeReassignment(topic string, a map[int32][]int32) {
	c.t.Helper()
	c.topic(topic, a)
	if _, err := c.zk.DeletePath(zkutils.ReassignPartitionsPath); err != nil {
		c.t.Fatal(err)
	}
}

const fooCurrent = `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[3,4]},{"topic":"foo","partition":1,"replicas":[2,3]},{"topic":"foo","partition":2,"replicas":[1,2]}]}`

func TestGenerate(t *testing.T) {
	c := newCluster(t, 1, 2, 3, 4, 5, 6)
	c.topic("foo", map[int32][]int32{0: {3, 4}, 1: {2, 3}, 2: {1, 2}})
	topics := c.file("topics.json", `{"topics": [{"topic": "foo"}], "version":1}`)
	out, errOut, code := c.run("--generate", "--topics-to-move-json-file", topics, "--broker-list", "5,6,9")
	// Two brokers remain (9 is not registered): leaders alternate, the start is random.
	a := `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[5,6]},{"topic":"foo","partition":1,"replicas":[6,5]},{"topic":"foo","partition":2,"replicas":[5,6]}]}`
	b := `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[6,5]},{"topic":"foo","partition":1,"replicas":[5,6]},{"topic":"foo","partition":2,"replicas":[6,5]}]}`
	head := "Current partition replica assignment\n" + fooCurrent + "\n\nProposed partition reassignment configuration\n"
	if code != 0 || (out != head+a+"\n" && out != head+b+"\n") {
		t.Fatalf("exit %d\n%s\nstderr %s", code, out, errOut)
	}
	if ok, _ := c.zk.PathExists(zkutils.ReassignPartitionsPath); ok {
		t.Error("--generate wrote /admin/reassign_partitions")
	}
	c.mustRun("Partitions reassignment failed due to Broker list contains duplicate entries: 5\n"+
		"kafka.admin.AdminCommandFailedException: Broker list contains duplicate entries: 5\n",
		"--generate", "--topics-to-move-json-file", topics, "--broker-list", "5,6,5")
	out, _, _ = c.run("--generate", "--topics-to-move-json-file", topics, "--broker-list", "5")
	if !strings.HasPrefix(out, "Partitions reassignment failed due to replication factor: 2 larger than available brokers: 1\n") {
		t.Errorf("rf: %q", out)
	}
}

func TestExecuteAndVerify(t *testing.T) {
	c := newCluster(t, 1, 2, 3, 4, 5, 6)
	c.topic("foo", map[int32][]int32{0: {3, 4}, 1: {2, 3}, 2: {1, 2}})
	plan := `{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[5,6]},
	  {"topic":"foo","partition":0,"replicas":[6,5]}]}`
	f := c.file("plan.json", plan)
	c.mustRun("Current partition replica assignment\n\n"+fooCurrent+"\n\nSave this to use as the --reassignment-json-file option during rollback\n"+
		"Successfully started reassignment of partitions.\n", "--execute", "--reassignment-json-file", f)
	if got := c.read(zkutils.ReassignPartitionsPath); got != `{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[5,6]},{"topic":"foo","partition":0,"replicas":[6,5]}]}` {
		t.Errorf("reassign znode %s", got)
	}
	c.mustRun("There is an existing assignment running.\n", "--execute", "--reassignment-json-file", f)
	c.mustRun("Status of partition reassignment: \n"+
		"Reassignment of partition [foo,1] is still in progress\n"+
		"Reassignment of partition [foo,0] is still in progress\n", "--verify", "--reassignment-json-file", f)
	// The controller finished partition 0 as asked but partition 1 differently.
	c.completeReassignment("foo", map[int32][]int32{0: {6, 5}, 1: {6, 5}, 2: {1, 2}})
	c.mustRun("Status of partition reassignment: \n"+
		"ERROR: Assigned replicas (6,5) don't match the list of replicas for reassignment (5,6) for partition [foo,1]\n"+
		"Reassignment of partition [foo,1] failed\n"+
		"Reassignment of partition [foo,0] completed successfully\n", "--verify", "--reassignment-json-file", f)
	c.topic("foo", map[int32][]int32{0: {6, 5}, 1: {5, 6}, 2: {1, 2}})
	c.mustRun("Status of partition reassignment: \n"+
		"Reassignment of partition [foo,1] completed successfully\n"+
		"Reassignment of partition [foo,0] completed successfully\n", "--verify", "--reassignment-json-file", f)

	errs := []struct{ file, msg string }{
		{`{"version":1,"partitions":[]}`, "Partition reassignment data file is empty"},
		{`not json`, "Partition reassignment data file is empty"},
		{`{"partitions":[{"topic":"foo","partition":0,"replicas":[1]},{"topic":"foo","partition":0,"replicas":[2]}]}`,
			"Partition reassignment contains duplicate topic partitions: [foo,0]"},
		{`{"partitions":[{"topic":"foo","partition":0,"replicas":[1,1]},{"topic":"foo","partition":1,"replicas":[2,3,2]}]}`,
			"Partition replica lists may not contain duplicate entries: [foo,0] contains multiple entries for 1. [foo,1] contains multiple entries for 2"},
		{`{"partitions":[{"topic":"foo","partition":9,"replicas":[1]},{"topic":"bar","partition":0,"replicas":[1]}]}`,
			"The proposed assignment contains non-existent partitions: List([foo,9], [bar,0])"},
	}
	for i, e := range errs {
		out, _, code := c.run("--execute", "--reassignment-json-file", c.file("bad"+string(rune('0'+i))+".json", e.file))
		if code != 0 || !strings.HasPrefix(out, "Partitions reassignment failed due to "+e.msg+"\n") {
			t.Errorf("%s: exit %d %q", e.file, code, out)
		}
	}
}

// TestExecuteWithThrottle follows Kafka's --throttle example (ReassignPartitionsCommand) and the throttle
// removal by --verify.
func TestExecuteWithThrottle(t *testing.T) {
	c := newCluster(t, 101, 102, 103)
	c.topic("bar", map[int32][]int32{0: {101, 102}, 1: {102, 101}})
	f := c.file("plan.json", `{"version":1,"partitions":[{"topic":"bar","partition":0,"replicas":[102,103]}]}`)
	c.mustRun("Current partition replica assignment\n\n"+
		`{"version":1,"partitions":[{"topic":"bar","partition":0,"replicas":[101,102]},{"topic":"bar","partition":1,"replicas":[102,101]}]}`+
		"\n\nSave this to use as the --reassignment-json-file option during rollback\n"+
		"Warning: You must run Verify periodically, until the reassignment completes, to ensure the throttle is removed. You can also alter the throttle by rerunning the Execute command passing a new value.\n"+
		"The throttle limit was set to 1000 B/s\n"+
		"Successfully started reassignment of partitions.\n", "--execute", "--reassignment-json-file", f, "--throttle", "1000")
	rates := string(zkutils.EntityConfigZkData(map[string]string{"leader.replication.throttled.rate": "1000", "follower.replication.throttled.rate": "1000"}))
	for _, b := range []string{"101", "102", "103"} {
		if got := c.read("/config/brokers/" + b); got != rates {
			t.Errorf("broker %s config %s", b, got)
		}
	}
	cfg, err := zkutils.ParseEntityConfig([]byte(c.read("/config/topics/bar")))
	if err != nil || cfg["leader.replication.throttled.replicas"] != "0:101,0:102" || cfg["follower.replication.throttled.replicas"] != "0:103" || len(cfg) != 2 {
		t.Errorf("topic config %v %v", cfg, err)
	}
	changes, _ := c.zk.GetChildren(zkutils.ConfigChangesPath)
	if len(changes) != 4 { // three brokers and the topic
		t.Errorf("notifications %v", changes)
	}
	// Rerunning while it is in progress only changes the rate.
	c.mustRun("There is an existing assignment running.\nThe throttle limit was set to 2000 B/s\n", "--execute", "--reassignment-json-file", f, "--throttle", "2000")
	c.completeReassignment("bar", map[int32][]int32{0: {102, 103}, 1: {102, 101}})
	c.mustRun("Status of partition reassignment: \n"+
		"Reassignment of partition [bar,0] completed successfully\n"+
		"Throttle was removed.\n", "--verify", "--reassignment-json-file", f)
	for _, p := range []string{"/config/brokers/101", "/config/brokers/103", "/config/topics/bar"} {
		if got := c.read(p); got != `{"version":1,"config":{}}` {
			t.Errorf("%s after verify: %s", p, got)
		}
	}
	c.mustRun("Status of partition reassignment: \n"+
		"Reassignment of partition [bar,0] completed successfully\n", "--verify", "--reassignment-json-file", f)
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{nil, "This command moves topic partitions between replicas."},
		{[]string{"--zookeeper", "x"}, "Command must include exactly one action: --generate, --execute or --verify"},
		{[]string{"--verify"}, `Missing required argument "[zookeeper]"`},
		{[]string{"--verify", "--zookeeper", "x"}, "If --verify option is used, command must include --reassignment-json-file that was used during the --execute option"},
		{[]string{"--verify", "--zookeeper", "x", "--reassignment-json-file", "f", "--throttle", "1"}, `Option "[verify]" can't be used with option"[throttle]"`},
		{[]string{"--generate", "--zookeeper", "x", "--broker-list", "1"}, "If --generate option is used, command must include both --topics-to-move-json-file and --broker-list options"},
		{[]string{"--generate", "--zookeeper", "x", "--broker-list", "1", "--topics-to-move-json-file", "f", "--reassignment-json-file", "g"}, `Option "[generate]" can't be used with option"[reassignment-json-file]"`},
		{[]string{"--execute", "--zookeeper", "x"}, "If --execute option is used, command must include --reassignment-json-file that was output during the --generate option"},
		{[]string{"--execute", "--zookeeper", "x", "--reassignment-json-file", "f", "--broker-list", "1"}, `Option "[execute]" can't be used with option"[broker-list]"`},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), c.args, &out, &errOut)
		first, rest, _ := strings.Cut(errOut.String(), "\n")
		if code != 1 || first != c.msg || !strings.Contains(rest, "--reassignment-json-file <String: manual assignment json file path>") {
			t.Errorf("%v: exit %d stderr %q", c.args, code, errOut.String())
		}
	}
}
