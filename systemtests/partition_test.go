package systemtests

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/ensemble"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Network partitions (issue 18), under an acks=all, min.insync.replicas=2 load checked offset by
// offset. `make test` runs the controller and zombie-leader cases; ZKAFKA_LONG=1 (`make
// systemtest`) adds the follower, ZooKeeper-minority and client cases.

var resignedLine = `Broker %d resigned as the controller`

// The controller cut off from ZooKeeper, not from the brokers: its session expires, another
// broker becomes controller with a higher epoch and moves the old one's leaderships; the old
// one, which cannot learn of the expiry before it reaches ZooKeeper again, resigns when it does
// and rejoins as a plain broker. No epoch is ever used by two controllers, nothing acknowledged
// is lost.
func TestPartitionControllerFromZooKeeper(t *testing.T) {
	env := newPartitionEnv(t, nil)
	c := env.c
	ctx := within(t, 5*time.Minute)
	const topic, parts = "cut-controller", int32(6)
	assignment := rf3(parts)
	checker, load := startPartitionLoad(t, ctx, c, topic, assignment)
	defer load.Stop()
	oldID, oldEpoch := c.ControllerInfo()
	old := c.Broker(oldID)
	mark := old.Logs().Mark()
	defer func() { _ = env.net.Heal() }()
	t0 := time.Now()
	env.cut(t, []*Host{env.brokers[oldID]}, env.zk)

	if err := WaitFor(within(t, sessionTimeout+45*time.Second), func() string {
		id, e := c.ControllerInfo()
		return fmt.Sprintf("controller still %d epoch %d (was %d epoch %d)", id, e, oldID, oldEpoch)
	}, func() bool {
		id, e := c.ControllerInfo()
		return id >= 0 && id != oldID && e > oldEpoch
	}); err != nil {
		t.Fatal(err)
	}
	elected := time.Since(t0)
	newID, newEpoch := c.ControllerInfo()
	// Its leaderships move. (It stays in the ISR of the others' partitions: it still fetches
	// from their leaders, as 0.10.2's controller failover leaves those ISRs to the leaders.)
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, parts, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return s.LeaderAndIsr.Leader >= 0 && s.LeaderAndIsr.Leader != oldID
	}); err != nil {
		t.Fatal(err)
	}
	moved := time.Since(t0)
	if err := waitPartitionsAcked(within(t, 90*time.Second), checker, topic, parts, allPartitions(parts), 20); err != nil {
		t.Fatal(err)
	}
	recovered := time.Since(t0)
	// Cut off, the old controller has heard nothing of its expiry: it has not resigned yet.
	if l := old.Logs().MatchesFrom(mark, regexp.MustCompile(fmt.Sprintf(resignedLine, oldID))); len(l) > 0 {
		t.Logf("broker %d resigned while cut off: %q", oldID, l[0])
	}

	env.heal(t)
	t1 := time.Now()
	if _, err := old.Logs().ExpectFrom(mark, regexp.MustCompile(fmt.Sprintf(resignedLine, oldID)), 60*time.Second); err != nil {
		t.Fatalf("the old controller did not resign after reconnecting: %v", err)
	}
	resigned := time.Since(t1)
	if _, err := c.WaitRegistered(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 90*time.Second), topic, parts, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	rejoined := time.Since(t1)
	if id, e := c.ControllerInfo(); id != newID || e != newEpoch {
		t.Errorf("controller %d epoch %d after healing, want %d epoch %d unchanged", id, e, newID, newEpoch)
	}
	rep := finishLoad(t, ctx, c, load, checker, topic, parts)
	audit := auditLeaderAndIsrEpochs(c)
	audit.check(t)
	partitionReport{scenario: "controller-from-zookeeper", rep: rep, recovered: recovered, extraLines: []string{
		fmt.Sprintf("controller %d (epoch %d) cut off; broker %d controller (epoch %d) after %v; old leaderships moved after %v",
			oldID, oldEpoch, newID, newEpoch, elected.Round(100*time.Millisecond), moved.Round(100*time.Millisecond)),
		fmt.Sprintf("after healing: old controller resigned in %v, back in every ISR in %v", resigned.Round(100*time.Millisecond), rejoined.Round(100*time.Millisecond)),
		audit.String(),
	}}.log(t)
}

