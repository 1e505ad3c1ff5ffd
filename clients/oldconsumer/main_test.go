package oldconsumer

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/server"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestMain runs one real ZooKeeper for the package. go-metrics' meter arbiter (started by the
// brokers' and sarama's registries) is a process-wide goroutine that never stops.
func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// testLog is a logger writing warnings into the test's log (OLDCONSUMER_LOG=info or debug shows
// more, e.g. the rebalance lines).
func testLog(t testing.TB) *logrus.Entry {
	l := logrus.New()
	l.SetOutput(testWriter{t})
	l.SetLevel(logrus.WarnLevel)
	switch os.Getenv("OLDCONSUMER_LOG") {
	case "info":
		l.SetLevel(logrus.InfoLevel)
	case "debug":
		l.SetLevel(logrus.DebugLevel)
	}
	return logrus.NewEntry(l)
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

// testBroker is an in-process broker on a test chroot.
type testBroker struct {
	srv     *server.KafkaServer
	addr    string
	host    string
	port    int32
	connect string
	zk      *zkutils.ZkUtils
}

// startBroker starts broker 0 on connect (a zktest chroot) and stops it at cleanup.
func startBroker(t *testing.T, connect string, extra map[string]string) *testBroker {
	t.Helper()
	props := map[string]string{"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": t.TempDir(),
		"zookeeper.connect": connect, "num.io.threads": "2", "num.network.threads": "2", "log.cleaner.dedupe.buffer.size": "4194304",
		"offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1", "auto.create.topics.enable": "false"}
	for k, v := range extra {
		props[k] = v
	}
	cfg, err := config.FromProps(props)
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
	return &testBroker{srv: srv, host: "127.0.0.1", port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))),
		connect: connect, zk: srv.ZkUtils()}
}

// createTopic creates a topic and waits until the broker serves every partition.
func (b *testBroker) createTopic(t *testing.T, topic string, partitions int32) {
	t.Helper()
	if err := admin.NewAdminUtils(b.zk, nil, nil).CreateTopic(topic, partitions, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	b.waitForLeaders(t, topic, int(partitions))
}

func (b *testBroker) waitForLeaders(t *testing.T, topic string, partitions int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := oldclient.FetchTopicMetadata(context.Background(), []string{topic},
			[]oldclient.BrokerEndPoint{{ID: 0, Host: b.host, Port: b.port}}, "test", 5*time.Second, 0, nil)
		ok := err == nil && len(resp.TopicMetadata) == 1 && resp.TopicMetadata[0].TopicErrorCode == 0 &&
			len(resp.TopicMetadata[0].PartitionMetadata) == partitions
		for i := 0; ok && i < partitions; i++ {
			ok = resp.TopicMetadata[0].PartitionMetadata[i].Leader >= 0
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leaders for %s: %v %+v", topic, err, resp)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// produce sends n messages "m<i>" with keys "k<i>" to partition i % partitions, with sarama.
func (b *testBroker) produce(t *testing.T, topic string, partitions int32, first, n int) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	p, err := sarama.NewSyncProducer([]string{b.addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	msgs := make([]*sarama.ProducerMessage, 0, n)
	for i := first; i < first+n; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: int32(i) % partitions,
			Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)), Value: sarama.StringEncoder(fmt.Sprintf("m%d", i))})
	}
	if err := p.SendMessages(msgs); err != nil {
		t.Fatal(err)
	}
}

// consumerProps are the old consumer's properties for group on connect, quick to rebalance.
func consumerProps(connect, group string, extra map[string]string) map[string]string {
	p := map[string]string{"zookeeper.connect": connect, "group.id": group, "auto.offset.reset": "smallest",
		"zookeeper.session.timeout.ms": "6000", "rebalance.backoff.ms": "200", "rebalance.max.retries": "20",
		"refresh.leader.backoff.ms": "50", "auto.commit.enable": "false", "fetch.wait.max.ms": "50"}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func newConnector(t *testing.T, props map[string]string, deps Deps) *ZookeeperConsumerConnector {
	t.Helper()
	cfg, err := NewConsumerConfig(props, nil)
	if err != nil {
		t.Fatal(err)
	}
	if deps.Logger == nil {
		deps.Logger = testLog(t)
	}
	c, err := NewZookeeperConsumerConnector(context.Background(), cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

// waitUntil polls cond every 20 ms, failing after d.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	zktest.WaitUntilTrue(t, cond, what, d)
}
