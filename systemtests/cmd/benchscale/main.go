// Command benchscale measures how zkafka's costs grow with partitions, connections and broker
// failures on one machine: three real broker processes (the systemtests harness) and one
// ZooKeeper, topics of RF 3 spread evenly, up to -partitions in all. `make bench-scale` runs it.
//
// It prints, in order:
//   - idle RSS of a broker that leads nothing;
//   - per partition count (e.g. 1,000 then 10,000): the time for the controller to elect every
//     leader of the new topic, Metadata latency for all topics (v2, no topic list), broker RSS
//     per partition replica, and the time from the detection of a broker's SIGKILL (its
//     /brokers/ids node gone) to every partition it led having a new leader in the metadata of
//     a surviving broker;
//   - start time of a broker after a clean shutdown (SIGTERM, controlled shutdown) with all
//     partition logs on disk: until /brokers/ids holds it, and until it answers Metadata with
//     every partition;
//   - controller failover: SIGKILL of the controller, until a new controller is in /controller,
//     and until that controller has elected the leaders of a topic created afterwards;
//   - 10,000 idle client connections on one broker (at the first partition count: the broker's
//     partition logs and the connections share RLIMIT_NOFILE): broker RSS before and after.
//
// Kafka 0.10.2 has no such tool; the figures are those its operations documentation discusses
// (controller failover, unavailability after a broker failure per partition count).
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/systemtests"
	"github.com/zkafka/zkafka/zk/zkutils"
)

type options struct {
	zkafka      string
	partitions  []int
	connections int
	keep        bool
}

func main() {
	var o options
	parts := flag.String("partitions", "1000,10000", "total partition counts to measure at, ascending")
	flag.StringVar(&o.zkafka, "zkafka", "", "zkafka binary (default: go build ./tools/cmd/zkafka)")
	flag.IntVar(&o.connections, "connections", 10000, "idle client connections to hold on one broker")
	flag.BoolVar(&o.keep, "keep", false, "keep the data and logs")
	flag.Parse()
	for _, s := range strings.Split(*parts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 || (len(o.partitions) > 0 && n <= o.partitions[len(o.partitions)-1]) {
			fmt.Fprintln(os.Stderr, "benchscale: -partitions wants ascending positive counts")
			os.Exit(2)
		}
		o.partitions = append(o.partitions, n)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

// raiseNoFile lifts the soft RLIMIT_NOFILE to the hard limit; the brokers inherit it.
func raiseNoFile() (soft, hard uint64) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, 0
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	}
	return l.Cur, l.Max
}

// rssKiB is VmRSS of pid.
func rssKiB(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	return 0
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

type bench struct {
	o   options
	c   *systemtests.Cluster
	cfg *sarama.Config
}

func run(o options) error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	soft, hard := raiseNoFile()
	fmt.Printf("benchscale: 3 brokers, RF 3, partitions %v, %d idle connections; RLIMIT_NOFILE %d (hard %d)\n", o.partitions, o.connections, soft, hard)
	if up, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at start: %s", up)
	}
	dir, err := os.MkdirTemp("", "benchscale-")
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
	c, err := systemtests.NewCluster(ctx, systemtests.ClusterConfig{Bin: bin, Dir: filepath.Join(dir, "cluster"), Brokers: 3, ZooKeepers: 1,
		Properties: map[string]string{
			// Empty logs: no need for 0.10.2's 10 MiB preallocated index per segment to dominate the disk.
			"log.index.size.max.bytes": "65536",
			// 30,000 replicas: the harness's single recovery thread would be the start-time figure.
			"num.recovery.threads.per.data.dir": "2",
		}})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.StartAll(ctx); err != nil {
		return err
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.Net.ReadTimeout = 2 * time.Minute
	b := &bench{o: o, c: c, cfg: cfg}
	time.Sleep(2 * time.Second)
	var idle []string
	for _, br := range c.Brokers {
		idle = append(idle, fmt.Sprintf("broker %d %.1f MiB", br.ID, mib(rssKiB(br.PID()))))
	}
	fmt.Printf("idle RSS of an empty broker: %s (goal < 50 MiB)\n", strings.Join(idle, ", "))

	total := 0
	for i, n := range o.partitions {
		topic := fmt.Sprintf("scale-%d", i)
		if err := b.createTopic(ctx, topic, n-total, total); err != nil {
			return err
		}
		total = n
		if err := b.metadataLatency(total); err != nil {
			return err
		}
		rss := 0.0
		for _, br := range c.Brokers {
			rss += float64(rssKiB(br.PID()))
		}
		fmt.Printf("[%d partitions] broker RSS %.1f MiB average, %.2f KiB per partition replica (RSS / (%d replicas per broker))\n",
			total, rss/3/1024, rss/3/float64(total), total)
		idleCPU(c, total, 5*time.Second)
		victim := b.nonController(int32(i % 3))
		if err := b.killAndMove(ctx, victim, total); err != nil {
			return err
		}
		if i == 0 {
			// At the smallest count: a broker holds one descriptor per partition log, and the
			// connections need one each under the same RLIMIT_NOFILE.
			if err := b.connections(ctx, total); err != nil {
				return err
			}
		}
	}
	last := b.nonController(2)
	if err := b.cleanRestart(ctx, last, total); err != nil {
		return err
	}
	return b.failover(ctx, total)
}

