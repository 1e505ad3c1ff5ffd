package consoleproducer

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/clientstest"
	"github.com/zkafka/zkafka/clients/producer"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func read(t *testing.T, in string, props map[string]string) ([]producer.ProducerRecord[[]byte, []byte], error) {
	t.Helper()
	r := NewLineMessageReader(strings.NewReader(in), "t", props)
	var out []producer.ProducerRecord[[]byte, []byte]
	for {
		rec, err := r.ReadMessage()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// Kafka's ConsoleProducerTest and LineMessageReader: lines, keys, separators, errors.
func TestLineMessageReader(t *testing.T) {
	recs, err := read(t, "a\r\nb\rc\n\nlast", nil)
	if err != nil || len(recs) != 5 || string(recs[0].Value) != "a" || string(recs[1].Value) != "b" || string(recs[2].Value) != "c" ||
		string(recs[3].Value) != "" || string(recs[4].Value) != "last" || recs[0].Key != nil {
		t.Fatalf("%v %v", recs, err)
	}
	recs, err = read(t, "k1\tv1\nk2\t\nk3\tv\t3\n", map[string]string{"parse.key": "true"})
	if err != nil || string(recs[0].Key) != "k1" || string(recs[0].Value) != "v1" || string(recs[1].Value) != "" || string(recs[2].Value) != "v\t3" {
		t.Fatalf("%v %v", recs, err)
	}
	recs, err = read(t, "k::v\n", map[string]string{"parse.key": " TRUE ", "key.separator": "::"})
	if err != nil || string(recs[0].Key) != "k" || string(recs[0].Value) != "v" {
		t.Fatalf("%v %v", recs, err)
	}
	if _, err := read(t, "ok\tv\nnokey\n", map[string]string{"parse.key": "true"}); err == nil || err.Error() != "No key found on line 2: nokey" {
		t.Fatalf("missing key: %v", err)
	}
	recs, err = read(t, "nokey\n", map[string]string{"parse.key": "true", "ignore.error": "true"})
	if err != nil || recs[0].Key != nil || string(recs[0].Value) != "nokey" {
		t.Fatalf("ignore.error: %v %v", recs, err)
	}
}

// The options map onto the producer's keys as in 0.10.2 (ConsoleProducerTest's
// testValidConfigsNewProducer), after --producer.config and --producer-property.
func TestNewProducerProps(t *testing.T) {
	file := filepath.Join(t.TempDir(), "producer.properties")
	os.WriteFile(file, []byte("linger.ms=99\nclient.id=file\nmax.request.size=5000\n"), 0o644) //nolint:errcheck
	cfg, err := ParseArgs([]string{"--broker-list", "localhost:1001,localhost:1002", "--topic", "t", "--compression-codec", "--sync",
		"--producer-property", "max.request.size=6000", "--producer-property", "acks=0", "--producer.config", file, "--request-required-acks", "all"})
	if err != nil {
		t.Fatal(err)
	}
	props, err := cfg.NewProducerProps()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"bootstrap.servers": "localhost:1001,localhost:1002", "compression.type": "gzip", "send.buffer.bytes": "102400",
		"retry.backoff.ms": "100", "metadata.max.age.ms": "300000", "max.block.ms": "60000", "acks": "all", "request.timeout.ms": "1500",
		"retries": "3", "linger.ms": "1000", "buffer.memory": "33554432", "batch.size": "16384", "client.id": "console-producer",
		"max.request.size": "6000", "producer.type": "sync",
		"key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer", "value.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer"}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args  []string
		first string
	}{
		{nil, "Read data from standard input and publish it to Kafka."},
		{[]string{"--topic", "t"}, `Missing required argument "[broker-list]"`},
		{[]string{"--topic", "t", "--broker-list", "nohost"}, "Please provide valid host:port like host1:9091,host2:9092"},
		{[]string{"--topic", "t", "--broker-list", "h:1", "--nope"}, "nope is not a recognized option"},
		{[]string{"--topic", "t", "--broker-list", "h:1", "--batch-size", "x"}, "Cannot parse argument 'x' of option batch-size"},
		{[]string{"--topic", "t", "--broker-list", "h:1", "--line-reader", "com.example.Reader"}, "java.lang.ClassNotFoundException: com.example.Reader"},
		{[]string{"--topic", "t", "--broker-list", "h:1", "--request-required-acks", "2"},
			"org.apache.kafka.common.config.ConfigException: Invalid value 2 for configuration acks: String must be one of: all, -1, 0, 1"},
		{[]string{"--topic", "t", "--broker-list", "h:1", "--compression-codec", "zstd"},
			"org.apache.kafka.common.KafkaException: Failed to construct kafka producer: Unknown compression name: zstd"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := RunWithInput(context.Background(), c.args, strings.NewReader(""), &out, &errOut)
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if code != 1 || first != c.first {
			t.Errorf("%v: exit %d, first line %q", c.args, code, first)
		}
	}
}

// Lines from stdin land in the topic in order, keyed with parse.key; a line without a key
// stops the tool (exit 1) after what came before was sent.
func TestConsoleProducerSends(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("test", 1)
	var out, errOut bytes.Buffer
	in := "k1\tThis is a message\nk2\tThis is another message\n\tno key\n"
	code := RunWithInput(context.Background(), []string{"--broker-list", c.Bootstrap(), "--topic", "test", "--property", "parse.key=true"},
		strings.NewReader(in), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	recs := c.Records("test", 0)
	if len(recs) != 3 || string(recs[0].Key) != "k1" || string(recs[0].Value) != "This is a message" || string(recs[2].Key) != "" || string(recs[2].Value) != "no key" {
		t.Fatalf("records %+v", recs)
	}
	code = RunWithInput(context.Background(), []string{"--broker-list", c.Bootstrap(), "--topic", "test", "--property", "parse.key=true", "--sync"},
		strings.NewReader("k3\tv3\nbroken\nk4\tv4\n"), &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "org.apache.kafka.common.KafkaException: No key found on line 2: broken") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if recs := c.Records("test", 0); len(recs) != 4 || string(recs[3].Value) != "v3" {
		t.Fatalf("after the bad line: %+v", recs)
	}
	// A record the broker cannot take in time is logged by the error-logging callback.
	errOut.Reset()
	code = RunWithInput(context.Background(), []string{"--broker-list", c.Bootstrap(), "--topic", "absent", "--max-block-ms", "200"},
		strings.NewReader("lost\n"), &out, &errOut)
	logLine := regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ERROR Error when sending message to topic absent with key: null, value: 4 bytes with error: \(org\.apache\.kafka\.clients\.producer\.internals\.ErrorLoggingCallback\)\norg\.apache\.kafka\.common\.errors\.TimeoutException: Failed to update metadata after 200 ms\.$`)
	if code != 0 || !logLine.MatchString(errOut.String()) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
	// SIGINT: the context ends, buffered records are sent, exit 130.
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- RunWithInput(ctx, []string{"--broker-list", c.Bootstrap(), "--topic", "test"}, pr, &out, io.Discard)
	}()
	pw.Write([]byte("before-interrupt\n")) //nolint:errcheck
	for len(c.Records("test", 0)) < 5 {
		select {
		case code := <-done:
			t.Fatalf("exited %d early", code)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if code := <-done; code != 130 {
		t.Fatalf("after interrupt: %d", code)
	}
	pw.Close()
}

// The options map onto the old producer's keys as in 0.10.2 (ConsoleProducerTest's
// testValidConfigsOldProducer and getOldProducerProps), after --producer.config and
// --producer-property, which they override.
func TestOldProducerProps(t *testing.T) {
	file := filepath.Join(t.TempDir(), "producer.properties")
	os.WriteFile(file, []byte("queue.buffering.max.ms=99\nclient.id=file\ncompressed.topics=a,b\n"), 0o644) //nolint:errcheck
	cfg, err := ParseArgs([]string{"--broker-list", "localhost:1001", "--topic", "t", "--old-producer", "--compression-codec", "snappy",
		"--queue-size", "500", "--batch-size", "50", "--timeout", "20", "--message-send-max-retries", "7", "--retry-backoff-ms", "30",
		"--request-required-acks", "-1", "--request-timeout-ms", "900", "--producer-property", "compressed.topics=t",
		"--producer-property", "retry.backoff.ms=1", "--producer.config", file})
	if err != nil {
		t.Fatal(err)
	}
	props, err := cfg.OldProducerProps()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"metadata.broker.list": "localhost:1001", "compression.codec": "snappy", "producer.type": "async",
		"batch.num.messages": "50", "message.send.max.retries": "7", "retry.backoff.ms": "30", "queue.buffering.max.ms": "20",
		"queue.buffering.max.messages": "500", "queue.enqueue.timeout.ms": "2147483647", "request.required.acks": "-1",
		"request.timeout.ms": "900", "key.serializer.class": "kafka.serializer.DefaultEncoder", "serializer.class": "kafka.serializer.DefaultEncoder",
		"send.buffer.bytes": "102400", "topic.metadata.refresh.interval.ms": "300000", "client.id": "console-producer",
		"compressed.topics": "t"}
	if len(props) != len(want) {
		t.Errorf("%d keys, want %d: %v", len(props), len(want), props)
	}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
	cfg, _ = ParseArgs([]string{"--broker-list", "localhost:1001", "--topic", "t", "--old-producer", "--sync"})
	if props, _ := cfg.OldProducerProps(); props["producer.type"] != "sync" || props["compression.codec"] != "none" {
		t.Errorf("--sync: %v", props)
	}
}

// The old producer's configuration errors end the tool as its exceptions do.
func TestOldProducerUsageErrors(t *testing.T) {
	cases := []struct {
		args  []string
		first string
	}{
		{[]string{"--request-required-acks", "2"}, "java.lang.IllegalArgumentException: requirement failed: request.required.acks has value 2 which is not in the range (-1,1)."},
		{[]string{"--batch-size", "20", "--queue-size", "10"}, "kafka.common.InvalidConfigException: Batch size = 20 can't be larger than queue size = 10"},
		{[]string{"--compression-codec", "zstd"}, "kafka.common.UnknownCodecException: zstd is an unknown compression codec"},
		{[]string{"--request-required-acks", "x"}, `java.lang.NumberFormatException: For input string: "x"`},
		{[]string{"--value-serializer", "kafka.serializer.StringEncoder"},
			"kafka.common.KafkaException: kafka.serializer.StringEncoder cannot encode byte arrays: the old producer of the tools takes kafka.serializer.DefaultEncoder only"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		args := append([]string{"--topic", "t", "--broker-list", "h:1", "--old-producer"}, c.args...)
		code := RunWithInput(context.Background(), args, strings.NewReader(""), &out, &errOut)
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if code != 1 || first != c.first {
			t.Errorf("%v: exit %d, first line %q", c.args, code, first)
		}
	}
}

// --old-producer: lines reach the topic through the Scala producer's path, queued for the send
// thread (async) and flushed at the end of input, or acknowledged one by one (--sync); a sync
// send the cluster cannot take stops the tool after message.send.max.retries.
func TestOldProducerSends(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("test", 1)
	var out, errOut bytes.Buffer
	in := "k1\tThis is a message\nk2\tThis is another message\n"
	code := RunWithInput(context.Background(), []string{"--broker-list", c.Bootstrap(), "--topic", "test", "--old-producer",
		"--property", "parse.key=true", "--timeout", "60000"}, strings.NewReader(in), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	recs := c.Records("test", 0)
	if len(recs) != 2 || string(recs[0].Key) != "k1" || string(recs[0].Value) != "This is a message" || string(recs[1].Key) != "k2" {
		t.Fatalf("records %+v", recs)
	}
	code = RunWithInput(context.Background(), []string{"--broker-list", c.Bootstrap(), "--topic", "test", "--old-producer", "--sync"},
		strings.NewReader("v3\nv4\n"), &out, &errOut)
	if recs := c.Records("test", 0); code != 0 || len(recs) != 4 || string(recs[3].Value) != "v4" || recs[3].Key != nil {
		t.Fatalf("exit %d, records %+v: %s", code, recs, errOut.String())
	}
	errOut.Reset()
	code = RunWithInput(context.Background(), []string{"--broker-list", c.Bootstrap(), "--topic", "absent", "--old-producer", "--sync",
		"--message-send-max-retries", "1", "--retry-backoff-ms", "1"}, strings.NewReader("lost\n"), &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "kafka.common.FailedToSendMessageException: Failed to send messages after 1 tries.") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
}
