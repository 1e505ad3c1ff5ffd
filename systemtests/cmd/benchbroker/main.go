// Command benchbroker measures a zkafka broker process against a peer broker,
// github.com/twmb/franz-go/pkg/kfake (an in-memory Go Kafka run in a child process of its own so
// its CPU time is read the same way), and against the floor, a raw broker (rawbroker.go: CRC
// check, one pwrite per partition per request, sendfile for fetches, nothing else), with the
// same client programs (sarama and kcat), interleaved, several runs each. `make bench-broker`
// runs it.
//
// Workloads: produce 100-byte and 1 KiB records with acks=1 (sarama and kcat), consume them
// (sarama and kcat), kcat 1 KiB catch-up reads with the segments' page cache dropped first
// ("cold"; not for kfake), kcat 100-byte produce with acks=all to a topic of RF 3 with
// min.insync.replicas=2 (zkafka only: its target runs three brokers, broker 0 leading every
// measured partition), and one-at-a-time produce→consume round trips paced at 1,000 msg/s (sarama).
// For each it prints kafka-producer-perf-test style lines per run, then the medians and the
// zkafka/kfake and zkafka/floor ratios: records/s, MB/s, broker CPU time per record (the sum of
// /proc/<pid>/task/*/schedstat of the broker process, nanoseconds) and latency percentiles.
// A produce or consume run repeats its workload until the broker has used -min-cpu of CPU (or
// -max-run has passed), so that each CPU figure spans enough scheduler time to mean something.
//
// sarama speaks 0.10.2 (V0_10_2_0) to zkafka; kfake accepts only record batches (Produce v3+,
// Fetch v4+), so sarama uses V0_11_0_0 with it, the oldest version kfake speaks. kcat
// (librdkafka) negotiates with ApiVersions on both.
//
// Kafka 0.10.2: bin/kafka-producer-perf-test.sh (ProducerPerformance) for the output format and
// bin/kafka-consumer-perf-test.sh for the consume side; the A/B harness has no Kafka counterpart.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"
	"golang.org/x/sys/unix"

	"github.com/zkafka/zkafka/systemtests"
)

func main() {
	os.Exit(run())
}

type options struct {
	zkafka      string
	runs        int
	records100  int
	records1k   int
	latencyMsgs int
	latencyRate int
	targets     string
	keep        bool
	minCPU      time.Duration
	maxRun      time.Duration
	workloads   *regexp.Regexp // nil: all
}

func run() int {
	var o options
	serve := flag.Bool("kfake-serve", false, "internal: run kfake on -port until SIGTERM")
	port := flag.Int("port", 0, "internal: kfake port")
	rawServe := flag.Bool("raw-serve", false, "internal: run the raw broker on -port until SIGTERM")
	rawDir := flag.String("raw-dir", "", "internal: raw broker data directory")
	topics := flag.String("topics", "", "internal: topics kfake seeds (comma separated, 1 partition each)")
	flag.StringVar(&o.zkafka, "zkafka", "", "zkafka binary (default: go build ./tools/cmd/zkafka)")
	flag.IntVar(&o.runs, "runs", 5, "runs per target and workload")
	flag.IntVar(&o.records100, "records-100", 300_000, "records per 100-byte produce/consume run")
	flag.IntVar(&o.records1k, "records-1k", 100_000, "records per 1 KiB produce/consume run")
	flag.IntVar(&o.latencyMsgs, "latency-msgs", 3000, "round trips per latency run")
	flag.IntVar(&o.latencyRate, "latency-rate", 1000, "round trips per second")
	flag.StringVar(&o.targets, "targets", "zkafka,kfake,floor", "brokers to measure")
	flag.DurationVar(&o.minCPU, "min-cpu", time.Second, "repeat a produce/consume workload until the broker used this much CPU")
	flag.DurationVar(&o.maxRun, "max-run", 30*time.Second, "but stop repeating after this long")
	flag.BoolVar(&o.keep, "keep", false, "keep the zkafka data and logs")
	workloads := flag.String("workloads", "", "run only the workloads whose names match this regular expression (a consume workload reads what its topic's produce workload wrote: select both)")
	flag.Parse()
	if *workloads != "" {
		re, err := regexp.Compile(*workloads)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchbroker: -workloads:", err)
			return 2
		}
		o.workloads = re
	}
	if *rawServe {
		return serveRaw(*port, *rawDir)
	}
	if *serve {
		return serveKfake(*port, *topics)
	}
	if err := bench(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchbroker:", err)
		return 1
	}
	return 0
}

