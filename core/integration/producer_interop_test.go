package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// stored is a record as a consumer reads it.
type stored struct {
	Key, Value []byte // nil for null
	Timestamp  int64
}

func (s stored) String() string {
	return fmt.Sprintf("key=%v value=%v ts=%d", hexOrNil(s.Key), hexOrNil(s.Value), s.Timestamp)
}

func (s stored) equal(o stored) bool {
	return (s.Key == nil) == (o.Key == nil) && bytes.Equal(s.Key, o.Key) && (s.Value == nil) == (o.Value == nil) &&
		bytes.Equal(s.Value, o.Value) && s.Timestamp == o.Timestamp
}

const interopBase = 1_600_000_000_000

// interopRecord i: keyed mostly; a null key every 50th, an empty value every 97th, a null
// value (tombstone) every 101st; printable values of varied length; timestamps given.
func interopRecord(i int) stored {
	s := stored{Key: []byte(fmt.Sprintf("key-%d", i)), Timestamp: interopBase + int64(i)}
	if i%50 == 0 {
		s.Key = nil
	}
	switch {
	case i%101 == 0:
		s.Value = nil
	case i%97 == 0:
		s.Value = []byte{}
	default:
		s.Value = []byte(strings.Repeat(fmt.Sprintf("v%d.", i), 1+i%7))
	}
	return s
}

// Records sent by KafkaProducer with each codec are read back exactly (partition, offset, key,
// value, null and empty kept apart, timestamp) by sarama, kcat and kafka-python.
func TestProducerRecordsReadBackByEveryClient(t *testing.T) {
	b := startTestBroker(t, nil)
	for _, codec := range []string{"none", "gzip", "snappy", "lz4"} {
		t.Run(codec, func(t *testing.T) {
			topic := "interop-" + codec
			b.createTopic(t, topic, 2, nil)
			p, err := producer.NewKafkaProducer[[]byte, []byte](map[string]string{"bootstrap.servers": b.addr, "compression.type": codec,
				"linger.ms": "20", "acks": "all", "batch.size": "4096"}, serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{})
			if err != nil {
				t.Fatal(err)
			}
			const n = 500
			var futs []*producer.FutureRecordMetadata
			for i := 0; i < n; i++ {
				r := interopRecord(i)
				f, err := p.Send(producer.NewProducerRecord(topic, r.Key, r.Value).WithTimestamp(r.Timestamp), nil)
				if err != nil {
					t.Fatal(err)
				}
				futs = append(futs, f)
			}
			want := map[common.TopicPartition]map[int64]stored{}
			for i, f := range futs {
				md, err := f.Get(within(t, 30*time.Second))
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				tp := common.TopicPartition{Topic: topic, Partition: md.Partition}
				if want[tp] == nil {
					want[tp] = map[int64]stored{}
				}
				want[tp][md.Offset] = interopRecord(i)
			}
			if err := p.Close(10 * time.Second); err != nil {
				t.Fatal(err)
			}
			if len(want) != 2 {
				t.Fatalf("records went to %d partitions", len(want))
			}
			readers := map[string]func(t *testing.T, topic string, counts map[int32]int) map[int32]map[int64]stored{
				"sarama": saramaRead(b.addr), "kcat": kcatRead(b.addr), "kafka-python": pythonRead(b.addr),
			}
			counts := map[int32]int{}
			for tp, recs := range want {
				counts[tp.Partition] = len(recs)
			}
			for name, read := range readers {
				all := read(t, topic, counts)
				if all == nil {
					continue // the client is not installed
				}
				for tp, recs := range want {
					got := all[tp.Partition]
					if len(got) != len(recs) {
						t.Errorf("%s read %d records of %s, want %d", name, len(got), tp, len(recs))
					}
					for off, w := range recs {
						if g, ok := got[off]; !ok || !g.equal(w) {
							t.Errorf("%s %s offset %d: got %v, want %v", name, tp, off, g, w)
							break
						}
					}
				}
			}
		})
	}
}

// perPartition adapts a one-partition reader to many partitions.
func perPartition(read func(t *testing.T, topic string, partition int32, n int) map[int64]stored) func(*testing.T, string, map[int32]int) map[int32]map[int64]stored {
	return func(t *testing.T, topic string, counts map[int32]int) map[int32]map[int64]stored {
		out := map[int32]map[int64]stored{}
		for p, n := range counts {
			got := read(t, topic, p, n)
			if got == nil {
				return nil
			}
			out[p] = got
		}
		return out
	}
}

