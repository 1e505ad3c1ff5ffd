package replaylogproducer

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// readAll reads partitions of topic from the beginning until want messages came: key → value.
func readAll(t *testing.T, addr, topic string, partitions int32, want int) map[string]string {
	t.Helper()
	c, err := sarama.NewConsumer([]string{addr}, brokertest.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ch := make(chan *sarama.ConsumerMessage, want)
	for p := int32(0); p < partitions; p++ {
		pc, err := c.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		go func() {
			for m := range pc.Messages() {
				ch <- m
			}
		}()
	}
	got := map[string]string{}
	deadline := time.After(30 * time.Second)
	for n := 0; n < want; n++ {
		select {
		case m := <-ch:
			got[string(m.Key)] = string(m.Value)
		case <-deadline:
			t.Fatalf("%s: %d of %d messages", topic, n, want)
		}
	}
	return got
}

// TestReplaysTopic: 40 messages of a 2-partition topic are replayed to another topic of another
// cluster (two threads, --sync), keys and values kept; the tool deletes its group's znodes
// before it starts, so a second run with --messages 5 per thread replays from the beginning
// again.
func TestReplaysTopic(t *testing.T) {
	srcZk, dstZk := zktest.Chroot(t), zktest.Chroot(t)
	src := brokertest.Start(t, srcZk, 0, nil)
	dst := brokertest.Start(t, dstZk, 0, nil)
	src.CreateTopic(t, "in", 2, nil)
	dst.CreateTopic(t, "out", 1, nil)
	brokertest.Produce(t, []string{src.Addr}, "in", 2, 0, 40)
	if err := src.Zk.CreatePersistentPath("/consumers/"+GroupID+"/offsets/in/0", []byte("10")); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	start := time.Now()
	code := Run(context.Background(), []string{"--zookeeper", srcZk, "--broker-list", dst.Addr, "--inputtopic", "in", "--outputtopic", "out",
		"--threads", "2", "--sync"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got := readAll(t, dst.Addr, "out", 1, 40)
	for i := 0; i < 40; i++ {
		if k := "k" + itoa(i); got[k] != "v"+itoa(i) {
			t.Fatalf("%s = %q", k, got[k])
		}
	}
	// Each thread waits out consumer.timeout.ms (10 s) and says so at ERROR.
	if n := len(regexp.MustCompile(`(?m)^\[[^\]]+\] ERROR consumer thread timing out \(kafka\.tools\.ReplayLogProducer\$ZKConsumerThread\) kafka\.consumer\.ConsumerTimeoutException$`).
		FindAllString(errOut.String(), -1)); n != 2 || time.Since(start) < 10*time.Second {
		t.Fatalf("%d timeouts logged after %v:\n%s", n, time.Since(start), errOut.String())
	}

	errOut.Reset()
	code = Run(context.Background(), []string{"--zookeeper", srcZk, "--broker-list", dst.Addr, "--inputtopic", "in", "--outputtopic", "out",
		"--threads", "2", "--messages", "5"}, &out, &errOut)
	if code != 0 || strings.Contains(errOut.String(), "timing out") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got := readAll(t, dst.Addr, "out", 1, 50); len(got) != 40 {
		t.Fatalf("%d distinct keys after the second run", len(got))
	}
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--inputtopic", "a"}, `Missing required argument "[broker-list]"`},
		{[]string{"--broker-list", "h:1"}, `Missing required argument "[inputtopic]"`},
		{[]string{"--broker-list", "nohost", "--inputtopic", "a"}, "Please provide valid host:port like host1:9091,host2:9092"},
		{[]string{"--broker-list", "h:1", "--inputtopic", "a", "--threads", "x"}, "Cannot parse argument 'x' of option threads"},
	} {
		var out, errOut bytes.Buffer
		if code := Run(context.Background(), c.args, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut.String())
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
