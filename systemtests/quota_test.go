package systemtests

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Issue 17 acceptance, the quotas half: client quotas set with kafka-configs.sh while the client
// runs, and a reassignment throttled with kafka-reassign-partitions.sh --throttle, on real broker
// processes, measured by clients nobody here wrote (sarama's protocol code, kafka-python).
//
// How the rates are measured. 0.10.2 meters a client with a Rate over quota.window.num samples of
// quota.window.size.seconds (11 x 1 s) and delays a response just long enough to bring that
// windowed rate back to the quota. A throttled client's throughput therefore comes in waves with
// the period of the window (11 s): when the sample holding the first burst leaves the window the
// client may burst again. Over a whole number of periods the rate is the quota; over a window of
// another length it depends on the phase (a 30 s window of a client demanding twice the quota
// reads 0.88-1.10 x the quota on 0.10.2's arithmetic). The precise tests (ZKAFKA_LONG=1) measure
// over 3 periods (33 s), from one period after the first throttled response, and log the 30 s
// figure too; the short ones (make test) shrink the window to 3 x 1 s and check the rate within
// [0.5, 1.5] x the quota after one period. The clients demand twice the quota, paced, as an
// application does (a client at network speed sees the same mean with deeper waves).

const mib = 1 << 20

// quotaBroker starts one broker with the quota window of n samples of 1 s.
func quotaBroker(t *testing.T, windows int) (*Cluster, scripts) {
	t.Helper()
	c := newCluster(t, ClusterConfig{Brokers: 1, Properties: map[string]string{
		"quota.window.num": fmt.Sprint(windows), "replication.quota.window.num": fmt.Sprint(windows)}})
	return c, scripts{t: t, dir: scriptsDir(t), zk: c.ZkConnect()}
}

// quotaPeriod is the time the quota's windowed rate spans.
func quotaPeriod(windows int) time.Duration { return time.Duration(windows) * time.Second }

