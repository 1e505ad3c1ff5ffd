package recorder

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// The captures live in clients/protocol/testdata/captures/<client>-<scenario>/.
const capturesDir = "../../testdata/captures"

const (
	captureTopic = "zkafka-capture"
	captureGroup = "zkafka-capture-group"
	captureCount = 3 // messages per scenario; keeps the files small
)

var saramaVersions = []struct {
	name    string
	version sarama.KafkaVersion
}{
	{"v0_10_0_0", sarama.V0_10_0_0},
	{"v0_10_1_0", sarama.V0_10_1_0},
	{"v0_10_2_0", sarama.V0_10_2_0},
}

var codecs = []struct {
	name  string
	codec sarama.CompressionCodec
}{
	{"none", sarama.CompressionNone},
	{"gzip", sarama.CompressionGZIP},
	{"snappy", sarama.CompressionSnappy},
	{"lz4", sarama.CompressionLZ4},
}

// TestRecapture regenerates every capture directory from real clients. It needs loopback and, for
// the kcat scenarios, /usr/bin/kcat; it only runs with ZKAFKA_RECAPTURE=1.
func TestRecapture(t *testing.T) {
	if os.Getenv("ZKAFKA_RECAPTURE") != "1" {
		t.Skip("set ZKAFKA_RECAPTURE=1 to regenerate clients/protocol/testdata/captures")
	}
	for _, v := range saramaVersions {
		for _, c := range codecs {
			capture(t, "sarama-"+v.name+"-produce-"+c.name, func(t *testing.T, addr string) {
				saramaProduce(t, addr, v.version, c.codec)
			})
		}
		capture(t, "sarama-"+v.name+"-consume", func(t *testing.T, addr string) {
			saramaConsume(t, addr, v.version)
		})
	}
	capture(t, "sarama-v0_10_2_0-group", func(t *testing.T, addr string) {
		saramaGroup(t, addr, sarama.V0_10_2_0)
	})

	if _, err := exec.LookPath("kcat"); err != nil {
		t.Logf("kcat not installed, kcat captures not regenerated: %v", err)
		return
	}
	for _, c := range codecs {
		capture(t, "kcat-produce-"+c.name, func(t *testing.T, addr string) {
			kcatProduce(t, addr, c.name, "-X", "api.version.request=true")
		})
		capture(t, "kcat-noapiversions-produce-"+c.name, func(t *testing.T, addr string) {
			kcatProduce(t, addr, c.name, "-X", "api.version.request=false",
				"-X", "broker.version.fallback=0.10.2.1")
		})
		captureWith(t, "kcat-fallback090-produce-"+c.name, answerProduceV1, func(t *testing.T, addr string) {
			kcatProduce(t, addr, c.name, "-X", "api.version.request=false",
				"-X", "broker.version.fallback=0.9.0")
		})
	}
	capture(t, "kcat-consume", func(t *testing.T, addr string) {
		kcat(t, "", "-b", addr, "-C", "-t", captureTopic, "-p", "0", "-o", "beginning",
			"-c", fmt.Sprint(captureCount), "-e", "-X", "api.version.request=true")
	})
	capture(t, "kcat-group", func(t *testing.T, addr string) {
		kcat(t, "", "-b", addr, "-G", captureGroup, "-c", fmt.Sprint(captureCount),
			"-X", "auto.offset.reset=earliest", "-X", "heartbeat.interval.ms=100",
			"-X", "api.version.request=true", captureTopic)
	})
	capture(t, "kcat-metadata", func(t *testing.T, addr string) {
		kcat(t, "", "-b", addr, "-L", "-X", "api.version.request=true")
	})
}

// capture runs one scenario against a fresh mock broker behind a recording listener and writes
// the frames it saw.
func capture(t *testing.T, name string, run func(t *testing.T, addr string)) {
	captureWith(t, name, nil, run)
}

