package systemtests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Issue 7 acceptance: Kafka 0.10.2's operations guide (docs/ops.html) replayed with the bin/*.sh
// scripts against running brokers.

// scriptsDir makes a bin directory with the repository's bin/*.sh wrappers and the test's zkafka
// binary next to them, as `make build` lays out bin/.
func scriptsDir(t *testing.T) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "bin", "*.sh"))
	if len(scripts) == 0 {
		t.Fatal("no bin/*.sh in the repository")
	}
	for _, s := range scripts {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(s)), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(suite.bin, filepath.Join(dir, "zkafka")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// scripts runs bin/*.sh commands from one directory, the way an operator types them.
type scripts struct {
	t   *testing.T
	dir string
	zk  string
}

// run runs bin/<script> args... and returns its stdout; a non-zero exit fails the test.
func (s scripts) run(ctx context.Context, script string, args ...string) string {
	s.t.Helper()
	out, err := s.try(ctx, script, args...)
	if err != nil {
		s.t.Fatalf("bin/%s %s: %v\n%s", script, strings.Join(args, " "), err, out)
	}
	return out
}

func (s scripts) try(ctx context.Context, script string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(s.dir, script), args...)
	cmd.Dir = filepath.Dir(s.dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	s.t.Logf("$ bin/%s %s\n%s%s", script, strings.Join(args, " "), stdout.String(), stderr.String())
	if err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

func (s scripts) file(name, content string) string {
	p := filepath.Join(filepath.Dir(s.dir), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// verifyUntilDone runs --verify until every partition of the plan reports "completed
// successfully".
func (s scripts) verifyUntilDone(ctx context.Context, planFile string, partitions int) {
	s.t.Helper()
	done := regexp.MustCompile(`(?m)^Reassignment of partition \[[^\]]+\] completed successfully$`)
	for {
		out, err := s.try(ctx, "kafka-reassign-partitions.sh", "--zookeeper", s.zk, "--reassignment-json-file", planFile, "--verify")
		if err == nil && len(done.FindAllString(out, -1)) == partitions {
			return
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("reassignment %s not complete: %v\n%s", planFile, ctx.Err(), out)
		case <-time.After(time.Second):
		}
	}
}

type reassignmentJSON struct {
	Version    int `json:"version"`
	Partitions []struct {
		Topic     string  `json:"topic"`
		Partition int32   `json:"partition"`
		Replicas  []int32 `json:"replicas"`
	} `json:"partitions"`
}

// proposed extracts the JSON printed under "Proposed partition reassignment configuration".
func proposed(t *testing.T, out string) (string, reassignmentJSON) {
	t.Helper()
	const header = "Proposed partition reassignment configuration"
	i := strings.Index(out, header)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", header, out)
	}
	rest := out[i+len(header):]
	j := strings.IndexByte(rest, '{')
	if j < 0 {
		t.Fatalf("no JSON after %q", header)
	}
	dec := json.NewDecoder(strings.NewReader(rest[j:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	var r reassignmentJSON
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return string(raw), r
}

// "Expanding your cluster" and "Increasing replication factor" from docs/ops.html §6.1, under
// load: a new broker joins, topics foo1 and foo2 move onto brokers {1,2} through --generate,
// --execute and --verify; then topic foo goes from one replica to three. The end state is
// checked in ZooKeeper and on disk, and every acknowledged message is consumed.
func TestOpsGuideExpandClusterAndIncreaseReplication(t *testing.T) {
	c := controllerCluster(t, nil)
	requireReplication(t, c)
	ctx := within(t, 5*time.Minute)
	s := scripts{t: t, dir: scriptsDir(t), zk: c.ZkConnect()}
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}

	// The cluster before the expansion: brokers 0 and 1. Broker 2 is "the new server".
	newBroker := c.Broker(2)
	if err := newBroker.Stop(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitUnregistered(ctx, 2); err != nil {
		t.Fatal(err)
	}
	s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--create", "--topic", "foo1", "--replica-assignment", "0:1,1:0,0:1")
	s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--create", "--topic", "foo2", "--replica-assignment", "1:0,0:1,1:0")
	for _, topic := range []string{"foo1", "foo2"} {
		if err := c.WaitServing(ctx, topic, 3); err != nil {
			t.Fatal(err)
		}
	}
	checker := NewChecker()
	load, err := StartLoad(c.RunningBootstrapServers(), LoadSpec{Topic: "foo1", Partitions: 3, Size: 200, Rate: 1000}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer load.Stop()
	if err := load.WaitAcked(ctx, 1000); err != nil {
		t.Fatal(err)
	}

	// "just assign them a unique broker id and start up Kafka on your new servers".
	if err := newBroker.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitRegistered(ctx, newBroker); err != nil {
		t.Fatal(err)
	}
	topicsToMove := s.file("topics-to-move.json", `{"topics": [{"topic": "foo1"},
            {"topic": "foo2"}],
"version":1
}
`)
	out := s.run(ctx, "kafka-reassign-partitions.sh", "--zookeeper", s.zk, "--topics-to-move-json-file", topicsToMove, "--broker-list", "1,2", "--generate")
	if !strings.Contains(out, "Current partition replica assignment") {
		t.Fatalf("--generate printed no current assignment:\n%s", out)
	}
	planJSON, plan := proposed(t, out)
	if len(plan.Partitions) != 6 {
		t.Fatalf("proposal has %d partitions, want 6: %s", len(plan.Partitions), planJSON)
	}
	for _, p := range plan.Partitions {
		if !SameReplicas(p.Replicas, []int32{1, 2}) {
			t.Fatalf("proposal puts [%s,%d] on %v, want brokers 1,2", p.Topic, p.Partition, p.Replicas)
		}
	}
	planFile := s.file("expand-cluster-reassignment.json", planJSON)
	out = s.run(ctx, "kafka-reassign-partitions.sh", "--zookeeper", s.zk, "--reassignment-json-file", planFile, "--execute")
	if !strings.Contains(out, "Successfully started reassignment of partitions") {
		t.Fatalf("--execute did not start the reassignment:\n%s", out)
	}
	t0 := time.Now()
	s.verifyUntilDone(ctx, planFile, 6)
	t.Logf("expansion: 6 partitions moved in %v", time.Since(t0).Round(time.Millisecond))
	for _, p := range plan.Partitions {
		got, err := z.GetReplicasForPartition(p.Topic, p.Partition)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(p.Replicas) {
			t.Errorf("[%s,%d] replicas %v in ZooKeeper, planned %v", p.Topic, p.Partition, got, p.Replicas)
		}
	}
	if ok, _ := z.PathExists(zkutils.ReassignPartitionsPath); ok {
		t.Errorf("%s still exists after the reassignment completed", zkutils.ReassignPartitionsPath)
	}
	if err := WaitFor(within(t, 30*time.Second), func() string { return "broker 0 still holds foo1/foo2 logs" }, func() bool {
		return len(TopicDirs(c.Broker(0), "foo1"))+len(TopicDirs(c.Broker(0), "foo2")) == 0
	}); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{"foo1", "foo2"} {
		for p := int32(0); p < 3; p++ {
			for _, id := range []int32{1, 2} {
				if !PartitionDirExists(c.Broker(id), topic, p) {
					t.Errorf("broker %d has no log of [%s,%d]", id, topic, p)
				}
			}
		}
	}
	if err := load.WaitAcked(within(t, 30*time.Second), 500); err != nil {
		t.Fatal(err)
	}

	// "Increasing replication factor": foo has one replica, on broker 0; add 1 and 2.
	s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--create", "--topic", "foo", "--replica-assignment", "0", "--config", "min.insync.replicas=1")
	if err := c.WaitServing(ctx, "foo", 1); err != nil {
		t.Fatal(err)
	}
	fooLoad, err := StartLoad(c.RunningBootstrapServers(), LoadSpec{Topic: "foo", Partitions: 1, First: 10_000_000, Size: 200, Rate: 500}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer fooLoad.Stop()
	if err := fooLoad.WaitAcked(ctx, 500); err != nil {
		t.Fatal(err)
	}
	increase := s.file("increase-replication-factor.json", `{"version":1,
"partitions":[{"topic":"foo","partition":0,"replicas":[0,1,2]}]}
`)
	out = s.run(ctx, "kafka-reassign-partitions.sh", "--zookeeper", s.zk, "--reassignment-json-file", increase, "--execute")
	if !strings.Contains(out, `{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0]}]}`) {
		t.Errorf("--execute did not print the current assignment [0]:\n%s", out)
	}
	s.verifyUntilDone(ctx, increase, 1)
	if err := c.WaitPartitions(within(t, 30*time.Second), "foo", 1, FullIsr(map[int32][]int32{0: {0, 1, 2}})); err != nil {
		t.Fatal(err)
	}
	out = s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--topic", "foo", "--describe")
	if !regexp.MustCompile(`Topic:foo\tPartitionCount:1\tReplicationFactor:3\tConfigs:min.insync.replicas=1\n`).MatchString(out) ||
		!regexp.MustCompile(`\tTopic: foo\tPartition: 0\tLeader: 0\tReplicas: 0,1,2\tIsr: [012],[012],[012]\n`).MatchString(out) {
		t.Errorf("--describe after increasing the replication factor:\n%s", out)
	}
	for _, b := range c.Brokers {
		if !PartitionDirExists(b, "foo", 0) {
			t.Errorf("broker %d has no log of [foo,0]", b.ID)
		}
	}

	// No message lost.
	if err := fooLoad.WaitAcked(within(t, 30*time.Second), 300); err != nil {
		t.Fatal(err)
	}
	_, _, errs1 := load.Stop()
	_, _, errs2 := fooLoad.Stop()
	if n := len(errs1) + len(errs2); n > 0 {
		t.Logf("%d sends failed after retries (not acknowledged, so not checked)", n)
	}
	if _, err := c.ConsumeAll(ctx, "foo1", 3, checker); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConsumeAll(ctx, "foo", 1, checker); err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	t.Logf("%v", rep)
	if !rep.OK() {
		t.Fatal(rep)
	}
}

// Topics created, altered (partitions and config), described and deleted through the scripts
// while the brokers run; the created topic is usable by sarama and kcat at once, and a config
// change made with kafka-configs.sh reaches the live log (DynamicConfigManager).
func TestTopicScriptsAgainstRunningBrokers(t *testing.T) {
	c := controllerCluster(t, nil)
	requireReplication(t, c)
	ctx := within(t, 4*time.Minute)
	s := scripts{t: t, dir: scriptsDir(t), zk: c.ZkConnect()}
	const topic = "crud"

	out := s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--create", "--topic", topic, "--partitions", "3", "--replication-factor", "2")
	if !strings.Contains(out, `Created topic "crud".`) {
		t.Fatalf("--create printed:\n%s", out)
	}
	// Usable at once: sarama retries LEADER_NOT_AVAILABLE while the controller elects.
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "none")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Producer.Retry.Max = 20
	cfg.Producer.Retry.Backoff = 100 * time.Millisecond
	checker := NewChecker()
	sent := func(first, count, size int) {
		for i := first; i < first+count; i++ {
			checker.Sent(MessageFor(i, size))
		}
	}
	sent(0, 300, 100)
	t0 := time.Now()
	if err := SaramaProduce(ctx, c.BootstrapServers(), cfg, ProduceSpec{Topic: topic, Partitions: 3, Count: 300, Size: 100,
		OnAck: func(i int, p int32, off int64) {
			k, v := MessageFor(i, 100)
			checker.Acked(common.TopicPartition{Topic: topic, Partition: p}, off, k, v)
		}}); err != nil {
		t.Fatal(err)
	}
	t.Logf("sarama: 300 messages acknowledged %v after --create returned", time.Since(t0).Round(time.Millisecond))
	if KcatAvailable() {
		sent(1000, 50, 100)
		if err := KcatProduce(ctx, c.Brokers[0].Addr(), topic, 0, "none", 1000, 1, 50, 100); err != nil {
			t.Fatal(err)
		}
		// acks=1 messages become visible to consumers once the follower has them (the HW):
		// read until all 150 are there.
		t1 := time.Now()
		var kerr error
		for attempt := 0; attempt == 0 || (kerr != nil && time.Since(t1) < 15*time.Second); attempt++ {
			if attempt > 0 {
				time.Sleep(200 * time.Millisecond)
			}
			kerr = KcatConsume(ctx, c.Brokers[1].Addr(), topic, 0, 150, func(m ConsumedMessage) error { return nil })
		}
		if kerr != nil {
			t.Fatal(kerr)
		}
		t.Logf("kcat produced 50 and consumed all 150 messages of [%s,0] (visible %v after the produce)", topic, time.Since(t1).Round(time.Millisecond))
	} else {
		t.Log("kcat not installed: the kcat half is skipped")
	}

	out = s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--list")
	if !regexp.MustCompile(`(?m)^crud$`).MatchString(out) {
		t.Errorf("--list:\n%s", out)
	}
	out = s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--describe", "--topic", topic)
	if !strings.Contains(out, "Topic:crud\tPartitionCount:3\tReplicationFactor:2\tConfigs:\n") ||
		len(regexp.MustCompile(`\tTopic: crud\tPartition: \d\tLeader: \d\tReplicas: \d,\d\tIsr: \d,\d\n`).FindAllString(out, -1)) != 3 {
		t.Errorf("--describe:\n%s", out)
	}

	// More partitions: the controller's partition-modification listener brings them online.
	s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--alter", "--topic", topic, "--partitions", "5")
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, 5, func(p int32, st zkutils.LeaderIsrAndControllerEpoch) bool {
		return st.LeaderAndIsr.Leader >= 0 && len(st.LeaderAndIsr.Isr) == 2
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitServing(ctx, topic, 5); err != nil {
		t.Fatal(err)
	}

	// Let the followers catch up first: a follower fetching a pre-existing batch larger than the
	// new segment.bytes would fail its append (RecordBatchTooLargeException) and, as in 0.10.2,
	// its fetcher thread would stop.
	hw := map[int32]int64{0: 100, 1: 100, 2: 100}
	if KcatAvailable() {
		hw[0] += 50
	}
	if err := c.WaitHighWatermarks(within(t, 30*time.Second), topic, hw); err != nil {
		t.Fatal(err)
	}
	// A config change reaches the live log: with segment.bytes=2048 the leader of partition 4
	// rolls a new segment every few messages.
	out = s.run(ctx, "kafka-configs.sh", "--zookeeper", s.zk, "--alter", "--entity-type", "topics", "--entity-name", topic, "--add-config", "segment.bytes=2048")
	if !strings.Contains(out, "Completed Updating config for entity: topic 'crud'.") {
		t.Errorf("kafka-configs --alter printed:\n%s", out)
	}
	out = s.run(ctx, "kafka-configs.sh", "--zookeeper", s.zk, "--describe", "--entity-type", "topics", "--entity-name", topic)
	if !strings.Contains(out, "Configs for topic 'crud' are segment.bytes=2048") {
		t.Errorf("kafka-configs --describe printed:\n%s", out)
	}
	leader, err := c.LeaderOf(topic, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Broker(leader).Logs().Expect(regexp.MustCompile(`Processing override for entityPath: topics/crud`), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	// One message per request: a batch larger than segment.bytes is refused (0.10.2's
	// RecordBatchTooLargeException), which is the new config at work too, but not a roll.
	sent(5000, 500, 200)
	one := *cfg
	one.Producer.Flush.MaxMessages = 1
	one.Producer.Flush.Bytes = 0
	one.Producer.Flush.Frequency = 0
	if err := SaramaProduce(ctx, c.BootstrapServers(), &one, ProduceSpec{Topic: topic, Partitions: 5, First: 5000, Count: 500, Size: 200,
		OnAck: func(i int, p int32, off int64) {
			k, v := MessageFor(i, 200)
			checker.Acked(common.TopicPartition{Topic: topic, Partition: p}, off, k, v)
		}}); err != nil {
		t.Fatal(err)
	}
	var segs []string
	for _, d := range c.Broker(leader).LogDirs {
		m, _ := filepath.Glob(filepath.Join(d, topic+"-4", "*.log"))
		segs = append(segs, m...)
	}
	if len(segs) < 5 {
		t.Errorf("[%s,4] on its leader %d has %d segments after 100 messages of 200 bytes with segment.bytes=2048", topic, leader, len(segs))
	}
	t.Logf("segment.bytes=2048 applied to the live log: [%s,4] has %d segments", topic, len(segs))
	// acks=1 messages are consumable once the follower has them (the HW).
	hw = map[int32]int64{0: hw[0] + 100, 1: 200, 2: 200, 3: 100, 4: 100}
	if err := c.WaitHighWatermarks(within(t, 30*time.Second), topic, hw); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConsumeAll(ctx, topic, 5, checker); err != nil {
		t.Fatal(err)
	}

	// Delete.
	out = s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--delete", "--topic", topic)
	if !strings.Contains(out, "Topic crud is marked for deletion.") {
		t.Errorf("--delete printed:\n%s", out)
	}
	if err := WaitFor(within(t, 60*time.Second), func() string { return "crud not deleted" }, func() bool {
		z, err := c.Zk()
		if err != nil {
			return false
		}
		if ok, err := z.PathExists(zkutils.TopicPath(topic)); err != nil || ok {
			return false
		}
		for _, b := range c.Brokers {
			if len(TopicDirs(b, topic)) > 0 {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	out = s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--list")
	if regexp.MustCompile(`(?m)^crud`).MatchString(out) {
		t.Errorf("--list after the deletion:\n%s", out)
	}
	if rep := checker.Check(); !rep.OK() {
		t.Fatal(rep)
	}
}
