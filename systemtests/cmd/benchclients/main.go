// Command benchclients measures zkafka's Java-style producer (kafka-producer-perf-test) against
// sarama's AsyncProducer and kcat (librdkafka) on one zkafka broker, in the same run, A/B/C
// interleaved, several runs each: records/s, producer CPU per record (utime+stime of the
// producing process) and its peak RSS. `make bench-clients` runs it.
//
// Every client is a process of its own, measured the same way from outside (wall time from
// start to exit, rusage): kafka-producer-perf-test is `zkafka producer-perf-test`; sarama runs
// in a child of this command (-sarama-produce); kcat reads the records from a file. Each run
// writes N records of the given size, acks=1, to a fresh one-partition topic.
//
// Kafka 0.10.2: bin/kafka-producer-perf-test.sh (ProducerPerformance) is the client under test;
// the harness has no Kafka counterpart.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/systemtests"
)

type options struct {
	zkafka    string
	runs      int
	records   int
	size      int
	perfProps string
	keep      bool
}

func main() {
	child := flag.Bool("sarama-produce", false, "internal: produce with sarama's AsyncProducer and exit")
	broker := flag.String("broker", "", "internal: broker address")
	topic := flag.String("topic", "", "internal: topic")
	var o options
	flag.StringVar(&o.zkafka, "zkafka", "", "zkafka binary (default: go build ./tools/cmd/zkafka)")
	flag.IntVar(&o.runs, "runs", 5, "runs per client")
	flag.IntVar(&o.records, "records", 1_000_000, "records per run")
	flag.IntVar(&o.size, "size", 100, "record size in bytes")
	flag.StringVar(&o.perfProps, "perf-props", "batch.size=262144 linger.ms=5", "extra --producer-props of the batched kafka-producer-perf-test runs")
	flag.BoolVar(&o.keep, "keep", false, "keep the broker's data and logs")
	flag.Parse()
	if *child {
		os.Exit(saramaProduce(*broker, *topic, o.records, o.size))
	}
	if err := bench(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchclients:", err)
		os.Exit(1)
	}
}

// saramaProduce is the child: an AsyncProducer (sarama's defaults, acks=1, successes returned)
// sends n records to partition 0 and waits for every acknowledgement.
func saramaProduce(broker, topic string, n, size int) int {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Producer.RequiredAcks = sarama.WaitForLocal
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	p, err := sarama.NewAsyncProducer([]string{broker}, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	value := bytes.Repeat([]byte{'A'}, size)
	done := make(chan int)
	go func() {
		acked, failed := 0, 0
		for acked+failed < n {
			select {
			case <-p.Successes():
				acked++
			case e := <-p.Errors():
				fmt.Fprintln(os.Stderr, e.Err)
				failed++
			}
		}
		done <- failed
	}()
	for i := 0; i < n; i++ {
		p.Input() <- &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.ByteEncoder(value)}
	}
	failed := <-done
	p.Close() //nolint:errcheck
	if failed > 0 {
		return 1
	}
	return 0
}

// measure is one run of one client.
type measure struct {
	records  int
	elapsed  time.Duration
	cpu      time.Duration
	maxRSSKB int64
	line     string // the client's own summary line, if any
}

func (m measure) rate() float64 { return float64(m.records) / m.elapsed.Seconds() }
func (m measure) cpuPerRecord() float64 {
	return float64(m.cpu.Nanoseconds()) / 1000 / float64(m.records)
}

func run(ctx context.Context, name string, args []string) (measure, string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measure{}, "", err
	}
	// The peak RSS is read from /proc/<pid>/status (VmHWM) while the process runs: wait4's
	// ru_maxrss would also count this process's own pages, shared until the child's exec.
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb := vmHWM(cmd.Process.Pid); kb > peak.Load() {
				peak.Store(kb)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	<-sampled
	m := measure{elapsed: time.Since(start), maxRSSKB: peak.Load()}
	if cmd.ProcessState != nil {
		m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return m, out.String(), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, lastLines(errOut.String(), 10))
	}
	return m, out.String(), nil
}

// vmHWM is the peak resident set of pid in KiB (0 once it is gone).
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

type client struct {
	name string
	run  func(ctx context.Context, topic string) (measure, error)
}

