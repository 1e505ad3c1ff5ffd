package server

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestKafkaServerEndToEnd starts a broker on port 0 against a real ZooKeeper, checks its
// registration bytes, makes it leader of a 3-partition topic as a controller would, then has
// sarama (0.10.2 and 0.10.0 protocol) produce and consume with every codec, looks offsets up by
// time, and checks that a clean shutdown leaves the marker and that a restart does no recovery.
func TestKafkaServerEndToEnd(t *testing.T) {
	connect := zktest.Chroot(t)
	dataDir := t.TempDir()
	loggers, _ := testLoggers(t)
	cfg := brokerConfig(t, connect, dataDir, nil)
	srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	port := srv.BoundPort("PLAINTEXT")

	// /brokers/ids/0 is 0.10.2's v4 JSON with the bound port.
	data, _, err := srv.ZkUtils().ReadData(zkutils.BrokerIdPath(0))
	if err != nil {
		t.Fatal(err)
	}
	ts := regexp.MustCompile(`"timestamp":"(\d+)"`).FindSubmatch(data)
	if ts == nil {
		t.Fatalf("no timestamp in %s", data)
	}
	want := fmt.Sprintf(`{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://127.0.0.1:%d"],"jmx_port":-1,"host":"127.0.0.1","timestamp":"%s","port":%d,"version":4}`,
		port, ts[1], port)
	if string(data) != want {
		t.Fatalf("/brokers/ids/0 =\n%s\nwant\n%s", data, want)
	}

	const topic = "e2e"
	if err := admin.NewAdminUtils(srv.ZkUtils(), nil, nil).CreateTopic(topic, 3, 1, nil, admin.RackAwareEnforced); err != nil {
		t.Fatal(err)
	}
	ctl := dialRaw(t, port)
	becomeLeader(t, ctl, 0, port, topic, 3, 1, 0)

	addr := fmt.Sprintf("127.0.0.1:%d", port)
	codecs := []sarama.CompressionCodec{sarama.CompressionNone, sarama.CompressionGZIP, sarama.CompressionSnappy, sarama.CompressionLZ4}
	versions := []sarama.KafkaVersion{sarama.V0_10_2_0, sarama.V0_10_0_0}
	const perRun = 1500
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var sent int
	for _, v := range versions {
		for _, codec := range codecs {
			partition := int32(sent/perRun) % 3
			first := produceAndConsume(t, addr, v, codec, topic, partition, base.Add(time.Duration(sent)*time.Millisecond), perRun)
			// ListOffsets v1 (sarama 0.10.2) by the timestamp of the run's 10th message.
			if v == sarama.V0_10_2_0 {
				checkOffsetByTime(t, addr, topic, partition, base.Add(time.Duration(sent+10)*time.Millisecond), first+10)
			}
			sent += perRun
		}
	}

	// The BrokerTopicMetrics meters saw every message (kafka.server:type=BrokerTopicMetrics).
	in, ok := srv.Metrics.Get("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=" + topic).(*metrics.Meter)
	if !ok || in.Count() != int64(sent) {
		t.Errorf("MessagesInPerSec for %s: %v", topic, srv.Metrics.Get("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic="+topic))
	}
	if out, ok := srv.Metrics.Get("kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec").(*metrics.Meter); !ok || out.Count() == 0 {
		t.Error("BytesOutPerSec not marked")
	}

	srv.Shutdown()
	if _, err := os.Stat(filepath.Join(dataDir, ".kafka_cleanshutdown")); err != nil {
		t.Fatalf("no clean shutdown marker: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "replication-offset-checkpoint")); err != nil {
		t.Fatal(err)
	}

	// A restart finds the marker and recovers nothing.
	loggers2, hook2 := testLoggers(t)
	srv2 := NewKafkaServer(brokerConfig(t, connect, dataDir, nil), nil, loggers2, func(string) string { return "" })
	if err := srv2.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv2.Shutdown()
	if !hook2.contains("Found clean shutdown file") {
		t.Error("restart did not see the clean shutdown file")
	}
	if hook2.contains("Recovering") {
		t.Error("restart after a clean shutdown recovered a log")
	}
	// The HWs were checkpointed: the restarted leader serves the data again.
	port2 := srv2.BoundPort("PLAINTEXT")
	becomeLeader(t, dialRaw(t, port2), 0, port2, topic, 3, 2, 1)
	// Runs 0, 3 and 6 went to partition 0.
	if hw, ok := srv2.ReplicaManager().GetHighWatermark(tpOf(topic, 0)); !ok || hw != 3*perRun {
		t.Errorf("partition 0 HW after restart = %d (%v), want %d", hw, ok, 3*perRun)
	}
}

// produceAndConsume sends n messages with distinct keys, values and timestamps to one partition,
// reads them back from the first produced offset and compares them; it returns that offset.
func produceAndConsume(t *testing.T, addr string, v sarama.KafkaVersion, codec sarama.CompressionCodec, topic string,
	partition int32, ts0 time.Time, n int) int64 {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = v
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Compression = codec
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Flush.Messages = 100
	cfg.Producer.Flush.Frequency = 5 * time.Millisecond
	cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
	cfg.ClientID = "e2e"
	prod, err := sarama.NewSyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatalf("%s %s: %v", v, codec, err)
	}
	msgs := make([]*sarama.ProducerMessage, n)
	for i := range msgs {
		msgs[i] = &sarama.ProducerMessage{Topic: topic, Partition: partition,
			Key:       sarama.StringEncoder(fmt.Sprintf("k-%s-%s-%d", v, codec, i)),
			Value:     sarama.StringEncoder(fmt.Sprintf("value %d of %s/%s %0100d", i, v, codec, i)),
			Timestamp: ts0.Add(time.Duration(i) * time.Millisecond)}
	}
	if err := prod.SendMessages(msgs); err != nil {
		prod.Close()
		t.Fatalf("%s %s: produce: %v", v, codec, err)
	}
	prod.Close()
	first := msgs[0].Offset
	for i, m := range msgs {
		if m.Offset != first+int64(i) {
			t.Fatalf("%s %s: message %d at offset %d, want %d", v, codec, i, m.Offset, first+int64(i))
		}
	}

	ccfg := sarama.NewConfig()
	ccfg.Version = v
	ccfg.Consumer.Fetch.Default = 64 << 10
	consumer, err := sarama.NewConsumer([]string{addr}, ccfg)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, partition, first)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	timeout := time.After(30 * time.Second)
	for i := 0; i < n; i++ {
		select {
		case m := <-pc.Messages():
			want := msgs[i]
			wk, _ := want.Key.Encode()
			wv, _ := want.Value.Encode()
			if m.Offset != want.Offset || string(m.Key) != string(wk) || string(m.Value) != string(wv) {
				t.Fatalf("%s %s: consumed #%d offset %d key %q, want offset %d key %q", v, codec, i, m.Offset, m.Key, want.Offset, wk)
			}
			if !m.Timestamp.Equal(want.Timestamp) {
				t.Fatalf("%s %s: consumed #%d timestamp %v, want %v", v, codec, i, m.Timestamp, want.Timestamp)
			}
		case err := <-pc.Errors():
			t.Fatalf("%s %s: consume: %v", v, codec, err)
		case <-timeout:
			t.Fatalf("%s %s: consumed only %d of %d", v, codec, i, n)
		}
	}
	return first
}

func checkOffsetByTime(t *testing.T, addr, topic string, partition int32, at time.Time, want int64) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	client, err := sarama.NewClient([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	got, err := client.GetOffset(topic, partition, at.UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("ListOffsets(%d) = %d, want %d", at.UnixMilli(), got, want)
	}
	// A time after everything: no offset (-1).
	if got, err := client.GetOffset(topic, partition, time.Now().Add(time.Hour).UnixMilli()); err != nil || got != -1 {
		t.Fatalf("ListOffsets(future) = %d, %v; want -1", got, err)
	}
	latest, err := client.GetOffset(topic, partition, sarama.OffsetNewest)
	if err != nil || latest <= want {
		t.Fatalf("ListOffsets(latest) = %d, %v", latest, err)
	}
}

var _ = protocol.Produce
