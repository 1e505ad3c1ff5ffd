package simpleconsumershell

import (
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
	brokerconfig "github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// startBroker runs broker 0 on the chroot connect with topic t (partitions) holding n messages
// "v<i>" keyed "k<i>" (partition i % partitions), produced by sarama.
func startBroker(t *testing.T, connect, topic string, partitions int32, n int) string {
	t.Helper()
	cfg, err := brokerconfig.FromProps(map[string]string{"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": t.TempDir(),
		"zookeeper.connect": connect, "num.io.threads": "2", "num.network.threads": "2", "log.cleaner.dedupe.buffer.size": "4194304",
		"offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1"})
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
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(srv.BoundPort("PLAINTEXT"))))
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, partitions, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	scfg := sarama.NewConfig()
	scfg.Version = sarama.V0_10_2_0
	scfg.Producer.Return.Successes = true
	scfg.Producer.Partitioner = sarama.NewManualPartitioner
	var prod sarama.SyncProducer
	deadline := time.Now().Add(30 * time.Second)
	for {
		prod, err = sarama.NewSyncProducer([]string{addr}, scfg)
		if err == nil {
			_, _, err = prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: 0, Key: sarama.StringEncoder("k0"), Value: sarama.StringEncoder("v0")})
			if err == nil {
				break
			}
			prod.Close()
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer prod.Close()
	for i := 1; i < n; i++ {
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: int32(i) % partitions,
			Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)), Value: sarama.StringEncoder(fmt.Sprintf("v%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	return addr
}