func bench(o options) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	dir, err := os.MkdirTemp("", "benchclients-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("data and logs kept in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bin := o.zkafka
	if bin == "" {
		root, err := systemtests.ModuleRoot()
		if err != nil {
			return err
		}
		if bin, err = systemtests.BuildZkafka(ctx, root, dir); err != nil {
			return err
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	if !systemtests.KcatAvailable() {
		return fmt.Errorf("kcat is not installed")
	}
	c, err := systemtests.NewCluster(ctx, systemtests.ClusterConfig{Bin: bin, Dir: dir, Brokers: 1, ZooKeepers: 1,
		Properties: map[string]string{"num.io.threads": "8", "num.network.threads": "3"}})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.StartAll(ctx); err != nil {
		return err
	}
	b := c.Brokers[0]
	self, err := os.Executable()
	if err != nil {
		return err
	}
	input := filepath.Join(dir, "records.txt")
	if err := writeRecords(input, o.records, o.size); err != nil {
		return err
	}
	perf := func(extra string) func(ctx context.Context, topic string) (measure, error) {
		return func(ctx context.Context, topic string) (measure, error) {
			args := []string{"producer-perf-test", "--topic", topic, "--num-records", strconv.Itoa(o.records), "--record-size", strconv.Itoa(o.size),
				"--throughput", "-1", "--producer-props", "bootstrap.servers=" + b.Addr(), "acks=1"}
			args = append(args, strings.Fields(extra)...)
			m, out, err := run(ctx, bin, args)
			m.records = o.records
			m.line = lastLines(out, 1)
			return m, err
		}
	}
	clients := []client{
		{"perf-test (batched)", perf(o.perfProps)},
		{"perf-test (defaults)", perf("")},
		{"sarama AsyncProducer", func(ctx context.Context, topic string) (measure, error) {
			m, _, err := run(ctx, self, []string{"-sarama-produce", "-broker", b.Addr(), "-topic", topic, "-records", strconv.Itoa(o.records), "-size", strconv.Itoa(o.size)})
			m.records = o.records
			return m, err
		}},
		{"kcat (librdkafka)", func(ctx context.Context, topic string) (measure, error) {
			m, _, err := run(ctx, systemtests.KcatBin, []string{"-P", "-b", b.Addr(), "-t", topic, "-p", "0", "-X", "acks=1", "-X", "linger.ms=5",
				"-X", "api.version.request=true", "-l", input})
			m.records = o.records
			return m, err
		}},
	}
	fmt.Printf("benchclients: %d runs per client, %d records of %d bytes, acks=1, one zkafka broker at %s, clients interleaved\n",
		o.runs, o.records, o.size, b.Addr())
	results := map[string][]measure{}
	for r := 0; r < o.runs; r++ {
		for i := range clients {
			cl := clients[(i+r)%len(clients)]
			topic := fmt.Sprintf("bench-%d-%d", r, (i+r)%len(clients))
			if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {b.ID}}); err != nil {
				return err
			}
			m, err := cl.run(ctx, topic)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", cl.name, r, err)
			}
			results[cl.name] = append(results[cl.name], m)
			fmt.Printf("run %d %-22s %9.0f records/s  %6.2f µs CPU/record  %6.1f MiB max RSS  %s\n", r, cl.name, m.rate(), m.cpuPerRecord(),
				float64(m.maxRSSKB)/1024, m.line)
		}
	}
	fmt.Println()
	fmt.Println("medians:")
	med := map[string]measure{}
	for _, cl := range clients {
		ms := results[cl.name]
		m := measure{records: o.records, elapsed: median(ms, func(m measure) float64 { return float64(m.elapsed) }, time.Duration(0)),
			cpu:      median(ms, func(m measure) float64 { return float64(m.cpu) }, time.Duration(0)),
			maxRSSKB: median(ms, func(m measure) float64 { return float64(m.maxRSSKB) }, int64(0))}
		med[cl.name] = m
		fmt.Printf("  %-22s %9.0f records/s  %6.2f µs CPU/record  %6.1f MiB max RSS\n", cl.name, m.rate(), m.cpuPerRecord(), float64(m.maxRSSKB)/1024)
	}
	ratio := func(a, b string) float64 { return med[a].rate() / med[b].rate() }
	fmt.Printf("ratios (records/s): batched perf-test / sarama %.2fx (goal >= 1.0), / kcat %.2fx (goal >= 0.8); defaults perf-test / sarama %.2fx, / kcat %.2fx\n",
		ratio("perf-test (batched)", "sarama AsyncProducer"), ratio("perf-test (batched)", "kcat (librdkafka)"),
		ratio("perf-test (defaults)", "sarama AsyncProducer"), ratio("perf-test (defaults)", "kcat (librdkafka)"))
	return nil
}

// writeRecords writes n lines of size bytes (kcat's input), without holding them in memory.
func writeRecords(path string, n, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := append(bytes.Repeat([]byte{'A'}, size), '\n')
	for i := 0; i < n; i++ {
		w.Write(line) //nolint:errcheck
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// median of f over ms, converted to T.
func median[T time.Duration | int64](ms []measure, f func(measure) float64, _ T) T {
	xs := make([]float64, len(ms))
	for i, m := range ms {
		xs[i] = f(m)
	}
	sort.Float64s(xs)
	if len(xs) == 0 {
		return 0
	}
	if len(xs)%2 == 1 {
		return T(xs[len(xs)/2])
	}
	return T((xs[len(xs)/2-1] + xs[len(xs)/2]) / 2)
}
