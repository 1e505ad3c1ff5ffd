package systemtests

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 14 acceptance: Kafka 0.10.2's quickstart (docs/quickstart.html), steps 1-4, with the
// repository's config/*.properties and bin/*.sh scripts as a user runs them after `make build`
// (`make run` starts steps 2's two servers the same way), on free ports instead of 2181/9092;
// what the console producer sent is read back with kcat.

// scriptProcess starts bin/<script> args... in its own process group, killed with the test.
func scriptProcess(t *testing.T, s scripts, log string, script string, args ...string) *exec.Cmd {
	t.Helper()
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(s.dir, script), args...)
	cmd.Dir = filepath.Dir(s.dir)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		out.Close()
		if t.Failed() {
			data, _ := os.ReadFile(log)
			t.Logf("%s output:\n%s", script, lastLines(string(data), 30))
		}
	})
	return cmd
}

// configFrom writes the repository's config/<name> with the keys in set replaced (or added).
func configFrom(t *testing.T, dst, name string, set map[string]string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "config", name))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	done := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if k, _, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			if v, ok := set[k]; ok {
				line = k + "=" + v
				done[k] = true
			}
		}
		out.WriteString(line + "\n")
	}
	for k, v := range set {
		if !done[k] {
			out.WriteString(k + "=" + v + "\n")
		}
	}
	path := filepath.Join(dst, name)
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func waitListening(ctx context.Context, addr string) error {
	return WaitFor(ctx, func() string { return addr + " does not accept connections" }, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

func TestQuickstart(t *testing.T) {
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java not found (ZooKeeper)")
	}
	if !KcatAvailable() {
		t.Skip("kcat not installed")
	}
	ctx := within(t, 3*time.Minute)
	s := scripts{t: t, dir: scriptsDir(t)}
	work := filepath.Dir(s.dir)
	zkPort, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	kPort, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	zk := fmt.Sprintf("localhost:%d", zkPort)
	broker := fmt.Sprintf("localhost:%d", kPort)
	s.zk = zk

	// Step 2: start the server.
	zkProps := configFrom(t, work, "zookeeper.properties", map[string]string{"dataDir": filepath.Join(work, "zookeeper"), "clientPort": fmt.Sprint(zkPort)})
	scriptProcess(t, s, filepath.Join(work, "zookeeper.out"), "zookeeper-server-start.sh", zkProps)
	if err := waitListening(ctx, zk); err != nil {
		t.Fatal(err)
	}
	serverProps := configFrom(t, work, "server.properties", map[string]string{"log.dirs": filepath.Join(work, "kafka-logs"),
		"zookeeper.connect": zk, "listeners": "PLAINTEXT://127.0.0.1:" + fmt.Sprint(kPort)})
	kafkaOut := filepath.Join(work, "kafka.out")
	scriptProcess(t, s, kafkaOut, "kafka-server-start.sh", serverProps)
	started := regexp.MustCompile(`\[Kafka Server 0\], started`)
	if err := WaitFor(ctx, func() string { return "the broker did not log that it started" }, func() bool {
		data, _ := os.ReadFile(kafkaOut)
		return started.Match(data)
	}); err != nil {
		t.Fatal(err)
	}

	// Step 3: create a topic.
	out := s.run(ctx, "kafka-topics.sh", "--create", "--zookeeper", zk, "--replication-factor", "1", "--partitions", "1", "--topic", "test")
	if !strings.Contains(out, `Created topic "test".`) {
		t.Fatalf("--create printed %q", out)
	}
	if out := s.run(ctx, "kafka-topics.sh", "--list", "--zookeeper", zk); strings.TrimSpace(out) != "test" {
		t.Fatalf("--list printed %q", out)
	}

	// Step 4: send some messages, typed on stdin; then keyed ones (parse.key).
	console := func(stdin string, args ...string) {
		t.Helper()
		args = append([]string{"--broker-list", broker, "--topic", "test"}, args...)
		cmd := exec.CommandContext(ctx, filepath.Join(s.dir, "kafka-console-producer.sh"), args...)
		cmd.Stdin = strings.NewReader(stdin)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("kafka-console-producer.sh %v: %v\n%s", args, err, errOut.String())
		}
		if errOut.Len() > 0 {
			t.Fatalf("kafka-console-producer.sh wrote to stderr:\n%s", errOut.String())
		}
	}
	console("This is a message\nThis is another message\n")
	console("user1:first keyed message\nuser2:second keyed: message\n", "--property", "parse.key=true", "--property", "key.separator=:")

	// The messages, as kcat reads them.
	var got []ConsumedMessage
	if err := KcatConsume(ctx, broker, "test", 0, 4, func(m ConsumedMessage) error { got = append(got, m); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []struct{ key, value string }{{"", "This is a message"}, {"", "This is another message"},
		{"user1", "first keyed message"}, {"user2", "second keyed: message"}}
	if len(got) != len(want) {
		t.Fatalf("kcat read %d messages: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].Offset != int64(i) || string(got[i].Key) != w.key || string(got[i].Value) != w.value {
			t.Errorf("message %d: offset %d key %q value %q, want key %q value %q", i, got[i].Offset, got[i].Key, got[i].Value, w.key, w.value)
		}
	}

	// Step 5 (issue 15): start a consumer (the new consumer, --bootstrap-server), from the beginning, keys
	// printed; its group comes from --consumer-property group.id, and a second run in that group
	// starts from the offsets the first committed.
	consume := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, filepath.Join(s.dir, "kafka-console-consumer.sh"), append([]string{"--bootstrap-server", broker, "--topic", "test"}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kafka-console-consumer.sh %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	stdout, stderr := consume("--from-beginning", "--max-messages", "4", "--property", "print.key=true")
	if want := "null\tThis is a message\nnull\tThis is another message\nuser1\tfirst keyed message\nuser2\tsecond keyed: message\n"; stdout != want {
		t.Fatalf("console consumer printed %q, want %q (stderr %s)", stdout, want, stderr)
	}
	if !strings.Contains(stderr, "Processed a total of 4 messages") {
		t.Fatalf("console consumer stderr: %q", stderr)
	}
	// (max.poll.records=2: the consumer commits the position of every record poll returned.)
	stdout, _ = consume("--from-beginning", "--max-messages", "2", "--consumer-property", "group.id=qs", "--consumer-property", "max.poll.records=2")
	if stdout != "This is a message\nThis is another message\n" {
		t.Fatalf("group qs first run printed %q", stdout)
	}
	stdout, _ = consume("--max-messages", "2", "--consumer-property", "group.id=qs")
	if stdout != "first keyed message\nsecond keyed: message\n" {
		t.Fatalf("group qs second run printed %q", stdout)
	}
}
