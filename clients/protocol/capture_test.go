package protocol_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// The captures are request frames real clients (sarama, kcat/librdkafka) sent to a fake 0.10.2
// broker; testdata/captures/README.txt says how they were made and how to regenerate them.
const capturesDir = "testdata/captures"

// capture is one captured request frame (no size prefix) and what its file name says it is.
type capture struct {
	scenario string // directory name, e.g. kcat-produce-lz4
	name     string // file name, e.g. 003-00-v2.bin
	key      protocol.ApiKeys
	version  int16
	frame    []byte
}

func loadCaptures(t *testing.T) []capture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(capturesDir, "*", "*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no captures under %s", capturesDir)
	}
	sort.Strings(files)
	var out []capture
	for _, f := range files {
		var seq, key, version int
		if _, err := fmt.Sscanf(filepath.Base(f), "%03d-%02d-v%d.bin", &seq, &key, &version); err != nil {
			t.Fatalf("%s: bad capture name: %v", f, err)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, capture{
			scenario: filepath.Base(filepath.Dir(f)), name: filepath.Base(f),
			key: protocol.ApiKeys(key), version: int16(version), frame: b,
		})
	}
	return out
}

// TestCapturedRequestsRoundTrip decodes every captured request with ReadRequestHeader and
// ParseRequest, as the broker's RequestChannel would, and re-encodes it to the identical bytes.
// ApiVersions at an unsupported version is the exception: 0.10.2 never parses its body.
func TestCapturedRequestsRoundTrip(t *testing.T) {
	type apiVersion struct {
		key     protocol.ApiKeys
		version int16
	}
	seen := map[apiVersion]bool{}
	for _, c := range loadCaptures(t) {
		t.Run(c.scenario+"/"+c.name, func(t *testing.T) {
			h, body, err := protocol.ReadRequestHeader(c.frame)
			if err != nil {
				t.Fatalf("header: %v", err)
			}
			if h.ApiKey != c.key || h.ApiVersion != c.version {
				t.Fatalf("header says %s v%d, file name %s v%d", h.ApiKey, h.ApiVersion, c.key, c.version)
			}
			if h.ClientID == nil || *h.ClientID == "" {
				t.Errorf("client_id %v; both clients send one", h.ClientID)
			}
			msg, err := protocol.ParseRequest(h, body)
			if err != nil {
				t.Fatalf("ParseRequest(%s v%d): %v\n%s", h.ApiKey, h.ApiVersion, err, hex.Dump(c.frame))
			}
			seen[apiVersion{h.ApiKey, h.ApiVersion}] = true
			if h.ApiKey == protocol.ApiVersions && !protocol.IsSupported(h.ApiKey, h.ApiVersion) {
				checkUnsupportedAPIVersions(t, h, msg)
				return
			}
			if msg.Key() != h.ApiKey || msg.GetVersion() != h.ApiVersion {
				t.Fatalf("parsed %s v%d", msg.Key(), msg.GetVersion())
			}
			out := msg.AppendTo(h.AppendTo(nil))
			if !bytes.Equal(out, c.frame) {
				t.Fatalf("re-encoded %s v%d differs\n got: %x\nwant: %x", h.ApiKey, h.ApiVersion, out, c.frame)
			}
		})
	}
	// Guard against captures silently going missing: these are what sarama (0.10.0-0.10.2
	// settings) and librdkafka 2.0.2 send to a 0.10.2 broker in the capture scenarios.
	for _, want := range []apiVersion{
		{protocol.Produce, 1}, {protocol.Produce, 2}, {protocol.Fetch, 2}, {protocol.Fetch, 3},
		{protocol.ListOffsets, 0}, {protocol.ListOffsets, 1},
		{protocol.Metadata, 0}, {protocol.Metadata, 1}, {protocol.Metadata, 2},
		{protocol.OffsetCommit, 2}, {protocol.OffsetFetch, 2}, {protocol.GroupCoordinator, 0},
		{protocol.JoinGroup, 1}, {protocol.Heartbeat, 0}, {protocol.LeaveGroup, 0},
		{protocol.SyncGroup, 0}, {protocol.ApiVersions, 0}, {protocol.ApiVersions, 3},
	} {
		if !seen[want] {
			t.Errorf("no capture of %s v%d", want.key, want.version)
		}
	}
}