// The zombie leader: a partition leader cut off from ZooKeeper and from its followers while the
// producer still reaches it. Its acks=all produce requests must not succeed (no follower can
// fetch, and the ISR cannot shrink without ZooKeeper); once its session expires the controller
// elects a new leader from the ISR; after healing the zombie truncates what it alone appended
// and follows. Nothing acknowledged is lost and no probe written to the zombie survives.
func TestPartitionZombieLeader(t *testing.T) {
	// A short replica.lag.time.max.ms, so that the zombie also tries (and fails, without
	// ZooKeeper) to shrink its ISR while cut off.
	const lag = 3 * time.Second
	env := newPartitionEnv(t, map[string]string{"replica.lag.time.max.ms": fmt.Sprint(lag.Milliseconds())})
	c := env.c
	ctx := within(t, 5*time.Minute)
	const topic, parts = "zombie", int32(6)
	assignment := rf3(parts)
	ctl, _ := c.ControllerInfo()
	zombieID := (ctl + 1) % 3
	zombie := c.Broker(zombieID)
	zparts := ledBy(assignment, zombieID)
	checker, load := startPartitionLoad(t, ctx, c, topic, assignment)
	defer load.Stop()
	defer func() { _ = env.net.Heal() }()
	t0 := time.Now()
	env.cut(t, []*Host{env.brokers[zombieID]}, append(append([]*Host{}, env.zk...), env.otherBrokers(zombieID)...))

	// Probe the zombie directly, acks=all, all along the cut.
	var (
		probesMu sync.Mutex
		probes   []string
	)
	probe := func(i int) {
		key, value := []byte(fmt.Sprintf("probe-%d", i)), []byte(fmt.Sprintf("written to zombie %d", zombieID))
		checker.Sent(key, value)
		p := zparts[i%len(zparts)]
		code, err := produceProbe(zombie.Addr(), topic, p, key, value, 8*time.Second)
		var outcome string
		switch {
		case err != nil:
			outcome = fmt.Sprintf("%s to partition %d: no answer (%v)", key, p, err)
		case code == 0:
			t.Errorf("zombie leader %d acknowledged an acks=all write to [%s,%d] while cut off (%s)", zombieID, topic, p, key)
			outcome = fmt.Sprintf("%s to partition %d: ACKNOWLEDGED", key, p)
		default:
			outcome = fmt.Sprintf("%s to partition %d: %v", key, p, protocol.ErrorForCode(code))
		}
		probesMu.Lock()
		probes = append(probes, outcome)
		probesMu.Unlock()
	}
	stopProbes, probesDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(probesDone)
		for i := 0; ; i++ {
			select {
			case <-stopProbes:
				return
			default:
			}
			probe(i)
		}
	}()
	defer func() {
		select {
		case <-stopProbes:
		default:
			close(stopProbes)
		}
		<-probesDone
	}()
	if err := c.WaitPartitions(within(t, sessionTimeout+45*time.Second), topic, parts, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return s.LeaderAndIsr.Leader >= 0 && s.LeaderAndIsr.Leader != zombieID && !containsInt32(s.LeaderAndIsr.Isr, zombieID)
	}); err != nil {
		t.Fatal(err)
	}
	elected := time.Since(t0)
	if err := waitPartitionsAcked(within(t, 90*time.Second), checker, topic, parts, allPartitions(parts), 20); err != nil {
		t.Fatal(err)
	}
	recovered := time.Since(t0)
	// The zombie still believes it leads, and its followers have lagged past
	// replica.lag.time.max.ms: it tries to shrink its ISR, which needs ZooKeeper. It must go on
	// refusing.
	if d := 3*lag - time.Since(t0); d > 0 {
		time.Sleep(d)
	}
	close(stopProbes)
	<-probesDone
	if len(probes) < 2 {
		t.Errorf("only %d probes reached the zombie", len(probes))
	}

	env.heal(t)
	t1 := time.Now()
	if _, err := c.WaitRegistered(ctx, zombie); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 90*time.Second), topic, parts, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	rejoined := time.Since(t1)
	rep := finishLoad(t, ctx, c, load, checker, topic, parts)
	// No probe was acknowledged; none may have survived the zombie's truncation either.
	checker.mu.Lock()
	for tp, m := range checker.consumed {
		for off, msg := range m {
			if strings.Contains(msg, "written to zombie") {
				t.Errorf("a write acknowledged by nobody, made to the zombie, is in the log at %s@%d", tp, off)
			}
		}
	}
	checker.mu.Unlock()
	auditLeaderAndIsrEpochs(c).check(t)
	partitionReport{scenario: "zombie-leader", rep: rep, recovered: recovered, extraLines: []string{
		fmt.Sprintf("broker %d (leader of %v) cut off from ZooKeeper and brokers; new leaders elected after %v; back in every ISR %v after healing",
			zombieID, zparts, elected.Round(100*time.Millisecond), rejoined.Round(100*time.Millisecond)),
		fmt.Sprintf("%d acks=all probes to the zombie: %v", len(probes), probes),
	}}.log(t)
}

