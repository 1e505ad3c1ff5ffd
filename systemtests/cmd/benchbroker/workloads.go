package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/systemtests"
)

// measure is one run of one workload against one broker.
type measure struct {
	records int
	bytes   int64 // record value bytes, as kafka-producer-perf-test counts them
	elapsed time.Duration
	cpu     time.Duration   // broker CPU (schedstat) during the run
	lat     []time.Duration // per-record latency, when the workload measures it
	verb    string          // "sent" (default) or "consumed"
}

// plus is m followed by another pass p of the same workload.
func (m measure) plus(p measure) measure {
	m.records += p.records
	m.bytes += p.bytes
	m.elapsed += p.elapsed
	m.lat = append(m.lat, p.lat...)
	m.verb = p.verb
	return m
}

func (m measure) rate() float64 { return float64(m.records) / m.elapsed.Seconds() }
func (m measure) mbps() float64 { return float64(m.bytes) / (1 << 20) / m.elapsed.Seconds() }
func (m measure) cpuPerRecord() float64 {
	return float64(m.cpu.Nanoseconds()) / 1000 / float64(max(m.records, 1))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile of sorted latencies (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// String prints the run the way kafka-producer-perf-test prints its total line.
func (m measure) String() string {
	verb := m.verb
	if verb == "" {
		verb = "sent"
	}
	s := fmt.Sprintf("%d records %s, %.1f records/sec (%.2f MB/sec)", m.records, verb, m.rate(), m.mbps())
	if len(m.lat) > 0 {
		l := append([]time.Duration(nil), m.lat...)
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		var sum time.Duration
		for _, d := range l {
			sum += d
		}
		s += fmt.Sprintf(", %.3f ms avg latency, %.3f ms max latency, %.3f ms 50th, %.3f ms 95th, %.3f ms 99th, %.3f ms 99.9th",
			ms(sum/time.Duration(len(l))), ms(l[len(l)-1]), ms(percentile(l, 0.5)), ms(percentile(l, 0.95)), ms(percentile(l, 0.99)), ms(percentile(l, 0.999)))
	}
	return s + fmt.Sprintf(", broker CPU %.3f µs/record (%.2f s).", m.cpuPerRecord(), m.cpu.Seconds())
}

func saramaConfig(t *target) (*sarama.Config, error) {
	cfg, err := systemtests.SaramaConfig(t.version, "none")
	if err != nil {
		return nil, err
	}
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	return cfg, nil
}

// saramaProduce: n records of size bytes, acks=1, async, latency from Input to Successes.
func saramaProduce(ctx context.Context, t *target, topic string, n, size int) (measure, error) {
	cfg, err := saramaConfig(t)
	if err != nil {
		return measure{}, err
	}
	p, err := sarama.NewAsyncProducer([]string{t.addr}, cfg)
	if err != nil {
		return measure{}, err
	}
	lat := make([]time.Duration, 0, n)
	done := make(chan error, 1)
	go func() {
		var first error
		succ, errs := p.Successes(), p.Errors()
		for succ != nil || errs != nil {
			select {
			case m, ok := <-succ:
				if !ok {
					succ = nil
					continue
				}
				lat = append(lat, time.Since(m.Metadata.(time.Time)))
			case e, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				if first == nil {
					first = e.Err
				}
			}
		}
		done <- first
	}()
	value := make([]byte, size)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		m := &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.ByteEncoder(value), Metadata: time.Now()}
		select {
		case p.Input() <- m:
		case <-ctx.Done():
			p.AsyncClose()
			<-done
			return measure{}, ctx.Err()
		}
	}
	p.AsyncClose()
	if err := <-done; err != nil {
		return measure{}, err
	}
	if len(lat) != n {
		return measure{}, fmt.Errorf("%d of %d acknowledged", len(lat), n)
	}
	return measure{records: n, bytes: int64(n * size), elapsed: time.Since(start), lat: lat}, nil
}

