package systemtests

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// Issue 6 acceptance, continued: controlled shutdown, session expiry, a paused follower.

var controlledShutdownOK = regexp.MustCompile(`Controlled shutdown succeeded`)

// Controlled shutdown (SIGTERM) of a broker leading partitions: the controller moves its
// leaderships before it exits, the broker leaves every ISR for good before its registration
// disappears (checkLeftIsrForGood), the longest acks=all produce latency around the shutdown is
// reported, and an acks=all producer never gets an error it cannot retry past.
func TestControlledShutdown(t *testing.T) {
	c := controllerCluster(t, nil)
	requireReplication(t, c)
	ctx := within(t, 3*time.Minute)
	const topic = "controlled"
	const parts = 6
	assignment := rf3(parts)
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	load, err := StartLoad(c.BootstrapServers(), LoadSpec{Topic: topic, Partitions: parts, Size: 200, Rate: 1000}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer load.Stop()
	if err := load.WaitAcked(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	// A broker that is not the controller (the controller's own shutdown is the failover test).
	ctl, _ := c.ControllerInfo()
	victim := c.Brokers[0]
	for _, b := range c.Brokers {
		if b.ID != ctl {
			victim = b
			break
		}
	}
	led := 0
	for p := int32(0); p < parts; p++ {
		if l, _ := c.LeaderOf(topic, p); l == victim.ID {
			led++
		}
	}
	if led == 0 {
		t.Fatalf("broker %d leads nothing", victim.ID)
	}
	watch := watchIsr(t, c, victim.ID, topic, parts)
	t0 := time.Now()
	if err := victim.Stop(60 * time.Second); err != nil {
		close(watch.stop)
		watch.wait()
		t.Fatal(err)
	}
	t.Logf("broker %d (leader of %d partitions) shut down in %v", victim.ID, led, time.Since(t0).Round(time.Millisecond))
	checkLeftIsrForGood(t, victim.ID, t0, watch.wait())
	if victim.Logs().Matches(controlledShutdownOK) == nil {
		t.Errorf("broker %d log has no %q", victim.ID, controlledShutdownOK)
	}
	// Right after the exit (the session is closed, but before any failure handling could
	// matter) no partition is led by the stopped broker, and it has left every ISR.
	for p := int32(0); p < parts; p++ {
		s, _, err := c.PartitionState(topic, p)
		if err != nil {
			t.Fatal(err)
		}
		if s.LeaderAndIsr.Leader == victim.ID || s.LeaderAndIsr.Leader < 0 {
			t.Errorf("[%s,%d] leader %d after controlled shutdown of %d", topic, p, s.LeaderAndIsr.Leader, victim.ID)
		}
	}
	if err := load.WaitAcked(within(t, 30*time.Second), 2000); err != nil {
		t.Fatal(err)
	}
	// The failure checkLeftIsrForGood guards against makes acks=all produces wait until the
	// controller handles the broker's disappearance, or ISR expiry (replica.lag.time.max.ms, 10 s
	// here); a leader move costs a retry (250 ms backoff) and a metadata refresh.
	stall := load.MaxLatency(t0, time.Now())
	t.Logf("longest acks=all produce latency from the SIGTERM until 2,000 acks later: %v", stall.Round(time.Millisecond))
	if stall > 5*time.Second {
		t.Errorf("an acks=all produce waited %v around the controlled shutdown", stall)
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 60*time.Second), topic, parts, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	sent, acked, errs := load.Stop()
	if len(errs) > 0 {
		t.Errorf("%d sends failed after retries, first: %v", len(errs), errs[0])
	}
	if _, err := c.ConsumeAll(ctx, topic, parts, checker); err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	t.Logf("sent %d acked %d; %v", sent, acked, rep)
	if !rep.OK() {
		t.Fatal(rep)
	}
}

var (
	brokerFailureLine = regexp.MustCompile(`Broker failure callback for (\d+,)*%d(,\d+)*\b`)
	brokerStartupLine = regexp.MustCompile(`New broker startup callback for (\d+,)*%d(,\d+)*\b`)
)

func idLine(re *regexp.Regexp, id int32) *regexp.Regexp {
	return regexp.MustCompile(fmt.Sprintf(re.String(), id))
}

// Broker session expiry: a broker paused longer than the session timeout loses its
// registration; the controller sees it leave (and takes it out of every ISR), then sees it
// return once it re-registers on a new session, and its replicas rejoin the ISR.
func TestBrokerSessionExpiry(t *testing.T) {
	c := controllerCluster(t, nil)
	requireReplication(t, c)
	ctx := within(t, 3*time.Minute)
	const topic = "expiry"
	assignment := rf3(3)
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	ctl, _ := c.ControllerInfo()
	var victim *BrokerProcess
	for _, b := range c.Brokers {
		if b.ID != ctl {
			victim = b
			break
		}
	}
	ctlLogs := c.Broker(ctl).Logs()
	mark := ctlLogs.Mark()
	t0 := time.Now()
	if err := victim.Pause(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitUnregistered(within(t, sessionTimeout+15*time.Second), victim.ID); err != nil {
		_ = victim.Resume()
		t.Fatal(err)
	}
	if _, err := ctlLogs.ExpectFrom(mark, idLine(brokerFailureLine, victim.ID), 10*time.Second); err != nil {
		_ = victim.Resume()
		t.Fatal(err)
	}
	err := c.WaitPartitions(within(t, 10*time.Second), topic, 3, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return s.LeaderAndIsr.Leader != victim.ID && !containsInt32(s.LeaderAndIsr.Isr, victim.ID)
	})
	gone := time.Since(t0)
	if rerr := victim.Resume(); rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatalf("broker %d still in an ISR after its session expired: %v", victim.ID, err)
	}
	if _, err := c.WaitRegistered(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if _, err := ctlLogs.ExpectFrom(mark, idLine(brokerStartupLine, victim.ID), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 60*time.Second), topic, 3, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	t.Logf("broker %d: out of every ISR %v after SIGSTOP; re-registered and back in every ISR %v after it", victim.ID,
		gone.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	produceAndCheck(t, ctx, c, topic, 3, 300)
}

func containsInt32(s []int32, x int32) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// A follower paused (SIGSTOP) for longer than replica.lag.time.max.ms but shorter than the
// session timeout drops out of the ISR, and rejoins after SIGCONT; the leader announces each ISR
// change under /isr_change_notification and the controller consumes the notifications.
func TestPausedFollowerLeavesIsr(t *testing.T) {
	const lag = 2 * time.Second
	c := controllerCluster(t, map[string]string{
		"replica.lag.time.max.ms":      fmt.Sprint(lag.Milliseconds()),
		"zookeeper.session.timeout.ms": "20000",
	})
	requireReplication(t, c)
	ctx := within(t, 3*time.Minute)
	const topic = "lagging"
	// Broker 2 follows every partition and leads none.
	assignment := map[int32][]int32{0: {0, 1, 2}, 1: {1, 0, 2}}
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	load, err := StartLoad(c.BootstrapServers(), LoadSpec{Topic: topic, Partitions: 2, Size: 100, Rate: 500}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer load.Stop()
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	_, before, err := z.ReadData(zkutils.IsrChangeNotificationPath)
	if err != nil {
		t.Fatal(err)
	}
	follower := c.Broker(2)
	t0 := time.Now()
	if err := follower.Pause(); err != nil {
		t.Fatal(err)
	}
	err = c.WaitPartitions(within(t, lag+15*time.Second), topic, 2, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return !containsInt32(s.LeaderAndIsr.Isr, 2)
	})
	shrunk := time.Since(t0)
	if rerr := follower.Resume(); rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, 2, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	t.Logf("paused follower out of the ISR after %v (replica.lag.time.max.ms %v); back %v after SIGCONT", shrunk.Round(time.Millisecond), lag, time.Since(t1).Round(time.Millisecond))
	if shrunk < lag {
		t.Errorf("ISR shrank after %v, before replica.lag.time.max.ms %v", shrunk, lag)
	}
	// The leader announced the ISR changes under /isr_change_notification (0.10.2 batches them:
	// one sequential node once no change has come for 5 s) and the controller consumed them:
	// the children version moved by at least a create and a delete, and no child is left.
	var after int32
	if err := WaitFor(within(t, 30*time.Second), func() string {
		return fmt.Sprintf("/isr_change_notification children version %d -> %d: no notification written and consumed", before.Cversion, after)
	}, func() bool {
		kids, err := z.GetChildren(zkutils.IsrChangeNotificationPath)
		if err != nil || len(kids) != 0 {
			return false
		}
		_, st, err := z.ReadData(zkutils.IsrChangeNotificationPath)
		if err != nil {
			return false
		}
		after = st.Cversion
		return after-before.Cversion >= 2
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, errs := load.Stop(); len(errs) > 0 {
		t.Errorf("%d sends failed, first: %v", len(errs), errs[0])
	}
	if _, err := c.ConsumeAll(ctx, topic, 2, checker); err != nil {
		t.Fatal(err)
	}
	if r := checker.Check(); !r.OK() {
		t.Fatal(r)
	}
}