// One follower cut off from the other brokers (it still reaches ZooKeeper, so it stays
// registered): the leaders drop it from the ISR after replica.lag.time.max.ms, writes go on with
// two in-sync replicas, and it catches up and rejoins after healing.
func TestPartitionFollower(t *testing.T) {
	if !long() {
		t.Skip("ZKAFKA_LONG=1 (make systemtest) runs this scenario")
	}
	const lag = 3 * time.Second
	env := newPartitionEnv(t, map[string]string{"replica.lag.time.max.ms": fmt.Sprint(lag.Milliseconds())})
	c := env.c
	ctx := within(t, 5*time.Minute)
	ctl, _ := c.ControllerInfo()
	fid := (ctl + 1) % 3
	other := (ctl + 2) % 3
	// The follower is last in every replica list: it leads nothing.
	assignment := map[int32][]int32{0: {ctl, other, fid}, 1: {other, ctl, fid}, 2: {ctl, other, fid}, 3: {other, ctl, fid}}
	const topic, parts = "cut-follower", int32(4)
	checker, load := startPartitionLoad(t, ctx, c, topic, assignment)
	defer load.Stop()
	defer func() { _ = env.net.Heal() }()
	t0 := time.Now()
	env.cut(t, []*Host{env.brokers[fid]}, env.otherBrokers(fid))
	if err := c.WaitPartitions(within(t, lag+30*time.Second), topic, parts, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return !containsInt32(s.LeaderAndIsr.Isr, fid) && len(s.LeaderAndIsr.Isr) == 2
	}); err != nil {
		t.Fatal(err)
	}
	shrunk := time.Since(t0)
	if err := waitPartitionsAcked(within(t, 60*time.Second), checker, topic, parts, allPartitions(parts), 50); err != nil {
		t.Fatalf("writes stopped with the follower cut off: %v", err)
	}
	env.heal(t)
	t1 := time.Now()
	if err := c.WaitPartitions(within(t, 90*time.Second), topic, parts, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	rejoined := time.Since(t1)
	rep := finishLoad(t, ctx, c, load, checker, topic, parts)
	partitionReport{scenario: "follower", rep: rep, recovered: rejoined, extraLines: []string{
		fmt.Sprintf("follower %d cut off from the brokers: out of every ISR after %v (replica.lag.time.max.ms %v), writes went on; back in every ISR %v after healing",
			fid, shrunk.Round(100*time.Millisecond), lag, rejoined.Round(100*time.Millisecond)),
	}}.log(t)
}