// captureWith is capture with a Listener.Intercept hook.
func captureWith(t *testing.T, name string,
	intercept func(int16, int16, uint32, []byte) ([]byte, bool), run func(t *testing.T, addr string)) {
	t.Run(name, func(t *testing.T) {
		ln, err := Listen()
		if err != nil {
			t.Fatal(err)
		}
		ln.MaxPerKey = 4
		ln.Intercept = intercept
		mb := sarama.NewMockBrokerListener(t, 1, ln)
		addr := mb.Addr()
		mb.SetHandlerByMap(handlers(t, mb, addr))
		run(t, addr)
		mb.Close()
		if t.Failed() {
			return
		}
		frames := ln.Frames()
		if err := WriteDir(filepath.Join(capturesDir, name), frames); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d frames", len(frames))
	})
}

// handlers answers every request the scenarios send. The single broker (id 1) is the recorder's
// own address, leader of partition 0 of captureTopic and coordinator of captureGroup; the log holds
// captureCount messages at offsets 0..captureCount-1.
func handlers(t *testing.T, mb *sarama.MockBroker, addr string) map[string]sarama.MockResponse {
	fetch := sarama.NewMockFetchResponse(t, captureCount)
	for i := 0; i < captureCount; i++ {
		fetch.SetMessageWithKey(captureTopic, 0, int64(i),
			sarama.StringEncoder(fmt.Sprintf("k%d", i)), sarama.StringEncoder(fmt.Sprintf("v%d", i)))
	}
	fetch.SetHighWaterMark(captureTopic, 0, captureCount)
	member := "sarama-member-1"
	return map[string]sarama.MockResponse{
		"MetadataRequest": sarama.NewMockMetadataResponse(t).
			SetBroker(addr, mb.BrokerID()).
			SetController(mb.BrokerID()).
			SetLeader(captureTopic, 0, mb.BrokerID()),
		"ProduceRequest": sarama.NewMockProduceResponse(t),
		"FetchRequest":   fetch,
		"OffsetRequest": sarama.NewMockOffsetResponse(t).
			SetOffset(captureTopic, 0, sarama.OffsetOldest, 0).
			SetOffset(captureTopic, 0, sarama.OffsetNewest, captureCount),
		"FindCoordinatorRequest": sarama.NewMockFindCoordinatorResponse(t).
			SetCoordinator(sarama.CoordinatorGroup, captureGroup, mb),
		"JoinGroupRequest": sarama.NewMockJoinGroupResponse(t).
			SetGenerationId(1).
			SetGroupProtocol(sarama.RangeBalanceStrategyName).
			SetMemberId(member).
			SetLeaderId(member).
			SetMember(member, &sarama.ConsumerGroupMemberMetadata{Topics: []string{captureTopic}}),
		"SyncGroupRequest": sarama.NewMockSyncGroupResponse(t).
			SetMemberAssignment(&sarama.ConsumerGroupMemberAssignment{
				Topics: map[string][]int32{captureTopic: {0}},
			}),
		"HeartbeatRequest":  sarama.NewMockHeartbeatResponse(t),
		"LeaveGroupRequest": sarama.NewMockLeaveGroupResponse(t),
		"OffsetFetchRequest": sarama.NewMockOffsetFetchResponse(t).
			SetOffset(captureGroup, captureTopic, 0, -1, "", sarama.ErrNoError),
		"OffsetCommitRequest": sarama.NewMockOffsetCommitResponse(t),
	}
}

func saramaConfig(v sarama.KafkaVersion) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = v
	cfg.Metadata.Retry.Max = 0
	cfg.Net.DialTimeout = 5 * time.Second
	return cfg
}

