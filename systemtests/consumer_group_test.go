package systemtests

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
)

// Issue 8's process-level acceptance: sarama ConsumerGroup members (V0_10_2_0) against the
// GroupCoordinator hosted by three real broker processes. One member runs as a child process
// (this test binary re-executed) so that it can be SIGKILLed; it reports what it consumes on
// stdout.

const (
	cgEnvMember  = "ZKAFKA_CG_MEMBER"
	cgEnvBrokers = "ZKAFKA_CG_BROKERS"
	cgEnvGroup   = "ZKAFKA_CG_GROUP"
	cgEnvTopic   = "ZKAFKA_CG_TOPIC"
	offsetsTopic = "__consumer_offsets"
	// offsetsPartitions is offsets.topic.num.partitions of these clusters.
	offsetsPartitions = 3
)

// cgProps are the controller cluster's settings plus a small offsets topic, replicated on all
// three brokers.
func cgProps() map[string]string {
	return controllerProps(map[string]string{
		"offsets.topic.num.partitions":     fmt.Sprint(offsetsPartitions),
		"offsets.topic.replication.factor": "3",
	})
}

// cgConfig is a group member's configuration: 0.10.2's protocol, reading from the oldest
// offset when nothing is committed, auto-commit every commitEvery.
func cgConfig(commitEvery time.Duration) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_10_2_0
	cfg.ClientID = "zkafka-systemtests-cg"
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = true
	cfg.Consumer.Offsets.AutoCommit.Interval = commitEvery
	cfg.Consumer.Group.Session.Timeout = 6 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = time.Second
	cfg.Consumer.Group.Rebalance.Timeout = 20 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Max = 20
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 500 * time.Millisecond
	cfg.Metadata.Retry.Max = 20
	cfg.Metadata.Retry.Backoff = 250 * time.Millisecond
	cfg.Net.DialTimeout = 5 * time.Second
	return cfg
}

// cgHandler is a sarama ConsumerGroupHandler calling back for assignments and messages.
// When gate returns false the claim ends without marking the message.
type cgHandler struct {
	assigned func(gen int32, parts []int32)
	message  func(m *sarama.ConsumerMessage)
	gate     func(ctx context.Context) bool
}

