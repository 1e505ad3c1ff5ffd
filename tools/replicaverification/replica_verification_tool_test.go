package replicaverification

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/tools/internal/brokertest"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, 1, goleak.IgnoreTopFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick")))
}

// TestReplicaVerificationTwoBrokers: two brokers replicate a topic (rf 2); the tool verifies
// both replicas message by message and reports a lag of 0 once replication caught up.
func TestReplicaVerificationTwoBrokers(t *testing.T) {
	connect := zktest.Chroot(t)
	b0, b1 := brokertest.Start(t, connect, 0, nil), brokertest.Start(t, connect, 1, nil)
	addrs := brokertest.Addrs(b0, b1)
	b0.CreateTopic(t, "rv", 2, map[int32][]int32{0: {0, 1}, 1: {1, 0}}, addrs...)
	brokertest.Produce(t, addrs, "rv", 2, 0, 20)
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