// fill produces mb MiB of 10 KiB values into partition 0 of topic with a client id that has
// no quota.
func fill(t *testing.T, addr, topic string, mb int) {
	t.Helper()
	c, err := StartQuotaClient(QuotaClientSpec{Addr: addr, ClientID: "filler", Topic: topic, RequestBytes: 500 << 10, Limit: mb * mib})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(within(t, 2*time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// fetchBytes is a fetch size that holds exactly ten 10 KiB records: a fetch that ends inside a
// record still counts the partial record against the quota (0.10.2 meters the response), which
// the consumer then drops; whole records keep the payload rate comparable with the quota.
const fetchBytes = 10 * (10<<10 + RecordOverhead)

// runClientQuota runs a sarama client demanding twice the quota, sets the quota with
// kafka-configs.sh while it runs (configArgs: the entity and --add-config), and returns what
// the client saw over `measure`, starting one quota period after its first throttled response.
func runClientQuota(t *testing.T, s scripts, windows int, spec QuotaClientSpec, quota float64, measure time.Duration,
	configArgs ...string) RateStats {
	t.Helper()
	ctx := within(t, 3*time.Minute)
	spec.Demand = 2 * quota
	client, err := StartQuotaClient(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Stop() //nolint:errcheck
	time.Sleep(2 * time.Second)
	before := client.Between(time.Now().Add(-2*time.Second), time.Now())
	if before.Throttled != 0 || before.Responses == 0 {
		t.Fatalf("before the quota: %v", before)
	}
	set := time.Now()
	out := s.run(ctx, "kafka-configs.sh", append([]string{"--zookeeper", s.zk, "--alter"}, configArgs...)...)
	if !strings.Contains(out, "Completed Updating config for entity:") {
		t.Fatalf("kafka-configs printed:\n%s", out)
	}
	if err := WaitFor(within(t, 60*time.Second), func() string { return "no throttled response" }, func() bool {
		_, ok := client.FirstThrottled()
		return ok || client.Err() != nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := client.Err(); err != nil {
		t.Fatal(err)
	}
	first, _ := client.FirstThrottled()
	from := first.Add(quotaPeriod(windows))
	to := from.Add(measure)
	time.Sleep(time.Until(to) + 200*time.Millisecond)
	if err := client.Err(); err != nil {
		t.Fatal(err)
	}
	st := client.Between(from, to)
	t.Logf("before the quota: %v; first throttled response %v after kafka-configs; quota %.3f MiB/s, demand %.3f MiB/s: over %v %v",
		before, first.Sub(set).Round(time.Millisecond), quota/mib, spec.Demand/mib, measure, st)
	if st.Throttled == 0 {
		t.Errorf("no throttled response while measuring: %v", st)
	}
	return st
}

func checkRate(t *testing.T, what string, got, quota, lo, hi float64) {
	t.Helper()
	if got < lo*quota || got > hi*quota {
		t.Errorf("%s: %.3f MiB/s, want %.2f-%.2f x %.3f MiB/s", what, got/mib, lo, hi, quota/mib)
	}
}

// sarama against a throttling broker: sarama (1.4x and later) waits out throttle_time_ms itself
// before its next request, as brokers from Kafka 2.0 (KIP-219) expect, while a 0.10.2 broker has
// already held the response back for that long; a sarama client is thus throttled twice and runs
// below the quota (0.10.2's arithmetic gives 0.75 x the quota for a 3 x 1 s window and 0.90 x for
// 11 x 1 s). The sarama tests therefore check that throttle_time_ms arrives and that the rate is
// bounded, [0.4, 1.5] x the quota; the precise figures come from kafka-python, which, like
// 0.10.2's own clients, only reports the throttle time.

// A sarama producer at 2 MiB/s gets producer_byte_rate=1 MiB/s on its client id while it runs.
func TestClientQuotaProducer(t *testing.T) {
	c, s := quotaBroker(t, 3)
	const topic, clientID = "quota-produce", "quota-producer"
	if err := c.CreateTopic(within(t, time.Minute), topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	st := runClientQuota(t, s, 3, QuotaClientSpec{Addr: c.Brokers[0].Addr(), ClientID: clientID, Topic: topic,
		RequestBytes: 100 << 10}, mib, 6*time.Second,
		"--entity-type", "clients", "--entity-name", clientID, "--add-config", fmt.Sprintf("producer_byte_rate=%d", mib))
	checkRate(t, "sarama producer", st.Rate, mib, 0.4, 1.5)
	if _, err := c.Broker(0).Logs().Expect(regexp.MustCompile(`Changing Produce quota for client-id quota-producer to 1048576\.0`), 5*time.Second); err != nil {
		t.Error(err)
	}
}

// A sarama consumer fetching at 2 MiB/s gets consumer_byte_rate=1 MiB/s on its client id while
// it runs.
func TestClientQuotaConsumer(t *testing.T) {
	c, s := quotaBroker(t, 3)
	const topic, clientID = "quota-fetch", "quota-consumer"
	if err := c.CreateTopic(within(t, time.Minute), topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	fill(t, c.Brokers[0].Addr(), topic, 30)
	st := runClientQuota(t, s, 3, QuotaClientSpec{Addr: c.Brokers[0].Addr(), ClientID: clientID, Topic: topic,
		RequestBytes: fetchBytes, Fetch: true}, mib, 6*time.Second,
		"--entity-type", "clients", "--entity-name", clientID, "--add-config", fmt.Sprintf("consumer_byte_rate=%d", mib))
	checkRate(t, "sarama consumer", st.Rate, mib, 0.4, 1.5)
}

// kafka-python's consumer reports the broker's throttle time in its fetch-throttle-time-max
// metric, here for a <user, client-id> quota (the user of a PLAINTEXT session is ANONYMOUS) set
// with kafka-configs.sh --entity-type users --entity-type clients before it starts.
func TestClientQuotaKafkaPython(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import kafka").Run(); err != nil {
		t.Skip("kafka-python not installed (/usr/bin/python3 -c 'import kafka')")
	}
	c, s := quotaBroker(t, 3)
	const topic, clientID = "quota-python", "kp-consumer"
	ctx := within(t, 3*time.Minute)
	if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	fill(t, c.Brokers[0].Addr(), topic, 20)
	const quota = 512 << 10
	s.run(ctx, "kafka-configs.sh", "--zookeeper", s.zk, "--alter", "--entity-type", "users", "--entity-name", "ANONYMOUS",
		"--entity-type", "clients", "--entity-name", clientID, "--add-config", fmt.Sprintf("consumer_byte_rate=%d", quota))
	if _, err := c.Broker(0).Logs().Expect(regexp.MustCompile(`Changing Fetch quota for user ANONYMOUS client-id kp-consumer`), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	script := `
import json, sys, time
from kafka import KafkaConsumer, TopicPartition
c = KafkaConsumer(bootstrap_servers=sys.argv[1], client_id=sys.argv[2], api_version=(0, 10, 1), enable_auto_commit=False,
                  max_partition_fetch_bytes=61644, fetch_max_bytes=61644)  # six whole 10 KiB records
tp = TopicPartition(sys.argv[3], 0)
c.assign([tp]); c.seek_to_beginning(tp)
start = time.time(); marks = []; total = 0
while time.time() - start < float(sys.argv[4]):
    for recs in c.poll(timeout_ms=200).values():
        total += sum(len(r.value) for r in recs)
    marks.append((time.time() - start, total))
m = c.metrics()['consumer-fetch-manager-metrics']
half = [b for (s, b) in marks if s <= float(sys.argv[4]) / 2][-1]
print(json.dumps({"total": total, "second_half": total - half, "throttle_max": m['fetch-throttle-time-max'],
                  "throttle_avg": m['fetch-throttle-time-avg']}))
c.close()
`
	const seconds = 12.0
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "-c", script, c.Brokers[0].Addr(), clientID, topic, fmt.Sprint(seconds))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kafka-python: %v\n%s", err, out)
	}
	var res struct {
		Total, SecondHalf        float64
		ThrottleMax, ThrottleAvg float64
	}
	if err := json.Unmarshal(out, &struct {
		Total       *float64 `json:"total"`
		SecondHalf  *float64 `json:"second_half"`
		ThrottleMax *float64 `json:"throttle_max"`
		ThrottleAvg *float64 `json:"throttle_avg"`
	}{&res.Total, &res.SecondHalf, &res.ThrottleMax, &res.ThrottleAvg}); err != nil {
		t.Fatalf("kafka-python printed %q: %v", out, err)
	}
	rate := res.SecondHalf / (seconds / 2)
	t.Logf("kafka-python: %.0f bytes consumed, %.3f MiB/s over the second half, fetch-throttle-time-max %.0f ms, avg %.1f ms (quota %.3f MiB/s)",
		res.Total, rate/mib, res.ThrottleMax, res.ThrottleAvg, float64(quota)/mib)
	if res.ThrottleMax <= 0 || math.IsInf(res.ThrottleMax, 0) {
		t.Errorf("kafka-python saw no throttle time (fetch-throttle-time-max %v)", res.ThrottleMax)
	}
	checkRate(t, "kafka-python consumer", rate, quota, 0.4, 1.5)
}

// The zkafka binary's own producer, kafka-producer-perf-test.sh (KafkaProducer), reports the
// broker's throttle in produce-throttle-time-max with --print-metrics.
func TestClientQuotaPerfTestMetrics(t *testing.T) {
	c, s := quotaBroker(t, 3)
	const topic = "quota-perf"
	ctx := within(t, 3*time.Minute)
	if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	s.run(ctx, "kafka-configs.sh", "--zookeeper", s.zk, "--alter", "--entity-type", "clients", "--entity-name", "perf",
		"--add-config", "producer_byte_rate=1048576")
	if _, err := c.Broker(0).Logs().Expect(regexp.MustCompile(`Changing Produce quota for client-id perf`), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	out := s.run(ctx, "kafka-producer-perf-test.sh", "--topic", topic, "--num-records", "800", "--record-size", "10000",
		"--throughput", "-1", "--print-metrics", "--producer-props", "bootstrap.servers="+c.Brokers[0].Addr(), "client.id=perf")
	took := time.Since(t0)
	m := regexp.MustCompile(`(?m)^producer-metrics:produce-throttle-time-max:\{client-id=perf\}\s*:\s*([0-9.]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no produce-throttle-time-max in --print-metrics:\n%s", out)
	}
	var maxThrottle float64
	fmt.Sscan(m[1], &maxThrottle) //nolint:errcheck
	rate := 8e6 / took.Seconds()
	t.Logf("8 MB in %v (%.3f MiB/s with the process start), produce-throttle-time-max %.0f ms", took.Round(time.Millisecond), rate/mib, maxThrottle)
	if maxThrottle <= 0 {
		t.Errorf("produce-throttle-time-max %v", maxThrottle)
	}
	// 8 MB against 1 MiB/s over a 3 s window cannot take less than ~4 s.
	if took < 4*time.Second {
		t.Errorf("8 MB went through in %v: not throttled", took)
	}
}

// kafka-reassign-partitions.sh --execute --throttle adds a replica of a partition at the
// throttled rate, and --verify removes the throttle configs once the move is complete.
//
// The follower fetches replica.fetch.max.bytes (1 MiB) at a time and, while its throttle is
// exceeded, leaves the partition out of its fetch and backs off for replica.fetch.backoff.ms
// (1 s); the leader answers a throttled partition with nothing. Each back-off lets the follower's
// windowed rate fall below the throttle, so with 0.10.2's defaults a move runs a little under
// it: 0.10.2's arithmetic gives 0.95 x for 30 MiB (1.04 x for 6 MiB, where the first, fixed,
// second of the rate lets 1 MiB through at once), and the brokers here measured 0.90-0.96 x.
// "defaults" checks [0.75, 1.15] x on 30 MiB (ZKAFKA_LONG=1) and [0.5, 1.5] x on 6 MiB (make
// test); "backoff-100ms" (ZKAFKA_LONG=1) shortens the back-off, as an operator tuning a throttle
// would, and checks 1 MB/s +/- 15%.
func TestReassignmentThrottle(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		if long() {
			reassignThrottled(t, 30, nil, 0.75, 1.15)
		} else {
			reassignThrottled(t, 6, nil, 0.5, 1.5)
		}
	})
	t.Run("backoff-100ms", func(t *testing.T) {
		if !long() {
			t.Skip("ZKAFKA_LONG=1 (make systemtest) runs the precise reassignment")
		}
		reassignThrottled(t, 30, map[string]string{"replica.fetch.backoff.ms": "100"}, 0.85, 1.15)
	})
}

// reassignThrottled adds a replica on broker 1 to a partition of dataMB MiB on broker 0 with
// --throttle 1000000 and checks the replication rate within [lo, hi] x the throttle.
func reassignThrottled(t *testing.T, dataMB int, props map[string]string, lo, hi float64) {
	const rate = int64(1_000_000)
	c := newCluster(t, ClusterConfig{Brokers: 2, Properties: props})
	s := scripts{t: t, dir: scriptsDir(t), zk: c.ZkConnect()}
	ctx := within(t, 4*time.Minute)
	const topic = "throttled"
	if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	fill(t, c.Brokers[0].Addr(), topic, dataMB)
	size := int64(0)
	for _, d := range TopicDirs(c.Broker(0), topic) {
		size += dirSize(t, d)
	}
	plan := s.file("throttle-plan.json", fmt.Sprintf(`{"version":1,"partitions":[{"topic":"%s","partition":0,"replicas":[0,1]}]}`, topic))
	t0 := time.Now()
	out := s.run(ctx, "kafka-reassign-partitions.sh", "--zookeeper", s.zk, "--reassignment-json-file", plan, "--execute",
		"--throttle", fmt.Sprint(rate))
	if !strings.Contains(out, fmt.Sprintf("The throttle limit was set to %d B/s", rate)) || !strings.Contains(out, "Successfully started reassignment of partitions.") {
		t.Fatalf("--execute printed:\n%s", out)
	}
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	// What --execute wrote, as 0.10.2 writes it.
	for _, id := range []string{"0", "1"} {
		cfg, err := z.FetchEntityConfig("brokers", id)
		if err != nil || cfg["leader.replication.throttled.rate"] != fmt.Sprint(rate) || cfg["follower.replication.throttled.rate"] != fmt.Sprint(rate) {
			t.Errorf("/config/brokers/%s: %v %v", id, cfg, err)
		}
	}
	if cfg, err := z.FetchEntityConfig("topics", topic); err != nil || cfg["leader.replication.throttled.replicas"] != "0:0" ||
		cfg["follower.replication.throttled.replicas"] != "0:1" {
		t.Errorf("/config/topics/%s: %v %v", topic, cfg, err)
	}
	// Watch the new replica's log grow: the data moves from its first byte to its last.
	type progress struct{ first, full time.Time }
	watched := make(chan progress, 1)
	go func() {
		var p progress
		for ctx.Err() == nil {
			n := int64(0)
			for _, d := range TopicDirs(c.Broker(1), topic) {
				n += dirSizeOrZero(d)
			}
			if n > 0 && p.first.IsZero() {
				p.first = time.Now()
			}
			if n >= size {
				p.full = time.Now()
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		watched <- p
	}()
	// The move: poll --verify (which must not remove the throttle while the move runs).
	done := regexp.MustCompile(`(?m)^Reassignment of partition \[throttled,0\] completed successfully$`)
	var verifyOut string
	var took time.Duration
	for {
		verifyOut, err = s.try(ctx, "kafka-reassign-partitions.sh", "--zookeeper", s.zk, "--reassignment-json-file", plan, "--verify")
		if err != nil {
			t.Fatalf("--verify: %v\n%s", err, verifyOut)
		}
		if done.MatchString(verifyOut) {
			took = time.Since(t0)
			break
		}
		if strings.Contains(verifyOut, "Throttle was removed.") {
			t.Fatalf("--verify removed the throttle before the move completed:\n%s", verifyOut)
		}
		if ctx.Err() != nil {
			t.Fatalf("reassignment not complete after %v", time.Since(t0))
		}
		time.Sleep(500 * time.Millisecond)
	}
	p := <-watched
	if p.full.IsZero() {
		t.Fatal("the new replica never held the whole log")
	}
	moved := float64(size) / p.full.Sub(p.first).Seconds()
	overall := float64(size) / took.Seconds()
	t.Logf("reassignment of %d bytes with --throttle %d (%v): data moved in %v, %.0f B/s (%+.1f%%); --execute to --verify completed %v, %.0f B/s (%+.1f%%)",
		size, rate, props, p.full.Sub(p.first).Round(time.Millisecond), moved, (moved/float64(rate)-1)*100,
		took.Round(time.Millisecond), overall, (overall/float64(rate)-1)*100)
	checkRate(t, "replication under the throttle", moved, float64(rate), lo, hi)
	if !strings.Contains(verifyOut, "Throttle was removed.") {
		t.Errorf("--verify after completion did not remove the throttle:\n%s", verifyOut)
	}
	for _, id := range []string{"0", "1"} {
		if cfg, err := z.FetchEntityConfig("brokers", id); err != nil || len(cfg) != 0 {
			t.Errorf("/config/brokers/%s after --verify: %v %v", id, cfg, err)
		}
	}
	if cfg, err := z.FetchEntityConfig("topics", topic); err != nil || len(cfg) != 0 {
		t.Errorf("/config/topics/%s after --verify: %v %v", topic, cfg, err)
	}
	// The brokers apply the removal (their rate goes back to unlimited).
	for _, b := range c.Brokers {
		if _, err := b.Logs().Expect(regexp.MustCompile(`Processing override for entityPath: brokers/`+fmt.Sprint(b.ID)+` with config: map\[\]`), 30*time.Second); err != nil {
			t.Errorf("broker %d: %v", b.ID, err)
		}
	}
	// The new replica has it all.
	var got int64
	for _, d := range TopicDirs(c.Broker(1), topic) {
		got += dirSize(t, d)
	}
	if got < size {
		t.Errorf("broker 1 holds %d bytes of the %d", got, size)
	}
}

// dirSizeOrZero is dirSize, 0 when the directory cannot be read (yet).
func dirSizeOrZero(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".log") {
			n += info.Size()
		}
	}
	return n
}

// dirSize sums the .log files of a partition directory.
func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".log") {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += info.Size()
		}
	}
	return n
}

// pythonQuotaClient is a kafka-python producer or consumer paced at a demand rate: each step
// produces (and flushes) or polls one chunk of 10 KiB records, then waits for the rest of its
// time slot (no catching up after a throttled step). It prints one JSON object at the end:
// samples of [unix time, payload bytes, the client's *-throttle-time-max metric].
const pythonQuotaClient = `
import json, math, sys, time
from kafka import KafkaProducer, KafkaConsumer, TopicPartition
mode, addr, client_id, topic = sys.argv[1:5]
demand, chunk, duration = float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
value = b"x" * 10240
if mode == "produce":
    client = KafkaProducer(bootstrap_servers=addr, client_id=client_id, api_version=(0, 10, 1), acks=1, linger_ms=0,
                           batch_size=chunk + 4096, max_request_size=2 * chunk + 4096, request_timeout_ms=120000)
    group, metric = "producer-metrics", "produce-throttle-time-max"
    def step():
        n = 0
        while n < chunk:
            client.send(topic, value, partition=0)
            n += len(value)
        client.flush()
        return n
else:
    fetch = (chunk // len(value)) * (len(value) + 34)  # whole records only (see fetchBytes)
    client = KafkaConsumer(bootstrap_servers=addr, client_id=client_id, api_version=(0, 10, 1), enable_auto_commit=False,
                           max_partition_fetch_bytes=fetch, fetch_max_bytes=fetch)
    tp = TopicPartition(topic, 0)
    client.assign([tp])
    client.seek_to_beginning(tp)
    group, metric = "consumer-fetch-manager-metrics", "fetch-throttle-time-max"
    def step():
        n = 0
        while n < chunk:
            for recs in client.poll(timeout_ms=1000, max_records=max(1, (chunk - n) // len(value))).values():
                n += sum(len(r.value) for r in recs)
        return n
interval = chunk / demand
samples = []
start = time.time()
while time.time() - start < duration:
    t0 = time.time()
    n = step()
    thr = client.metrics().get(group, {}).get(metric, 0.0)
    samples.append([time.time(), n, thr if math.isfinite(thr) else 0.0])
    rest = t0 + interval - time.time()
    if rest > 0:
        time.sleep(rest)
client.close()
print(json.dumps({"samples": samples}))
`

// pythonQuotaRun is a finished pythonQuotaClient run.
type pythonQuotaRun struct {
	Samples [][3]float64 `json:"samples"`
}

// between is the payload rate in (from, to] and the largest throttle metric seen then.
func (r pythonQuotaRun) between(from, to time.Time) (rate, maxThrottle float64) {
	f, e := float64(from.UnixNano())/1e9, float64(to.UnixNano())/1e9
	var bytes float64
	for _, s := range r.Samples {
		if s[0] > f && s[0] <= e {
			bytes += s[1]
			maxThrottle = math.Max(maxThrottle, s[2])
		}
	}
	return bytes / to.Sub(from).Seconds(), maxThrottle
}

// firstThrottled is when the client's throttle metric first went above 0.
func (r pythonQuotaRun) firstThrottled() (time.Time, bool) {
	for _, s := range r.Samples {
		if s[2] > 0 {
			return time.Unix(0, int64(s[0]*1e9)), true
		}
	}
	return time.Time{}, false
}

// runPythonQuota runs pythonQuotaClient in mode for duration, demanding twice quota, runs
// kafka-configs.sh with configArgs 3 s after it starts, and returns the run and when
// kafka-configs returned.
func runPythonQuota(t *testing.T, s scripts, mode, addr, clientID, topic string, quota float64, duration time.Duration,
	configArgs ...string) (pythonQuotaRun, time.Time) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import kafka").Run(); err != nil {
		t.Skip("kafka-python not installed (/usr/bin/python3 -c 'import kafka')")
	}
	ctx := within(t, duration+2*time.Minute)
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "-c", pythonQuotaClient, mode, addr, clientID, topic,
		fmt.Sprint(2*quota), fmt.Sprint(100<<10), fmt.Sprint(duration.Seconds()))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	out := s.run(ctx, "kafka-configs.sh", append([]string{"--zookeeper", s.zk, "--alter"}, configArgs...)...)
	set := time.Now()
	if !strings.Contains(out, "Completed Updating config for entity:") {
		t.Fatalf("kafka-configs printed:\n%s", out)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kafka-python %s: %v\n%s", mode, err, lastLines(stderr.String(), 20))
	}
	var run pythonQuotaRun
	if err := json.Unmarshal([]byte(stdout.String()), &run); err != nil {
		t.Fatalf("kafka-python printed %q: %v", lastLines(stdout.String(), 5), err)
	}
	return run, set
}

// checkPythonQuota measures a run over 33 s (and 30 s) from one quota period after its first
// throttled step, and checks the 33 s rate within [lo, hi] x quota.
func checkPythonQuota(t *testing.T, what string, run pythonQuotaRun, set time.Time, quota, lo, hi float64) {
	t.Helper()
	first, ok := run.firstThrottled()
	if !ok {
		t.Fatalf("%s: the client's throttle metric never went above 0", what)
	}
	before, _ := run.between(set.Add(-3*time.Second), set)
	from := first.Add(quotaPeriod(11))
	r33, thr := run.between(from, from.Add(33*time.Second))
	r30, _ := run.between(from, from.Add(30*time.Second))
	t.Logf("%s: %.3f MiB/s before the quota; first throttled step %v after kafka-configs; quota %.3f MiB/s, demand %.3f: over 33 s %.3f MiB/s (%+.1f%%), over 30 s %.3f MiB/s (%+.1f%%); throttle-time-max %.0f ms",
		what, before/mib, first.Sub(set).Round(time.Millisecond), quota/mib, 2*quota/mib, r33/mib, (r33/quota-1)*100, r30/mib, (r30/quota-1)*100, thr)
	if last := run.Samples[len(run.Samples)-1][0]; last < float64(from.Add(33*time.Second).UnixNano())/1e9 {
		t.Fatalf("%s: the run ended before the measurement did", what)
	}
	if thr <= 0 {
		t.Errorf("%s: no throttle time while measuring", what)
	}
	checkRate(t, what, r33, quota, lo, hi)
}

// Precise (ZKAFKA_LONG=1): kafka-python's producer at 2 MiB/s, producer_byte_rate=1 MiB/s set on
// its client id while it runs: 1 MiB/s +/- 10%.
func TestClientQuotaProducerPrecise(t *testing.T) {
	if !long() {
		t.Skip("ZKAFKA_LONG=1 (make systemtest) runs the 33 s measurement")
	}
	c, s := quotaBroker(t, 11)
	const topic, clientID = "quota-produce-precise", "kp-producer"
	if err := c.CreateTopic(within(t, time.Minute), topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	run, set := runPythonQuota(t, s, "produce", c.Brokers[0].Addr(), clientID, topic, mib, 75*time.Second,
		"--entity-type", "clients", "--entity-name", clientID, "--add-config", fmt.Sprintf("producer_byte_rate=%d", mib))
	checkPythonQuota(t, "kafka-python producer", run, set, mib, 0.9, 1.1)
}

// Precise (ZKAFKA_LONG=1): kafka-python's consumer at 2 MiB/s, consumer_byte_rate=1 MiB/s set on
// its client id while it runs: 1 MiB/s +/- 10%.
func TestClientQuotaConsumerPrecise(t *testing.T) {
	if !long() {
		t.Skip("ZKAFKA_LONG=1 (make systemtest) runs the 33 s measurement")
	}
	c, s := quotaBroker(t, 11)
	const topic, clientID = "quota-fetch-precise", "kp-consumer-precise"
	if err := c.CreateTopic(within(t, time.Minute), topic, map[int32][]int32{0: {0}}); err != nil {
		t.Fatal(err)
	}
	fill(t, c.Brokers[0].Addr(), topic, 120)
	run, set := runPythonQuota(t, s, "consume", c.Brokers[0].Addr(), clientID, topic, mib, 75*time.Second,
		"--entity-type", "clients", "--entity-name", clientID, "--add-config", fmt.Sprintf("consumer_byte_rate=%d", mib))
	checkPythonQuota(t, "kafka-python consumer", run, set, mib, 0.9, 1.1)
}
