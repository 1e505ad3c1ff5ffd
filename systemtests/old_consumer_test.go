package systemtests

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/zk/ensemble"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Issue 16's process-level acceptance for the old (ZooKeeper) consumer: three member processes
// (this test binary re-executed) in one group, with auto commit off and commitOffsets after
// each processed batch; one member's ZooKeeper session is expired, another is SIGKILLed, while
// sarama produces 100,000 messages. Every message must be consumed at least once.

const (
	ocEnvMember = "ZKAFKA_OC_MEMBER"
	ocEnvZk     = "ZKAFKA_OC_ZK"
	ocEnvGroup  = "ZKAFKA_OC_GROUP"
	ocEnvTopic  = "ZKAFKA_OC_TOPIC"
	// ocSessionTimeout is the members' zookeeper.session.timeout.ms.
	ocSessionTimeout = 6 * time.Second
)

// TestOldConsumerMemberProcess is the child side: it returns at once unless ZKAFKA_OC_MEMBER is
// set; then it joins the group as consumer.id=<member> and prints "OC SESSION <id> <passwd hex>"
// for each ZooKeeper session and "OC MSG <partition> <offset> <key>" for each message, committing
// the offsets of what it printed every 200 ms, until it is killed.
func TestOldConsumerMemberProcess(t *testing.T) {
	member := os.Getenv(ocEnvMember)
	if member == "" {
		return
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	emit := func(s string) {
		mu.Lock()
		out.WriteString(s)
		out.WriteByte('\n')
		out.Flush()
		mu.Unlock()
	}
	capture := ensemble.NewSessionCapture()
	go func() {
		for {
			ch := capture.Changed()
			<-ch
			if id, pw := capture.Session(); id != 0 {
				emit(fmt.Sprintf("OC SESSION %d %s", id, hex.EncodeToString(pw)))
			}
		}
	}()
	l := logrus.New()
	l.SetOutput(os.Stderr)
	l.SetLevel(logrus.InfoLevel)
	cfg, err := oldconsumer.NewConsumerConfig(map[string]string{"zookeeper.connect": os.Getenv(ocEnvZk), "group.id": os.Getenv(ocEnvGroup),
		"consumer.id": member, "auto.commit.enable": "false", "auto.offset.reset": "smallest", "consumer.timeout.ms": "200",
		"zookeeper.session.timeout.ms": strconv.Itoa(int(ocSessionTimeout.Milliseconds())), "rebalance.max.retries": "30",
		"rebalance.backoff.ms": "500", "refresh.leader.backoff.ms": "100"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := oldconsumer.NewZookeeperConsumerConnector(context.Background(), cfg, oldconsumer.Deps{Logger: logrus.NewEntry(l),
		ZkOptions: []zkclient.Option{zkclient.WithDialer(capture.Dial)}})
	if err != nil {
		t.Fatal(err)
	}
	streams, err := c.CreateMessageStreams(map[string]int{os.Getenv(ocEnvTopic): 1})
	if err != nil {
		t.Fatal(err)
	}
	it := streams[os.Getenv(ocEnvTopic)][0].Iterator()
	lastCommit := time.Now()
	deadline := time.Now().Add(4 * time.Minute) // the parent kills it; this only ends an orphan
	for time.Now().Before(deadline) {
		m, err := it.Next()
		switch {
		case err == nil:
			emit(fmt.Sprintf("OC MSG %d %d %s", m.Partition, m.Offset, m.Key()))
		case err == oldconsumer.ErrConsumerTimeout:
		default:
			t.Fatal(err)
		}
		if time.Since(lastCommit) >= 200*time.Millisecond {
			if err := c.CommitOffsets(); err != nil {
				fmt.Fprintln(os.Stderr, "commit:", err)
			}
			lastCommit = time.Now()
		}
	}
	c.Shutdown()
}

// ocMember is a running member process.
type ocMember struct {
	name   string
	cmd    *exec.Cmd
	done   chan struct{}
	stderr *LogCapture

	mu       sync.Mutex
	sessions []string // "id passwdhex", in order
}

func (m *ocMember) lastSession() (int64, []byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sessions) == 0 {
		return 0, nil, false
	}
	f := strings.Fields(m.sessions[len(m.sessions)-1])
	id, _ := strconv.ParseInt(f[0], 10, 64)
	pw, _ := hex.DecodeString(f[1])
	return id, pw, true
}

// startOldConsumerMember re-executes the test binary as member name of group.
func startOldConsumerMember(t *testing.T, zkConnect, group, topic, name string, rec *cgRecord) *ocMember {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOldConsumerMemberProcess$", "-test.count=1")
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "ZKAFKA_BIN="+suite.bin, ocEnvMember+"="+name, ocEnvZk+"="+zkConnect,
		ocEnvGroup+"="+group, ocEnvTopic+"="+topic)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logPath := tmp + "/" + name + ".log"
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	logs := NewLogCapture(logPath)
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &ocMember{name: name, cmd: cmd, done: make(chan struct{}), stderr: logs}
	go func() {
		defer close(m.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 4 && f[0] == "OC" && f[1] == "SESSION":
				m.mu.Lock()
				m.sessions = append(m.sessions, f[2]+" "+f[3])
				m.mu.Unlock()
			case len(f) == 5 && f[0] == "OC" && f[1] == "MSG":
				p, _ := strconv.Atoi(f[2])
				off, _ := strconv.ParseInt(f[3], 10, 64)
				rec.consume(name, int32(p), off, f[4])
			}
		}
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-m.done
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("member %s stderr tail:\n%s", name, logs.Tail(30))
		}
		_ = logFile.Close()
	})
	return m
}