// saramaConsume reads the n records of topic from the beginning.
func saramaConsume(ctx context.Context, t *target, topic string, n, size int) (measure, error) {
	cfg, err := saramaConfig(t)
	if err != nil {
		return measure{}, err
	}
	start := time.Now()
	got := 0
	_, err = systemtests.SaramaConsume(ctx, []string{t.addr}, cfg, topic, 0, int64(n), func(m systemtests.ConsumedMessage) error {
		if len(m.Value) != size {
			return fmt.Errorf("record of %d bytes, want %d", len(m.Value), size)
		}
		got++
		return nil
	})
	if err != nil {
		return measure{}, err
	}
	return measure{records: got, bytes: int64(got * size), elapsed: time.Since(start), verb: "consumed"}, nil
}

func kcatExtra(t *target) []string {
	return []string{"-X", "api.version.request=true"}
}

// kcatProduce pipes n records to kcat -P, acks=1 unless extra says otherwise (a later -X wins).
func kcatProduce(ctx context.Context, t *target, topic string, n, size int, extra ...string) (measure, error) {
	start := time.Now()
	if err := systemtests.KcatProduce(ctx, t.addr, topic, 0, "none", 0, 1, n, size, append(kcatExtra(t), extra...)...); err != nil {
		return measure{}, err
	}
	return measure{records: n, bytes: int64(n * size), elapsed: time.Since(start)}, nil
}

func kcatConsume(ctx context.Context, t *target, topic string, n, size int) (measure, error) {
	start := time.Now()
	if err := systemtests.KcatConsume(ctx, t.addr, topic, 0, int64(n), func(systemtests.ConsumedMessage) error { return nil }, kcatExtra(t)...); err != nil {
		return measure{}, err
	}
	return measure{records: n, bytes: int64(n * size), elapsed: time.Since(start), verb: "consumed"}, nil
}

// roundTrip sends one 100-byte record at a time (sync producer, acks=1) and waits for a
// consumer, already polling the partition, to receive it; sends are paced at rate per second.
func roundTrip(ctx context.Context, t *target, topic string, n, rate int) (measure, error) {
	cfg, err := saramaConfig(t)
	if err != nil {
		return measure{}, err
	}
	cfg.Producer.Flush.Bytes, cfg.Producer.Flush.Frequency = 0, 0
	c, err := sarama.NewConsumer([]string{t.addr}, cfg)
	if err != nil {
		return measure{}, err
	}
	defer c.Close()
	pc, err := c.ConsumePartition(topic, 0, sarama.OffsetNewest)
	if err != nil {
		return measure{}, err
	}
	defer pc.Close()
	prod, err := sarama.NewSyncProducer([]string{t.addr}, cfg)
	if err != nil {
		return measure{}, err
	}
	defer prod.Close()
	value := make([]byte, 100)
	interval := time.Second / time.Duration(rate)
	lat := make([]time.Duration, 0, n)
	// Warm-up round trip (connections, metadata), not measured.
	warm := -1
	start := time.Now()
	for i := warm; i < n; i++ {
		if i >= 0 {
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
		}
		copy(value, fmt.Sprintf("%010d", i+1))
		t0 := time.Now()
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.ByteEncoder(value)}); err != nil {
			return measure{}, err
		}
		select {
		case m := <-pc.Messages():
			if !strings.HasPrefix(string(m.Value), fmt.Sprintf("%010d", i+1)) {
				return measure{}, fmt.Errorf("round trip %d received %q", i, m.Value[:10])
			}
		case e := <-pc.Errors():
			return measure{}, e.Err
		case <-time.After(30 * time.Second):
			return measure{}, fmt.Errorf("round trip %d: nothing received in 30 s", i)
		case <-ctx.Done():
			return measure{}, ctx.Err()
		}
		if i >= 0 {
			lat = append(lat, time.Since(t0))
		} else {
			start = time.Now()
		}
	}
	return measure{records: n, bytes: int64(n * 100), elapsed: time.Since(start), lat: lat, verb: "round-tripped"}, nil
}

