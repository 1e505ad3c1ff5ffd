package perf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/clientstest"
	"github.com/zkafka/zkafka/clients/metrics"
)

// The payload is java.util.Random(0)'s, as in Kafka's tool (checked with Java 17).
func TestJavaRandom(t *testing.T) {
	r := newJavaRandom(0)
	var b strings.Builder
	for i := 0; i < 20; i++ {
		b.WriteByte(byte(r.nextInt(26) + 65))
	}
	if b.String() != "SSXVNJHPDQDXVCRASTVY" {
		t.Fatalf("payload %q", b.String())
	}
	r = newJavaRandom(0)
	if a, b, c := r.nextInt(7), r.nextInt(1000), r.nextInt(16); a != 5 || b != 948 || c != 3 {
		t.Fatalf("nextInt: %d %d %d", a, b, c)
	}
}

// A run within one millisecond divides by zero and prints Java's Infinity, as Kafka's does.
var totalLine = regexp.MustCompile(`^(\d+) records sent, (\d+\.\d{6}|Infinity) records/sec \((\d+\.\d{2}|Infinity) MB/sec\), \d+\.\d{2} ms avg latency, \d+\.\d{2} ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99.9th\.$`)

func TestProducerPerformance(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("perf", 1)
	var out, errOut bytes.Buffer
	code := RunProducerPerformance(context.Background(), []string{"--topic", "perf", "--num-records", "300", "--record-size", "20", "--throughput", "-1",
		"--producer-props", "bootstrap.servers=" + c.Bootstrap(), "acks=1", "--print-metrics"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if m := totalLine.FindStringSubmatch(lines[0]); m == nil || m[1] != "300" {
		t.Fatalf("final line %q", lines[0])
	}
	if !strings.Contains(out.String(), "Metric Name") || !regexp.MustCompile(`(?m)^producer-metrics:record-send-rate:\{client-id=producer-\d+\} +: \d+\.\d{3}$`).MatchString(out.String()) {
		t.Fatalf("metrics:\n%s", out.String())
	}
	recs := c.Records("perf", 0)
	if len(recs) != 300 || string(recs[0].Value) != "SSXVNJHPDQDXVCRASTVY" || recs[0].Key != nil {
		t.Fatalf("%d records, first %q", len(recs), recs[0].Value)
	}
	// --payload-file: payloads split on the delimiter, picked at random.
	file := filepath.Join(t.TempDir(), "payloads")
	os.WriteFile(file, []byte("alpha|beta|gamma|"), 0o644) //nolint:errcheck
	out.Reset()
	code = RunProducerPerformance(context.Background(), []string{"--topic", "perf", "--num-records", "30", "--payload-file", file, "--payload-delimiter", `\|`, "--throughput", "1000",
		"--producer-props", "bootstrap.servers=" + c.Bootstrap()}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "Number of messages read: 3") || !strings.Contains(out.String(), "Reading payloads from: "+file) {
		t.Fatalf("payload file: %d %s %s", code, out.String(), errOut.String())
	}
	for _, r := range c.Records("perf", 0)[300:] {
		if v := string(r.Value); v != "alpha" && v != "beta" && v != "gamma" {
			t.Fatalf("payload %q", v)
		}
	}
}

func TestProducerPerformanceUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "1"}, 1,
			"producer-performance: error: Either --producer-props or --producer.config must be specified.\n"},
		{[]string{"--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "1", "--producer-props", "a=b=c"}, 1,
			"Exception in thread \"main\" java.lang.IllegalArgumentException: Invalid property: a=b=c\n"},
		{[]string{"--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "1", "--producer-props", "bootstrap.servers=h:1", "batch.size=x"}, 1,
			"Exception in thread \"main\" org.apache.kafka.common.config.ConfigException: Invalid value x for configuration batch.size: Not a number of type INT\n"},
		{[]string{"--topic", "t", "--num-records", "1", "--payload-file", "/nonexistent", "--throughput", "1", "--producer-props", "a=b"}, 1,
			"Exception in thread \"main\" java.lang.IllegalArgumentException: File does not exist or empty file provided.\n"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		if code := RunProducerPerformance(context.Background(), c.args, &out, &errOut); code != c.code || !strings.HasSuffix(errOut.String(), c.err) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := RunProducerPerformance(context.Background(), nil, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "usage: producer-performance") {
		t.Fatalf("no arguments: %d %q", code, out.String())
	}
	PrintMetrics(&out, nil)
	m := metrics.NewMetrics(nil, nil, nil, nil)
	out.Reset()
	PrintMetrics(&out, m.Metrics())
	if out.String() != "\nMetric Name                    Value\nkafka-metrics-count:count:{} : 1.000\n" {
		t.Fatalf("%q", out.String())
	}
}