// checkUnsupportedAPIVersions: for an ApiVersions request newer than v0 (sarama and librdkafka
// open with v3, whose header and body use the flexible encoding), 0.10.2's RequestChannel skips
// the body and substitutes an empty request, and KafkaApis answers error 35 in the v0 layout.
// A schema lookup for that version (NewRequest) fails with UNSUPPORTED_VERSION.
func checkUnsupportedAPIVersions(t *testing.T, h protocol.RequestHeader, msg protocol.Message) {
	t.Helper()
	req, ok := msg.(*protocol.ApiVersionsRequest)
	if !ok || req.Version != h.ApiVersion {
		t.Fatalf("ParseRequest gave %T %+v, want an empty ApiVersionsRequest v%d", msg, msg, h.ApiVersion)
	}
	if _, err := protocol.NewRequest(protocol.ApiVersions, h.ApiVersion); !errors.Is(err, protocol.ErrUnsupportedVersion) {
		t.Errorf("NewRequest(ApiVersions, %d) error %v, want UNSUPPORTED_VERSION", h.ApiVersion, err)
	}
	resp := protocol.ApiVersionsResponseFor(h.ApiVersion)
	if got := hex.EncodeToString(resp.AppendTo(nil)); got != "002300000000" {
		t.Errorf("answer body %s, want 002300000000", got)
	}
}

// producedMessage is what each capture scenario's producer sent (see the recorder's
// recapture_test.go): keys key-0..key-2, values "value-i " four times.
func producedMessage(i int) (key, value string) {
	return fmt.Sprintf("key-%d", i), strings.Repeat(fmt.Sprintf("value-%d ", i), 4)
}

