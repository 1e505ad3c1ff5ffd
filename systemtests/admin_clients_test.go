package systemtests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Issue 11 acceptance: CreateTopics and DeleteTopics through real admin clients, bootstrapped
// on each broker of a 3-broker cluster in turn. Both clients find the controller through
// Metadata v1's controller_id and cache it; in the second round the controller is moved after
// the clients cached it, so their first request reaches a broker that is no longer the
// controller, which answers NOT_CONTROLLER, and they retry at the new one.

// pythonKafkaAvailable reports whether /usr/bin/python3 has kafka-python (Debian's
// python3-kafka, which .ci/install-deps installs).
func pythonKafkaAvailable() bool {
	return exec.Command("/usr/bin/python3", "-c", "import kafka").Run() == nil
}

// kafkaPythonAdmin runs testdata/kafka_python_admin.py: it returns once the client is connected;
// run lets it act and returns its JSON outcome.
type kafkaPythonAdmin struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr strings.Builder
}

func startKafkaPythonAdmin(ctx context.Context, t *testing.T, bootstrap, action, prefix string) *kafkaPythonAdmin {
	t.Helper()
	p := &kafkaPythonAdmin{cmd: exec.CommandContext(ctx, "/usr/bin/python3", "testdata/kafka_python_admin.py", bootstrap, action, prefix)}
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewReader(stdout)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	if line, err := p.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("kafka-python %s: %q %v\n%s", action, line, err, lastLines(p.stderr.String(), 20))
	}
	return p
}

func (p *kafkaPythonAdmin) run(t *testing.T) map[string]string {
	t.Helper()
	if _, err := io.WriteString(p.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("kafka-python: %v\n%s", err, lastLines(p.stderr.String(), 20))
	}
	out := map[string]string{}
	if err := json.Unmarshal([]byte(line), &out); err != nil {
		t.Fatalf("kafka-python output %q: %v", line, err)
	}
	_ = p.cmd.Wait()
	return out
}

// moveController deletes /controller until a broker other than the current controller wins
// the election (each deletion makes every broker stand again).
func moveController(ctx context.Context, t *testing.T, c *Cluster) (from, to int32) {
	t.Helper()
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	from, _ = c.ControllerInfo()
	for attempt := 0; attempt < 20; attempt++ {
		if _, err := z.DeletePath(zkutils.ControllerPath); err != nil {
			t.Fatal(err)
		}
		if err := WaitFor(ctx, func() string { return "no controller after deleting /controller" }, func() bool {
			to, _ = c.ControllerInfo()
			return to >= 0
		}); err != nil {
			t.Fatal(err)
		}
		if to != from {
			// Clients find the controller in Metadata v1, which every broker answers from its
			// MetadataCache: wait until the new controller's UpdateMetadata reached them all.
			for _, b := range c.Brokers {
				if err := WaitFor(ctx, func() string { return fmt.Sprintf("broker %d does not name controller %d yet", b.ID, to) },
					func() bool { return metadataController(b) == to }); err != nil {
					t.Fatal(err)
				}
			}
			return from, to
		}
	}
	t.Fatalf("controller stayed on broker %d through 20 elections", from)
	return
}

// metadataV1 is the broker's Metadata v1 answer for no topic (nil on error).
func metadataV1(b *BrokerProcess) *protocol.MetadataResponse {
	w, err := DialWire(b.Addr(), "metadata-probe", 10*time.Second)
	if err != nil {
		return nil
	}
	defer w.Close()
	resp, err := w.Roundtrip(&protocol.MetadataRequest{Version: 1, Topics: []string{}})
	if err != nil {
		return nil
	}
	return resp.(*protocol.MetadataResponse)
}

// metadataController is the controller_id of the broker's Metadata v1 answer (-1 on error).
func metadataController(b *BrokerProcess) int32 {
	if m := metadataV1(b); m != nil {
		return m.ControllerID
	}
	return -1
}

// metadataBrokers is the number of live brokers in the broker's Metadata answer.
func metadataBrokers(b *BrokerProcess) int {
	if m := metadataV1(b); m != nil {
		return len(m.Brokers)
	}
	return 0
}

func saramaAdmin(t *testing.T, bootstrap string) sarama.ClusterAdmin {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.ClientID = "sarama-admin"
	cfg.Admin.Timeout = 30 * time.Second
	cfg.Net.DialTimeout = 10 * time.Second
	ca, err := sarama.NewClusterAdmin([]string{bootstrap}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ca.Close() })
	if _, err := ca.Controller(); err != nil { // cache it, as a long-lived client would have
		t.Fatal(err)
	}
	return ca
}

