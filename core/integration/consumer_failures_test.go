package integration

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/serialization"
	"github.com/zkafka/zkafka/tools/consoleconsumer"
)

// produceValues writes the values (nil key) to partition 0 of topic, in order.
func produceValues(t *testing.T, addr, topic string, values ...[]byte) {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	sp, err := sarama.NewSyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, v := range values {
		if _, _, err := sp.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.ByteEncoder(v)}); err != nil {
			t.Fatal(err)
		}
	}
}

func int32Bytes(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// A value the IntegerDeserializer cannot read: the records before it are returned, then Poll
// fails with a SerializationException naming the partition and offset; seeking past it goes on.
func TestConsumerDeserializerFailure(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "cd", 1, nil)
	produceValues(t, b.addr, "cd", int32Bytes(1), int32Bytes(2), []byte("bad"), int32Bytes(4))
	c, err := consumer.NewKafkaConsumerWith[[]byte, int32](map[string]string{"bootstrap.servers": b.addr, "auto.offset.reset": "earliest",
		"group.id": "cd"}, serialization.ByteArrayDeserializer{}, serialization.IntegerDeserializer{}, consumer.ConsumerOptions[[]byte, int32]{Log: quietConsumerLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(5 * time.Second) //nolint:errcheck
	tp := common.TopicPartition{Topic: "cd", Partition: 0}
	if err := c.Assign([]common.TopicPartition{tp}); err != nil {
		t.Fatal(err)
	}
	var values []int32
	var serr *consumer.SerializationException
	deadline := time.Now().Add(30 * time.Second)
	for serr == nil {
		recs, err := c.Poll(200 * time.Millisecond)
		if err != nil && !errors.As(err, &serr) {
			t.Fatal(err)
		}
		for _, r := range recs.All() {
			values = append(values, r.Value)
		}
		if time.Now().After(deadline) {
			t.Fatal("no deserialization error")
		}
	}
	if len(values) != 2 || values[0] != 1 || values[1] != 2 || serr.Partition != tp || serr.Offset != 2 ||
		!strings.HasPrefix(serr.Error(), "Error deserializing key/value for partition cd-0 at offset 2") {
		t.Fatalf("values %v, error %v", values, serr)
	}
	if p, _ := c.Position(tp); p != 2 {
		t.Fatalf("position %d", p)
	}
	if err := c.Seek(tp, serr.Offset+1); err != nil {
		t.Fatal(err)
	}
	recs := pollInts(t, c, 1)
	if recs[0] != 4 {
		t.Fatalf("after the seek: %v", recs)
	}
}

func pollInts(t *testing.T, c *consumer.KafkaConsumer[[]byte, int32], n int) []int32 {
	t.Helper()
	var out []int32
	deadline := time.Now().Add(30 * time.Second)
	for len(out) < n && time.Now().Before(deadline) {
		recs, err := c.Poll(200 * time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs.All() {
			out = append(out, r.Value)
		}
	}
	return out
}

// The console consumer (new consumer) with the formatter's IntegerDeserializer: without
// --skip-message-on-error the bad record stops it; with it the record is skipped.
func TestConsoleConsumerSkipMessageOnError(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "cs", 1, nil)
	produceValues(t, b.addr, "cs", int32Bytes(1), []byte("bad"), int32Bytes(3))
	deps := consoleconsumer.Deps{NewShinyConsumer: func(_ context.Context, a consoleconsumer.NewConsumerArgs) (oldconsumer.BaseConsumer, error) {
		return oldconsumer.NewNewShinyConsumer(a.Topic, a.Partition, a.Offset, a.Whitelist, a.Props, a.TimeoutMs, quietConsumerLog())
	}}
	run := func(extra ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		args := append([]string{"--bootstrap-server", b.addr, "--topic", "cs", "--from-beginning", "--timeout-ms", "3000",
			"--property", "value.deserializer=org.apache.kafka.common.serialization.IntegerDeserializer"}, extra...)
		code := consoleconsumer.RunWith(within(t, 60*time.Second), args, &out, &errOut, deps)
		return out.String(), errOut.String(), code
	}
	out, errOut, _ := run()
	if out != "1\n" || !strings.Contains(errOut, "Processed a total of 2 messages") {
		t.Fatalf("without --skip-message-on-error: %q %q", out, errOut)
	}
	out, errOut, code := run("--skip-message-on-error", "--max-messages", "3")
	if code != 0 || out != "1\n3\n" || !strings.Contains(errOut, "Processed a total of 3 messages") {
		t.Fatalf("with --skip-message-on-error: %d %q %q", code, out, errOut)
	}
}

// A member that stops polling for longer than max.poll.interval.ms leaves the group (its
// heartbeat thread sends LeaveGroup) and its partitions go to the other member; a member that
// polls slowly, within the limit, keeps its partitions because its heartbeat thread keeps the
// session (session.timeout.ms far below the time between its polls).
func TestConsumerMaxPollInterval(t *testing.T) {
	b := startTestBroker(t, map[string]string{"group.min.session.timeout.ms": "1000"})
	b.createTopic(t, "mp", 4, nil)
	newMember := func(id string) *consumer.KafkaConsumer[[]byte, []byte] {
		c := newTestConsumer(t, b.addr, "group.id", "mp", "client.id", id, "session.timeout.ms", "1500", "heartbeat.interval.ms", "300",
			"max.poll.interval.ms", "6000", "request.timeout.ms", "10000")
		if err := c.Subscribe([]string{"mp"}, nil); err != nil {
			t.Fatal(err)
		}
		return c
	}
	slow, stuck := newMember("slow"), newMember("stuck")
	// Both poll (on their own goroutines) until each owns two partitions.
	var stop atomic.Bool
	stuckDone := make(chan struct{})
	go func() {
		defer close(stuckDone)
		for !stop.Load() && len(stuck.Assignment()) != 2 {
			if _, err := stuck.Poll(50 * time.Millisecond); err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for len(slow.Assignment()) != 2 || len(stuck.Assignment()) != 2 {
		if _, err := slow.Poll(50 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			stop.Store(true)
			t.Fatalf("assignments %v %v", slow.Assignment(), stuck.Assignment())
		}
	}
	<-stuckDone
	// slow: one poll every 4 s (above the 1.5 s session, below the 6 s poll interval) keeps its
	// two partitions; stuck does not poll again, and after 6 s its partitions move to slow.
	start := time.Now()
	for time.Since(start) < 40*time.Second {
		time.Sleep(4 * time.Second)
		if _, err := slow.Poll(100 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		n := len(slow.Assignment())
		if n < 2 {
			t.Fatalf("slow member lost partitions: %v", slow.Assignment())
		}
		if n == 4 {
			if time.Since(start) < 6*time.Second {
				t.Fatalf("stuck member removed after %v, before max.poll.interval.ms", time.Since(start))
			}
			return
		}
	}
	t.Fatalf("stuck member's partitions never reassigned: %v", slow.Assignment())
}

// The console consumer's new-consumer placements: --whitelist (a pattern over whole topic
// names), --partition with --offset (a number or earliest), and the "Processed" line.
func TestConsoleConsumerNewConsumerPlacements(t *testing.T) {
	b := startTestBroker(t, nil)
	b.createTopic(t, "cw1", 1, nil)
	b.createTopic(t, "xcw2", 1, nil)
	produceValues(t, b.addr, "cw1", []byte("a"), []byte("b"), []byte("c"))
	produceValues(t, b.addr, "xcw2", []byte("x"))
	deps := consoleconsumer.Deps{NewShinyConsumer: func(_ context.Context, a consoleconsumer.NewConsumerArgs) (oldconsumer.BaseConsumer, error) {
		return oldconsumer.NewNewShinyConsumer(a.Topic, a.Partition, a.Offset, a.Whitelist, a.Props, a.TimeoutMs, quietConsumerLog())
	}}
	run := func(args ...string) (string, string) {
		var out, errOut bytes.Buffer
		code := consoleconsumer.RunWith(within(t, 60*time.Second), append([]string{"--bootstrap-server", b.addr, "--timeout-ms", "3000"}, args...), &out, &errOut, deps)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		return out.String(), errOut.String()
	}
	if out, errOut := run("--whitelist", "cw.*", "--from-beginning"); out != "a\nb\nc\n" || !strings.Contains(errOut, "Processed a total of 3 messages") {
		t.Fatalf("--whitelist: %q %q", out, errOut)
	}
	if out, _ := run("--topic", "cw1", "--partition", "0", "--offset", "1"); out != "b\nc\n" {
		t.Fatalf("--offset 1: %q", out)
	}
	if out, _ := run("--topic", "cw1", "--partition", "0", "--offset", "earliest", "--max-messages", "1"); out != "a\n" {
		t.Fatalf("--offset earliest: %q", out)
	}
}