// createTopic writes an assignment of n partitions spread over brokers 0..2 (replica list
// rotated by partition, as AdminUtils.assignReplicasToBrokers spreads them) and waits until a
// broker's metadata shows every partition of it with a leader and a full ISR.
func (b *bench) createTopic(ctx context.Context, topic string, n, shift int) error {
	assignment := map[int32][]int32{}
	for p := 0; p < n; p++ {
		f := int32((p + shift) % 3)
		assignment[int32(p)] = []int32{f, (f + 1) % 3, (f + 2) % 3}
	}
	start := time.Now()
	if err := b.c.WriteTopicAssignment(topic, assignment); err != nil {
		return err
	}
	if err := b.waitMetadata(ctx, b.c.Brokers[0], fmt.Sprintf("all %d partitions of %s led with a full ISR", n, topic), func(md *sarama.MetadataResponse) bool {
		for _, t := range md.Topics {
			if t.Name == topic {
				ok := 0
				for _, p := range t.Partitions {
					if p.Leader >= 0 && len(p.Isr) == 3 {
						ok++
					}
				}
				return ok == n
			}
		}
		return false
	}); err != nil {
		return err
	}
	fmt.Printf("[%d partitions] topic %s of %d partitions (RF 3) created and led with a full ISR in %.2f s\n", n+shift, topic, n, time.Since(start).Seconds())
	return nil
}

// metadata asks br for every topic's metadata over a fresh connection.
func (b *bench) metadata(br *systemtests.BrokerProcess) (*sarama.MetadataResponse, time.Duration, error) {
	sb := sarama.NewBroker(br.Addr())
	if err := sb.Open(b.cfg); err != nil {
		return nil, 0, err
	}
	defer sb.Close()
	if _, err := sb.Connected(); err != nil {
		return nil, 0, err
	}
	t0 := time.Now()
	md, err := sb.GetMetadata(sarama.NewMetadataRequest(b.cfg.Version, nil))
	return md, time.Since(t0), err
}

func (b *bench) waitMetadata(ctx context.Context, br *systemtests.BrokerProcess, what string, cond func(*sarama.MetadataResponse) bool) error {
	var last error
	return systemtests.WaitFor(ctx, func() string { return fmt.Sprintf("%s (last error %v)", what, last) }, func() bool {
		md, _, err := b.metadata(br)
		if err != nil {
			last = err
			return false
		}
		return cond(md)
	})
}