// The ZooKeeper leader in a minority partition (cut off from the other two servers, still
// reachable by brokers and clients): it stops serving, the majority elects a new leader, the
// brokers' sessions move to the majority without expiring (no broker re-registers, the
// controller and its epoch stay), writes go on, and the node rejoins as a follower after
// healing.
func TestPartitionZooKeeperMinority(t *testing.T) {
	if !long() {
		t.Skip("ZKAFKA_LONG=1 (make systemtest) runs this scenario")
	}
	env := newPartitionEnv(t, nil)
	c := env.c
	ctx := within(t, 5*time.Minute)
	const topic, parts = "zk-minority", int32(6)
	assignment := rf3(parts)
	checker, load := startPartitionLoad(t, ctx, c, topic, assignment)
	defer load.Stop()
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	owners := map[int32]int64{}
	for id := int32(0); id < 3; id++ {
		_, st, err := z.ReadData(zkutils.BrokerIdPath(id))
		if err != nil {
			t.Fatal(err)
		}
		owners[id] = st.EphemeralOwner
	}
	ctlID, ctlEpoch := c.ControllerInfo()
	lead, err := env.e.Leader()
	if err != nil {
		t.Fatal(err)
	}
	var majority []*Host
	for i, h := range env.zk {
		if i != lead {
			majority = append(majority, h)
		}
	}
	defer func() { _ = env.net.Heal() }()
	t0 := time.Now()
	env.cut(t, []*Host{env.zk[lead]}, majority)
	var quorum time.Duration
	if err := WaitFor(within(t, 60*time.Second), func() string { return "the majority elected no new ZooKeeper leader" }, func() bool {
		if _, err := env.e.Mode(lead); err == nil {
			return false // the cut-off node still serves
		}
		for i := range env.zk {
			if m, err := env.e.Mode(i); i != lead && err == nil && m == ensemble.ModeLeader {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	quorum = time.Since(t0)
	if err := waitPartitionsAcked(within(t, 60*time.Second), checker, topic, parts, allPartitions(parts), 50); err != nil {
		t.Fatalf("writes stopped while a ZooKeeper node was in a minority: %v", err)
	}
	recovered := time.Since(t0)
	env.heal(t)
	t1 := time.Now()
	if _, err := env.e.WaitServing(within(t, 60*time.Second), lead); err != nil {
		t.Fatal(err)
	}
	rejoined := time.Since(t1)
	for id := int32(0); id < 3; id++ {
		_, st, err := z.ReadData(zkutils.BrokerIdPath(id))
		if err != nil {
			t.Fatal(err)
		}
		if st.EphemeralOwner != owners[id] {
			t.Errorf("broker %d re-registered (session %x, was %x): its session expired", id, st.EphemeralOwner, owners[id])
		}
	}
	if id, e := c.ControllerInfo(); id != ctlID || e != ctlEpoch {
		t.Errorf("controller %d epoch %d, want %d epoch %d unchanged", id, e, ctlID, ctlEpoch)
	}
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, parts, FullIsr(assignment)); err != nil {
		t.Fatal(err)
	}
	rep := finishLoad(t, ctx, c, load, checker, topic, parts)
	partitionReport{scenario: "zookeeper-minority", rep: rep, recovered: recovered, extraLines: []string{
		fmt.Sprintf("ZooKeeper leader (node %d) cut off from the other two: new ZooKeeper leader after %v; no broker session expired; node back (serving) %v after healing",
			lead, quorum.Round(100*time.Millisecond), rejoined.Round(100*time.Millisecond)),
	}}.log(t)
}

// A client cut off from one broker (the test's producers cannot reach it; the cluster is whole):
// nothing fails over, since the broker is healthy; the producer of the topic that broker leads
// stalls while the producers of the other topics go on; after healing it resumes. Each topic
// has its own producer, so that one stalled partition does not hold the others back inside a
// single client.
func TestPartitionClientFromBroker(t *testing.T) {
	if !long() {
		t.Skip("ZKAFKA_LONG=1 (make systemtest) runs this scenario")
	}
	env := newPartitionEnv(t, nil)
	c := env.c
	ctx := within(t, 5*time.Minute)
	checker := NewChecker()
	topics := []string{"client-cut-0", "client-cut-1", "client-cut-2"}
	loads := make([]*LoadProducer, 3)
	for i, topic := range topics {
		b := int32(i)
		if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {b, (b + 1) % 3, (b + 2) % 3}}); err != nil {
			t.Fatal(err)
		}
		l, err := StartLoad(c.BootstrapServers(), LoadSpec{Topic: topic, Partitions: 1, First: i * 10_000_000, Size: 100, Rate: 200}, checker)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Stop()
		loads[i] = l
	}
	for _, l := range loads {
		if err := l.WaitAcked(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	ctl, _ := c.ControllerInfo()
	victim := (ctl + 1) % 3
	defer func() { _ = env.net.Heal() }()
	t0 := time.Now()
	env.cut(t, []*Host{env.net.Client()}, []*Host{env.brokers[victim]})
	time.Sleep(time.Second) // answers already on the wire may still arrive
	cutAt := loads[victim].Acked()
	// The other brokers' topics go on.
	for i, l := range loads {
		if int32(i) == victim {
			continue
		}
		if err := l.WaitAcked(within(t, 60*time.Second), 100); err != nil {
			t.Fatalf("%s stalled while the client was cut off from broker %d only: %v", topics[i], victim, err)
		}
	}
	// Long enough for a wrong failover to show: the victim still leads its topic with a full ISR.
	time.Sleep(sessionTimeout + 2*time.Second)
	stalledAt := loads[victim].Acked()
	if stalledAt != cutAt {
		t.Errorf("%s got %d acknowledgements from broker %d through a cut link", topics[victim], stalledAt-cutAt, victim)
	}
	s, _, err := c.PartitionState(topics[victim], 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.LeaderAndIsr.Leader != victim || len(s.LeaderAndIsr.Isr) != 3 {
		t.Errorf("[%s,0] is %+v while only a client was cut off from broker %d: no failover was due", topics[victim], s.LeaderAndIsr, victim)
	}
	cut := time.Since(t0)
	env.heal(t)
	t1 := time.Now()
	if err := loads[victim].WaitAcked(within(t, 90*time.Second), 100); err != nil {
		t.Fatalf("%s did not resume after healing: %v", topics[victim], err)
	}
	resumed := time.Since(t1)
	var rep CheckReport
	for i, topic := range topics {
		if _, _, errs := loads[i].Stop(); len(errs) > 0 {
			t.Logf("%s: %d sends failed after retries (first: %v)", topic, len(errs), errs[0])
		}
		if _, err := c.ConsumeAll(ctx, topic, 1, checker); err != nil {
			t.Fatal(err)
		}
	}
	rep = checker.Check()
	if !rep.OK() {
		t.Error(rep)
	}
	partitionReport{scenario: "client-from-broker", rep: rep, recovered: resumed, extraLines: []string{
		fmt.Sprintf("client cut off from broker %d for %v: its topic %s stalled at %d acks, the other two went on, no failover; resumed %v after healing",
			victim, cut.Round(100*time.Millisecond), topics[victim], stalledAt, resumed.Round(100*time.Millisecond)),
	}}.log(t)
}
