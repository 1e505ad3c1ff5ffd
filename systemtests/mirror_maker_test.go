package systemtests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// Issue 16's MirrorMaker acceptance: kafka-mirror-maker (the zkafka binary, old consumer, two
// streams) copies 100,000 keyed messages from one two-broker cluster to another, each cluster
// under its own ZooKeeper chroot, while a source broker and then a target broker are SIGKILLed
// (and restarted), and then the mirror maker itself is SIGKILLed and started again. Every message
// the source acknowledged (acks=all, replication factor 2) must be
// in the target (duplicates allowed and counted), and in the partition of the same number: both
// topics have four partitions and both producers partition keys with murmur2.

// mmAcked is what the source producer's callbacks saw: the partition of each acknowledged key.
type mmAcked struct {
	mu        sync.Mutex
	partition map[string]int32
	errs      int
}

func (a *mmAcked) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.partition)
}

// mmProduce sends n keyed messages (MessageFor) to topic with a zkafka KafkaProducer and the
// default partitioner, at about rate per second, recording each acknowledgement.
func mmProduce(ctx context.Context, addrs []string, topic string, n, rate int, acked *mmAcked) error {
	l := logrus.New()
	l.SetOutput(io.Discard)
	p, err := producer.NewKafkaProducerWith[[]byte, []byte](map[string]string{"bootstrap.servers": strings.Join(addrs, ","),
		"acks": "all", "retries": "1000", "retry.backoff.ms": "250", "max.in.flight.requests.per.connection": "1", "linger.ms": "5",
		"metadata.max.age.ms": "5000", "reconnect.backoff.ms": "100"},
		serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{}, producer.ProducerOptions[[]byte, []byte]{Log: logrus.NewEntry(l)})
	if err != nil {
		return err
	}
	defer p.Close(2 * time.Minute) //nolint:errcheck
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	perTick := max(rate/100, 1)
	for i := 0; i < n; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		for j := 0; j < perTick && i < n; j, i = j+1, i+1 {
			k, v := MessageFor(i, 100)
			key := string(k)
			if _, err := p.Send(producer.NewProducerRecord(topic, k, v), func(md *producer.RecordMetadata, err error) {
				acked.mu.Lock()
				defer acked.mu.Unlock()
				if err != nil {
					acked.errs++
					return
				}
				acked.partition[key] = md.Partition
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// logEndOffsets sums the newest offsets of the topic's partitions.
func logEndOffsets(addrs []string, topic string, partitions int32) int64 {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	c, err := sarama.NewClient(addrs, cfg)
	if err != nil {
		return -1
	}
	defer c.Close()
	var sum int64
	for p := int32(0); p < partitions; p++ {
		o, err := c.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			return -1
		}
		sum += o
	}
	return sum
}

// mirrorMakerProcess is a running `zkafka mirror-maker`.
type mirrorMakerProcess struct {
	cmd    *exec.Cmd
	stderr *LogCapture
	done   chan struct{}
	err    error
}

func startMirrorMaker(t *testing.T, args ...string) *mirrorMakerProcess {
	t.Helper()
	dir := t.TempDir()
	l4j := filepath.Join(dir, "tools-log4j.properties")
	if err := os.WriteFile(l4j, []byte("log4j.rootLogger=INFO, stderr\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(suite.bin, append([]string{"mirror-maker"}, args...)...)
	cmd.Env = append(os.Environ(), "KAFKA_LOG4J_OPTS=-Dlog4j.configuration=file:"+l4j)
	logPath := filepath.Join(dir, "mirror-maker.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	capture := NewLogCapture(logPath)
	cmd.Stderr = f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &mirrorMakerProcess{cmd: cmd, stderr: capture, done: make(chan struct{})}
	go func() { m.err = cmd.Wait(); close(m.done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-m.done
		if t.Failed() {
			t.Logf("mirror maker log tail:\n%s", capture.Tail(60))
		}
	})
	return m
}

func TestMirrorMakerCopiesThroughBrokerKills(t *testing.T) {
	const (
		topic = "mirrored"
		parts = 4
		total = 100000
	)
	props := map[string]string{"unclean.leader.election.enable": "false", "replica.lag.time.max.ms": "5000",
		"zookeeper.session.timeout.ms": "6000", "auto.create.topics.enable": "false"}
	src := newCluster(t, ClusterConfig{Brokers: 2, Properties: props})
	dst := newCluster(t, ClusterConfig{Brokers: 2, Properties: props})
	if src.Chroot == dst.Chroot {
		t.Fatal("the clusters must live under separate chroots")
	}
	ctx := within(t, 12*time.Minute)
	assignment := map[int32][]int32{}
	for p := int32(0); p < parts; p++ {
		assignment[p] = []int32{p % 2, (p + 1) % 2}
	}
	for _, c := range []*Cluster{src, dst} {
		if err := c.CreateTopic(ctx, topic, assignment); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	consumerConfig := filepath.Join(dir, "consumer.properties")
	producerConfig := filepath.Join(dir, "producer.properties")
	if err := os.WriteFile(consumerConfig, []byte(fmt.Sprintf("zookeeper.connect=%s\ngroup.id=mirror\nauto.offset.reset=smallest\n"+
		"zookeeper.session.timeout.ms=6000\nconsumer.timeout.ms=1000\nrebalance.backoff.ms=1000\nrebalance.max.retries=30\n"+
		"refresh.leader.backoff.ms=500\n",
		src.ZkConnect())), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(producerConfig, []byte(fmt.Sprintf("bootstrap.servers=%s\nlinger.ms=10\nretry.backoff.ms=250\n"+
		"metadata.max.age.ms=5000\nreconnect.backoff.ms=100\n", strings.Join(dst.BootstrapServers(), ","))), 0o644); err != nil {
		t.Fatal(err)
	}
	mmArgs := []string{"--consumer.config", consumerConfig, "--producer.config", producerConfig, "--whitelist", topic,
		"--num.streams", "2", "--offset.commit.interval.ms", "1000"}
	mm := startMirrorMaker(t, mmArgs...)

	acked := &mmAcked{partition: map[string]int32{}}
	produced := make(chan error, 1)
	go func() { produced <- mmProduce(ctx, src.BootstrapServers(), topic, total, 4000, acked) }()

	var copied atomic.Int64
	waitCopied := func(n int64) {
		t.Helper()
		if err := WaitFor(within(t, 3*time.Minute), func() string {
			return fmt.Sprintf("target holds %d messages, want %d (source acknowledged %d)", copied.Load(), n, acked.count())
		}, func() bool {
			select {
			case <-mm.done:
				return true
			default:
			}
			copied.Store(logEndOffsets(dst.BootstrapServers(), topic, parts))
			return copied.Load() >= n
		}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-mm.done:
			t.Fatalf("the mirror maker exited: %v", mm.err)
		default:
		}
	}
	restart := func(c *Cluster, id int32) {
		t.Helper()
		if err := c.Broker(id).Start(); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitElected(within(t, 2*time.Minute), topic, assignment); err != nil {
			t.Fatal(err)
		}
	}

	waitCopied(15000)
	t.Logf("SIGKILL source broker 0 with %d copied", copied.Load())
	if err := src.Broker(0).Kill(); err != nil {
		t.Fatal(err)
	}
	waitCopied(copied.Load() + 20000)
	restart(src, 0)
	t.Logf("SIGKILL target broker 1 with %d copied", copied.Load())
	if err := dst.Broker(1).Kill(); err != nil {
		t.Fatal(err)
	}
	waitCopied(copied.Load() + 20000)
	restart(dst, 1)
	// SIGKILL the mirror maker itself and start another: it resumes from the last commit, made
	// only after a flush, so nothing is lost (what was copied after that commit comes twice).
	waitCopied(copied.Load() + 5000)
	t.Logf("SIGKILL the mirror maker with %d copied", copied.Load())
	if err := syscall.Kill(-mm.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-mm.done
	mm = startMirrorMaker(t, mmArgs...)
	if err := <-produced; err != nil {
		t.Fatal(err)
	}
	t.Logf("source acknowledged %d of %d (%d sends failed)", acked.count(), total, acked.errs)
	if acked.count() < total*9/10 {
		t.Fatalf("the source acknowledged only %d of %d", acked.count(), total)
	}

	// Read the whole target until every acknowledged key is there.
	seen := map[string]int{}
	wrongPartition := 0
	var consumedTotal int64
	var mu sync.Mutex
	missing := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		acked.mu.Lock()
		for k := range acked.partition {
			if seen[k] == 0 {
				n++
			}
		}
		acked.mu.Unlock()
		return n
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	consumer, err := sarama.NewConsumer(dst.BootstrapServers(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	for p := int32(0); p < parts; p++ {
		pc, err := consumer.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		go func() {
			for m := range pc.Messages() {
				mu.Lock()
				seen[string(m.Key)]++
				consumedTotal++
				acked.mu.Lock()
				if sp, ok := acked.partition[string(m.Key)]; ok && sp != m.Partition {
					wrongPartition++
				}
				acked.mu.Unlock()
				mu.Unlock()
			}
		}()
	}
	if err := WaitFor(within(t, 4*time.Minute), func() string {
		return fmt.Sprintf("%d acknowledged messages not in the target", missing())
	}, func() bool { return missing() == 0 }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	dups := consumedTotal - int64(len(seen))
	wrong := wrongPartition
	mu.Unlock()
	t.Logf("target: %d messages, %d distinct keys, %d duplicates", consumedTotal, len(seen), dups)

	if wrong != 0 {
		t.Fatalf("%d copies landed in another partition than their source", wrong)
	}

	// SIGTERM: the threads flush, commit and stop; the group's offsets are the source's ends.
	if err := mm.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-mm.done:
	case <-time.After(time.Minute):
		t.Fatal("the mirror maker did not stop on SIGTERM")
	}
	if ee, ok := mm.err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("a SIGTERMed mirror maker exits %v, want 143", mm.err)
	}
	if !bytes.Contains([]byte(mm.stderr.Tail(200)), []byte("Kafka mirror maker shutdown successfully")) {
		t.Fatalf("no clean shutdown in the log")
	}
	zk, err := src.Zk()
	if err != nil {
		t.Fatal(err)
	}
	end := logEndOffsets(src.BootstrapServers(), topic, parts)
	var committedSum int64
	for p := 0; p < parts; p++ {
		data, _, err := zk.ReadData(fmt.Sprintf("/consumers/mirror/offsets/%s/%d", topic, p))
		if err != nil {
			t.Fatal(err)
		}
		var o int64
		fmt.Sscan(string(data), &o) //nolint:errcheck
		committedSum += o
	}
	if committedSum != end {
		t.Fatalf("committed %d in total, the source ends at %d", committedSum, end)
	}
}
