package replicaverification

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/server"
	brokerconfig "github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

func startBrokers(t *testing.T, connect string, n int) ([]string, *zkutils.ZkUtils) {
	t.Helper()
	var addrs []string
	var zks *zkutils.ZkUtils
	for id := 0; id < n; id++ {
		cfg, err := brokerconfig.FromProps(map[string]string{"broker.id": strconv.Itoa(id), "listeners": "PLAINTEXT://127.0.0.1:0",
			"log.dirs": t.TempDir(), "zookeeper.connect": connect, "num.io.threads": "2", "num.network.threads": "2",
			"log.cleaner.dedupe.buffer.size": "4194304", "offsets.topic.num.partitions": "1", "offsets.topic.replication.factor": "1",
			"replica.fetch.wait.max.ms": "100", "controlled.shutdown.enable": "false"})
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
		addrs = append(addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(int(srv.BoundPort("PLAINTEXT")))))
		if id == 0 {
			zks = srv.ZkUtils()
		}
	}
	return addrs, zks
}

// TestReplicaVerificationTwoBrokers: two brokers replicate a topic (rf 2); the tool verifies
// both replicas message by message and reports a lag of 0 once replication caught up.
func TestReplicaVerificationTwoBrokers(t *testing.T) {
	connect := zktest.Chroot(t)
	addrs, zk := startBrokers(t, connect, 2)
	if err := admin.NewAdminUtils(zk, nil, nil).CreateOrUpdateTopicPartitionAssignmentPathInZK("rv", map[int32][]int32{0: {0, 1}, 1: {1, 0}}, nil, false); err != nil {
		t.Fatal(err)
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Retry.Max = 20
	cfg.Producer.Retry.Backoff = 200 * time.Millisecond
	var prod sarama.SyncProducer
	var err error
	deadline := time.Now().Add(30 * time.Second)
	for {
		if prod, err = sarama.NewSyncProducer(addrs, cfg); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for i := 0; i < 20; i++ {
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: "rv", Partition: int32(i % 2), Value: sarama.StringEncoder(fmt.Sprintf("m%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	prod.Close()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	code := RunWith(ctx, []string{"--broker-list", strings.Join(addrs, ","), "--time", "-2", "--report-interval-ms", "300",
		"--max-wait-ms", "100", "--topic-white-list", "rv"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}: verification process is started.\n`).MatchString(out.String()) ||
		!regexp.MustCompile(`: max lag is 0 for partition \[rv,[01]\] at offset 10 among 2 partitions\n`).MatchString(out.String()) {
		t.Fatalf("output %q stderr %q", out.String(), errOut.String())
	}
}

func entries(t *testing.T, values ...string) *record.MemoryRecords {
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, 0, 0)
	for _, v := range values {
		if _, err := b.Append(1, nil, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// TestVerifyCheckSum: a checksum mismatch is printed and verification goes on; the verified
// offset stops at the smallest high watermark.
func TestVerifyCheckSum(t *testing.T) {
	var out bytes.Buffer
	tp := common.TopicPartition{Topic: "x", Partition: 0}
	rb := &replicaBuffer{expectedReplicas: map[common.TopicPartition]int{tp: 2}, expectedNumFetchers: 2, out: &out,
		log: logrus.NewEntry(logrus.New()), fetchOffsetMap: map[common.TopicPartition]int64{tp: 0}, lastReportTime: time.Now(),
		messageSetCache: map[common.TopicPartition]map[int32]partitionData{tp: {}}, mismatch: make(chan struct{})}
	rb.addFetchedData(tp, 0, partitionData{records: entries(t, "a", "b", "c"), hw: 3})
	rb.addFetchedData(tp, 1, partitionData{records: entries(t, "a", "B", "c"), hw: 2})
	rb.verifyCheckSum()
	if !regexp.MustCompile(`partition \[x,0\] has unmatched checksum at offset 1; replica 0's checksum \d+; replica 1's checksum \d+`).MatchString(out.String()) {
		t.Fatalf("output %q", out.String())
	}
	if rb.fetchOffsetMap[tp] != 2 || rb.failed() {
		t.Fatalf("verified up to %d, failed %v", rb.fetchOffsetMap[tp], rb.failed())
	}
}
