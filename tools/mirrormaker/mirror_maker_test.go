package mirrormaker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// syncBuffer is a bytes.Buffer safe for the tool's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func writeProps(t *testing.T, name string, props map[string]string) string {
	t.Helper()
	var b strings.Builder
	for k, v := range props {
		fmt.Fprintf(&b, "%s=%s\n", k, v)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The command line is checked as 0.10.2's MirrorMaker.main checks it.
func TestUsageErrors(t *testing.T) {
	old := writeProps(t, "old.properties", map[string]string{"zookeeper.connect": "localhost:1", "group.id": "g"})
	both := writeProps(t, "both.properties", map[string]string{"zookeeper.connect": "localhost:1", "bootstrap.servers": "localhost:2"})
	newc := writeProps(t, "new.properties", map[string]string{"bootstrap.servers": "localhost:2", "group.id": "g"})
	prod := writeProps(t, "producer.properties", map[string]string{"bootstrap.servers": "localhost:3"})
	cases := []struct {
		args []string
		want string
	}{
		{nil, "Continuously copy data between two Kafka clusters."},
		{[]string{"--whitelist", "x"}, `Missing required argument "[consumer.config]"`},
		{[]string{"--consumer.config", old, "--whitelist", "x"}, `Missing required argument "[producer.config]"`},
		{[]string{"--consumer.config", old, "--producer.config", prod, "--whitelist", "x", "--new.consumer"},
			"ERROR The consumer configuration parameter `zookeeper.connect` is not valid when using --new.consumer (kafka.tools.MirrorMaker$)"},
		{[]string{"--consumer.config", both, "--producer.config", prod, "--whitelist", "x"},
			"ERROR The configuration parameters `zookeeper.connect` (old consumer) and `bootstrap.servers` (new consumer) cannot be used together."},
		{[]string{"--consumer.config", old, "--producer.config", prod, "--whitelist", "x", "--blacklist", "y"},
			"ERROR Exactly one of whitelist or blacklist is required."},
		{[]string{"--consumer.config", old, "--producer.config", prod}, "ERROR Exactly one of whitelist or blacklist is required."},
		{[]string{"--consumer.config", newc, "--producer.config", prod, "--blacklist", "y"},
			"ERROR blacklist can not be used when using new consumer in mirror maker. Use whitelist instead."},
		{[]string{"--consumer.config", newc, "--producer.config", prod}, "ERROR whitelist must be specified when using new consumer in mirror maker."},
		{[]string{"--consumer.config", newc, "--producer.config", prod, "--whitelist", "x", "--new.consumer"},
			"The new consumer (--new.consumer, or a --consumer.config without zookeeper.connect) is not supported by zkafka yet"},
		{[]string{"--consumer.config", old, "--producer.config", prod, "--whitelist", "x", "--abort.on.send.failure", "maybe"},
			"ERROR Exception when starting mirror maker. (kafka.tools.MirrorMaker$)\njava.lang.IllegalArgumentException: For input string: \"maybe\""},
		{[]string{"--consumer.config", old, "--producer.config", prod, "--whitelist", "x", "--message.handler", "com.example.Handler"},
			"java.lang.ClassNotFoundException: com.example.Handler (zkafka knows the registered names: zkafka.tools.mirrormaker.TopicRenameMessageHandler)"},
		{[]string{"--consumer.config", old, "--producer.config", prod, "--whitelist", "x", "--consumer.rebalance.listener", "com.example.L"},
			"java.lang.ClassNotFoundException: com.example.L"},
		{[]string{"--consumer.config", "/nonexistent", "--producer.config", prod, "--whitelist", "x"}, "java.io.FileNotFoundException"},
		{[]string{"--consumer.config", old, "--producer.config", prod, "--whitelist", "x", "--num.streams", "two"},
			"Cannot parse argument 'two' of option num.streams"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := RunWith(context.Background(), c.args, &out, &errOut, Deps{})
		if code != 1 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut.String(), c.want)
		}
	}
	var out, errOut bytes.Buffer
	if code := RunWith(context.Background(), []string{"--help"}, &out, &errOut, Deps{}); code != 0 || !strings.Contains(out.String(), "--offset.commit.interval.ms") {
		t.Errorf("--help: exit %d, %q", code, out.String())
	}
}