func saramaRead(addr string) func(*testing.T, string, map[int32]int) map[int32]map[int64]stored {
	return perPartition(func(t *testing.T, topic string, partition int32, n int) map[int64]stored {
		cfg := sarama.NewConfig()
		cfg.Version = sarama.V0_10_2_0
		c, err := sarama.NewConsumer([]string{addr}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		pc, err := c.ConsumePartition(topic, partition, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		out := map[int64]stored{}
		for len(out) < n {
			select {
			case m := <-pc.Messages():
				out[m.Offset] = stored{Key: m.Key, Value: m.Value, Timestamp: m.Timestamp.UnixMilli()}
			case e := <-pc.Errors():
				t.Fatal(e)
			case <-time.After(30 * time.Second):
				t.Fatalf("sarama: %d of %d records", len(out), n)
			}
		}
		return out
	})
}

// kcatRead reads a partition with kcat; -Z prints null keys and values as NULL, and the
// lengths (-1 for null) tell them from the text "NULL".
func kcatRead(addr string) func(*testing.T, string, map[int32]int) map[int32]map[int64]stored {
	return perPartition(func(t *testing.T, topic string, partition int32, n int) map[int64]stored {
		if _, err := exec.LookPath("kcat"); err != nil {
			t.Log("kcat not installed")
			return nil
		}
		cmd := exec.CommandContext(within(t, time.Minute), "kcat", "-C", "-b", addr, "-t", topic, "-p", strconv.Itoa(int(partition)),
			"-o", "beginning", "-e", "-Z", "-c", strconv.Itoa(n), "-f", `%o\t%T\t%K\t%S\t%k\t%s\n`)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kcat: %v: %s", err, stderr.String())
		}
		recs := map[int64]stored{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			f := strings.SplitN(sc.Text(), "\t", 6)
			if len(f) != 6 {
				t.Fatalf("kcat line %q", sc.Text())
			}
			off, _ := strconv.ParseInt(f[0], 10, 64)
			ts, _ := strconv.ParseInt(f[1], 10, 64)
			s := stored{Timestamp: ts}
			s.Key, s.Value = kcatField(f[2], f[4]), kcatField(f[3], f[5])
			recs[off] = s
		}
		return recs
	})
}

// kcatField is a key or value kcat printed: its length says null (-1) and empty (0, which -Z
// prints as NULL too, librdkafka giving an empty payload no pointer).
func kcatField(length, text string) []byte {
	switch length {
	case "-1":
		return nil
	case "0":
		return []byte{}
	}
	return []byte(text)
}

// pythonConsumer reads partitions from the beginning with kafka-python (argv: address, topic,
// then partition:count pairs) and prints each record as JSON (hex key and value, null for None).
const pythonConsumer = `
import sys, json, binascii
from kafka import KafkaConsumer, TopicPartition
addr, topic = sys.argv[1], sys.argv[2]
want = dict((int(a), int(b)) for a, b in (x.split(":") for x in sys.argv[3:]))
c = KafkaConsumer(bootstrap_servers=addr, api_version=(0, 10, 1), enable_auto_commit=False, consumer_timeout_ms=20000)
tps = [TopicPartition(topic, p) for p in want]
c.assign(tps)
c.seek_to_beginning(*tps)
h = lambda b: None if b is None else binascii.hexlify(b).decode()
got = 0
for m in c:
    print(json.dumps({"p": m.partition, "o": m.offset, "t": m.timestamp, "k": h(m.key), "v": h(m.value)}))
    got += 1
    if got == sum(want.values()):
        break
c.close()
`

func pythonRead(addr string) func(*testing.T, string, map[int32]int) map[int32]map[int64]stored {
	return func(t *testing.T, topic string, counts map[int32]int) map[int32]map[int64]stored {
		if err := exec.Command("/usr/bin/python3", "-c", "import kafka").Run(); err != nil {
			t.Log("kafka-python not installed (/usr/bin/python3 -c 'import kafka')")
			return nil
		}
		args := []string{"-c", pythonConsumer, addr, topic}
		for p, n := range counts {
			args = append(args, fmt.Sprintf("%d:%d", p, n))
		}
		cmd := exec.CommandContext(within(t, time.Minute), "/usr/bin/python3", args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kafka-python: %v: %s", err, stderr.String())
		}
		recs := map[int32]map[int64]stored{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r struct {
				P int32   `json:"p"`
				O int64   `json:"o"`
				T int64   `json:"t"`
				K *string `json:"k"`
				V *string `json:"v"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("kafka-python line %q: %v", line, err)
			}
			if recs[r.P] == nil {
				recs[r.P] = map[int64]stored{}
			}
			recs[r.P][r.O] = stored{Timestamp: r.T, Key: unhex(t, r.K), Value: unhex(t, r.V)}
		}
		return recs
	}
}

func unhex(t *testing.T, s *string) []byte {
	if s == nil {
		return nil
	}
	b := make([]byte, len(*s)/2)
	for i := range b {
		v, err := strconv.ParseUint((*s)[2*i:2*i+2], 16, 8)
		if err != nil {
			t.Fatal(err)
		}
		b[i] = byte(v)
	}
	return b
}