// checkTopic verifies what a successful creation left: the assignment (sizes, or exactly want
// when given), the topic configs, and a leader for every partition in the controller's state.
func checkTopic(t *testing.T, c *Cluster, topic string, partitions, rf int, want map[int32][]int32, configs map[string]string) {
	t.Helper()
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	got, err := z.GetReplicaAssignmentForTopics([]string{topic})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != partitions {
		t.Errorf("%s has %d partitions, want %d", topic, len(got), partitions)
	}
	for p := int32(0); p < int32(partitions); p++ {
		rs := got[common.TopicPartition{Topic: topic, Partition: p}]
		if len(rs) != rf || (want != nil && !SameReplicas(rs, want[p])) {
			t.Errorf("%s-%d replicas %v, want %d replicas %v", topic, p, rs, rf, want[p])
		}
		// The create answered NONE only once every partition had a leader.
		if s, ok, err := c.PartitionState(topic, p); err != nil || !ok || s.LeaderAndIsr.Leader < 0 {
			t.Errorf("%s-%d state %+v %v %v right after the create returned", topic, p, s, ok, err)
		}
	}
	cfg, err := z.FetchEntityConfig(zkutils.ConfigTypeTopic, topic)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range configs {
		if cfg[k] != v {
			t.Errorf("%s config %s=%q, want %q (all: %v)", topic, k, cfg[k], v, cfg)
		}
	}
}

func topicGone(ctx context.Context, t *testing.T, c *Cluster, topics ...string) {
	t.Helper()
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range topics {
		if err := WaitFor(ctx, func() string { return topic + " still in /brokers/topics" }, func() bool {
			ok, err := z.PathExists(zkutils.TopicPath(topic))
			return err == nil && !ok
		}); err != nil {
			t.Error(err)
		}
	}
}

func absent(t *testing.T, c *Cluster, topic string) {
	t.Helper()
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := z.PathExists(zkutils.TopicPath(topic)); ok {
		t.Errorf("%s exists, but was only validated", topic)
	}
}

// requestCount is the broker's RequestsPerSec count for one API, read from its metrics reporter.
func requestCount(t *testing.T, b *BrokerProcess, api string) int64 {
	t.Helper()
	name := "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=" + api
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%s/metrics.json?name=%s", b.cfg.Properties["metrics.http.port"], url.QueryEscape(name)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]map[string]float64
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return int64(m[name]["count"])
}

