package consumergroups

import (
	"bytes"
	"context"
	"errors"
	"io"
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
// broker's and sarama's registries in the broker test) is a process-wide goroutine that never stops.
func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// fakeOps: the coordinator knows no offsets (so ZooKeeper's are used) and every leader's log
// ends at 10.
type fakeOps struct {
	kafkaOffsets map[common.TopicPartition]int64
}

func (f fakeOps) FetchOffsets(string, []common.TopicPartition) (map[common.TopicPartition]int64, error) {
	if f.kafkaOffsets == nil {
		return nil, errors.New("no coordinator")
	}
	return f.kafkaOffsets, nil
}

func (fakeOps) LogEndOffset(zkutils.BrokerInfo, common.TopicPartition) (int64, error) { return 10, nil }

type zkGroups struct {
	t       *testing.T
	connect string
	zk      *zkutils.ZkUtils
}

func quiet() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

func newZkGroups(t *testing.T) *zkGroups {
	t.Helper()
	connect := zktest.Chroot(t)
	z, err := zkutils.Connect(connect, zktest.SessionTimeout, 20*time.Second, false, quiet(), common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(z.Close)
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	g := &zkGroups{t: t, connect: connect, zk: z}
	ep := zkutils.RegisteredEndPoint{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT, Host: "localhost", Port: 9093}
	if err := z.RegisterBrokerInZk(zkutils.NewBrokerInfo(1, 4, []zkutils.RegisteredEndPoint{ep}, -1, "", 1)); err != nil {
		t.Fatal(err)
	}
	// Topic t: partition 0 led by broker 1, partition 1 without a leader.
	g.put(zkutils.TopicPath("t"), string(zkutils.ReplicaAssignmentZkData(map[int32][]int32{0: {1}, 1: {1}})))
	g.put(zkutils.TopicPartitionLeaderAndIsrPath("t", 0), string(zkutils.LeaderAndIsrZkData(zkutils.NewLeaderAndIsr(1, []int32{1}), 1)))
	g.put(zkutils.TopicPartitionLeaderAndIsrPath("t", 1), string(zkutils.LeaderAndIsrZkData(zkutils.NewLeaderAndIsr(-1, []int32{1}), 1)))
	return g
}

func (g *zkGroups) put(path, data string) {
	g.t.Helper()
	if err := g.zk.UpdatePersistentPath(path, []byte(data)); err != nil {
		g.t.Fatal(err)
	}
}

func (g *zkGroups) exists(path string) bool {
	ok, err := g.zk.PathExists(path)
	if err != nil {
		g.t.Fatal(err)
	}
	return ok
}

// oldGroup registers an old-consumer group: an owning member and an idle one, subscribed to t.
func (g *zkGroups) oldGroup(name string, active bool) {
	reg := string(zkutils.ConsumerRegistration{Version: 1, Subscription: []zkutils.TopicStreams{{Topic: "t", Streams: 1}},
		Pattern: "static", Timestamp: "1490000000000"}.Encode())
	if active {
		g.put("/consumers/"+name+"/ids/"+name+"_host-1490000000000-abcd1234", reg)
		g.put("/consumers/"+name+"/ids/"+name+"_idle-1490000000001-ffff0000", reg)
		g.put("/consumers/"+name+"/owners/t/0", name+"_host-1490000000000-abcd1234-0")
	} else {
		g.put("/consumers/"+name+"/ids", "")
		g.put("/consumers/"+name+"/owners/t", "")
	}
	g.put("/consumers/"+name+"/offsets/t/0", "3")
	g.put("/consumers/"+name+"/offsets/t/1", "5")
}

func (g *zkGroups) run(ops ZkBrokerOps, args ...string) (string, string) {
	var out, errOut bytes.Buffer
	code := RunWith(context.Background(), append([]string{"--zookeeper", g.connect}, args...), &out, &errOut, Deps{ZkBrokerOps: ops})
	if code != 0 {
		g.t.Fatalf("exit %d: %s", code, errOut.String())
	}
	return out.String(), errOut.String()
}

const zkNote = "Note: This will only show information about consumers that use ZooKeeper (not those using the Java consumer API).\n\n"

func TestZkList(t *testing.T) {
	g := newZkGroups(t)
	g.oldGroup("g1", true)
	g.oldGroup("g2", false)
	out, errOut := g.run(fakeOps{}, "--list")
	if out != "g1\ng2\n" || !strings.HasPrefix(errOut, zkNote) {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
}

func TestZkDescribeGolden(t *testing.T) {
	g := newZkGroups(t)
	g.oldGroup("g1", true)
	out, _ := g.run(fakeOps{}, "--describe", "--group", "g1")
	want := "\n" +
		"TOPIC                          PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG        CONSUMER-ID                                       \n" +
		"t                              0          3               10              7          g1_host-1490000000000-abcd1234                    \n" +
		"t                              1          5               -               -          -                                                 \n" +
		"-                              -          -               -               -          g1_idle-1490000000001-ffff0000                    \n"
	if out != want {
		t.Fatalf("describe:\n%q\nwant\n%q", out, want)
	}
	// Offsets the coordinator knows win over ZooKeeper's.
	out, _ = g.run(fakeOps{kafkaOffsets: map[common.TopicPartition]int64{{Topic: "t", Partition: 0}: 8}}, "--describe", "--group", "g1")
	if !strings.Contains(out, "t                              0          8               10              2          g1_host") {
		t.Fatalf("kafka offsets not used:\n%s", out)
	}
	out, _ = g.run(fakeOps{}, "--describe", "--group", "nope")
	if out != "Error: The consumer group 'nope' does not exist.\n" {
		t.Fatalf("missing group: %q", out)
	}
}

func TestZkDelete(t *testing.T) {
	g := newZkGroups(t)
	g.oldGroup("active", true)
	g.oldGroup("idle", false)
	g.oldGroup("idle2", false)
	g.put("/consumers/idle2/offsets/u/0", "1") // idle2 also has topic u
	g.put("/consumers/idle2/owners/u", "")

	out, _ := g.run(fakeOps{}, "--delete", "--group", "active", "--group", "idle", "--group", "none")
	want := "Error: Delete for group 'active' failed because its consumers are still active.\n" +
		"Deleted all consumer group information for group 'idle' in zookeeper.\n" +
		"Error: Delete for group 'none' failed because group does not exist.\n"
	if out != want {
		t.Fatalf("delete groups:\n%s\nwant\n%s", out, want)
	}
	if g.exists("/consumers/idle") || !g.exists("/consumers/active") {
		t.Fatal("wrong groups deleted")
	}
	out, _ = g.run(fakeOps{}, "--delete", "--group", "idle2", "--topic", "t")
	if out != "Deleted consumer group information for group 'idle2' topic 't' in zookeeper.\n" ||
		g.exists("/consumers/idle2/offsets/t") || !g.exists("/consumers/idle2/offsets/u") {
		t.Fatalf("delete group topic: %q", out)
	}
	out, _ = g.run(fakeOps{}, "--delete", "--topic", "u")
	if out != "Deleted consumer group information for all inactive consumer groups for topic 'u' in zookeeper.\n" || g.exists("/consumers/idle2") {
		t.Fatalf("delete topic: %q (idle2 exists: %v)", out, g.exists("/consumers/idle2"))
	}
}

func TestArgumentChecks(t *testing.T) {
	run := func(args ...string) (string, string) {
		var out, errOut bytes.Buffer
		RunWith(context.Background(), args, &out, &errOut, Deps{})
		return out.String(), errOut.String()
	}
	cases := [][2]string{
		{"--list --describe --zookeeper x", "Command must include exactly one action: --list, --describe, --delete"},
		{"--list --zookeeper x --bootstrap-server b", "Option '[bootstrap-server]' is not valid with '[zookeeper]'."},
		{"--list --zookeeper x --new-consumer", "Option '[new-consumer]' is not valid with '[zookeeper]'."},
		{"--delete --group g --bootstrap-server b", "Option '[delete]' is only valid with '[zookeeper]'. Note that there's no need to delete group metadata for the new consumer as the group is deleted when the last committed offset for that group expires."},
		{"--delete --zookeeper x", "Option [delete] either takes [group], [topic], or both"},
		{"--describe --zookeeper x", "Missing required argument \"[group]\""},
	}
	for _, c := range cases {
		_, errOut := run(strings.Fields(c[0])...)
		if !strings.HasPrefix(errOut, c[1]+"\n") {
			t.Errorf("%s: stderr starts %q, want %q", c[0], firstLine(errOut), c[1])
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