// results collects measures by workload and target, in the order workloads first ran.
type results struct {
	order []string
	by    map[string]map[string][]measure
}

func newResults() *results { return &results{by: map[string]map[string][]measure{}} }

func (r *results) add(workload, target string, m measure) {
	if r.by[workload] == nil {
		r.by[workload] = map[string][]measure{}
		r.order = append(r.order, workload)
	}
	r.by[workload][target] = append(r.by[workload][target], m)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

type summaryRow struct {
	rate, mbps, cpu, p50, p99, p999, cpuSpan float64
	runs                                     int
}

func summarize(ms []measure) summaryRow {
	var rate, mbps, cpu, p50, p99, p999, span []float64
	for _, m := range ms {
		rate = append(rate, m.rate())
		mbps = append(mbps, m.mbps())
		cpu = append(cpu, m.cpuPerRecord())
		span = append(span, m.cpu.Seconds())
		if len(m.lat) > 0 {
			l := append([]time.Duration(nil), m.lat...)
			sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
			p50 = append(p50, msf(percentile(l, 0.5)))
			p99 = append(p99, msf(percentile(l, 0.99)))
			p999 = append(p999, msf(percentile(l, 0.999)))
		}
	}
	return summaryRow{median(rate), median(mbps), median(cpu), median(p50), median(p99), median(p999), median(span), len(ms)}
}

func msf(d time.Duration) float64 { return ms(d) }

func ratio(a, b float64) string {
	if b == 0 {
		return "   n/a"
	}
	return fmt.Sprintf("%6.2fx", a/b)
}

// summary prints the medians per workload and target, zkafka's ratio to kfake and to the floor.
func (r *results) summary(targets []string) {
	fmt.Println()
	fmt.Println("medians over runs (vs kfake = zkafka / kfake; vs floor = zkafka / raw broker;")
	fmt.Println("goals: CPU/record <= 2.0x floor for produce, <= 1.5x floor for consume; round-trip p99 <= 1 ms, p99.9 <= 2 ms)")
	for _, w := range r.order {
		fmt.Printf("%s:\n", w)
		rows := map[string]summaryRow{}
		for _, t := range targets {
			ms := r.by[w][t]
			if len(ms) == 0 {
				continue
			}
			row := summarize(ms)
			rows[t] = row
			line := fmt.Sprintf("  %-6s %d runs: %.1f records/sec (%.2f MB/sec), broker CPU %.3f µs/record (%.2f s)", t, row.runs, row.rate, row.mbps, row.cpu, row.cpuSpan)
			if row.p50 > 0 {
				line += fmt.Sprintf(", latency %.3f ms 50th, %.3f ms 99th, %.3f ms 99.9th", row.p50, row.p99, row.p999)
			}
			fmt.Println(line)
		}
		z, okz := rows["zkafka"]
		if !okz {
			continue
		}
		for _, peer := range []string{"kfake", "floor"} {
			k, ok := rows[peer]
			if !ok {
				continue
			}
			line := fmt.Sprintf("  vs %-6s records/sec %s, MB/sec %s, CPU/record %s", peer, ratio(z.rate, k.rate), ratio(z.mbps, k.mbps), ratio(z.cpu, k.cpu))
			if z.p50 > 0 {
				line += fmt.Sprintf(", p50 %s, p99 %s, p99.9 %s", ratio(z.p50, k.p50), ratio(z.p99, k.p99), ratio(z.p999, k.p999))
			}
			fmt.Println(line)
		}
	}
	all, one := r.by["kcat produce 100B acks=all RF3"]["zkafka"], r.by["kcat produce 100B"]["zkafka"]
	if len(all) > 0 && len(one) > 0 {
		a, o := summarize(all), summarize(one)
		fmt.Printf("zkafka acks=all RF 3 (min.insync.replicas=2) / acks=1 RF 1, kcat 100B: records/sec %s, leader CPU/record %s (goal >= 0.65x)\n",
			ratio(a.rate, o.rate), ratio(a.cpu, o.cpu))
	}
}
