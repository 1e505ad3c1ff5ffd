package integration

import (
	"context"
	"encoding/binary"
	"sort"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// TestEndToEndLatencyFigures reports the end-to-end latency (KafkaProducer.send to
// KafkaConsumer.poll returning the record) of 100-byte records sent at 1,000 msg/s to one
// partition of one broker: p50, p99 and p99.9 over 10,000 records, once with 0.10.2
// EndToEndLatency's settings (linger.ms=0, acks=1, fetch.max.wait.ms=0) and once with the
// consumer's defaults (a fetch parked in the broker's purgatory until data arrives). Each record
// carries its send time; it is a figure, not an assertion (timed assertions belong in benchmarks),
// so the test fails only when records go missing.
func TestEndToEndLatencyFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("latency figures")
	}
	const n, rate = 10_000, 1000
	br := startTestBroker(t, nil)
	for _, c := range []struct {
		name, topic string
		consumer    []string
	}{
		{"EndToEndLatency settings", "latency-e2e", []string{"fetch.max.wait.ms", "0"}},
		{"consumer defaults", "latency-default", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			br.createTopic(t, c.topic, 1, nil)
			tp := common.TopicPartition{Topic: c.topic, Partition: 0}
			cons := newTestConsumer(t, br.addr, append([]string{"enable.auto.commit", "false", "auto.offset.reset", "latest"}, c.consumer...)...)
			if err := cons.Assign([]common.TopicPartition{tp}); err != nil {
				t.Fatal(err)
			}
			if _, err := cons.Position(tp); err != nil {
				t.Fatal(err)
			}
			p, err := producer.NewKafkaProducer[[]byte, []byte](map[string]string{"bootstrap.servers": br.addr, "linger.ms": "0", "acks": "1"},
				serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close(10 * time.Second) //nolint:errcheck
			// Warm the producer's metadata and connection before the clock starts.
			if f, err := p.Send(producer.ProducerRecord[[]byte, []byte]{Topic: c.topic, Value: make([]byte, 100)}, nil); err != nil {
				t.Fatal(err)
			} else if _, err := f.Get(context.Background()); err != nil {
				t.Fatal(err)
			}

			latencies := make(chan []time.Duration, 1)
			go func() {
				var got []time.Duration
				deadline := time.Now().Add(time.Duration(n/rate)*time.Second + 60*time.Second)
				for len(got) < n && time.Now().Before(deadline) {
					recs, err := cons.Poll(100 * time.Millisecond)
					if err != nil {
						break
					}
					now := time.Now()
					for _, r := range recs.All() {
						if sent := int64(binary.BigEndian.Uint64(r.Value)); sent != 0 {
							got = append(got, now.Sub(time.Unix(0, sent)))
						}
					}
				}
				latencies <- got
			}()

			start := time.Now()
			interval := time.Second / rate
			for i := 0; i < n; i++ {
				if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
					time.Sleep(d)
				}
				v := make([]byte, 100)
				binary.BigEndian.PutUint64(v, uint64(time.Now().UnixNano()))
				if _, err := p.Send(producer.ProducerRecord[[]byte, []byte]{Topic: c.topic, Value: v}, nil); err != nil {
					t.Fatal(err)
				}
			}
			sendTime := time.Since(start)
			got := <-latencies
			if len(got) != n {
				t.Fatalf("%d of %d records consumed", len(got), n)
			}
			sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
			pct := func(q float64) time.Duration { return got[int(q*float64(n-1))].Round(10 * time.Microsecond) }
			t.Logf("%s: %d records of 100 bytes at %.0f msg/s: p50 %v, p99 %v, p99.9 %v, max %v", c.name, n,
				float64(n)/sendTime.Seconds(), pct(0.50), pct(0.99), pct(0.999), got[n-1].Round(10*time.Microsecond))
		})
	}
}