// metadataLatency times 20 Metadata requests for all topics on one connection.
func (b *bench) metadataLatency(total int) error {
	sb := sarama.NewBroker(b.c.Brokers[0].Addr())
	if err := sb.Open(b.cfg); err != nil {
		return err
	}
	defer sb.Close()
	var lat []time.Duration
	for i := 0; i < 21; i++ {
		t0 := time.Now()
		if _, err := sb.GetMetadata(sarama.NewMetadataRequest(b.cfg.Version, nil)); err != nil {
			return err
		}
		if i > 0 {
			lat = append(lat, time.Since(t0))
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("[%d partitions] Metadata for all topics: %.2f ms median, %.2f ms max of %d requests\n", total, ms(lat[len(lat)/2]), ms(lat[len(lat)-1]), len(lat))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// nonController is a broker other than the controller, preferring id want.
func (b *bench) nonController(want int32) *systemtests.BrokerProcess {
	ctl, _ := b.c.ControllerInfo()
	if want == ctl {
		want = (want + 1) % 3
	}
	return b.c.Broker(want)
}

func (b *bench) survivor(not ...int32) *systemtests.BrokerProcess {
	for _, br := range b.c.Brokers {
		ok := br.Running()
		for _, id := range not {
			ok = ok && br.ID != id
		}
		if ok {
			return br
		}
	}
	return nil
}

// waitGone polls /brokers/ids/<id> every 5 ms until it is gone.
func (b *bench) waitGone(ctx context.Context, path string) error {
	z, err := b.c.Zk()
	if err != nil {
		return err
	}
	for {
		ok, err := z.PathExists(path)
		if err == nil && !ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s still there: %w", path, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func leads(md *sarama.MetadataResponse, id int32) (n, leaderless int) {
	for _, t := range md.Topics {
		for _, p := range t.Partitions {
			if p.Leader == id {
				n++
			}
			if p.Leader < 0 {
				leaderless++
			}
		}
	}
	return n, leaderless
}

// killAndMove SIGKILLs victim, waits for its registration to go (the controller's detection),
// then for a surviving broker's metadata to show none of its partitions led by it; then starts
// it again and waits for every ISR to be full.
func (b *bench) killAndMove(ctx context.Context, victim *systemtests.BrokerProcess, total int) error {
	other := b.survivor(victim.ID)
	md, _, err := b.metadata(other)
	if err != nil {
		return err
	}
	led, _ := leads(md, victim.ID)
	t0 := time.Now()
	if err := victim.Kill(); err != nil {
		return err
	}
	if err := b.waitGone(ctx, zkutils.BrokerIdPath(victim.ID)); err != nil {
		return err
	}
	detected := time.Now()
	if err := b.waitMetadata(ctx, other, "leaders moved", func(md *sarama.MetadataResponse) bool {
		n, none := leads(md, victim.ID)
		return n == 0 && none == 0
	}); err != nil {
		return err
	}
	moved := time.Now()
	fmt.Printf("[%d partitions] SIGKILL of broker %d (leader of %d): detected (session expiry) after %.2f s; all its leaders moved %.2f s after detection (goal < 1 s at 1,000, < 5 s at 10,000)\n",
		total, victim.ID, led, detected.Sub(t0).Seconds(), moved.Sub(detected).Seconds())
	if err := victim.Start(); err != nil {
		return err
	}
	if _, err := b.c.WaitRegistered(ctx, victim); err != nil {
		return err
	}
	return b.waitFullIsr(ctx, other, total)
}

func (b *bench) waitFullIsr(ctx context.Context, br *systemtests.BrokerProcess, total int) error {
	return b.waitMetadata(ctx, br, fmt.Sprintf("%d partitions with a full ISR", total), func(md *sarama.MetadataResponse) bool {
		ok := 0
		for _, t := range md.Topics {
			for _, p := range t.Partitions {
				if p.Leader >= 0 && len(p.Isr) == 3 {
					ok++
				}
			}
		}
		return ok == total
	})
}

// cleanRestart stops br with SIGTERM (a clean shutdown; the harness sets
// controlled.shutdown.enable=false) and times its start.
func (b *bench) cleanRestart(ctx context.Context, br *systemtests.BrokerProcess, total int) error {
	t0 := time.Now()
	if err := br.Stop(5 * time.Minute); err != nil {
		return err
	}
	stopped := time.Now()
	// The controller reacts to the broker leaving (its leaders moved, its replicas out of every
	// ISR) on the same two cores: the start is timed once that is over, so that the figure is
	// the broker's own start. The time it took is printed too.
	if err := b.waitMetadata(ctx, b.survivor(br.ID), "stopped broker out of every ISR", func(md *sarama.MetadataResponse) bool {
		for _, t := range md.Topics {
			for _, p := range t.Partitions {
				if p.Leader == br.ID || slices.Contains(p.Isr, br.ID) {
					return false
				}
			}
		}
		return true
	}); err != nil {
		return err
	}
	settled := time.Now()
	othersCPU := func() (d time.Duration) {
		for _, o := range b.c.Brokers {
			if o.ID != br.ID && o.Running() {
				if t, err := systemtests.ProcessSchedTime(o.PID()); err == nil {
					d += t
				}
			}
		}
		return d
	}
	cpu0 := othersCPU()
	if err := br.Start(); err != nil {
		return err
	}
	if _, err := b.c.WaitRegistered(ctx, br); err != nil {
		return err
	}
	registered := time.Now()
	othersUsed := othersCPU() - cpu0
	startCPU, _ := systemtests.ProcessSchedTime(br.PID())
	if err := b.waitMetadata(ctx, br, "restarted broker's metadata", func(md *sarama.MetadataResponse) bool {
		n := 0
		for _, t := range md.Topics {
			n += len(t.Partitions)
		}
		return n == total
	}); err != nil {
		return err
	}
	serving := time.Now()
	fmt.Printf("[%d partitions] while broker %d started (%.2f s to registration) it used %.2f s of CPU, the other two brokers (idle but for replication) %.2f s, of the machine's %d CPUs\n",
		total, br.ID, registered.Sub(settled).Seconds(), startCPU.Seconds(), othersUsed.Seconds(), runtime.NumCPU())
	fmt.Printf("[%d partitions] clean shutdown of broker %d took %.2f s, its replicas out of every ISR %.2f s after; start with %d partition logs: registered after %.2f s, Metadata with every partition after %.2f s (goal < 2 s)\n",
		total, br.ID, stopped.Sub(t0).Seconds(), settled.Sub(stopped).Seconds(), total, registered.Sub(settled).Seconds(), serving.Sub(settled).Seconds())
	return b.waitFullIsr(ctx, b.survivor(), total)
}

// connections opens o.connections idle TCP connections to one broker and reads its RSS.
func (b *bench) connections(ctx context.Context, total int) error {
	br := b.c.Brokers[0]
	before := rssKiB(br.PID())
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	d := net.Dialer{Timeout: 10 * time.Second}
	t0 := time.Now()
	for i := 0; i < b.o.connections; i++ {
		c, err := d.DialContext(ctx, "tcp", br.Addr())
		if err != nil {
			fmt.Printf("[%d partitions] idle connections: dial %d failed: %v\n", total, i+1, err)
			break
		}
		conns = append(conns, c)
	}
	opened := time.Since(t0)
	time.Sleep(3 * time.Second)
	// Still answering with all of them held?
	_, lat, err := b.metadata(br)
	after := rssKiB(br.PID())
	per := 0.0
	if len(conns) > 0 {
		per = float64(after-before) / float64(len(conns))
	}
	fmt.Printf("[%d partitions] %d idle connections to broker %d opened in %.2f s: RSS %.1f -> %.1f MiB (%.2f KiB per connection); Metadata on a new connection meanwhile %.1f ms (err %v)\n",
		total, len(conns), br.ID, opened.Seconds(), mib(before), mib(after), per, ms(lat), err)
	return nil
}

// failover SIGKILLs the controller and times the election of a new one and its first work: the
// leaders of a topic created after the kill.
func (b *bench) failover(ctx context.Context, total int) error {
	ctl, epoch := b.c.ControllerInfo()
	victim := b.c.Broker(ctl)
	if victim == nil {
		return fmt.Errorf("no controller (id %d)", ctl)
	}
	other := b.survivor(ctl)
	t0 := time.Now()
	if err := victim.Kill(); err != nil {
		return err
	}
	if err := b.waitGone(ctx, zkutils.ControllerPath); err != nil {
		return err
	}
	detected := time.Now()
	if err := systemtests.WaitFor(ctx, func() string { return "a new controller" }, func() bool {
		id, e := b.c.ControllerInfo()
		return id >= 0 && id != ctl && e > epoch
	}); err != nil {
		return err
	}
	elected := time.Now()
	newCtl, _ := b.c.ControllerInfo()
	topic := "scale-after-failover"
	assignment := map[int32][]int32{0: {other.ID}}
	if err := b.c.WriteTopicAssignment(topic, assignment); err != nil {
		return err
	}
	if err := b.waitMetadata(ctx, other, "the new controller's first topic", func(md *sarama.MetadataResponse) bool {
		for _, t := range md.Topics {
			if t.Name == topic && len(t.Partitions) == 1 && t.Partitions[0].Leader == other.ID {
				return true
			}
		}
		return false
	}); err != nil {
		return err
	}
	working := time.Now()
	fmt.Printf("[%d partitions] controller failover: SIGKILL of controller %d, /controller gone after %.2f s; broker %d controller %.2f s after that; a topic created then led %.2f s after detection (a working new controller)\n",
		total, ctl, detected.Sub(t0).Seconds(), newCtl, elected.Sub(detected).Seconds(), working.Sub(detected).Seconds())
	return nil
}

// idleCPU prints the CPU the brokers use over d with no client traffic: the replica
// fetchers' long polls (replica.fetch.wait.max.ms) over every followed partition.
func idleCPU(c *systemtests.Cluster, total int, d time.Duration) {
	cpu := func() (t time.Duration) {
		for _, br := range c.Brokers {
			if v, err := systemtests.ProcessSchedTime(br.PID()); err == nil {
				t += v
			}
		}
		return t
	}
	before := cpu()
	time.Sleep(d)
	used := cpu() - before
	fmt.Printf("[%d partitions] idle cluster (no clients): the 3 brokers used %.2f s of CPU in %.0f s (%.0f%% of one core each)\n",
		total, used.Seconds(), d.Seconds(), 100*used.Seconds()/d.Seconds()/3)
}
