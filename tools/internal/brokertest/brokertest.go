// Package brokertest starts in-process brokers for the tools' tests: a KafkaServer on a
// zktest chroot with an ephemeral port, stopped at the test's cleanup, and sarama helpers to
// create topics and produce.
//
// Kafka 0.10.2: the part of kafka.integration.KafkaServerTestHarness the tool tests use. Only
// _test.go files import it.
package brokertest

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/server"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Broker is one running in-process broker.
type Broker struct {
	Server *server.KafkaServer
	Addr   string // 127.0.0.1:port
	Host   string
	Port   int32
	Zk     *zkutils.ZkUtils
}

// Start runs broker id on connect (a zktest chroot); props override the test defaults (one
// offsets partition, no controlled shutdown, small buffers).
func Start(t testing.TB, connect string, id int32, props map[string]string) *Broker {
	t.Helper()
	p := map[string]string{"broker.id": strconv.Itoa(int(id)), "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": t.TempDir(),
		"zookeeper.connect": connect, "num.io.threads": "2", "num.network.threads": "2", "log.cleaner.dedupe.buffer.size": "4194304",
		"offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1", "controlled.shutdown.enable": "false",
		"replica.fetch.wait.max.ms": "100"}
	for k, v := range props {
		p[k] = v
	}
	cfg, err := config.FromProps(p)
	if err != nil {
		t.Fatal(err)
	}
	l := logrus.New()
	l.SetOutput(io.Discard)
	e := logrus.NewEntry(l)
	srv := server.NewKafkaServer(cfg, nil, server.Loggers{Server: e, StateChange: e, Request: e}, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	port := srv.BoundPort("PLAINTEXT")
	return &Broker{Server: srv, Host: "127.0.0.1", Port: port, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))), Zk: srv.ZkUtils()}
}

// CreateTopic writes the topic's assignment (replicas per partition; nil: partitions × 1 on
// this broker) and waits until a producer can write to every partition.
func (b *Broker) CreateTopic(t testing.TB, topic string, partitions int32, assignment map[int32][]int32, addrs ...string) {
	t.Helper()
	a := admin.NewAdminUtils(b.Zk, nil, nil)
	var err error
	if assignment == nil {
		err = a.CreateTopic(topic, partitions, 1, nil, admin.RackAwareEnforced)
	} else {
		err = a.CreateOrUpdateTopicPartitionAssignmentPathInZK(topic, assignment, nil, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) == 0 {
		addrs = []string{b.Addr}
	}
	client, err := sarama.NewClient(addrs, SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok := client.RefreshMetadata(topic) == nil
		for p := int32(0); ok && p < partitions; p++ {
			_, err := client.Leader(topic, p)
			ok = err == nil
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("topic %s has no leaders", topic)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SaramaConfig is a producer config at 0.10.2 with acks=all, manual partitions and retries.
func SaramaConfig() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Retry.Max = 20
	cfg.Producer.Retry.Backoff = 200 * time.Millisecond
	return cfg
}

// Produce sends n messages "v<i>" keyed "k<i>" (i from first) to partition i % partitions.
func Produce(t testing.TB, addrs []string, topic string, partitions int32, first, n int) {
	t.Helper()
	p, err := sarama.NewSyncProducer(addrs, SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	msgs := make([]*sarama.ProducerMessage, 0, n)
	for i := first; i < first+n; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: int32(i) % partitions,
			Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)), Value: sarama.StringEncoder(fmt.Sprintf("v%d", i))})
	}
	if err := p.SendMessages(msgs); err != nil {
		t.Fatal(err)
	}
}

// Addrs joins brokers' addresses.
func Addrs(bs ...*Broker) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Addr
	}
	return out
}

// Join is strings.Join(Addrs(bs), ",").
func Join(bs ...*Broker) string { return strings.Join(Addrs(bs...), ",") }