func (h *cgHandler) Setup(s sarama.ConsumerGroupSession) error {
	var parts []int32
	for _, ps := range s.Claims() {
		parts = append(parts, ps...)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	h.assigned(s.GenerationID(), parts)
	return nil
}

func (h *cgHandler) Cleanup(s sarama.ConsumerGroupSession) error {
	h.assigned(s.GenerationID(), nil)
	return nil
}

func (h *cgHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for {
		select {
		case m, ok := <-c.Messages():
			if !ok {
				return nil
			}
			if h.gate != nil && !h.gate(s.Context()) {
				return nil
			}
			h.message(m)
			s.MarkMessage(m, "")
		case <-s.Context().Done():
			return nil
		}
	}
}

// cgMember is an in-process group member consuming until Close.
type cgMember struct {
	group  sarama.ConsumerGroup
	cancel context.CancelFunc
	done   chan struct{}
}

func startMember(addrs []string, cfg *sarama.Config, group, topic string, h *cgHandler) (*cgMember, error) {
	g, err := sarama.NewConsumerGroup(addrs, group, cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &cgMember{group: g, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			if err := g.Consume(ctx, []string{topic}, h); err != nil {
				if errors.Is(err, sarama.ErrClosedConsumerGroup) {
					return
				}
				select {
				case <-ctx.Done():
				case <-time.After(250 * time.Millisecond):
				}
			}
		}
	}()
	return m, nil
}

// Close leaves the group (sarama commits the marked offsets and sends LeaveGroup).
func (m *cgMember) Close() error {
	m.cancel()
	<-m.done
	return m.group.Close()
}

// TestConsumerGroupMemberProcess is the child side of the killed member: it returns at once
// unless ZKAFKA_CG_MEMBER is set; then it joins the group and prints "CG ASSIGN gen p,p,..." on
// each assignment and "CG MSG p offset key" for each message it consumes, until killed.
func TestConsumerGroupMemberProcess(t *testing.T) {
	if os.Getenv(cgEnvMember) == "" {
		return
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	emit := func(s string) {
		mu.Lock()
		out.WriteString(s)
		out.WriteByte('\n')
		out.Flush()
		mu.Unlock()
	}
	h := &cgHandler{
		assigned: func(gen int32, parts []int32) {
			s := make([]string, len(parts))
			for i, p := range parts {
				s[i] = fmt.Sprint(p)
			}
			emit(fmt.Sprintf("CG ASSIGN %d %s", gen, strings.Join(s, ",")))
		},
		message: func(m *sarama.ConsumerMessage) {
			emit(fmt.Sprintf("CG MSG %d %d %s", m.Partition, m.Offset, m.Key))
		},
	}
	m, err := startMember(strings.Split(os.Getenv(cgEnvBrokers), ","), cgConfig(200*time.Millisecond), os.Getenv(cgEnvGroup), os.Getenv(cgEnvTopic), h)
	if err != nil {
		t.Fatal(err)
	}
	// The parent SIGKILLs this process; this bound only stops an orphan.
	time.Sleep(3 * time.Minute)
	_ = m.Close()
}

// startMemberProcess re-executes the test binary as a group member and feeds its stdout into rec
// as member name.
func startMemberProcess(t *testing.T, addrs []string, group, topic, name string, rec *cgRecord) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestConsumerGroupMemberProcess$", "-test.count=1")
	// The child's TestMain makes its own suite directory; SIGKILL skips its removal, so it goes
	// under a directory of this test, removed after the child is killed.
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, cgEnvMember+"=1", cgEnvBrokers+"="+strings.Join(addrs, ","), cgEnvGroup+"="+group, cgEnvTopic+"="+topic)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) >= 3 && f[0] == "CG" && f[1] == "ASSIGN":
				var parts []int32
				if len(f) == 4 {
					for _, s := range strings.Split(f[3], ",") {
						p, _ := strconv.Atoi(s)
						parts = append(parts, int32(p))
					}
				}
				rec.assign(name, parts)
			case len(f) == 5 && f[0] == "CG" && f[1] == "MSG":
				p, _ := strconv.Atoi(f[2])
				off, _ := strconv.ParseInt(f[3], 10, 64)
				rec.consume(name, int32(p), off, f[4])
			}
		}
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		_ = cmd.Wait()
	})
	return cmd
}

