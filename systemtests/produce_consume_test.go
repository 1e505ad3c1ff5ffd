package systemtests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// pcCase is one cell of the client × codec matrix.
type pcCase struct {
	client string // sarama-0.10.2, sarama-0.10.0, kcat
	codec  string
}

// fullInShortSet are the cells that run with the full 1,000,000 messages in `make test`: every
// codec and every client once (about 55 s here); the others run 20,000 there and 1,000,000 under
// ZKAFKA_LONG=1 (the whole matrix took 3.5 min on the 2-core machine, too much beside the rest
// of CI).
var fullInShortSet = map[pcCase]bool{
	{"sarama-0.10.2", "gzip"}:   true,
	{"sarama-0.10.2", "snappy"}: true,
	{"sarama-0.10.0", "none"}:   true,
	{"kcat", "lz4"}:             true,
}

const (
	fullMessages  = 1_000_000
	shortMessages = 20_000
	messageSize   = 100
	pcPartitions  = 2
)

// Issue 5 acceptance: after LeaderAndIsr and UpdateMetadata, sarama (V0_10_2_0 and V0_10_0_0)
// and kcat produce and consume 1,000,000 100-byte messages with each codec, compared exactly
// (content, offset and order per partition), and ListOffsets by time finds the right offsets.
func TestProduceConsumeCodecs(t *testing.T) {
	c := newCluster(t, ClusterConfig{Brokers: 1})
	for _, client := range []string{"sarama-0.10.2", "sarama-0.10.0", "kcat"} {
		for _, codec := range Codecs {
			pc := pcCase{client, codec}
			n := shortMessages
			if long() || fullInShortSet[pc] {
				n = fullMessages
			}
			t.Run(fmt.Sprintf("%s/%s/%d", client, codec, n), func(t *testing.T) {
				if client == "kcat" && !KcatAvailable() {
					t.Skip("kcat not installed")
				}
				topic := fmt.Sprintf("pc-%s-%s", client, codec)
				topic = sanitizeTopic(topic)
				ctx := within(t, 10*time.Minute)
				if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {0}, 1: {0}}); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				switch client {
				case "kcat":
					runKcatCase(ctx, t, c, topic, codec, n)
				case "sarama-0.10.2":
					runSaramaCase(ctx, t, c, topic, sarama.V0_10_2_0, codec, n)
				default:
					runSaramaCase(ctx, t, c, topic, sarama.V0_10_0_0, codec, n)
				}
				t.Logf("%s %s: %d messages produced, consumed and compared in %v", client, codec, n, time.Since(start).Round(time.Millisecond))
			})
		}
	}
}

func sanitizeTopic(s string) string {
	out := []byte(s)
	for i, b := range out {
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-') {
			out[i] = '_'
		}
	}
	return string(out)
}