// serveKfake is the child process: kfake on 127.0.0.1:port until SIGTERM.
func serveKfake(port int, topics string) int {
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.DefaultNumPartitions(1)}
	if topics != "" {
		opts = append(opts, kfake.SeedTopics(1, strings.Split(topics, ",")...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		return 1
	}
	fmt.Println("kfake ready on", strings.Join(c.ListenAddrs(), ","))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	c.Close()
	return 0
}

// target is one broker under test.
type target struct {
	name    string
	addr    string
	pid     func() int
	version sarama.KafkaVersion
	// prepare creates a topic with one partition led by the broker.
	prepare func(ctx context.Context, topic string) error
	close   func()
	// prepareRF3, when set, creates a topic with one partition replicated on three brokers, led
	// by the measured one (acks=all workloads; nil for single-broker targets).
	prepareRF3 func(ctx context.Context, topic string) error
	// files lists the files holding topic's partition 0 (nil for an in-memory broker).
	files func(topic string) []string
}

func topicNames(runs int) []string {
	var out []string
	for r := 0; r < runs; r++ {
		for _, w := range []string{"s100", "s1k", "k100", "k1k", "lat"} {
			out = append(out, fmt.Sprintf("bench-%s-%d", w, r))
		}
	}
	return out
}

func startKfake(ctx context.Context, runs int) (*target, error) {
	port, err := systemtests.FreePort()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-kfake-serve", "-port", fmt.Sprint(port), "-topics", strings.Join(topicNames(runs), ","))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	buf := make([]byte, 256)
	if n, err := out.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "ready") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("kfake child did not start: %v %q", err, buf[:n])
	}
	return &target{
		name: "kfake", addr: fmt.Sprintf("127.0.0.1:%d", port), pid: func() int { return cmd.Process.Pid },
		version: sarama.V0_11_0_0,
		prepare: func(context.Context, string) error { return nil },
		close: func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		},
	}, nil
}

func startRaw(dir string) (*target, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := systemtests.FreePort()
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-raw-serve", "-port", fmt.Sprint(port), "-raw-dir", dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	buf := make([]byte, 256)
	if n, err := out.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "ready") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("raw broker child did not start: %v %q", err, buf[:n])
	}
	return &target{
		name: "floor", addr: fmt.Sprintf("127.0.0.1:%d", port), pid: func() int { return cmd.Process.Pid },
		version: sarama.V0_10_2_0,
		prepare: func(context.Context, string) error { return nil },
		close: func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		},
		files: func(topic string) []string { return []string{filepath.Join(dir, topic+"-0.log")} },
	}, nil
}

func startZkafka(ctx context.Context, o options, dir string) (*target, error) {
	bin := o.zkafka
	if bin == "" {
		root, err := systemtests.ModuleRoot()
		if err != nil {
			return nil, err
		}
		if bin, err = systemtests.BuildZkafka(ctx, root, dir); err != nil {
			return nil, err
		}
	}
	if ok, why := systemtests.ServerStartAvailable(bin); !ok {
		return nil, fmt.Errorf("zkafka server-start is not available: %s", why)
	}
	// Three brokers: broker 0 leads every measured partition (its CPU is the figure); 1 and 2
	// only follow the RF 3 topic of the acks=all workload.
	c, err := systemtests.NewCluster(ctx, systemtests.ClusterConfig{Bin: bin, Dir: dir, Brokers: 3, ZooKeepers: 1,
		Properties: map[string]string{"num.io.threads": "8", "num.network.threads": "3", "min.insync.replicas": "2"}})
	if err != nil {
		return nil, err
	}
	if err := c.StartAll(ctx); err != nil {
		c.Close()
		return nil, err
	}
	b := c.Brokers[0]
	return &target{
		name: "zkafka", addr: b.Addr(), pid: b.PID, version: sarama.V0_10_2_0,
		prepare: func(ctx context.Context, topic string) error {
			return c.CreateTopic(ctx, topic, map[int32][]int32{0: {b.ID}})
		},
		prepareRF3: func(ctx context.Context, topic string) error {
			return c.CreateTopic(ctx, topic, map[int32][]int32{0: {b.ID, c.Brokers[1].ID, c.Brokers[2].ID}})
		},
		close: c.Close,
		files: func(topic string) []string {
			m, _ := filepath.Glob(filepath.Join(b.LogDirs[0], topic+"-0", "*.log"))
			return m
		},
	}, nil
}

func bench(o options) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	dir, err := os.MkdirTemp("", "benchbroker-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	} else {
		fmt.Println("data and logs kept in", dir)
	}
	var targets []*target
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	for _, name := range strings.Split(o.targets, ",") {
		var t *target
		switch name {
		case "zkafka":
			t, err = startZkafka(ctx, o, filepath.Join(dir, "zkafka"))
		case "kfake":
			t, err = startKfake(ctx, o.runs)
		case "floor":
			t, err = startRaw(filepath.Join(dir, "floor"))
		default:
			err = fmt.Errorf("unknown target %q", name)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchbroker: %s skipped: %v\n", name, err)
			continue
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return fmt.Errorf("no broker to measure")
	}
	fmt.Printf("benchbroker: %d runs per target, interleaved (order rotates by run); targets %s; at least %v broker CPU per figure (at most %v per run)\n",
		o.runs, names(targets), o.minCPU, o.maxRun)
	if up, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at start: %s", up)
	}
	res := newResults()
	for r := 0; r < o.runs; r++ {
		order := rotated(targets, r)
		for _, t := range order {
			if err := runAll(ctx, o, t, r, res); err != nil {
				return fmt.Errorf("%s run %d: %w", t.name, r, err)
			}
		}
	}
	res.summary(names(targets))
	return nil
}