// owners reads /consumers/<group>/owners/<topic>: partition → owner thread, and the session
// that owns each znode.
func owners(zk *zkutils.ZkUtils, group, topic string, partitions int32) (map[int32]string, map[int32]int64) {
	out, sess := map[int32]string{}, map[int32]int64{}
	for p := int32(0); p < partitions; p++ {
		data, st, ok, err := zk.ReadDataMaybeNull(zkutils.GetConsumerPartitionOwnerPath(group, topic, p))
		if err == nil && ok {
			out[p], sess[p] = string(data), st.EphemeralOwner
		}
	}
	return out, sess
}

// ownedCounts counts partitions per owner thread.
func ownedCounts(o map[int32]string) map[string]int {
	n := map[string]int{}
	for _, v := range o {
		n[v]++
	}
	return n
}

func describeOwners(o map[int32]string) string {
	var s []string
	for p := int32(0); p < 12; p++ {
		s = append(s, fmt.Sprintf("%d=%s", p, o[p]))
	}
	return strings.Join(s, " ")
}

// TestOldConsumerGroupExpiryKillAtLeastOnce: three old-consumer processes split 12 partitions
// 4/4/4 (range); member b's ZooKeeper session is expired for real: it registers again with its
// new session and the group rebalances back to 4/4/4; member c is SIGKILLed: its owner znodes
// stay until its session times out, then a and b own 6 each. Meanwhile sarama produces 100,000
// messages; every acknowledged message is consumed at least once (duplicates counted), and the
// committed offsets reach the end of every partition.
func TestOldConsumerGroupExpiryKillAtLeastOnce(t *testing.T) {
	c := newCluster(t, ClusterConfig{Brokers: 1, Properties: map[string]string{"num.partitions": "1",
		"zookeeper.session.timeout.ms": "6000"}})
	const (
		topic = "oc-group"
		group = "oc-group-g"
		parts = 12
		total = 100000
	)
	ctx := within(t, 60*time.Second)
	assignment := map[int32][]int32{}
	for p := int32(0); p < parts; p++ {
		assignment[p] = []int32{0}
	}
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	zk, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	rec := newCGRecord()
	members := map[string]*ocMember{}
	for _, name := range []string{"a", "b", "c"} {
		members[name] = startOldConsumerMember(t, c.ZkConnect(), group, topic, name, rec)
	}
	waitOwners := func(what string, d time.Duration, ok func(o map[int32]string, sess map[int32]int64) bool) {
		t.Helper()
		var last map[int32]string
		if err := WaitFor(within(t, d), func() string { return what + ": owners " + describeOwners(last) }, func() bool {
			o, s := owners(zk, group, topic, parts)
			last = o
			return ok(o, s)
		}); err != nil {
			t.Fatal(err)
		}
	}
	split := func(want map[string]int) func(map[int32]string, map[int32]int64) bool {
		return func(o map[int32]string, _ map[int32]int64) bool {
			got := ownedCounts(o)
			if len(o) != parts || len(got) != len(want) {
				return false
			}
			for k, n := range want {
				if got[k] != n {
					return false
				}
			}
			return true
		}
	}
	waitOwners("three members split 4/4/4", 90*time.Second, split(map[string]int{group + "_a-0": 4, group + "_b-0": 4, group + "_c-0": 4}))

	prodCtx := within(t, 4*time.Minute)
	produced := make(chan error, 1)
	go func() {
		produced <- produceChunks(prodCtx, c.BootstrapServers(), topic, parts, total, 5000, 100*time.Millisecond, nil, rec)
	}()
	waitConsumed := func(n int, d time.Duration) {
		t.Helper()
		if err := WaitFor(within(t, d), func() string { return fmt.Sprintf("%d distinct consumed, want %d", rec.distinct(), n) },
			func() bool { return rec.distinct() >= n }); err != nil {
			t.Fatal(err)
		}
	}
	waitConsumed(20000, 2*time.Minute)

	// Expire b's session for real: its registration and owner znodes go; it registers again.
	b := members["b"]
	oldID, passwd, ok := b.lastSession()
	if !ok {
		t.Fatal("member b reported no session")
	}
	if err := ensemble.ExpireSessionAt(within(t, 30*time.Second), strings.Split(c.ZK.ConnectString(), ",")[0], oldID, passwd); err != nil {
		t.Fatal(err)
	}
	waitOwners("b registered again with a new session and owns 4 partitions again", 90*time.Second,
		func(o map[int32]string, sess map[int32]int64) bool {
			if !split(map[string]int{group + "_a-0": 4, group + "_b-0": 4, group + "_c-0": 4})(o, sess) {
				return false
			}
			_, st, err := zk.ReadData(zkutils.ZKGroupDirs{Group: group}.ConsumerRegistryDir() + "/" + group + "_b")
			if err != nil || st.EphemeralOwner == oldID {
				return false
			}
			for p, owner := range o {
				if owner == group+"_b-0" && sess[p] != st.EphemeralOwner {
					return false
				}
			}
			return true
		})
	if _, err := b.stderr.Expect(regexp.MustCompile(`ZK expired; release old broker parition ownership; re-register consumer `+group+`_b`), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	waitConsumed(50000, 2*time.Minute)

	// SIGKILL c: its owners stay until ZooKeeper expires its session, then a and b take them.
	cm := members["c"]
	owned, _ := owners(zk, group, topic, parts)
	killed := time.Now()
	if err := syscall.Kill(-cm.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if o, _ := owners(zk, group, topic, parts); ownedCounts(o)[group+"_c-0"] != 4 {
		t.Fatalf("c's owner znodes must outlive the process until its session expires: %s", describeOwners(o))
	}
	if err := WaitFor(within(t, 60*time.Second), func() string { return "c's owner znodes gone" }, func() bool {
		o, _ := owners(zk, group, topic, parts)
		for p, owner := range owned {
			if owner == group+"_c-0" && o[p] == group+"_c-0" {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	vanished := time.Since(killed)
	waitOwners("a and b own 6 each", 90*time.Second, split(map[string]int{group + "_a-0": 6, group + "_b-0": 6}))
	t.Logf("c's owners vanished %v after the SIGKILL (session timeout %v); a and b took its partitions after %v",
		vanished.Round(time.Millisecond), ocSessionTimeout, time.Since(killed).Round(time.Millisecond))

	if err := <-produced; err != nil {
		t.Fatal(err)
	}
	want := rec.expected(parts)
	if n := sumOffsets(want); n < total {
		t.Fatalf("%d messages acknowledged, want %d", n, total)
	}
	waitConsumed(total, 3*time.Minute)
	dups, dupTotal, missing := rec.duplicates(want)
	if len(missing) > 0 {
		t.Fatalf("messages never consumed: %v", missing)
	}
	if len(rec.badKeys) > 0 {
		t.Fatalf("wrong keys: %v", rec.badKeys)
	}
	// Every member commits what it printed: the committed offsets reach the end.
	if err := WaitFor(within(t, 60*time.Second), func() string { return "committed offsets at the log end" }, func() bool {
		for p, end := range want {
			o, ok, err := zk.ReadConsumerOffset(group, commonTP(topic, p))
			if err != nil || !ok || o != end {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	per := map[string]int{}
	for p, m := range rec.consumed {
		for _, ms := range m {
			if len(ms) > 1 {
				per[fmt.Sprintf("p%d %s", p, strings.Join(ms, ">"))]++
			}
		}
	}
	rec.mu.Unlock()
	t.Logf("duplicates by partition and readers (first>later): %v", per)
	t.Logf("%d messages consumed at least once by three old-consumer processes; %d duplicates (%v), a %d, b %d, c %d",
		total, dupTotal, dups, rec.count("a"), rec.count("b"), rec.count("c"))
	for _, line := range []string{`begin rebalancing consumer ` + group + `_a try #0`, group + `_a-0 attempting to claim partition 0`,
		group + `_a-0 successfully owned partition 0 for topic ` + topic, `Consumer ` + group + `_a selected partitions : `} {
		if _, err := members["a"].stderr.Expect(regexp.MustCompile(regexp.QuoteMeta(line)), 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

// expected is, per partition, the end of what was acknowledged (last acknowledged offset + 1).
func (r *cgRecord) expected(parts int32) map[int32]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[int32]int64{}
	for p := int32(0); p < parts; p++ {
		out[p] = 0
		for off := range r.keys[p] {
			out[p] = max(out[p], off+1)
		}
	}
	return out
}

func sumOffsets(m map[int32]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

func commonTP(topic string, p int32) common.TopicPartition {
	return common.TopicPartition{Topic: topic, Partition: p}
}
