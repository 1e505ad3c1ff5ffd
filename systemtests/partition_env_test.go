package systemtests

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/zk/ensemble"
)

// The network-partition scenarios (partition_test.go) run a 3-node ZooKeeper ensemble and 3
// brokers, each process in a network namespace of its own (netns.go), so that a test can cut
// any set of links for real while an acks=all, min.insync.replicas=2 producer keeps writing and
// the Checker later compares what was acknowledged with what is there.

// partitionEnv is one such cluster.
type partitionEnv struct {
	net     *Network
	zk      []*Host // ZooKeeper node i's host
	brokers map[int32]*Host
	e       *ensemble.Ensemble
	c       *Cluster
}

// newPartitionEnv builds the network, the ensemble and the brokers (controllerProps plus extra),
// and waits for a controller. Everything is torn down in t.Cleanup (brokers, then ZooKeeper,
// then the namespaces).
func newPartitionEnv(t *testing.T, extra map[string]string) *partitionEnv {
	t.Helper()
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
	if ok, why := NetworkAvailable(); !ok {
		t.Skip(why)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skipf("java not found: %v", err)
	}
	n, err := NewNetwork()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	env := &partitionEnv{net: n, brokers: map[int32]*Host{}}
	var ips []string
	for i := 0; i < 3; i++ {
		h, err := n.AddHost(fmt.Sprintf("zk%d", i))
		if err != nil {
			t.Fatal(err)
		}
		env.zk = append(env.zk, h)
		ips = append(ips, h.IP)
	}
	for id := int32(0); id < 3; id++ {
		h, err := n.AddHost(fmt.Sprintf("broker%d", id))
		if err != nil {
			t.Fatal(err)
		}
		env.brokers[id] = h
	}
	suite.mu.Lock()
	suite.chroot++
	dir := filepath.Join(suite.dir, fmt.Sprintf("partition-zk-%d", suite.chroot))
	suite.mu.Unlock()
	ctx := within(t, 2*time.Minute)
	env.e, err = ensemble.Start(ctx, ensemble.Config{Servers: 3, BaseDir: dir, KeepDir: true, Hosts: ips,
		Wrapper: func(i int) []string { return env.zk[i].Wrapper() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.e.Close() })
	env.c = newCluster(t, ClusterConfig{Brokers: 3, Ensemble: env.e, Properties: controllerProps(extra),
		BrokerHost: func(id int32) string { return env.brokers[id].IP },
		Wrapper:    func(id int32, _ string) []string { return env.brokers[id].Wrapper() }})
	if err := WaitFor(within(t, 30*time.Second), func() string { return "no controller elected" }, func() bool {
		id, _ := env.c.ControllerInfo()
		return id >= 0
	}); err != nil {
		t.Fatal(err)
	}
	return env
}

// otherBrokers are the hosts of every broker but id.
func (env *partitionEnv) otherBrokers(id int32) []*Host {
	var out []*Host
	for b, h := range env.brokers {
		if b != id {
			out = append(out, h)
		}
	}
	return out
}

// cut is Network.Cut, failing the test on error.
func (env *partitionEnv) cut(t *testing.T, a, b []*Host) {
	t.Helper()
	if err := env.net.Cut(a, b); err != nil {
		t.Fatal(err)
	}
}

// heal is Network.Heal, failing the test on error; tests also defer it so that a failing test
// leaves nothing cut while the cleanup collects logs.
func (env *partitionEnv) heal(t *testing.T) {
	t.Helper()
	if err := env.net.Heal(); err != nil {
		t.Fatal(err)
	}
}

// ackedPerPartition counts the acknowledged messages of each partition of topic.
func ackedPerPartition(ch *Checker, topic string, parts int32) []int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	out := make([]int, parts)
	for p := range out {
		out[p] = len(ch.acked[common.TopicPartition{Topic: topic, Partition: int32(p)}])
	}
	return out
}

// waitPartitionsAcked waits until each listed partition of topic has at least n acknowledgements
// more than now: the producer makes progress on every one of them.
func waitPartitionsAcked(ctx context.Context, ch *Checker, topic string, parts int32, which []int32, n int) error {
	base := ackedPerPartition(ch, topic, parts)
	var last []int
	return WaitFor(ctx, func() string {
		return fmt.Sprintf("partitions %v of %s not acknowledged again: acks %v, were %v", which, topic, last, base)
	}, func() bool {
		last = ackedPerPartition(ch, topic, parts)
		for _, p := range which {
			if last[p] < base[p]+n {
				return false
			}
		}
		return true
	})
}

func allPartitions(parts int32) []int32 {
	out := make([]int32, parts)
	for p := range out {
		out[p] = int32(p)
	}
	return out
}