func names(ts []*target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.name)
	}
	return out
}

// rotated is ts started at its r-th element (mod len), so that each target runs first in turn.
func rotated(ts []*target, r int) []*target {
	out := make([]*target, 0, len(ts))
	for i := range ts {
		out = append(out, ts[(r+i)%len(ts)])
	}
	return out
}

// runAll runs every workload once against t.
func runAll(ctx context.Context, o options, t *target, r int, res *results) error {
	type wl struct {
		name  string
		topic string
		fn    func(ctx context.Context, t *target, topic string) (measure, error)
		// repeat: run fn until the broker used o.minCPU (produce and consume workloads).
		repeat bool
		// rf3: the topic is replicated on three brokers (t.prepareRF3; skipped without it).
		rf3 bool
	}
	ws := []wl{
		{"sarama produce 100B", "s100", func(ctx context.Context, t *target, topic string) (measure, error) {
			return saramaProduce(ctx, t, topic, o.records100, 100)
		}, true, false},
		{"sarama consume 100B", "s100", func(ctx context.Context, t *target, topic string) (measure, error) {
			return saramaConsume(ctx, t, topic, o.records100, 100)
		}, true, false},
		{"sarama produce 1KiB", "s1k", func(ctx context.Context, t *target, topic string) (measure, error) {
			return saramaProduce(ctx, t, topic, o.records1k, 1024)
		}, true, false},
		{"sarama consume 1KiB", "s1k", func(ctx context.Context, t *target, topic string) (measure, error) {
			return saramaConsume(ctx, t, topic, o.records1k, 1024)
		}, true, false},
		{"kcat produce 100B", "k100", func(ctx context.Context, t *target, topic string) (measure, error) {
			return kcatProduce(ctx, t, topic, o.records100, 100)
		}, true, false},
		{"kcat consume 100B", "k100", func(ctx context.Context, t *target, topic string) (measure, error) {
			return kcatConsume(ctx, t, topic, o.records100, 100)
		}, true, false},
		{"kcat produce 1KiB", "k1k", func(ctx context.Context, t *target, topic string) (measure, error) {
			return kcatProduce(ctx, t, topic, o.records1k, 1024)
		}, true, false},
		{"kcat consume 1KiB", "k1k", func(ctx context.Context, t *target, topic string) (measure, error) {
			return kcatConsume(ctx, t, topic, o.records1k, 1024)
		}, true, false},
		{"kcat produce 100B acks=all RF3", "r100", func(ctx context.Context, t *target, topic string) (measure, error) {
			return kcatProduce(ctx, t, topic, o.records100, 100, "-X", "acks=all")
		}, true, true},
		{"kcat consume 1KiB cold", "k1k", func(ctx context.Context, t *target, topic string) (measure, error) {
			if t.files == nil {
				return measure{}, errSkip
			}
			if err := dropCache(t.files(topic)); err != nil {
				return measure{}, err
			}
			return kcatConsume(ctx, t, topic, o.records1k, 1024)
		}, true, false},
		{"sarama round trip 100B @1000/s", "lat", func(ctx context.Context, t *target, topic string) (measure, error) {
			return roundTrip(ctx, t, topic, o.latencyMsgs, o.latencyRate)
		}, false, false},
	}
	prepared := map[string]bool{}
	for _, w := range ws {
		topic := fmt.Sprintf("bench-%s-%d", w.topic, r)
		if w.rf3 && t.prepareRF3 == nil || o.workloads != nil && !o.workloads.MatchString(w.name) {
			continue
		}
		if !prepared[topic] {
			prepare := t.prepare
			if w.rf3 {
				prepare = t.prepareRF3
			}
			if err := prepare(ctx, topic); err != nil {
				return err
			}
			prepared[topic] = true
		}
		if (w.topic[0] == 'k' || w.topic[0] == 'r') && !systemtests.KcatAvailable() {
			continue
		}
		cpu0, err := systemtests.ProcessSchedTime(t.pid())
		if err != nil {
			return err
		}
		var m measure
		for pass := 0; ; pass++ {
			p, err := w.fn(ctx, t, topic)
			if errors.Is(err, errSkip) {
				break
			}
			if err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			m = m.plus(p)
			cpu1, err := systemtests.ProcessSchedTime(t.pid())
			if err != nil {
				return err
			}
			m.cpu = cpu1 - cpu0
			if !w.repeat || m.cpu >= o.minCPU || m.elapsed >= o.maxRun {
				break
			}
		}
		if m.records == 0 {
			continue // skipped for this target
		}
		res.add(w.name, t.name, m)
		fmt.Printf("%-32s %-6s run %d: %s\n", w.name, t.name, r, m)
	}
	return nil
}

// errSkip is a workload that does not apply to a target (cold reads of an in-memory broker).
var errSkip = errors.New("not applicable")

// dropCache writes back and drops the page cache of files (posix_fadvise DONTNEED: what a
// process may do without root; /proc/sys/vm/drop_caches needs more), so the next read is cold.
func dropCache(files []string) error {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = f.Sync()
		if err == nil {
			err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("dropping the page cache of %s: %w", name, err)
		}
	}
	return nil
}