func TestDefaultAndRenameHandlers(t *testing.T) {
	rec := oldconsumer.BaseConsumerRecord{Topic: "a", Partition: 3, Offset: 7, Timestamp: -1, Key: []byte("k"), Value: []byte("v")}
	out := DefaultMirrorMakerMessageHandler.Handle(rec)
	if len(out) != 1 || out[0].Topic != "a" || out[0].Partition != nil || out[0].Timestamp != nil || string(out[0].Key) != "k" || string(out[0].Value) != "v" {
		t.Fatalf("default: %+v", out)
	}
	rec.Timestamp = 1234
	if out := DefaultMirrorMakerMessageHandler.Handle(rec); out[0].Timestamp == nil || *out[0].Timestamp != 1234 {
		t.Fatalf("timestamp: %+v", out)
	}
	args := "a:b, c:d"
	h, err := newMessageHandler(TopicRenameMessageHandlerName, &args)
	if err != nil {
		t.Fatal(err)
	}
	if out := h.Handle(rec); out[0].Topic != "b" {
		t.Fatalf("rename: %+v", out)
	}
	rec.Topic = "x"
	if out := h.Handle(rec); out[0].Topic != "x" {
		t.Fatalf("other topic: %+v", out)
	}
	bad := "nocolon"
	if _, err := newMessageHandler(TopicRenameMessageHandlerName, &bad); err == nil {
		t.Fatal("a rename without a colon must fail")
	}
}

// consumeAll reads partitions 0..n-1 of topic from the beginning until want messages came.
func consumeAll(t *testing.T, addr, topic string, partitions int32, want int) map[string][]int32 {
	t.Helper()
	c, err := sarama.NewConsumer([]string{addr}, brokertest.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	type msg struct {
		key string
		p   int32
	}
	ch := make(chan msg, want)
	for p := int32(0); p < partitions; p++ {
		pc, err := c.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		go func() {
			for m := range pc.Messages() {
				ch <- msg{string(m.Key), m.Partition}
			}
		}()
	}
	got := map[string][]int32{}
	n := 0
	deadline := time.After(60 * time.Second)
	for n < want {
		select {
		case m := <-ch:
			got[m.key] = append(got[m.key], m.p)
			n++
		case <-deadline:
			t.Fatalf("%s: %d of %d messages", topic, n, want)
		}
	}
	return got
}

// committed reads the group's offsets of topic from ZooKeeper (-1: none).
func committed(t *testing.T, b *brokertest.Broker, group, topic string, partitions int32) []int64 {
	t.Helper()
	out := make([]int64, partitions)
	for p := int32(0); p < partitions; p++ {
		data, _, exists, err := b.Zk.ReadDataMaybeNull(fmt.Sprintf("/consumers/%s/offsets/%s/%d", group, topic, p))
		out[p] = -1
		if err == nil && exists {
			out[p], _ = strconv.ParseInt(string(data), 10, 64)
		}
	}
	return out
}

// TestMirrorsBetweenClustersAndCommitsAfterFlush: two clusters on two ZooKeeper chroots; the
// mirror maker (two streams, old consumer, whitelist) copies 600 keyed messages of a 3-partition
// topic, and a renamed copy of a second topic through --message.handler; on shutdown (ctx ends,
// the shutdown hook) every thread flushes and commits, so the group's ZooKeeper offsets are the
// ends of the source partitions.
func TestMirrorsBetweenClustersAndCommitsAfterFlush(t *testing.T) {
	srcZk, dstZk := zktest.Chroot(t), zktest.Chroot(t)
	src := brokertest.Start(t, srcZk, 0, nil)
	dst := brokertest.Start(t, dstZk, 0, nil)
	src.CreateTopic(t, "mm", 3, nil)
	src.CreateTopic(t, "mm-other", 1, nil)
	dst.CreateTopic(t, "mm", 3, nil)
	dst.CreateTopic(t, "mm-renamed", 1, nil)
	brokertest.Produce(t, []string{src.Addr}, "mm", 3, 0, 600)
	brokertest.Produce(t, []string{src.Addr}, "mm-other", 1, 0, 50)

	consumerConfig := writeProps(t, "consumer.properties", map[string]string{"zookeeper.connect": srcZk, "group.id": "mirror",
		"auto.offset.reset": "smallest", "consumer.timeout.ms": "200", "rebalance.backoff.ms": "200"})
	producerConfig := writeProps(t, "producer.properties", map[string]string{"bootstrap.servers": dst.Addr, "linger.ms": "5"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mirror maker stderr:\n%s", errOut.String())
		}
	})
	done := make(chan int, 1)
	go func() {
		done <- RunWith(ctx, []string{"--consumer.config", consumerConfig, "--producer.config", producerConfig, "--whitelist", "mm,mm-other",
			"--num.streams", "2", "--offset.commit.interval.ms", "500", "--message.handler", TopicRenameMessageHandlerName,
			"--message.handler.args", "mm-other:mm-renamed"}, &out, &errOut, Deps{})
	}()
	got := consumeAll(t, dst.Addr, "mm", 3, 600)
	for i := 0; i < 600; i++ {
		ps := got[fmt.Sprintf("k%d", i)]
		if len(ps) == 0 {
			t.Fatalf("k%d not mirrored", i)
		}
	}
	if renamed := consumeAll(t, dst.Addr, "mm-renamed", 1, 50); len(renamed) != 50 {
		t.Fatalf("renamed topic holds %d keys", len(renamed))
	}
	// The periodic commit (500 ms) reaches the ends while the mirror maker runs.
	zktest.WaitUntilTrue(t, func() bool {
		c := committed(t, src, "mirror", "mm", 3)
		return c[0] == 200 && c[1] == 200 && c[2] == 200
	}, "periodic commit at the ends of mm", 30*time.Second)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the mirror maker did not shut down")
	}
	if c := committed(t, src, "mirror", "mm-other", 1); c[0] != 50 {
		t.Fatalf("mm-other committed at %v", c)
	}
	// The group's registration is gone with the connectors.
	if ids, err := src.Zk.GetChildren("/consumers/mirror/ids"); err != nil || len(ids) != 0 {
		t.Fatalf("ids left: %v %v", ids, err)
	}
}