func TestAdminClientsCreateAndDeleteTopics(t *testing.T) {
	if !pythonKafkaAvailable() {
		t.Skip("kafka-python is not installed for /usr/bin/python3 (Debian's python3-kafka)")
	}
	ports := map[int32]int{}
	for id := int32(0); id < 3; id++ {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ports[id] = p
	}
	c := newCluster(t, ClusterConfig{Brokers: 3, Ensemble: sharedZK3(t), Properties: controllerProps(nil),
		BrokerProperties: func(id int32) map[string]string {
			return map[string]string{"metrics.http.port": fmt.Sprint(ports[id]), "metrics.http.host": "127.0.0.1"}
		}})
	ctx := within(t, 5*time.Minute)
	if err := WaitFor(ctx, func() string { return "no controller elected" }, func() bool { id, _ := c.ControllerInfo(); return id >= 0 }); err != nil {
		t.Fatal(err)
	}
	// The controller assigns replicas over the brokers its MetadataCache knows alive: wait until
	// every broker's Metadata names all three and the controller.
	for _, b := range c.Brokers {
		if err := WaitFor(ctx, func() string { return fmt.Sprintf("broker %d does not know the cluster yet", b.ID) }, func() bool {
			ctl, _ := c.ControllerInfo()
			return metadataController(b) == ctl && metadataBrokers(b) == len(c.Brokers)
		}); err != nil {
			t.Fatal(err)
		}
	}

	// On the wire: only the active controller creates; every other broker answers NOT_CONTROLLER.
	ctl, _ := c.ControllerInfo()
	for _, b := range c.Brokers {
		w, err := DialWire(b.Addr(), "raw-admin", 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		topic := fmt.Sprintf("raw-%d", b.ID)
		resp, err := w.Roundtrip(&protocol.CreateTopicsRequest{Version: 1, Timeout: 30_000,
			CreateTopicRequests: []protocol.CreateTopicsRequestTopic{{Topic: topic, NumPartitions: 2, ReplicationFactor: 3}}})
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := int16(0)
		if b.ID != ctl {
			want = protocol.ErrNotController.Code
		}
		if got := resp.(*protocol.CreateTopicsResponse).TopicErrors[0].ErrorCode; got != want {
			t.Errorf("CreateTopics to broker %d (controller %d): code %d, want %d", b.ID, ctl, got, want)
		}
	}

	for round, b := range c.Brokers {
		py := startKafkaPythonAdmin(ctx, t, b.Addr(), "create", fmt.Sprintf("py%d", round))
		ca := saramaAdmin(t, b.Addr())
		if round == 1 {
			from, to := moveController(ctx, t, c)
			t.Logf("round %d: controller moved %d -> %d after both clients cached it", round, from, to)
		}
		oldCtl, _ := c.ControllerInfo()
		refusedBefore := requestCount(t, c.Broker(oldCtl), "CreateTopics")

		// kafka-python
		prefix := fmt.Sprintf("py%d", round)
		want := map[string]string{"counts": "NONE", "configs": "NONE", "assigned": "NONE", "validate": "NONE", "exists": "TopicAlreadyExistsError"}
		if got := py.run(t); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("round %d (bootstrap broker %d) kafka-python create: %v, want %v", round, b.ID, got, want)
		}
		checkTopic(t, c, prefix+"-counts", 3, 2, nil, nil)
		checkTopic(t, c, prefix+"-configs", 1, 3, nil, map[string]string{"retention.ms": "3600000", "cleanup.policy": "compact"})
		checkTopic(t, c, prefix+"-assigned", 3, 2, map[int32][]int32{0: {0, 1}, 1: {1, 2}, 2: {2, 0}}, nil)
		absent(t, c, prefix+"-validate")

		// sarama
		prefix = fmt.Sprintf("sarama%d", round)
		retention := "7200000"
		steps := []struct {
			name     string
			detail   sarama.TopicDetail
			validate bool
			want     error
		}{
			{"counts", sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 2}, false, nil},
			{"configs", sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 3, ConfigEntries: map[string]*string{"retention.ms": &retention}}, false, nil},
			{"assigned", sarama.TopicDetail{NumPartitions: -1, ReplicationFactor: -1, ReplicaAssignment: map[int32][]int32{0: {2, 1}, 1: {0, 2}}}, false, nil},
			{"validate", sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 2}, true, nil},
			{"counts", sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1}, false, sarama.ErrTopicAlreadyExists},
			{"rf4", sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 4}, false, sarama.ErrInvalidReplicationFactor},
		}
		for _, s := range steps {
			err := ca.CreateTopic(prefix+"-"+s.name, &s.detail, s.validate)
			if (s.want == nil && err != nil) || (s.want != nil && !errors.Is(err, s.want)) {
				t.Errorf("round %d (bootstrap broker %d) sarama CreateTopic %s: %v, want %v", round, b.ID, s.name, err, s.want)
			}
		}
		checkTopic(t, c, prefix+"-counts", 3, 2, nil, nil)
		checkTopic(t, c, prefix+"-configs", 1, 3, nil, map[string]string{"retention.ms": retention})
		checkTopic(t, c, prefix+"-assigned", 2, 2, map[int32][]int32{0: {2, 1}, 1: {0, 2}}, nil)
		absent(t, c, prefix+"-validate")
		absent(t, c, prefix+"-rf4")

		if round == 1 {
			// Each client's first CreateTopics went to the controller it had cached, which
			// answered NOT_CONTROLLER; the client looked the controller up again and retried there.
			if n := requestCount(t, c.Broker(oldCtl), "CreateTopics") - refusedBefore; n < 2 {
				t.Errorf("the former controller %d answered %d CreateTopics requests after the move, want one per client", oldCtl, n)
			}
		}

		// Deletion, through the same bootstrap broker.
		pyDel := startKafkaPythonAdmin(ctx, t, b.Addr(), "delete", fmt.Sprintf("py%d", round))
		wantDel := map[string]string{"delete": "NONE", "missing": "UnknownTopicOrPartitionError"}
		if got := pyDel.run(t); fmt.Sprint(got) != fmt.Sprint(wantDel) {
			t.Errorf("round %d kafka-python delete: %v, want %v", round, got, wantDel)
		}
		for _, name := range []string{"counts", "configs", "assigned"} {
			if err := ca.DeleteTopic(prefix + "-" + name); err != nil {
				t.Errorf("round %d sarama DeleteTopic %s: %v", round, name, err)
			}
		}
		if err := ca.DeleteTopic(prefix + "-validate"); !errors.Is(err, sarama.ErrUnknownTopicOrPartition) {
			t.Errorf("round %d sarama DeleteTopic of a missing topic: %v", round, err)
		}
		var gone []string
		for _, p := range []string{fmt.Sprintf("py%d", round), prefix} {
			for _, name := range []string{"counts", "configs", "assigned"} {
				gone = append(gone, p+"-"+name)
			}
		}
		topicGone(ctx, t, c, gone...)
	}
}