// produceChunks produces total messages (MessageFor(i, size), partition i % parts) in chunks
// of chunk with a pause between them, recording each acknowledged key in rec. A chunk whose first
// message has a channel in holds waits until that channel is closed.
func produceChunks(ctx context.Context, addrs []string, topic string, parts, total, chunk int, pause time.Duration, holds map[int]chan struct{}, rec *cgRecord) error {
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "none")
	if err != nil {
		return err
	}
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	for first := 0; first < total; first += chunk {
		if h, ok := holds[first]; ok {
			select {
			case <-h:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		spec := ProduceSpec{Topic: topic, Partitions: parts, First: first, Count: min(chunk, total-first), Size: 100,
			OnAck: func(i int, p int32, off int64) { rec.ack(p, off, "k"+strconv.Itoa(i)) }}
		if err := SaramaProduce(ctx, addrs, cfg, spec); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	return nil
}

func inProcessHandler(rec *cgRecord, name string) *cgHandler {
	return &cgHandler{
		assigned: func(_ int32, parts []int32) { rec.assign(name, parts) },
		message:  func(m *sarama.ConsumerMessage) { rec.consume(name, m.Partition, m.Offset, string(m.Key)) },
	}
}

func waitAssigned(t *testing.T, rec *cgRecord, d time.Duration, want map[string]int) {
	t.Helper()
	err := WaitFor(within(t, d), func() string {
		var s []string
		for m := range want {
			s = append(s, fmt.Sprintf("%s=%v", m, rec.assignment(m)))
		}
		return "assignment " + strings.Join(s, " ")
	}, func() bool {
		seen := map[int32]bool{}
		for m, n := range want {
			a := rec.assignment(m)
			if len(a) != n {
				return false
			}
			for _, p := range a {
				if seen[p] {
					return false
				}
				seen[p] = true
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Three members split 12 partitions 4/4/4; one leaves (LeaveGroup) and the two others take all
// 12; the child-process member is SIGKILLed and the survivor takes its partitions after the
// session timeout. Every produced message is consumed and the committed offsets are the last
// consumed offsets + 1.
func TestConsumerGroupRebalanceAndKill(t *testing.T) {
	c := controllerCluster(t, cgProps())
	const (
		topic = "cg-rebalance"
		group = "cg-rebalance-group"
		parts = 12
		total = 30000
	)
	if err := c.CreateTopic(within(t, 30*time.Second), topic, rf3(parts)); err != nil {
		t.Fatal(err)
	}
	addrs := c.BootstrapServers()
	rec := newCGRecord()

	prodCtx := within(t, 6*time.Minute)
	prodErr := make(chan error, 1)
	// The second third of the messages is produced after B left, the last third after C was
	// killed, so that every phase has messages to consume.
	bLeft, cKilled := make(chan struct{}), make(chan struct{})
	holds := map[int]chan struct{}{total / 3: bLeft, 2 * total / 3: cKilled}
	go func() {
		prodErr <- produceChunks(prodCtx, addrs, topic, parts, total, 1000, 300*time.Millisecond, holds, rec)
	}()

	t0 := time.Now()
	a, err := startMember(addrs, cgConfig(200*time.Millisecond), group, topic, inProcessHandler(rec, "A"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	b, err := startMember(addrs, cgConfig(200*time.Millisecond), group, topic, inProcessHandler(rec, "B"))
	if err != nil {
		t.Fatal(err)
	}
	bClosed := false
	t.Cleanup(func() {
		if !bClosed {
			_ = b.Close()
		}
	})
	child := startMemberProcess(t, addrs, group, topic, "C", rec)
	waitAssigned(t, rec, 60*time.Second, map[string]int{"A": 4, "B": 4, "C": 4})
	t.Logf("3 members hold 4 partitions each after %v: A=%v B=%v C=%v", time.Since(t0).Round(time.Millisecond), rec.assignment("A"), rec.assignment("B"), rec.assignment("C"))

	if err := WaitFor(within(t, 2*time.Minute), func() string { return "B consumed nothing" }, func() bool { return rec.count("B") > 0 }); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	if err := b.Close(); err != nil {
		t.Fatalf("B close: %v", err)
	}
	bClosed = true
	close(bLeft)
	waitAssigned(t, rec, 2*time.Minute, map[string]int{"A": 6, "C": 6})
	t.Logf("B left: A=%v C=%v after %v", rec.assignment("A"), rec.assignment("C"), time.Since(t1).Round(time.Millisecond))

	cBefore := rec.count("C")
	if err := WaitFor(within(t, 2*time.Minute), func() string { return "C consumes nothing after the rebalance" }, func() bool { return rec.count("C") > cBefore }); err != nil {
		t.Fatal(err)
	}
	// Before the kill, wait until C's auto-commit covers what it has read so far: no message
	// below these offsets may be read again after the kill.
	cParts := rec.assignment("C")
	floor := rec.next(parts)
	var cCommitted map[int32]int64
	var cErr error
	if err := WaitFor(within(t, 2*time.Minute), func() string {
		return fmt.Sprintf("C's commits %v (%v) do not reach what it read %v on %v", cCommitted, cErr, floor, cParts)
	}, func() bool {
		cCommitted, cErr = committedOffsets(addrs, group, topic, parts)
		if cErr != nil {
			return false
		}
		for _, p := range cParts {
			if cCommitted[p] < floor[p] {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	if err := syscall.Kill(-child.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(cKilled)
	waitAssigned(t, rec, 2*time.Minute, map[string]int{"A": 12})
	t.Logf("C killed: A=%v after %v (session timeout 6 s)", rec.assignment("A"), time.Since(t2).Round(time.Millisecond))

	if err := <-prodErr; err != nil {
		t.Fatalf("producer: %v", err)
	}
	hw := map[int32]int64{}
	rec.mu.Lock()
	acked := 0
	for p, m := range rec.keys {
		acked += len(m)
		for off := range m {
			hw[p] = max(hw[p], off+1)
		}
	}
	rec.mu.Unlock()
	if acked != total {
		t.Fatalf("%d of %d messages acknowledged", acked, total)
	}
	if err := WaitFor(within(t, 60*time.Second), func() string {
		return fmt.Sprintf("consumed %d distinct of %d", rec.distinct(), total)
	}, func() bool { return rec.distinct() >= total }); err != nil {
		t.Fatal(err)
	}
	var committed map[int32]int64
	var lastErr error
	if err := WaitFor(within(t, 30*time.Second), func() string {
		return fmt.Sprintf("committed %v (%v), want %v", committed, lastErr, hw)
	}, func() bool {
		committed, lastErr = committedOffsets(addrs, group, topic, parts)
		return lastErr == nil && sameOffsets(committed, hw)
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("A close: %v", err)
	}
	committed, err = committedOffsets(addrs, group, topic, parts)
	if err != nil {
		t.Fatal(err)
	}
	if next := rec.next(parts); !sameOffsets(committed, next) {
		t.Fatalf("committed %v, consumed up to %v", committed, next)
	}
	dups, ndup, missing := rec.duplicates(hw)
	if len(missing) > 0 {
		t.Fatalf("never consumed: %v", missing)
	}
	rec.mu.Lock()
	bad := rec.badKeys
	rec.mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("consumed messages differ from the produced ones: %v", bad)
	}
	t.Logf("%d messages; consumed A=%d B=%d C=%d; %d duplicates by first reader %v", total, rec.count("A"), rec.count("B"), rec.count("C"), ndup, dups)
	// Duplicates come from the killed member's uncommitted window only: nothing below the
	// offsets its commits had reached before the kill is read twice.
	if again := rec.readTwiceBelow(cParts, floor); len(again) > 0 {
		t.Errorf("messages read again after the kill although C had committed past them: %v", again)
	}
	if first, ok := rec.oldestDuplicate(); ok {
		t.Logf("the oldest duplicated message was first read %v before C was killed", t2.Sub(first).Round(time.Millisecond))
	}
	// Only the killed member leaves an uncommitted window: the clean leave commits first.
	if ndup > dups["C"] {
		t.Errorf("duplicates of messages first read by A or B (committed before their rebalance): %v", dups)
	}
}

// Failover of the group coordinator: the broker leading the group's __consumer_offsets
// partition is SIGKILLed while a member holds uncommitted messages; the group finds the new
// coordinator, which serves the committed offsets it loaded, and consumption resumes from them
// with no loss and duplicates only within the uncommitted window.
func TestCoordinatorFailoverSIGKILL(t *testing.T) {
	c := controllerCluster(t, cgProps())
	const (
		topic    = "cg-failover"
		group    = "cg-failover-group"
		parts    = 6
		total    = 12000
		commitAt = 3000
		pauseAt  = 5000
	)
	if err := c.CreateTopic(within(t, 2*time.Minute), topic, rf3(parts)); err != nil {
		t.Fatal(err)
	}
	addrs := c.BootstrapServers()
	rec := newCGRecord()
	if err := produceChunks(within(t, 2*time.Minute), addrs, topic, parts, total, total, 0, nil, rec); err != nil {
		t.Fatal(err)
	}
	hw := map[int32]int64{}
	for p := int32(0); p < parts; p++ {
		hw[p] = int64(len(rec.keys[p]))
	}

	// The member consumes commitAt messages and waits for their commit (so the coordinator has
	// offsets to load), consumes on until pauseAt messages, then its claims block on the gate
	// (without marking) until the new coordinator is elected.
	var consumedN atomic.Int64
	gate1, gate := make(chan struct{}), make(chan struct{})
	paused1, paused := make(chan struct{}), make(chan struct{})
	var pause1Once, pauseOnce sync.Once
	h := inProcessHandler(rec, "M")
	h.gate = func(ctx context.Context) bool {
		n := consumedN.Add(1)
		g := gate
		switch {
		case n <= commitAt:
			return true
		case n <= pauseAt:
			pause1Once.Do(func() { close(paused1) })
			g = gate1
		default:
			pauseOnce.Do(func() { close(paused) })
		}
		select {
		case <-g:
			return true
		case <-ctx.Done():
			return false
		}
	}
	m, err := startMember(addrs, cgConfig(time.Second), group, topic, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	gateOpen := false
	t.Cleanup(func() {
		if !gateOpen {
			close(gate)
		}
	})
	select {
	case <-paused1:
	case <-within(t, 2*time.Minute).Done():
		t.Fatalf("member consumed %d messages, not %d", rec.count("M"), commitAt)
	}
	var firstCommit map[int32]int64
	var lastErr error
	if err := WaitFor(within(t, 2*time.Minute), func() string { return fmt.Sprintf("first commit %v (%v)", firstCommit, lastErr) }, func() bool {
		firstCommit, lastErr = committedOffsets(addrs, group, topic, parts)
		return lastErr == nil && committedAll(firstCommit, rec.next(parts))
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("first commit after %d messages: %v", commitAt, firstCommit)
	close(gate1)
	select {
	case <-paused:
	case <-within(t, 2*time.Minute).Done():
		t.Fatalf("member consumed %d messages, not %d", rec.count("M"), pauseAt)
	}

	offsetsPart := common.Abs(common.JavaStringHashCode(group)) % offsetsPartitions
	leader, err := c.LeaderOf(offsetsTopic, offsetsPart)
	if err != nil {
		t.Fatalf("[%s,%d]: %v", offsetsTopic, offsetsPart, err)
	}
	// The coordinator sarama found is that partition's leader.
	cl, err := sarama.NewClient(addrs, cgConfig(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	coord, err := cl.Coordinator(group)
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}
	if coord.ID() != leader {
		t.Fatalf("coordinator of %s is broker %d, leader of [%s,%d] is %d", group, coord.ID(), offsetsTopic, offsetsPart, leader)
	}
	committedBefore, err := committedOffsets(addrs, group, topic, parts)
	if err != nil {
		t.Fatal(err)
	}
	consumedBefore := rec.next(parts)
	window := int64(0)
	for p := int32(0); p < parts; p++ {
		window += consumedBefore[p] - max(committedBefore[p], 0)
	}
	t.Logf("group %s -> [%s,%d], coordinator broker %d; consumed %v, committed %v: uncommitted window %d", group, offsetsTopic, offsetsPart, leader, consumedBefore, committedBefore, window)

	t0 := time.Now()
	if err := c.Broker(leader).Kill(); err != nil {
		t.Fatal(err)
	}
	var newLeader int32 = -1
	if err := WaitFor(within(t, 2*time.Minute), func() string { return "no new leader of the offsets partition" }, func() bool {
		l, err := c.LeaderOf(offsetsTopic, offsetsPart)
		newLeader = l
		return err == nil && l != leader
	}); err != nil {
		t.Fatal(err)
	}
	live := c.RunningBootstrapServers()
	var loaded map[int32]int64
	if err := WaitFor(within(t, 2*time.Minute), func() string { return fmt.Sprintf("offsets from the new coordinator: %v", lastErr) }, func() bool {
		loaded, lastErr = committedOffsets(live, group, topic, parts)
		return lastErr == nil
	}); err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < parts; p++ {
		if loaded[p] < committedBefore[p] || loaded[p] > consumedBefore[p] {
			t.Errorf("[%s,%d]: new coordinator %d serves offset %d; committed before the kill %d, consumed %d", topic, p, newLeader, loaded[p], committedBefore[p], consumedBefore[p])
		}
	}
	t.Logf("new coordinator broker %d after %v serves %v", newLeader, time.Since(t0).Round(time.Millisecond), loaded)
	gateOpen = true
	close(gate)

	if err := WaitFor(within(t, 2*time.Minute), func() string {
		return fmt.Sprintf("consumed %d distinct of %d", rec.distinct(), total)
	}, func() bool { return rec.distinct() >= total }); err != nil {
		t.Fatal(err)
	}
	var committed map[int32]int64
	if err := WaitFor(within(t, 2*time.Minute), func() string {
		return fmt.Sprintf("committed %v (%v), want %v", committed, lastErr, hw)
	}, func() bool {
		committed, lastErr = committedOffsets(live, group, topic, parts)
		return lastErr == nil && sameOffsets(committed, hw)
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("all %d consumed and committed %v after %v", total, committed, time.Since(t0).Round(time.Millisecond))
	_, ndup, missing := rec.duplicates(hw)
	if len(missing) > 0 {
		t.Fatalf("never consumed: %v", missing)
	}
	rec.mu.Lock()
	bad := rec.badKeys
	rec.mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("consumed messages differ from the produced ones: %v", bad)
	}
	t.Logf("%d duplicates, uncommitted window at the kill %d", ndup, window)
	if int64(ndup) > window {
		t.Fatalf("%d duplicates, more than the %d messages consumed after the last commit before the kill", ndup, window)
	}
}