// TestAbortOnSendFailure: a send that fails for good (the target topic does not exist, the
// producer's metadata wait is short) stops the mirror maker with 0.10.2's exit code (-1 → 255),
// without committing: the source offsets stay unset. With abort.on.send.failure=false the
// failure is logged, counted and skipped.
func TestAbortOnSendFailure(t *testing.T) {
	srcZk, dstZk := zktest.Chroot(t), zktest.Chroot(t)
	src := brokertest.Start(t, srcZk, 0, nil)
	dst := brokertest.Start(t, dstZk, 0, map[string]string{"auto.create.topics.enable": "false"})
	src.CreateTopic(t, "lost", 1, nil)
	brokertest.Produce(t, []string{src.Addr}, "lost", 1, 0, 5)
	consumerConfig := writeProps(t, "consumer.properties", map[string]string{"zookeeper.connect": srcZk, "group.id": "abort",
		"auto.offset.reset": "smallest", "consumer.timeout.ms": "200"})
	producerConfig := writeProps(t, "producer.properties", map[string]string{"bootstrap.servers": dst.Addr, "max.block.ms": "300"})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var out, errOut syncBuffer
	code := RunWith(ctx, []string{"--consumer.config", consumerConfig, "--producer.config", producerConfig, "--whitelist", "lost",
		"--offset.commit.interval.ms", "100"}, &out, &errOut, Deps{})
	if code != 255 || !strings.Contains(errOut.String(), "ERROR Error when sending message to topic lost with key: 2 bytes, value: 2 bytes with error:") ||
		!strings.Contains(errOut.String(), "org.apache.kafka.common.errors.TimeoutException: Failed to update metadata after 300 ms.") ||
		!strings.Contains(errOut.String(), "FATAL [mirrormaker-thread-0] Mirror maker thread exited abnormally, stopping the whole mirror maker.") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
	if c := committed(t, src, "abort", "lost", 1); c[0] != -1 {
		t.Fatalf("offsets committed after a failed send: %v", c)
	}

	// abort.on.send.failure=false: the records are dropped, counted, and the offsets move on.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var errOut2 syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- RunWith(ctx2, []string{"--consumer.config", consumerConfig, "--producer.config", producerConfig, "--whitelist", "lost",
			"--offset.commit.interval.ms", "100", "--abort.on.send.failure", "false"}, &out, &errOut2, Deps{})
	}()
	zktest.WaitUntilTrue(t, func() bool { return committed(t, src, "abort", "lost", 1)[0] == 5 }, "offsets past the dropped records", 60*time.Second)
	cancel2()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errOut2.String())
	}
	if n := strings.Count(errOut2.String(), "Error when sending message to topic lost"); n != 5 {
		t.Fatalf("%d send errors logged, want 5:\n%s", n, errOut2.String())
	}
}
