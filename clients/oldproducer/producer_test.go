package oldproducer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/server"
	brokerconfig "github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
)

// startBroker runs broker 0 on connect with the topics (name → partitions) created and served.
func startBroker(t *testing.T, connect string, topics map[string]int32) string {
	t.Helper()
	cfg, err := brokerconfig.FromProps(map[string]string{"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": t.TempDir(),
		"zookeeper.connect": connect, "num.io.threads": "2", "num.network.threads": "2", "log.cleaner.dedupe.buffer.size": "4194304",
		"auto.create.topics.enable": "false", "offsets.topic.num.partitions": "1"})
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
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
	for topic, n := range topics {
		if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, n, 1, nil, admin.RackAwareEnforced); err != nil {
			t.Fatal(err)
		}
		zktest.WaitUntilTrue(t, func() bool {
			md, err := oldclient.FetchTopicMetadata(context.Background(), []string{topic}, []oldclient.BrokerEndPoint{{Host: "127.0.0.1", Port: port}},
				"t", 5*time.Second, 0, nil)
			if err != nil || len(md.TopicMetadata) != 1 || len(md.TopicMetadata[0].PartitionMetadata) != int(n) {
				return false
			}
			for _, p := range md.TopicMetadata[0].PartitionMetadata {
				if p.Leader < 0 {
					return false
				}
			}
			return true
		}, "topic "+topic+" served", 30*time.Second)
	}
	return addr
}

// consumed is one message as sarama reads it.
type consumed struct {
	partition int32
	key       string
	value     string
}

// saramaConsumeAll reads every partition of topic up to n messages in total.
func saramaConsumeAll(t *testing.T, addr, topic string, partitions int32, n int) []consumed {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	c, err := sarama.NewConsumer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := make(chan consumed, n)
	for p := int32(0); p < partitions; p++ {
		pc, err := c.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		go func() {
			for m := range pc.Messages() {
				out <- consumed{partition: m.Partition, key: string(m.Key), value: string(m.Value)}
			}
		}()
	}
	var got []consumed
	deadline := time.After(30 * time.Second)
	for len(got) < n {
		select {
		case m := <-out:
			got = append(got, m)
		case <-deadline:
			t.Fatalf("consumed %d of %d", len(got), n)
		}
	}
	return got
}

// codecOf fetches a partition's first shallow entry and returns its compression.
func codecOf(t *testing.T, addr, topic string, partition int32) record.CompressionType {
	t.Helper()
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	ch := oldclient.NewBlockingChannel(host, int32(port), "t", 10*time.Second)
	if err := ch.Connect(); err != nil {
		t.Fatal(err)
	}
	defer ch.Disconnect()
	req := &protocol.FetchRequest{Version: 2, ReplicaID: -1, MaxWaitTime: 100, Topics: []protocol.FetchRequestTopic{{Topic: topic,
		Partitions: []protocol.FetchRequestTopicPartition{{Partition: partition, MaxBytes: 1 << 20}}}}}
	resp := &protocol.FetchResponse{Version: 2}
	if err := ch.Send(req, resp); err != nil {
		t.Fatal(err)
	}
	mr := resp.Responses[0].PartitionResponses[0].RecordSet.(*record.MemoryRecords)
	for e, err := range mr.ShallowEntries() {
		if err != nil {
			t.Fatal(err)
		}
		return e.Record.CompressionType()
	}
	t.Fatalf("no message in %s-%d", topic, partition)
	return 0
}

