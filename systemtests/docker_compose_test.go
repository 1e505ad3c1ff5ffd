package systemtests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDockerCompose is `make docker-test` (issue 18): docker/docker-compose.yml brought up from
// the locally built images, the way the README tells a user to, then driven from both sides of
// the two listeners: kafka-topics.sh from the host (ZooKeeper's published port) and from inside
// a broker container (the image's script links, the compose network's names), kcat producing
// and consuming from the host (EXTERNAL listener), a Kafka-protocol tool inside a container
// (INTERNAL listener); one broker container stopped (leadership moves, the ISR shrinks) and
// started again (back in every ISR); then `down -v`. It runs only with ZKAFKA_DOCKER_TEST=1
// (the Makefile sets it after building the images), so that plain `go test ./...` does not
// need Docker.
func TestDockerCompose(t *testing.T) {
	if os.Getenv("ZKAFKA_DOCKER_TEST") != "1" {
		t.Skip("ZKAFKA_DOCKER_TEST=1 (make docker-test) runs the compose cluster")
	}
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
	if _, err := exec.LookPath("kcat"); err != nil {
		t.Fatalf("kcat is needed: %v", err)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	d := newDockerCluster(t, root)

	t0 := time.Now()
	d.compose(ctx, "up", "-d")
	upReturned := time.Since(t0)
	d.waitHealthy(ctx, 5*time.Minute)
	t.Logf("compose up -d: returned after %v (it waits for ZooKeeper to be healthy before starting the brokers); 3 ZooKeeper + 3 brokers healthy %v after it began",
		upReturned.Round(100*time.Millisecond), time.Since(t0).Round(100*time.Millisecond))

	// Topics: from the host through ZooKeeper's published port, and from inside a broker
	// container through the compose network.
	d.topics(ctx, "--zookeeper", d.hostZK(), "--create", "--topic", "from-host", "--partitions", "3", "--replication-factor", "3")
	out := d.exec(ctx, "kafka1", "kafka-topics.sh", "--zookeeper", "zk2:2181,zk3:2181", "--create", "--topic", "from-container", "--partitions", "3", "--replication-factor", "3")
	if !strings.Contains(out, `Created topic "from-container"`) {
		t.Fatalf("kafka-topics.sh --create inside kafka1: %s", out)
	}
	list := d.topics(ctx, "--zookeeper", d.hostZK(), "--list")
	for _, topic := range []string{"from-host", "from-container"} {
		if !strings.Contains(list, topic+"\n") {
			t.Fatalf("--list from the host lacks %s:\n%s", topic, list)
		}
	}
	full := func(rows map[int32]partitionRow) bool {
		for p := int32(0); p < 3; p++ {
			if r, ok := rows[p]; !ok || r.leader < 0 || len(r.isr) != 3 {
				return false
			}
		}
		return true
	}
	for _, topic := range []string{"from-host", "from-container"} {
		d.waitDescribe(ctx, topic, full, "every partition led with a full ISR")
	}

	// Clients on the host reach the brokers through EXTERNAL (published ports); a client in a
	// container through INTERNAL (kafkaN:9092).
	meta := d.kcat(ctx, nil, "-b", d.hostBroker(1), "-L")
	for id := 1; id <= 3; id++ {
		adv := fmt.Sprintf("localhost:%d", d.ports[fmt.Sprintf("KAFKA%d_PORT", id)])
		if !strings.Contains(meta, fmt.Sprintf("broker %d at %s", id, adv)) {
			t.Fatalf("kcat -L from the host does not list broker %d at %s (its EXTERNAL listener):\n%s", id, adv, meta)
		}
	}
	apiv := d.exec(ctx, "kafka3", "kafka-broker-api-versions.sh", "--bootstrap-server", "kafka1:9092")
	for id := 1; id <= 3; id++ {
		if !strings.Contains(apiv, fmt.Sprintf("kafka%d:9092 (id: %d rack: null) -> (", id, id)) {
			t.Fatalf("kafka-broker-api-versions.sh inside kafka3 does not list kafka%d:9092:\n%s", id, apiv)
		}
	}
	sent := d.produce(ctx, "from-host", 0, 500, 2)
	sent = append(sent, d.produce(ctx, "from-container", 0, 500, 3)...)

	// Stop the broker leading [from-host,0]: leadership moves, the ISR shrinks, writes go on.
	rows := d.describe(ctx, "from-host")
	victim := rows[0].leader
	t1 := time.Now()
	d.docker(ctx, "stop", d.container(fmt.Sprintf("kafka%d", victim)))
	stopped := time.Since(t1)
	moved := d.waitDescribe(ctx, "from-host", func(rows map[int32]partitionRow) bool {
		for _, r := range rows {
			if r.leader == victim || r.leader < 0 || containsInt32(r.isr, victim) {
				return false
			}
		}
		return len(rows) == 3
	}, fmt.Sprintf("no partition led by broker %d, and it out of every ISR", victim))
	after := d.describe(ctx, "from-host")
	t.Logf("docker stop kafka%d (leader of [from-host,0]) took %v; [from-host,0] then led by %d, ISR %v (seen %v after docker stop returned)",
		victim, stopped.Round(100*time.Millisecond), after[0].leader, after[0].isr, moved.Round(100*time.Millisecond))
	shutdownLines := regexp.MustCompile(`(?m)^.*(controlled shutdown|Controlled shutdown|shut down completed|Retrying).*$`)
	logs, _ := d.run(ctx, nil, "docker", "logs", d.container(fmt.Sprintf("kafka%d", victim)))
	t.Logf("kafka%d's shutdown:\n%s", victim, strings.Join(shutdownLines.FindAllString(logs, -1), "\n"))
	other := int(victim%3 + 1)
	sent = append(sent, d.produce(ctx, "from-host", 500, 500, other)...)

	// Start it again: back in every ISR, healthy.
	t2 := time.Now()
	d.docker(ctx, "start", d.container(fmt.Sprintf("kafka%d", victim)))
	for _, topic := range []string{"from-host", "from-container"} {
		d.waitDescribe(ctx, topic, func(rows map[int32]partitionRow) bool {
			for p := int32(0); p < 3; p++ {
				if r, ok := rows[p]; !ok || !containsInt32(r.isr, victim) || r.leader < 0 {
					return false
				}
			}
			return true
		}, fmt.Sprintf("broker %d back in every ISR", victim))
	}
	rejoined := time.Since(t2)
	d.waitHealthy(ctx, 2*time.Minute)
	t.Logf("docker start kafka%d: back in every ISR after %v, container healthy after %v", victim, rejoined.Round(100*time.Millisecond), time.Since(t2).Round(100*time.Millisecond))

	// Everything acknowledged is there, read back from the host.
	got := map[string]bool{}
	for _, topic := range []string{"from-host", "from-container"} {
		out := d.kcat(ctx, nil, "-b", d.hostBroker(int(victim)), "-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%k=%s\n")
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			got[topic+"/"+l] = true
		}
	}
	missing := 0
	for _, m := range sent {
		if !got[m] {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d messages produced with acks=all are missing", missing, len(sent))
	}
	t.Logf("kcat: %d messages produced (acks=all) from the host, all consumed back", len(sent))

	t3 := time.Now()
	d.down(ctx)
	if vols := strings.TrimSpace(d.docker(ctx, "volume", "ls", "-q", "--filter", "label=com.docker.compose.project="+d.project)); vols != "" {
		t.Errorf("volumes left after down -v: %s", vols)
	}
	t.Logf("compose down -v: %v; whole scenario %v", time.Since(t3).Round(100*time.Millisecond), time.Since(t0).Round(time.Second))
}

// dockerCluster is one compose project of docker/docker-compose.yml on free host ports.
type dockerCluster struct {
	t       *testing.T
	root    string
	project string
	cmd     []string // docker compose, or docker-compose
	env     []string
	ports   map[string]int
	downed  bool
}

func newDockerCluster(t *testing.T, root string) *dockerCluster {
	d := &dockerCluster{t: t, root: root, project: fmt.Sprintf("zkafkatest%d", os.Getpid()), ports: map[string]int{}}
	d.cmd = strings.Fields(os.Getenv("COMPOSE"))
	if len(d.cmd) == 0 {
		if exec.Command("docker", "compose", "version").Run() == nil {
			d.cmd = []string{"docker", "compose"}
		} else {
			d.cmd = []string{"docker-compose"}
		}
	}
	d.env = os.Environ()
	for _, name := range []string{"ZK1_PORT", "ZK2_PORT", "ZK3_PORT", "KAFKA1_PORT", "KAFKA2_PORT", "KAFKA3_PORT"} {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		d.ports[name] = p
		d.env = append(d.env, fmt.Sprintf("%s=%d", name, p))
	}
	// The host's tools run the freshly built zkafka (bin/*.sh prefer bin/zkafka beside them).
	d.env = append(d.env, "PATH="+filepath.Dir(suite.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() {
		if d.downed {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if t.Failed() {
			out, _ := d.run(ctx, nil, append(append([]string{}, d.cmd...), "-p", d.project, "-f", d.file(), "logs", "--no-color", "--tail", "40")...)
			t.Logf("compose logs:\n%s", out)
		}
		d.down(ctx)
	})
	return d
}

func (d *dockerCluster) file() string { return filepath.Join(d.root, "docker", "docker-compose.yml") }

func (d *dockerCluster) hostZK() string { return fmt.Sprintf("127.0.0.1:%d", d.ports["ZK1_PORT"]) }

func (d *dockerCluster) hostBroker(id int) string {
	return fmt.Sprintf("127.0.0.1:%d", d.ports[fmt.Sprintf("KAFKA%d_PORT", id)])
}

// run runs a command (with the project's environment) and returns its combined output.
func (d *dockerCluster) run(ctx context.Context, stdin []byte, argv ...string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = d.root
	cmd.Env = d.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// must runs a command and fails the test when it fails.
func (d *dockerCluster) must(ctx context.Context, stdin []byte, argv ...string) string {
	d.t.Helper()
	out, err := d.run(ctx, stdin, argv...)
	if err != nil {
		d.t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return out
}

func (d *dockerCluster) compose(ctx context.Context, args ...string) string {
	d.t.Helper()
	return d.must(ctx, nil, append(append(append([]string{}, d.cmd...), "-p", d.project, "-f", d.file()), args...)...)
}

func (d *dockerCluster) down(ctx context.Context) {
	d.t.Helper()
	d.downed = true
	d.compose(ctx, "down", "-v", "--timeout", "30")
}

func (d *dockerCluster) docker(ctx context.Context, args ...string) string {
	d.t.Helper()
	return d.must(ctx, nil, append([]string{"docker"}, args...)...)
}

// container is the id of a service's container.
func (d *dockerCluster) container(service string) string {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := strings.TrimSpace(d.compose(ctx, "ps", "-q", service))
	if id == "" {
		d.t.Fatalf("no container for service %s", service)
	}
	return id
}

// exec runs a command inside a service's container.
func (d *dockerCluster) exec(ctx context.Context, service string, argv ...string) string {
	d.t.Helper()
	return d.docker(ctx, append([]string{"exec", d.container(service)}, argv...)...)
}

func (d *dockerCluster) topics(ctx context.Context, args ...string) string {
	d.t.Helper()
	return d.must(ctx, nil, append([]string{filepath.Join(d.root, "bin", "kafka-topics.sh")}, args...)...)
}

func (d *dockerCluster) kcat(ctx context.Context, stdin []byte, args ...string) string {
	d.t.Helper()
	return d.must(ctx, stdin, append([]string{"kcat"}, args...)...)
}

// produce sends n keyed messages (first..first+n-1) to topic through broker id's published
// port with acks=all, and returns them as "topic/key=value".
func (d *dockerCluster) produce(ctx context.Context, topic string, first, n, id int) []string {
	d.t.Helper()
	var in bytes.Buffer
	var sent []string
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&in, "k%d:v%d\n", i, i)
		sent = append(sent, fmt.Sprintf("%s/k%d=v%d", topic, i, i))
	}
	d.kcat(ctx, in.Bytes(), "-b", d.hostBroker(id), "-P", "-t", topic, "-K", ":", "-X", "acks=all", "-X", "message.send.max.retries=10")
	return sent
}

// waitHealthy waits until the six containers report healthy and returns how long it took.
func (d *dockerCluster) waitHealthy(ctx context.Context, limit time.Duration) time.Duration {
	d.t.Helper()
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last string
	err := WaitFor(ctx, func() string { return "containers not healthy: " + last }, func() bool {
		ids := strings.Fields(d.compose(ctx, "ps", "-q"))
		if len(ids) != 6 {
			last = fmt.Sprintf("%d containers", len(ids))
			return false
		}
		out, err := d.run(ctx, nil, append([]string{"docker", "inspect", "-f", "{{.Name}} {{.State.Health.Status}}"}, ids...)...)
		last = strings.ReplaceAll(strings.TrimSpace(out), "\n", ", ")
		return err == nil && strings.Count(out, " healthy\n") == 6
	})
	if err != nil {
		d.t.Fatal(err)
	}
	return time.Since(t0)
}

// partitionRow is one line of kafka-topics.sh --describe.
type partitionRow struct {
	leader int32
	isr    []int32
}

var describeLine = regexp.MustCompile(`Partition: (\d+)\tLeader: (-?\d+|none)\tReplicas: [\d,]*\tIsr: ([\d,]*)`)

// describe runs kafka-topics.sh --describe from the host.
func (d *dockerCluster) describe(ctx context.Context, topic string) map[int32]partitionRow {
	d.t.Helper()
	out, err := d.run(ctx, nil, filepath.Join(d.root, "bin", "kafka-topics.sh"), "--zookeeper", d.hostZK(), "--describe", "--topic", topic)
	rows := map[int32]partitionRow{}
	if err != nil {
		return rows
	}
	for _, m := range describeLine.FindAllStringSubmatch(out, -1) {
		p, _ := strconv.Atoi(m[1])
		leader, err := strconv.Atoi(m[2])
		if err != nil {
			leader = -1
		}
		var isr []int32
		for _, s := range strings.Split(m[3], ",") {
			if n, err := strconv.Atoi(s); err == nil {
				isr = append(isr, int32(n))
			}
		}
		sort.Slice(isr, func(i, j int) bool { return isr[i] < isr[j] })
		rows[int32(p)] = partitionRow{leader: int32(leader), isr: isr}
	}
	return rows
}

// waitDescribe polls describe until ok holds and returns how long it took.
func (d *dockerCluster) waitDescribe(ctx context.Context, topic string, ok func(map[int32]partitionRow) bool, what string) time.Duration {
	d.t.Helper()
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var last map[int32]partitionRow
	if err := WaitFor(ctx, func() string { return fmt.Sprintf("%s: %s: %+v", topic, what, last) }, func() bool {
		last = d.describe(ctx, topic)
		return ok(last)
	}); err != nil {
		d.t.Fatal(err)
	}
	return time.Since(t0)
}