func saramaProduce(t *testing.T, addr string, v sarama.KafkaVersion, codec sarama.CompressionCodec) {
	cfg := saramaConfig(v)
	cfg.Producer.Return.Successes = true
	cfg.Producer.Compression = codec
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	p, err := sarama.NewSyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}()
	var msgs []*sarama.ProducerMessage
	for i := 0; i < captureCount; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{
			Topic: captureTopic, Partition: 0,
			Key:   sarama.StringEncoder(fmt.Sprintf("key-%d", i)),
			Value: sarama.StringEncoder(strings.Repeat(fmt.Sprintf("value-%d ", i), 4)),
			// Fixed timestamps make magic-1 captures reproducible.
			Timestamp: time.UnixMilli(1500000000000 + int64(i)),
		})
	}
	if err := p.SendMessages(msgs); err != nil {
		t.Fatal(err)
	}
}

func saramaConsume(t *testing.T, addr string, v sarama.KafkaVersion) {
	c, err := sarama.NewConsumer([]string{addr}, saramaConfig(v))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	pc, err := c.ConsumePartition(captureTopic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.AsyncClose()
	for i := 0; i < captureCount; i++ {
		select {
		case m := <-pc.Messages():
			if m.Offset != int64(i) {
				t.Errorf("offset %d, want %d", m.Offset, i)
			}
		case err := <-pc.Errors():
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatal("timed out consuming")
		}
	}
}

type groupHandler struct {
	t      *testing.T
	cancel context.CancelFunc
}

func (groupHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (groupHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h groupHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	n := 0
	for m := range c.Messages() {
		s.MarkMessage(m, "")
		n++
		if n == captureCount {
			// Let at least one heartbeat go out before the commit and the leave.
			time.Sleep(300 * time.Millisecond)
			s.Commit()
			h.cancel()
		}
	}
	return nil
}

func saramaGroup(t *testing.T, addr string, v sarama.KafkaVersion) {
	cfg := saramaConfig(v)
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cfg.Consumer.Group.Heartbeat.Interval = 100 * time.Millisecond
	g, err := sarama.NewConsumerGroup([]string{addr}, captureGroup, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.Consume(ctx, []string{captureTopic}, groupHandler{t: t, cancel: cancel}); err != nil {
		t.Error(err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		t.Error("group round timed out")
	}
	if err := g.Close(); err != nil {
		t.Error(err)
	}
}

func kcatProduce(t *testing.T, addr, codec string, extra ...string) {
	var in strings.Builder
	for i := 0; i < captureCount; i++ {
		fmt.Fprintf(&in, "key-%d:%s\n", i, strings.Repeat(fmt.Sprintf("value-%d ", i), 4))
	}
	args := append([]string{"-b", addr, "-P", "-t", captureTopic, "-p", "0", "-K:", "-z", codec,
		"-X", "linger.ms=50"}, extra...)
	kcat(t, in.String(), args...)
}

func kcat(t *testing.T, stdin string, args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kcat", args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kcat %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("kcat %s:\n%s", strings.Join(args, " "), out)
}

// answerProduceV1 answers a Produce v1 request for partition 0 of captureTopic without decoding
// it: sarama's LZ4 reader rejects librdkafka's magic-0 blocks, whose header checksum follows the
// pre-KAFKA-3160 framing that a 0.10.2 broker accepts for magic 0 (docs/formats.md §3.3).
func answerProduceV1(key, version int16, corr uint32, _ []byte) ([]byte, bool) {
	if key != 0 || version != 1 {
		return nil, false
	}
	b := binary.BigEndian.AppendUint32(nil, corr)
	b = binary.BigEndian.AppendUint32(b, 1) // one topic
	b = binary.BigEndian.AppendUint16(b, uint16(len(captureTopic)))
	b = append(b, captureTopic...)
	b = binary.BigEndian.AppendUint32(b, 1) // one partition
	b = binary.BigEndian.AppendUint32(b, 0) // partition 0
	b = binary.BigEndian.AppendUint16(b, 0) // error_code NONE
	b = binary.BigEndian.AppendUint64(b, 0) // base_offset
	b = binary.BigEndian.AppendUint32(b, 0) // throttle_time_ms
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...), true
}