func runSaramaCase(ctx context.Context, t *testing.T, c *Cluster, topic string, version sarama.KafkaVersion, codec string, n int) {
	cfg, err := SaramaConfig(version, codec)
	if err != nil {
		t.Fatal(err)
	}
	addrs := c.BootstrapServers()
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Millisecond)
	ts := func(i int) time.Time { return base.Add(time.Duration(i) * time.Millisecond) }
	badAcks := 0
	var firstBad string
	t0 := time.Now()
	err = SaramaProduce(ctx, addrs, cfg, ProduceSpec{
		Topic: topic, Partitions: pcPartitions, Count: n, Size: messageSize, Timestamp: ts,
		OnAck: func(i int, p int32, off int64) {
			if p != int32(i%pcPartitions) || off != int64(i/pcPartitions) {
				if badAcks == 0 {
					firstBad = fmt.Sprintf("message %d acknowledged at [%d]@%d, want [%d]@%d", i, p, off, i%pcPartitions, i/pcPartitions)
				}
				badAcks++
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if badAcks > 0 {
		t.Fatalf("%d acknowledgements at unexpected offsets; first: %s", badAcks, firstBad)
	}
	produced := time.Since(t0)
	t0 = time.Now()
	for p := int32(0); p < pcPartitions; p++ {
		count := int64(n / pcPartitions)
		next := int64(0)
		hw, err := SaramaConsume(ctx, addrs, cfg, topic, p, count, func(m ConsumedMessage) error {
			i := int(next)*pcPartitions + int(p)
			if m.Offset != next {
				return fmt.Errorf("[%d] offset %d, want %d", p, m.Offset, next)
			}
			if err := ExpectMessage(m, i, messageSize); err != nil {
				return err
			}
			if !m.Timestamp.Equal(ts(i)) {
				return fmt.Errorf("[%d]@%d timestamp %v, want %v", p, m.Offset, m.Timestamp.UnixMilli(), ts(i).UnixMilli())
			}
			next++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if hw != count {
			t.Fatalf("[%d] high watermark %d, want %d", p, hw, count)
		}
	}
	t.Logf("produce %v (%.0f msg/s), consume %v (%.0f msg/s)", produced.Round(time.Millisecond), float64(n)/produced.Seconds(),
		time.Since(t0).Round(time.Millisecond), float64(n)/time.Since(t0).Seconds())

	// ListOffsets v1: the first message of each partition stamped at or after T.
	leader := c.Brokers[0].Addr()
	for _, k := range []int{0, 1, 2, 12345 % n, n / 2, n/2 + 1, n - 2, n - 1, n, n + 10} {
		for p := 0; p < pcPartitions; p++ {
			i := k
			for i%pcPartitions != p {
				i++
			}
			want := int64(i / pcPartitions)
			if i >= n {
				want = -1
			}
			got, _, err := ListOffset(leader, topic, int32(p), base.UnixMilli()+int64(k))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("ListOffsets([%d], base+%d ms) = %d, want %d", p, k, got, want)
			}
		}
	}
	checkEarliestLatest(t, leader, topic, int64(n/pcPartitions))
}

func checkEarliestLatest(t *testing.T, leader, topic string, count int64) {
	t.Helper()
	for p := int32(0); p < pcPartitions; p++ {
		if got, _, err := ListOffset(leader, topic, p, -2); err != nil || got != 0 {
			t.Errorf("ListOffsets([%d], earliest) = %d, %v; want 0", p, got, err)
		}
		if got, _, err := ListOffset(leader, topic, p, -1); err != nil || got != count {
			t.Errorf("ListOffsets([%d], latest) = %d, %v; want %d", p, got, err, count)
		}
	}
}

func runKcatCase(ctx context.Context, t *testing.T, c *Cluster, topic, codec string, n int) {
	addr := c.Brokers[0].Addr()
	t0 := time.Now()
	for p := 0; p < pcPartitions; p++ {
		if err := KcatProduce(ctx, addr, topic, int32(p), codec, p, pcPartitions, n/pcPartitions, messageSize); err != nil {
			t.Fatal(err)
		}
	}
	produced := time.Since(t0)
	t0 = time.Now()
	stamps := make([][]int64, pcPartitions)
	for p := 0; p < pcPartitions; p++ {
		next := int64(0)
		err := KcatConsume(ctx, addr, topic, int32(p), int64(n/pcPartitions), func(m ConsumedMessage) error {
			if m.Offset != next {
				return fmt.Errorf("[%d] offset %d, want %d", p, m.Offset, next)
			}
			if err := ExpectMessage(m, int(next)*pcPartitions+p, messageSize); err != nil {
				return err
			}
			stamps[p] = append(stamps[p], m.Timestamp.UnixMilli())
			next++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("produce %v (%.0f msg/s), consume %v (%.0f msg/s)", produced.Round(time.Millisecond), float64(n)/produced.Seconds(),
		time.Since(t0).Round(time.Millisecond), float64(n)/time.Since(t0).Seconds())

	// librdkafka stamps CreateTime itself: the expected answer is the first consumed offset whose
	// timestamp is at or after T.
	for p := 0; p < pcPartitions; p++ {
		s := stamps[p]
		last := s[len(s)-1]
		targets := []int64{s[0], s[len(s)/3], s[len(s)/2] + 1, last, last + 1}
		for _, target := range targets {
			want := int64(-1)
			for j, v := range s {
				if v >= target {
					want = int64(j)
					break
				}
			}
			got, _, err := ListOffset(addr, topic, int32(p), target)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("ListOffsets([%d], %d) = %d, want %d", p, target, got, want)
			}
		}
	}
	checkEarliestLatest(t, addr, topic, int64(n/pcPartitions))
}
