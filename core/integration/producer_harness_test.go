package integration

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

	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/server"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
)

// Broker-backed tests of the Java clients' ports (Kafka's kafka.api.*Test family): in-process
// KafkaServers on a real ZooKeeper (one ensemble for the package, a chroot per test), read back
// by sarama, kcat and kafka-python.

// TestMain runs one real ZooKeeper for the package. go-metrics' meter arbiter (started by the
// broker's and sarama's registries) is a process-wide goroutine that never stops.
func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// testBroker is one in-process broker.
type testBroker struct {
	srv  *server.KafkaServer
	addr string
}

// startTestBroker starts a broker with id 0 on a fresh chroot; it stops with the test.
//
// Kafka 0.10.2: kafka.integration.KafkaServerTestHarness (one server).
func startTestBroker(t *testing.T, extra map[string]string) *testBroker {
	t.Helper()
	props := map[string]string{
		"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": t.TempDir(), "zookeeper.connect": zktest.Chroot(t),
		"num.io.threads": "2", "num.network.threads": "2", "zookeeper.session.timeout.ms": "10000",
		"log.cleaner.dedupe.buffer.size": "4194304", "offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1",
	}
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
	return &testBroker{srv: srv, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(int(srv.BoundPort("PLAINTEXT"))))}
}

// createTopic creates a topic and waits until every partition has a leader the broker serves.
func (b *testBroker) createTopic(t *testing.T, topic string, partitions int32, configs map[string]string) {
	t.Helper()
	if err := admin.NewAdminUtils(b.srv.ZkUtils(), nil, nil).CreateTopic(topic, partitions, 1, configs, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cl, err := sarama.NewClient([]string{b.addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok := cl.RefreshMetadata(topic) == nil
		for p := int32(0); ok && p < partitions; p++ {
			_, err := cl.Leader(topic, p)
			ok = err == nil
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leaders for %s", topic)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func hexOrNil(b []byte) any {
	if b == nil {
		return nil
	}
	return fmt.Sprintf("%x", b)
}
