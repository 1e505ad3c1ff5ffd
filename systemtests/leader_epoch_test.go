package systemtests

import (
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

// Issue 12: the double failure in which 0.10.2 loses an acknowledged message (《深入理解Kafka》
// §8.1, KIP-101), with real broker processes and the brokers' own controller, and the same run
// with zkafka.leader.epoch.truncation.enable. `make study-kip101` runs it verbosely and prints
// the controller's state changes and the survivor's truncation in order.
//
// Roles: broker 0 (F) is the controller and the survivor; broker 1 (L) leads the partition,
// broker 2 (G) is the other follower. Assignment [L, G, F], acks=all, min.insync.replicas=2,
// unclean election off.
//
//  1. Five messages, then message 5 (the victim) are acknowledged. The followers' next fetch is
//     answered only after replica.fetch.wait.max.ms (20 s) when no data comes, so F holds the
//     victim with a high watermark of 5.
//  2. G is paused (SIGSTOP: it stays registered, its session lasts 16 s) and L is killed.
//  3. L's session expires (6 s): the controller elects G, the first live ISR member of the
//     assignment. F becomes G's follower: 0.10.2 truncates F to its high watermark (5).
//  4. G is killed; its session expires: the controller elects F, alone in the ISR.
//  5. F leads: with the HW truncation it lacks the victim, and the next message (acks=1) gets
//     offset 5 again; with leader-epoch truncation F never truncated (G never answered its
//     OffsetsForLeaderEpoch) and the next message gets offset 6.
func TestKIP101DoubleFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		epoch bool
	}{{"hw-truncation-0.10.2", false}, {"leader-epoch-truncation", true}} {
		t.Run(tc.name, func(t *testing.T) { runKIP101(t, tc.epoch) })
	}
}

// kip101Lines are the log lines of the story, in the survivor's log (it is also the controller).
var kip101Lines = regexp.MustCompile(`Broker failure callback|Selected new leader and ISR|offline partition|` +
	`Truncating log kip101-0|fetcher for partitions.*kip101-0|[Ll]eader [Ee]poch|leaderEpoch|PartitionLeaderEpoch`)