// TestOldProducerEveryCodecToSarama: the tools' byte-array producer (sync, acks 1) sends keyed
// messages with every codec; sarama reads them all back, each in the partition 0.10.2's
// ByteArrayPartitioner picks (abs(Arrays.hashCode(key)) % 3), and the broker holds each
// partition's messages compressed with the codec asked for.
func TestOldProducerEveryCodecToSarama(t *testing.T) {
	connect := zktest.Chroot(t)
	topics := map[string]int32{}
	for _, c := range []string{"none", "gzip", "snappy", "lz4"} {
		topics["p-"+c] = 3
	}
	addr := startBroker(t, connect, topics)
	for _, codec := range []string{"none", "gzip", "snappy", "lz4"} {
		topic := "p-" + codec
		p, err := NewOldProducer(map[string]string{"metadata.broker.list": addr, "compression.codec": codec, "request.required.acks": "1",
			"client.id": "old-producer-test"}, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		const n = 60
		for i := 0; i < n; i++ {
			if err := p.Send(context.Background(), topic, []byte(fmt.Sprintf("key%d", i)), []byte(fmt.Sprintf("value%d", i))); err != nil {
				t.Fatal(err)
			}
		}
		p.Close()
		got := saramaConsumeAll(t, addr, topic, 3, n)
		seen := map[string]bool{}
		for _, m := range got {
			want := int32(common.Abs(ArraysHashCode([]byte(m.key))) % 3)
			if m.partition != want || m.value != "value"+strings.TrimPrefix(m.key, "key") {
				t.Fatalf("%s: %+v, want partition %d", codec, m, want)
			}
			seen[m.key] = true
		}
		if len(seen) != n {
			t.Fatalf("%s: %d distinct keys", codec, len(seen))
		}
		wantCodec, _ := record.ForName(codec)
		if got := codecOf(t, addr, topic, 0); got != wantCodec {
			t.Fatalf("%s: stored with %s", codec, got)
		}
	}
	// The golden key of the Java check: "key0" lands in partition 0 of 3.
	if (ByteArrayPartitioner{}).Partition([]byte("key0"), 3) != 0 {
		t.Fatal("key0")
	}
}

// TestAsyncProducerBatchesAndFlushesAtClose: an async producer queues, sends batches of
// batch.num.messages, and Close sends the rest; kcat reads them (when installed).
func TestAsyncProducerBatchesAndFlushesAtClose(t *testing.T) {
	connect := zktest.Chroot(t)
	addr := startBroker(t, connect, map[string]int32{"async": 1})
	cfg, err := NewProducerConfig(map[string]string{"metadata.broker.list": addr, "producer.type": "async", "batch.num.messages": "7",
		"queue.buffering.max.ms": "60000", "queue.buffering.max.messages": "100", "request.required.acks": "-1", "compression.codec": "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProducer[string, string](cfg, stringEncoder{}, stringEncoder{}, nil, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if err := p.Send(context.Background(), NewKeyedMessage[string, string]("async", fmt.Sprintf("m%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	// Two batches of 7 go out without waiting for queue.buffering.max.ms; 6 wait for Close.
	zktest.WaitUntilTrue(t, func() bool { return partitionEnd(t, addr, "async") == 14 }, "two batches of 7 sent", 30*time.Second)
	p.Close()
	if end := partitionEnd(t, addr, "async"); end != 20 {
		t.Fatalf("after Close the log ends at %d", end)
	}
	if err := p.Send(context.Background(), NewKeyedMessage[string, string]("async", "late")); !errors.Is(err, ErrProducerClosed) {
		t.Fatalf("send after close: %v", err)
	}
	if kcat, err := exec.LookPath("kcat"); err == nil {
		out, err := exec.Command(kcat, "-C", "-b", addr, "-t", "async", "-p", "0", "-o", "beginning", "-e", "-q", "-f", "%s\n").Output()
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		sort.Strings(lines)
		if len(lines) != 20 || lines[0] != "m0" {
			t.Fatalf("kcat read %q", out)
		}
	}
}

type stringEncoder struct{}

func (stringEncoder) ToBytes(s string) []byte { return []byte(s) }

func partitionEnd(t *testing.T, addr, topic string) int64 {
	t.Helper()
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	ch := oldclient.NewBlockingChannel(host, int32(port), "t", 10*time.Second)
	if err := ch.Connect(); err != nil {
		t.Fatal(err)
	}
	defer ch.Disconnect()
	resp := &protocol.ListOffsetResponse{}
	if err := ch.Send(&protocol.ListOffsetRequest{ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{Topic: topic,
		Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: 0, Timestamp: -1, MaxNumOffsets: 1}}}}}, resp); err != nil {
		t.Fatal(err)
	}
	return resp.Responses[0].PartitionResponses[0].Offsets[0]
}

// TestSendFailsAfterRetries: a topic that does not exist (no auto creation) fails with
// FailedToSendMessageException after message.send.max.retries, as 0.10.2's handler does; a
// keyless message to an existing topic works with acks = 0 (no answer expected).
func TestSendFailsAfterRetries(t *testing.T) {
	connect := zktest.Chroot(t)
	addr := startBroker(t, connect, map[string]int32{"exists": 2})
	p, err := NewOldProducer(map[string]string{"metadata.broker.list": addr, "message.send.max.retries": "2", "retry.backoff.ms": "10"}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	err = p.Send(context.Background(), "missing", nil, []byte("x"))
	if !errors.Is(err, ErrFailedToSendMessage) || err.Error() != "kafka.common.FailedToSendMessageException: Failed to send messages after 2 tries." {
		t.Fatalf("want FailedToSendMessageException, got %v", err)
	}
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("the retries must back off retry.backoff.ms")
	}
	if err := p.Send(context.Background(), "exists", nil, []byte("keyless")); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return len(saramaConsumeAll(t, addr, "exists", 2, 1)) == 1
	}, "the acks=0 message arrives", 30*time.Second)
}

// TestProducerConfigValidation: Kafka's messages for bad values.
func TestProducerConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{}, "Missing required property 'metadata.broker.list'"},
		{map[string]string{"metadata.broker.list": "h:1", "producer.type": "x"}, "Invalid value x for producer.type, valid values are sync/async"},
		{map[string]string{"metadata.broker.list": "h:1", "batch.num.messages": "20", "queue.buffering.max.messages": "10"}, "Batch size = 20 can't be larger than queue size = 10"},
		{map[string]string{"metadata.broker.list": "h:1", "request.required.acks": "2"}, "request.required.acks has value 2 which is not in the range (-1,1)."},
		{map[string]string{"metadata.broker.list": "h:1", "compression.codec": "zstd"}, "zstd is an unknown compression codec"},
		{map[string]string{"metadata.broker.list": "h:1", "compression.codec": "7"}, "7 is an unknown compression codec"},
		{map[string]string{"metadata.broker.list": "nohost"}, "Unable to parse nohost to a broker endpoint"},
	} {
		if _, err := NewProducerConfig(tc.props, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.props, err, tc.want)
		}
	}
	c, err := NewProducerConfig(map[string]string{"metadata.broker.list": "h:1", "compression.codec": "2", "compressed.topics": "a, b"}, nil)
	if err != nil || c.compressionFor("a") != record.SNAPPY || c.compressionFor("c") != record.NONE || c.RequestRequiredAcks != 0 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := NewOldProducer(map[string]string{"metadata.broker.list": "h:1", "serializer.class": StringEncoderClass}, Deps{}); err == nil {
		t.Fatal("a byte-array producer cannot take StringEncoder")
	}
}