// TestCapturedProduceRecordSets checks the message sets inside every captured Produce request
// with clients/record: wrapper and inner CRCs, the codec and magic each client was configured
// for, offsets, keys, values and timestamps. Between them the captures hold magic 1 sets of every
// codec from sarama and librdkafka and magic 0 sets of every codec from librdkafka, including its
// magic-0 LZ4 frame with the pre-KAFKA-3160 header checksum.
func TestCapturedProduceRecordSets(t *testing.T) {
	type scenario struct {
		codec record.CompressionType
		magic int8
		msgs  int
	}
	scenarios := map[string]*scenario{}
	for _, c := range loadCaptures(t) {
		if c.key != protocol.Produce {
			continue
		}
		codecName := c.scenario[strings.LastIndex(c.scenario, "-")+1:]
		codec, err := record.ForName(codecName)
		if err != nil {
			t.Fatalf("%s: %v", c.scenario, err)
		}
		var magic int8 = record.MagicValueV1
		if strings.HasPrefix(c.scenario, "kcat-fallback090-") {
			magic = record.MagicValueV0 // Produce v1 with 0.9 message format
		}
		s := scenarios[c.scenario]
		if s == nil {
			s = &scenario{codec: codec, magic: magic}
			scenarios[c.scenario] = s
		}
		t.Run(c.scenario+"/"+c.name, func(t *testing.T) {
			h, body, err := protocol.ReadRequestHeader(c.frame)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := protocol.ParseRequest(h, body)
			if err != nil {
				t.Fatal(err)
			}
			req := msg.(*protocol.ProduceRequest)
			if len(req.TopicData) != 1 || len(req.TopicData[0].Data) != 1 {
				t.Fatalf("want one topic and one partition, got %+v", req.TopicData)
			}
			mr, ok := req.TopicData[0].Data[0].RecordSet.(*record.MemoryRecords)
			if !ok {
				t.Fatalf("record set is %T", req.TopicData[0].Data[0].RecordSet)
			}
			if n, err := mr.Validate(1 << 20); err != nil || n != mr.SizeInBytes() {
				t.Fatalf("Validate: %d of %d bytes valid, %v", n, mr.SizeInBytes(), err)
			}
			shallow := 0
			for e, err := range mr.ShallowEntries() {
				if err != nil {
					t.Fatalf("shallow entry %d: %v", shallow, err)
				}
				if err := e.Record.EnsureValid(); err != nil {
					t.Errorf("shallow entry %d: %v", shallow, err)
				}
				if e.Magic() != s.magic || e.Record.CompressionType() != s.codec {
					t.Errorf("shallow entry %d: magic %d codec %s, want %d %s",
						shallow, e.Magic(), e.Record.CompressionType(), s.magic, s.codec)
				}
				if s.codec == record.LZ4 {
					checkLZ4HeaderChecksum(t, e.Record.Value(), s.magic)
				}
				shallow++
			}
			if s.codec != record.NONE && shallow != 1 {
				t.Errorf("%d wrappers, want 1", shallow)
			}
			prev := int64(-1)
			for e, err := range mr.DeepEntries() {
				if err != nil {
					t.Fatalf("deep entry: %v", err)
				}
				r := e.Record
				if err := r.EnsureValid(); err != nil {
					t.Errorf("deep entry %d: %v", e.Offset, err)
				}
				if r.Magic() != s.magic || r.IsCompressed() {
					t.Errorf("inner magic %d codec %s", r.Magic(), r.CompressionType())
				}
				// Inside a wrapper the producer numbers the messages 0..n-1 (relative for magic
				// 1); uncompressed sets carry whatever the client wrote (sarama: all 0).
				if s.codec != record.NONE && prev >= 0 && e.Offset != prev+1 {
					t.Errorf("offset %d after %d", e.Offset, prev)
				}
				prev = e.Offset
				key, value := producedMessage(s.msgs)
				if string(r.Key()) != key || string(r.Value()) != value {
					t.Errorf("message %d: key %q value %q, want %q %q", s.msgs, r.Key(), r.Value(), key, value)
				}
				switch {
				case s.magic == record.MagicValueV0:
					if r.Timestamp() != record.NoTimestamp {
						t.Errorf("magic 0 timestamp %d", r.Timestamp())
					}
				case strings.HasPrefix(c.scenario, "sarama-"):
					if want := 1500000000000 + int64(s.msgs); r.Timestamp() != want {
						t.Errorf("timestamp %d, want %d", r.Timestamp(), want)
					}
				default:
					if r.Timestamp() <= 0 || r.TimestampType() != record.CreateTime {
						t.Errorf("timestamp %d type %v", r.Timestamp(), r.TimestampType())
					}
				}
				s.msgs++
			}
		})
	}
	if len(scenarios) < 4*5 {
		t.Errorf("only %d produce scenarios captured", len(scenarios))
	}
	for name, s := range scenarios {
		if s.msgs != 3 {
			t.Errorf("%s: %d messages in its Produce requests, want 3", name, s.msgs)
		}
	}
}

// lz4HeaderChecksums maps an LZ4 frame descriptor (FLG, BD) seen in the captures to its header
// checksum byte computed correctly (over the descriptor) and as Kafka's magic-0 writer did before
// KAFKA-3160 (over the frame magic and the descriptor); values from xxh32 and the captures.
var lz4HeaderChecksums = map[[2]byte]struct{ correct, broken byte }{
	{0x60, 0x40}: {correct: 0x82, broken: 0x1a}, // librdkafka: independent blocks, 64 KiB
	{0x64, 0x40}: {correct: 0xa7},               // sarama (pierrec/lz4): plus content checksum
}

// checkLZ4HeaderChecksum pins the KAFKA-3160 rule on real clients' bytes: magic 0 wrappers carry
// the broken header checksum, magic 1 wrappers the correct one (docs/formats.md §3.3).
func checkLZ4HeaderChecksum(t *testing.T, frame []byte, magic int8) {
	t.Helper()
	if len(frame) < 7 || !bytes.Equal(frame[:4], []byte{0x04, 0x22, 0x4d, 0x18}) {
		t.Errorf("not an LZ4 frame: %x", frame[:min(len(frame), 7)])
		return
	}
	sums, ok := lz4HeaderChecksums[[2]byte{frame[4], frame[5]}]
	if !ok {
		t.Errorf("LZ4 descriptor %x not in lz4HeaderChecksums; add it", frame[4:6])
		return
	}
	want := sums.correct
	if magic == record.MagicValueV0 {
		want = sums.broken
	}
	if frame[6] != want {
		t.Errorf("magic %d LZ4 header checksum %#x, want %#x", magic, frame[6], want)
	}
}