func runKIP101(t *testing.T, epochTruncation bool) {
	const (
		F, L, G = int32(0), int32(1), int32(2)
		topic   = "kip101"
		size    = 100
	)
	props := controllerProps(map[string]string{
		"replica.fetch.wait.max.ms":             "20000",
		"replica.lag.time.max.ms":               "30000",
		"zkafka.leader.epoch.truncation.enable": fmt.Sprint(epochTruncation),
		"controlled.shutdown.enable":            "false",
	})
	c := newStoppedCluster(t, ClusterConfig{Brokers: 3, Ensemble: sharedZK3(t), Properties: props,
		BrokerProperties: func(id int32) map[string]string {
			if id == G {
				return map[string]string{"zookeeper.session.timeout.ms": "16000"}
			}
			return nil
		}})
	ctx := within(t, 3*time.Minute)
	// Broker 0 first, so that it is the controller (the controller must outlive the failures).
	if err := c.Broker(F).Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitRegistered(ctx, c.Broker(F)); err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(within(t, 30*time.Second), func() string { return "broker 0 is not the controller" },
		func() bool { id, _ := c.ControllerInfo(); return id == F }); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int32{L, G} {
		if err := c.Broker(id).Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitRegistered(ctx, c.Broker(id)); err != nil {
			t.Fatal(err)
		}
	}
	requireReplication(t, c)
	assignment := map[int32][]int32{0: {L, G, F}}
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	survivor := c.Broker(F).Logs()
	mark := survivor.Mark()

	checker := NewChecker()
	tp := common.TopicPartition{Topic: topic}
	produce := func(first, count int, acks sarama.RequiredAcks) {
		t.Helper()
		cfg, err := SaramaConfig(sarama.V0_10_2_0, "none")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Producer.RequiredAcks = acks
		for i := first; i < first+count; i++ {
			checker.Sent(MessageFor(i, size))
		}
		err = SaramaProduce(ctx, c.RunningBootstrapServers(), cfg, ProduceSpec{Topic: topic, Partitions: 1, First: first, Count: count, Size: size,
			OnAck: func(i int, p int32, offset int64) {
				k, v := MessageFor(i, size)
				checker.Acked(tp, offset, k, v)
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	produce(0, 5, sarama.WaitForAll)
	produce(5, 1, sarama.WaitForAll) // the victim, at offset 5
	acked := time.Now()
	if err := c.Broker(G).Pause(); err != nil {
		t.Fatal(err)
	}
	if err := c.Broker(L).Kill(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(acked); d > 10*time.Second {
		t.Fatalf("the failures came %v after the acknowledgement: the followers may have learnt the new high watermark", d)
	}
	t.Logf("message 5 acknowledged with acks=all; broker %d paused and broker %d killed %v later", G, L, time.Since(acked).Round(time.Millisecond))

	// Step 3: the controller elects G once L's session expires, and F follows G.
	leaderIs := func(id int32) func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool { return s.LeaderAndIsr.Leader == id }
	}
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, 1, leaderIs(G)); err != nil {
		t.Fatal(err)
	}
	initOffset := 5
	if epochTruncation {
		initOffset = 6
	}
	follow := regexp.MustCompile(fmt.Sprintf(`Added fetcher for partitions .*kip101-0, initOffset %d to broker BrokerEndPoint\(%d,`, initOffset, G))
	if _, err := survivor.ExpectFrom(mark, follow, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	truncated := survivor.MatchesFrom(mark, regexp.MustCompile(`Truncating log kip101-0 to offset 5\.`))
	if !epochTruncation && len(truncated) == 0 {
		t.Fatal("the survivor did not truncate to its high watermark")
	}
	if epochTruncation && len(truncated) != 0 {
		t.Fatalf("the survivor truncated: %v", truncated)
	}

	// Step 4: G dies; once its session expires, F leads alone.
	if err := c.Broker(G).Kill(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 45*time.Second), topic, 1, leaderIs(F)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitServing(within(t, 30*time.Second), topic, 1); err != nil {
		t.Fatal(err)
	}
	produce(6, 1, sarama.WaitForLocal) // min.insync.replicas=2 refuses acks=all with one replica
	if _, err := c.ConsumeAll(ctx, topic, 1, checker); err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	for _, line := range survivor.MatchesFrom(mark, kip101Lines) {
		t.Log(line)
	}
	t.Logf("leader-epoch truncation %t: %v", epochTruncation, rep)
	checkSurvivorFiles(t, c, F, epochTruncation)
	checkClientsSee0102(t, c.Broker(F).Addr())
	if epochTruncation {
		if !rep.OK() {
			t.Fatalf("with leader-epoch truncation: %v", rep)
		}
		return
	}
	// 0.10.2: message 5 is gone and message 6 was acknowledged at its offset.
	if rep.Lost() != 1 || len(rep.Overwritten) != 1 || rep.Overwritten[0] != "kip101-0@5" {
		t.Fatalf("0.10.2's truncation was expected to lose message 5 and hand its offset out again: %v", rep)
	}
	if !strings.Contains(rep.String(), "kip101-0@5") {
		t.Fatal(rep)
	}
}

// checkSurvivorFiles: DumpLogSegments reads the survivor's segment as usual (the epoch lives in
// leader-epoch-checkpoint, not in the messages), and the checkpoint holds Kafka 0.11's text: the
// epoch of the first leader from offset 0, the survivor's own from offset 6.
func checkSurvivorFiles(t *testing.T, c *Cluster, id int32, epochTruncation bool) {
	t.Helper()
	dir := filepath.Join(c.Broker(id).LogDirs[0], "kip101-0")
	out, err := exec.Command(c.Bin, "dump-log-segments", "--files", filepath.Join(dir, "00000000000000000000.log")).CombinedOutput()
	if err != nil {
		t.Fatalf("dump-log-segments: %v\n%s", err, out)
	}
	last := 5
	if epochTruncation {
		last = 6
	}
	if n := len(regexp.MustCompile(`(?m)^offset: \d+ position:`).FindAll(out, -1)); n != last+1 || !strings.Contains(string(out), fmt.Sprintf("\noffset: %d position:", last)) {
		t.Fatalf("dump-log-segments printed %d messages, want offsets 0..%d:\n%s", n, last, out)
	}
	cp, err := os.ReadFile(filepath.Join(dir, "leader-epoch-checkpoint"))
	switch {
	case epochTruncation && (err != nil || string(cp) != "0\n2\n0 0\n2 6\n"):
		t.Fatalf("leader-epoch-checkpoint %q (%v)", cp, err)
	case !epochTruncation && !os.IsNotExist(err):
		t.Fatalf("leader-epoch-checkpoint with the mode off: %q (%v)", cp, err)
	}
}

// checkClientsSee0102: real clients probing the broker (librdkafka through kcat, kafka-python's
// version detection) still see a 0.10.2 broker; key 23 is not advertised to them.
func checkClientsSee0102(t *testing.T, addr string) {
	t.Helper()
	if KcatAvailable() {
		out, err := exec.Command(KcatBin, "-b", addr, "-L", "-t", "kip101").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `topic "kip101" with 1 partitions`) {
			t.Fatalf("kcat -L: %v\n%s", err, out)
		}
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		return
	}
	script := fmt.Sprintf("from kafka import KafkaConsumer\nc = KafkaConsumer(bootstrap_servers='%s', api_version_auto_timeout_ms=20000)\nprint(c.config['api_version'])\nc.close()\n", addr)
	out, err := exec.Command("/usr/bin/python3", "-c", script).CombinedOutput()
	if strings.Contains(string(out), "No module named 'kafka'") {
		t.Log("kafka-python is not installed: its version probe is not checked")
		return
	}
	if err != nil || !strings.Contains(string(out), "(0, 10, 2)") {
		t.Fatalf("kafka-python's version probe: %v\n%s", err, out)
	}
}
