package preferredelection

import (
	"bytes"
	"context"
	"io"
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

func setup(t *testing.T) (string, *zkutils.ZkUtils) {
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
	// foo has two partitions with state, bar one; the partition subtree is
	// what "all partitions" reads, as in Kafka.
	for topic, n := range map[string]int32{"foo": 2, "bar": 1} {
		a := map[int32][]int32{}
		for p := range n {
			a[p] = []int32{1, 2}
			if err := z.UpdatePersistentPath(zkutils.TopicPartitionLeaderAndIsrPath(topic, p),
				zkutils.LeaderAndIsrZkData(zkutils.NewLeaderAndIsr(2, []int32{1, 2}), 1)); err != nil {
				t.Fatal(err)
			}
		}
		if err := z.UpdatePersistentPath(zkutils.TopicPath(topic), zkutils.ReplicaAssignmentZkData(a)); err != nil {
			t.Fatal(err)
		}
	}
	return connect, z
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestElectionFromFile(t *testing.T) {
	connect, z := setup(t)
	f := filepath.Join(t.TempDir(), "p.json")
	writeFile(t, f, `{"partitions":[{"topic":"foo","partition":1},{"topic":"bar","partition":7},{"topic":"foo","partition":0}]}`)
	out, errOut, code := run("--zookeeper", connect, "--path-to-json-file", f)
	want := `Created preferred replica election path with {"version":1,"partitions":[{"topic":"foo","partition":1},{"topic":"foo","partition":0}]}` + "\n" +
		"Successfully started preferred replica election for partitions Set([foo,1], [foo,0])\n" +
		"Skipping preferred replica leader election for partition [bar,7] since it doesn't exist.\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d\n%s\nwant\n%s\nstderr %s", code, out, want, errOut)
	}
	data, _, err := z.ReadData(zkutils.PreferredReplicaLeaderElectionPath)
	if err != nil || string(data) != `{"version":1,"partitions":[{"topic":"foo","partition":1},{"topic":"foo","partition":0}]}` {
		t.Errorf("znode %s %v", data, err)
	}
	// A second run while the controller has not consumed the node fails (exit 0).
	out, _, code = run("--zookeeper", connect, "--path-to-json-file", f)
	want = "Failed to start preferred replica election\n" +
		"kafka.admin.AdminCommandFailedException: Admin command failed\n" +
		"Caused by: kafka.admin.AdminOperationException: Preferred replica leader election currently in progress for Set([foo,1], [foo,0]). Aborting operation\n"
	if code != 0 || out != want {
		t.Errorf("in progress: exit %d\n%s", code, out)
	}
}

func TestElectionAllPartitions(t *testing.T) {
	connect, z := setup(t)
	out, _, code := run("--zookeeper", connect)
	want := `Created preferred replica election path with {"version":1,"partitions":[{"topic":"bar","partition":0},{"topic":"foo","partition":0},{"topic":"foo","partition":1}]}` + "\n" +
		"Successfully started preferred replica election for partitions Set([bar,0], [foo,0], [foo,1])\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if ok, _ := z.PathExists(zkutils.PreferredReplicaLeaderElectionPath); !ok {
		t.Fatal("no election znode")
	}
}

func TestBadFiles(t *testing.T) {
	connect, z := setup(t)
	dir := t.TempDir()
	cases := map[string]string{
		`nonsense`:      "kafka.admin.AdminOperationException: Preferred replica election data is empty",
		`{"version":1}`: "kafka.admin.AdminOperationException: Preferred replica election data is empty",
		`{"partitions":[{"topic":"foo","partition":1},{"topic":"foo","partition":1}]}`: "kafka.admin.AdminOperationException: Preferred replica election data contains duplicate partitions: [foo,1]",
	}
	i := 0
	for content, trace := range cases {
		i++
		f := filepath.Join(dir, strings.Repeat("x", i))
		writeFile(t, f, content)
		out, _, code := run("--zookeeper", connect, "--path-to-json-file", f)
		if code != 0 || out != "Failed to start preferred replica election\n"+trace+"\n" {
			t.Errorf("%s: exit %d %q", content, code, out)
		}
	}
	if ok, _ := z.PathExists(zkutils.PreferredReplicaLeaderElectionPath); ok {
		t.Error("a bad file created the election znode")
	}
}

func TestUsage(t *testing.T) {
	_, errOut, code := run()
	if first, _, _ := strings.Cut(errOut, "\n"); code != 1 || first != "This tool causes leadership for each partition to be transferred back to the 'preferred replica', it can be used to balance leadership among the servers." {
		t.Errorf("no args: %d %q", code, errOut)
	}
	_, errOut, code = run("--path-to-json-file", "x")
	if first, rest, _ := strings.Cut(errOut, "\n"); code != 1 || first != `Missing required argument "[zookeeper]"` || !strings.Contains(rest, "--zookeeper <String: urls>") {
		t.Errorf("no zookeeper: %d %q", code, errOut)
	}
}
