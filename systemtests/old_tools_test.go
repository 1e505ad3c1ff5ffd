package systemtests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOldToolsQuickstartThroughScripts replays the 0.10.2 quick start with the old tools, through
// bin/*.sh and the zkafka binary: create a topic, produce with the old producer (
// kafka-console-producer.sh --old-producer, keyed), read it back with kafka-console-consumer.sh
// --zookeeper, then two console consumers in one group share the partitions while
// kafka-consumer-groups.sh --zookeeper and kafka-consumer-offset-checker.sh show the live owners;
// VerifyConsumerRebalance finds every partition owned; SIGTERM stops them as Kafka's shutdown hook
// does; kafka-replay-log-producer copies the topic; UpdateOffsetsInZK and ExportZkOffsets run
// through kafka-run-class.sh.
func TestOldToolsQuickstartThroughScripts(t *testing.T) {
	c := newCluster(t, ClusterConfig{Brokers: 1})
	s := scripts{t: t, dir: scriptsDir(t), zk: c.ZkConnect()}
	ctx := within(t, 3*time.Minute)
	s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--create", "--topic", "test", "--partitions", "2", "--replication-factor", "1")
	if err := c.WaitServing(ctx, "test", 2); err != nil {
		t.Fatal(err)
	}
	// kafka-console-producer.sh --old-producer: the async Scala producer, flushed at end of input.
	var input strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&input, "key%d\tThis is message %d\n", i, i)
	}
	prod := exec.CommandContext(ctx, filepath.Join(s.dir, "kafka-console-producer.sh"), "--old-producer", "--broker-list",
		strings.Join(c.BootstrapServers(), ","), "--topic", "test", "--property", "parse.key=true", "--request-required-acks", "1")
	prod.Stdin = strings.NewReader(input.String())
	if out, err := prod.CombinedOutput(); err != nil {
		t.Fatalf("console producer --old-producer: %v\n%s", err, out)
	}

	cmd := exec.CommandContext(ctx, filepath.Join(s.dir, "kafka-console-consumer.sh"), "--zookeeper", s.zk, "--topic", "test",
		"--from-beginning", "--max-messages", "10", "--consumer-property", "group.id=quick", "--property", "print.key=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("console consumer: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	sort.Strings(lines)
	if len(lines) != 10 || lines[0] != "key0\tThis is message 0" || lines[9] != "key9\tThis is message 9" {
		t.Fatalf("console consumer printed %q", stdout.String())
	}
	if !strings.HasSuffix(stderr.String(), "Processed a total of 10 messages\n") {
		t.Fatalf("stderr %q", stderr.String())
	}
	// The group committed its offsets at shutdown (auto commit): 10 in total, no owner now.
	out := s.run(ctx, "kafka-consumer-groups.sh", "--zookeeper", s.zk, "--describe", "--group", "quick")
	if !regexp.MustCompile(`(?m)^test\s+0\s+(\d+)\s+(\d+)\s+0\s+-`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^test\s+1\s+(\d+)\s+(\d+)\s+0\s+-`).MatchString(out) {
		t.Fatalf("describe after the run:\n%s", out)
	}

	// Two console consumers in one group split the two partitions while they run.
	var procs []*exec.Cmd
	var errs []*bytes.Buffer
	for i := 0; i < 2; i++ {
		cmd := exec.Command(filepath.Join(s.dir, "kafka-console-consumer.sh"), "--zookeeper", s.zk, "--topic", "test",
			"--consumer-property", "group.id=live", "--consumer-property", "rebalance.backoff.ms=500",
			"--consumer-property", "auto.commit.interval.ms=200")
		var e bytes.Buffer
		cmd.Stderr = &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		procs, errs = append(procs, cmd), append(errs, &e)
	}
	zk, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(within(t, 60*time.Second), func() string { return "two live members own one partition each" }, func() bool {
		o, _ := owners(zk, "live", "test", 2)
		return len(o) == 2 && o[0] != o[1]
	}); err != nil {
		t.Fatal(err)
	}
	out = s.run(ctx, "kafka-consumer-groups.sh", "--zookeeper", s.zk, "--describe", "--group", "live")
	ids := regexp.MustCompile(`(?m)^test\s+[01]\s+\S+\s+\S+\s+\S+\s+(live_\S+)`).FindAllStringSubmatch(out, -1)
	if len(ids) != 2 || ids[0][1] == ids[1][1] {
		t.Fatalf("describe must show both live owners:\n%s", out)
	}
	// The checker, as 0.10.2's, exits on a group with no offsets directory: the members commit
	// the offsets they reset to on the short auto-commit interval set above.
	if err := WaitFor(within(t, 60*time.Second), func() string { return "the live group's offsets in ZooKeeper" }, func() bool {
		for _, p := range []string{"/consumers/live/offsets/test/0", "/consumers/live/offsets/test/1"} {
			if ok, err := zk.PathExists(p); err != nil || !ok {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	out = s.run(ctx, "kafka-run-class.sh", "kafka.tools.VerifyConsumerRebalance", "--zookeeper.connect", s.zk, "--group", "live")
	if out != "Rebalance operation successful !\n" {
		t.Fatalf("VerifyConsumerRebalance: %q", out)
	}
	out = s.run(ctx, "kafka-consumer-offset-checker.sh", "--zookeeper", s.zk, "--group", "live", "--topic", "test")
	if n := len(regexp.MustCompile(`(?m)^live\s+test\s+[01]\s+\S+\s+\d+\s+\S+\s+live_\S+-0$`).FindAllString(out, -1)); n != 2 {
		t.Fatalf("offset checker must show both owners:\n%s", out)
	}
	for i, cmd := range procs {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Fatalf("a SIGTERMed console consumer exits %v, want 143", err)
		}
		if !strings.Contains(errs[i].String(), "Processed a total of 0 messages") {
			t.Fatalf("stderr %q", errs[i].String())
		}
	}
	// kafka-replay-log-producer copies the topic (5 messages) into another with the old consumer.
	s.run(ctx, "kafka-topics.sh", "--zookeeper", s.zk, "--create", "--topic", "replayed", "--partitions", "1", "--replication-factor", "1")
	if err := c.WaitServing(ctx, "replayed", 1); err != nil {
		t.Fatal(err)
	}
	s.run(ctx, "kafka-replay-log-producer.sh", "--zookeeper", s.zk, "--broker-list", strings.Join(c.BootstrapServers(), ","),
		"--inputtopic", "test", "--outputtopic", "replayed", "--messages", "5", "--sync")
	out = s.run(ctx, "kafka-run-class.sh", "kafka.tools.GetOffsetShell", "--broker-list", strings.Join(c.BootstrapServers(), ","),
		"--topic", "replayed", "--time", "-1")
	if out != "replayed:0:5\n" {
		t.Fatalf("replayed: %q", out)
	}
	// UpdateOffsetsInZK moves the finished group "quick" back to the beginning.
	props := s.file("quick.properties", "zookeeper.connect="+s.zk+"\ngroup.id=quick\n")
	out = s.run(ctx, "kafka-run-class.sh", "kafka.tools.UpdateOffsetsInZK", "earliest", props, "test")
	if !strings.HasSuffix(out, "updated the offset for 2 partitions\n") {
		t.Fatalf("UpdateOffsetsInZK: %q", out)
	}
	file := filepath.Join(t.TempDir(), "offsets")
	s.run(ctx, "kafka-run-class.sh", "kafka.tools.ExportZkOffsets", "--zkconnect", s.zk, "--group", "quick", "--output-file", file)
	data, err := os.ReadFile(file)
	if err != nil || !regexp.MustCompile(`^(/consumers/quick/offsets/test/[01]:0\n){2}$`).Match(data) {
		t.Fatalf("exported %q %v", data, err)
	}
}
