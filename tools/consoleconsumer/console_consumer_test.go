package consoleconsumer

import (
	"bytes"
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// startBroker runs broker 0 on the chroot connect with topic (partitions) holding n messages
// "v<i>" keyed "k<i>" (partition i % partitions), produced by sarama.
func startBroker(t *testing.T, connect, topic string, partitions int32, n int) string {
	t.Helper()
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, topic, partitions, nil)
	brokertest.Produce(t, []string{b.Addr}, topic, partitions, 0, n)
	return b.Addr
}

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := RunWith(ctx, args, &out, &errOut, Deps{})
	return out.String(), errOut.String(), code
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	sort.Strings(lines)
	return lines
}

// TestOldConsumerFromBeginning: --zookeeper --from-beginning --max-messages reads every message
// (key and value with print.key), says how many on stderr with the deprecation note, and
// removes the random group it made.
func TestOldConsumerFromBeginning(t *testing.T) {
	connect := zktest.Chroot(t)
	startBroker(t, connect, "cc", 2, 6)
	out, errOut, code := run(t, "--zookeeper", connect, "--topic", "cc", "--from-beginning", "--max-messages", "6",
		"--property", "print.key=true", "--property", "key.separator=:")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := []string{"k0:v0", "k1:v1", "k2:v2", "k3:v3", "k4:v4", "k5:v5"}
	if got := sortedLines(out); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("stdout %q", out)
	}
	if !strings.HasSuffix(errOut, "Processed a total of 6 messages\n") ||
		!strings.Contains(errOut, "Using the ConsoleConsumer with old consumer is deprecated and will be removed in a future major release. "+
			"Consider using the new consumer by passing [bootstrap-server] instead of [zookeeper].") {
		t.Fatalf("stderr %q", errOut)
	}
	z := zktest.Conn(t, connect)
	_, chroot := zktest.SplitConnect(connect)
	groups, _, _ := z.Children(chroot + "/consumers")
	if len(groups) != 0 {
		t.Fatalf("the random console-consumer group must be deleted: %v", groups)
	}
}

// TestOldConsumerTimeoutAndGroupOffsets: a named group keeps its offsets; --timeout-ms ends an
// idle consumer with Kafka's error line; a second run of the group resumes (reads nothing);
// --from-beginning over existing offsets is refused unless --delete-consumer-offsets.
func TestOldConsumerTimeoutAndGroupOffsets(t *testing.T) {
	connect := zktest.Chroot(t)
	startBroker(t, connect, "ct", 1, 3)
	file := t.TempDir() + "/consumer.properties"
	if err := os.WriteFile(file, []byte("group.id=named\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--zookeeper", connect, "--topic", "ct", "--consumer.config", file, "--timeout-ms", "1500",
		"--consumer-property", "auto.commit.interval.ms=100"}
	out, errOut, code := run(t, append(args, "--from-beginning")...)
	if code != 0 || out != "v0\nv1\nv2\n" {
		t.Fatalf("exit %d out %q err %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "ERROR Error processing message, terminating consumer process:  (kafka.tools.ConsoleConsumer$) kafka.consumer.ConsumerTimeoutException") ||
		!strings.Contains(errOut, "Processed a total of 3 messages") {
		t.Fatalf("stderr %q", errOut)
	}
	// The group's offsets are committed at shutdown (auto commit on), so --from-beginning is
	// refused as in 0.10.2, and a plain run reads nothing new.
	if _, errOut, code := run(t, append(args, "--from-beginning")...); code != 1 ||
		!strings.Contains(errOut, "Found previous offset information for this group named. Please use --delete-consumer-offsets to delete previous offsets metadata") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if out, errOut, code := run(t, args...); code != 0 || out != "" || !strings.Contains(errOut, "Processed a total of 0 messages") {
		t.Fatalf("resume: exit %d out %q err %q", code, out, errOut)
	}
	if out, _, code := run(t, append(args, "--from-beginning", "--delete-consumer-offsets")...); code != 0 || out != "v0\nv1\nv2\n" {
		t.Fatalf("after deleting offsets: exit %d out %q", code, out)
	}
}

// TestOldConsumerWhitelistAndFormatters: a whitelist over two topics, the checksum formatter
// and print.timestamp.
func TestOldConsumerWhitelistAndFormatters(t *testing.T) {
	connect := zktest.Chroot(t)
	startBroker(t, connect, "wa", 1, 2)
	out, errOut, code := run(t, "--zookeeper", connect, "--whitelist", "w.*", "--from-beginning", "--max-messages", "2",
		"--property", "print.timestamp=true")
	if code != 0 || !strings.HasPrefix(out, "CreateTime:") || strings.Count(out, "\n") != 2 {
		t.Fatalf("exit %d out %q err %q", code, out, errOut)
	}
	out, _, code = run(t, "--zookeeper", connect, "--topic", "wa", "--from-beginning", "--max-messages", "1",
		"--formatter", "kafka.tools.ChecksumMessageFormatter", "--property", "topic=wa")
	if code != 0 || !strings.HasPrefix(out, "wa:checksum:") {
		t.Fatalf("checksum formatter: %q", out)
	}
}

// TestOptionErrors: Kafka's messages for bad combinations, and the new consumer answering that
// it is not supported yet.
func TestOptionErrors(t *testing.T) {
	empty := zktest.Chroot(t) // a ZooKeeper without brokers
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "The console consumer is a tool that reads data from Kafka and outputs it to standard output."},
		{[]string{"--zookeeper", "x", "--topic", "a", "--whitelist", "b"}, "Exactly one of whitelist/blacklist/topic is required."},
		{[]string{"--zookeeper", "x", "--topic", "a", "--bootstrap-server", "b"}, "Option [bootstrap-server] is not valid with [zookeeper]."},
		{[]string{"--zookeeper", "x", "--topic", "a", "--new-consumer"}, "Option [new-consumer] is not valid with [zookeeper]."},
		{[]string{"--zookeeper", "x", "--topic", "a", "--partition", "0"}, "Partition-offset based consumption is supported in the new consumer only."},
		{[]string{"--topic", "a"}, `Missing required argument "[bootstrap-server]"`},
		{[]string{"--bootstrap-server", "b:9092", "--topic", "a", "--offset", "x", "--partition", "0"}, "The provided offset value 'x' is incorrect."},
		{[]string{"--bootstrap-server", "b:9092", "--topic", "a"}, "not supported by zkafka yet"},
		{[]string{"--zookeeper", "x", "--topic", "a", "--formatter", "com.example.Nope"}, "java.lang.ClassNotFoundException: com.example.Nope"},
		{[]string{"--zookeeper", empty, "--topic", "a"}, "No brokers found in ZK."},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}