// ledBy lists the partitions of the assignment whose preferred (first) replica is id.
func ledBy(assignment map[int32][]int32, id int32) []int32 {
	var out []int32
	for p, r := range assignment {
		if r[0] == id {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var (
	// Every LeaderAndIsr a broker receives (state.change.logger, TRACE), and every one a
	// controller sends: the sender's broker id and controller epoch.
	leaderAndIsrReceived = regexp.MustCompile(`received LeaderAndIsr request .* from controller (\d+) epoch (\d+) for partition`)
	leaderAndIsrSent     = regexp.MustCompile(`Controller (\d+) epoch (\d+) sending become-(?:leader|follower) LeaderAndIsr request`)
	leaderAndIsrStale    = regexp.MustCompile(`ignoring LeaderAndIsr request from controller (\d+) .* controller epoch (\d+) is old`)
)

// epochAudit is what every broker's log says about LeaderAndIsr senders: for each controller
// epoch, the brokers that sent (or were received sending) LeaderAndIsr with it, and how many
// requests brokers rejected for a stale epoch.
type epochAudit struct {
	senders map[int32]map[int32]int // epoch -> controller id -> lines
	stale   int
}

func auditLeaderAndIsrEpochs(c *Cluster) epochAudit {
	a := epochAudit{senders: map[int32]map[int32]int{}}
	add := func(id, epoch string) {
		i, _ := strconv.Atoi(id)
		e, _ := strconv.Atoi(epoch)
		m := a.senders[int32(e)]
		if m == nil {
			m = map[int32]int{}
			a.senders[int32(e)] = m
		}
		m[int32(i)]++
	}
	for _, b := range c.Brokers {
		for _, re := range []*regexp.Regexp{leaderAndIsrReceived, leaderAndIsrSent} {
			for _, line := range b.Logs().MatchesFrom(0, re) {
				m := re.FindStringSubmatch(line)
				add(m[1], m[2])
			}
		}
		a.stale += len(b.Logs().MatchesFrom(0, leaderAndIsrStale))
	}
	return a
}

// check fails when one controller epoch was used by two brokers.
func (a epochAudit) check(t *testing.T) {
	t.Helper()
	if len(a.senders) == 0 {
		t.Fatal("no LeaderAndIsr in any broker log (is state.change.logger at TRACE?)")
	}
	for epoch, ids := range a.senders {
		if len(ids) > 1 {
			t.Errorf("controller epoch %d used by brokers %v in LeaderAndIsr requests", epoch, ids)
		}
	}
}

func (a epochAudit) String() string {
	epochs := make([]int, 0, len(a.senders))
	for e := range a.senders {
		epochs = append(epochs, int(e))
	}
	sort.Ints(epochs)
	s := ""
	for _, e := range epochs {
		for id := range a.senders[int32(e)] {
			s += fmt.Sprintf(" epoch %d: broker %d;", e, id)
		}
	}
	return fmt.Sprintf("LeaderAndIsr senders:%s %d rejected as stale", s, a.stale)
}

// produceProbe sends one acks=all ProduceRequest (v2, broker-side timeout 2 s) for [topic,p]
// straight to addr and reports the partition's error code, or the transport error when no
// answer came within readTimeout (a broker whose request threads are stuck never answers).
func produceProbe(addr, topic string, p int32, key, value []byte, readTimeout time.Duration) (int16, error) {
	w, err := DialWire(addr, "systemtests-probe", readTimeout)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, time.Now().UnixMilli(), 0)
	if _, err := b.AppendWithOffset(0, time.Now().UnixMilli(), key, value); err != nil {
		return 0, err
	}
	resp, err := w.Roundtrip(&protocol.ProduceRequest{Version: 2, Acks: -1, Timeout: 2000, TopicData: []protocol.ProduceRequestTopic{{
		Topic: topic, Data: []protocol.ProduceRequestTopicPartition{{Partition: p, RecordSet: b.Build()}},
	}}})
	if err != nil {
		return 0, err
	}
	for _, r := range resp.(*protocol.ProduceResponse).Responses {
		for _, pr := range r.PartitionResponses {
			if r.Topic == topic && pr.Partition == p {
				return pr.ErrorCode, nil
			}
		}
	}
	return 0, fmt.Errorf("produce response has no [%s,%d]", topic, p)
}

// partitionReport is the line each scenario logs (and the figures its note quotes).
type partitionReport struct {
	scenario   string
	rep        CheckReport
	recovered  time.Duration
	extraLines []string
}

func (r partitionReport) log(t *testing.T) {
	t.Helper()
	t.Logf("PARTITION %s: acknowledged %d, lost %d, duplicates %d, recovered in %v", r.scenario, r.rep.Acked, r.rep.Lost(),
		r.rep.Duplicates, r.recovered.Round(100*time.Millisecond))
	for _, l := range r.extraLines {
		t.Logf("PARTITION %s: %s", r.scenario, l)
	}
}

// startPartitionLoad creates topic and starts an acks=all producer on every partition (500
// messages/s of 100 bytes), returning once 300 were acknowledged.
func startPartitionLoad(t *testing.T, ctx context.Context, c *Cluster, topic string, assignment map[int32][]int32) (*Checker, *LoadProducer) {
	t.Helper()
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	load, err := StartLoad(c.BootstrapServers(), LoadSpec{Topic: topic, Partitions: len(assignment), Size: 100, Rate: 500}, checker)
	if err != nil {
		t.Fatal(err)
	}
	if err := load.WaitAcked(ctx, 300); err != nil {
		load.Stop()
		t.Fatal(err)
	}
	return checker, load
}

// finishLoad stops the load, reads every partition back and checks it: nothing acknowledged may
// be missing.
func finishLoad(t *testing.T, ctx context.Context, c *Cluster, load *LoadProducer, checker *Checker, topic string, parts int32) CheckReport {
	t.Helper()
	sent, acked, errs := load.Stop()
	if _, err := c.ConsumeAll(ctx, topic, parts, checker); err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	t.Logf("%s: sent %d, acked %d, %d sends failed after retries; %v", topic, sent, acked, len(errs), rep)
	if !rep.OK() {
		t.Error(rep)
	}
	return rep
}
