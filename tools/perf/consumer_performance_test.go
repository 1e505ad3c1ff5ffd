package perf

import (
	"bytes"
	"context"
	"os"
	"regexp"
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

// TestConsumerPerformanceOldConsumer: --zookeeper reads the topic with the old consumer (two
// streams) and prints one line of totals: 30 messages of 2 or 3 bytes ("v0".."v29").
func TestConsumerPerformanceOldConsumer(t *testing.T) {
	connect := zktest.Chroot(t)
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, "perf", 2, nil)
	brokertest.Produce(t, []string{b.Addr}, "perf", 2, 0, 30)
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := RunConsumerPerformance(ctx, []string{"--zookeeper", connect, "--topic", "perf", "--messages", "15", "--threads", "2"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	// 30 messages: v0..v9 are 2 bytes, v10..v29 3 bytes: 80 bytes.
	if len(lines) != 2 || lines[0] != "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec" ||
		!regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, 0\.0001, ([0-9.]+|Infinity), 30, ([0-9.]+|Infinity)$`).MatchString(lines[1]) {
		t.Fatalf("output %q", out.String())
	}
}

func TestConsumerPerformanceOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topic", "t"}, `Missing required argument "[messages]"`},
		{[]string{"--topic", "t", "--messages", "1"}, `Missing required argument "[broker-list]"`},
		{[]string{"--topic", "t", "--messages", "1", "--broker-list", "b:9092"}, "not supported by zkafka yet"},
		{[]string{"--topic", "t", "--messages", "1", "--zookeeper", "z", "--new-consumer"}, "Option [new-consumer] is not valid with [zookeeper]."},
		{[]string{"--topic", "t", "--messages", "1", "--zookeeper", "z", "--reporting-interval", "0"}, "Reporting interval must be greater than 0."},
	} {
		var out, errOut bytes.Buffer
		if code := RunConsumerPerformance(context.Background(), tc.args, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d stderr %q", tc.args, code, errOut.String())
		}
	}
	df, err := newSimpleDateFormat("yyyy-MM-dd HH:mm:ss:SSS 'at' EEE")
	if err != nil {
		t.Fatal(err)
	}
	if got := df.format(time.Date(2017, 3, 1, 9, 5, 7, 42e6, time.Local)); got != "2017-03-01 09:05:07:042 at Wed" {
		t.Fatalf("date %q", got)
	}
}

// TestConsumerPerformanceNewConsumer: --broker-list (the new consumer, the default) reads the
// whole topic through a group and prints the totals line.
func TestConsumerPerformanceNewConsumer(t *testing.T) {
	connect := zktest.Chroot(t)
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, "perfnew", 2, nil)
	brokertest.Produce(t, []string{b.Addr}, "perfnew", 2, 0, 30)
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := RunConsumerPerformanceWith(ctx, []string{"--broker-list", b.Addr, "--topic", "perfnew", "--messages", "30", "--new-consumer"}, &out, &errOut,
		Deps{NewConsumer: NewConsumerConsume})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec" ||
		!regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, 0\.0002, ([0-9.]+|Infinity), 30, ([0-9.]+|Infinity)$`).MatchString(lines[1]) {
		t.Fatalf("output %q", out.String())
	}
}

// TestEndToEndLatency: kafka.tools.EndToEndLatency's output: a progress line every 1000
// messages, the average and the percentiles.
func TestEndToEndLatency(t *testing.T) {
	connect := zktest.Chroot(t)
	b := brokertest.Start(t, connect, 0, nil)
	b.CreateTopic(t, "e2e", 1, nil)
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if code := EndToEndLatency(ctx, []string{b.Addr, "e2e", "1500", "1", "100"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !regexp.MustCompile(`^0\t[0-9.]+(E-?\d+)?\n1000\t[0-9.]+(E-?\d+)?\nAvg latency: \d+\.\d{4} ms\n\nPercentiles: 50th = \d+, 99th = \d+, 99\.9th = \d+\n$`).MatchString(out.String()) {
		t.Fatalf("output %q", out.String())
	}
	t.Logf("%s", out.String())
	var e bytes.Buffer
	if code := EndToEndLatency(ctx, []string{b.Addr, "e2e", "10", "0", "100"}, &out, &e); code != 1 ||
		e.String() != "Exception in thread \"main\" java.lang.IllegalArgumentException: Latency testing requires synchronous acknowledgement. Please use 1 or all\n" {
		t.Fatalf("acks 0: %d %q", code, e.String())
	}
}
