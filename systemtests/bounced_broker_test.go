package systemtests

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// A broker restarted right after SIGKILL must not go unseen by the controller (issue 11 item 4,
// KAFKA-1120). The new process waits until its old session's /brokers/ids/<id> is gone and
// registers again within ~100 ms; a controller whose event goroutine is behind reads the
// children once, after both, and finds the same set of ids. 0.10.2 then never handles the
// restart: the partitions keep the old process's leadership and ISR, and the new process never
// gets a LeaderAndIsr. zkafka compares each registration's czxid (core/controller
// BrokerChangeListener) and handles a re-created registration as a failure plus a startup.
//
// Here with real processes: 3 brokers, an RF-3 topic under acks=all load (min.insync.replicas=2),
// 20 cycles of SIGKILL + immediate restart with the same id, the controller's host among the
// victims. While the victim's old session runs out, the controller process is stuttered
// (SIGSTOP for bounceStutterStop, SIGCONT for bounceStutterRun, until the new registration
// exists): its event goroutine is delayed, as the "busy controller", and most cycles
// end with the deletion and the re-creation both delivered in one read of the children (the
// controller logs the id under "bounced brokers"). The new process gives up when the old
// registration outlives its wait (its own session timeout) and is then started again at once,
// as a supervisor would. After each cycle, within generous deadlines: the controller has
// handled the failure (every partition's leader epoch moved on; not asserted when the
// controller itself failed over, whose successor re-sends the state instead), the last
// LeaderAndIsr the new process received for each partition is the partition's current leader
// and epoch (it leads or follows it), every ISR is full again (it follows), every leader serves
// its partition (ListOffsets), and the new process's metadata cache lists the 3 brokers (it
// got UpdateMetadata). At the end a preferred replica election moves every leadership back to
// its preferred replica, and every acknowledged message is read back at its offset.
//
// With the czxid comparison taken out of BrokerChangeListener, the first bounced cycle fails:
// the leader epochs stay and the new process is told nothing.

const (
	bounceCycles       = 20
	bounceSession      = 2 * time.Second
	bounceStutterStop  = 700 * time.Millisecond
	bounceStutterRun   = 60 * time.Millisecond
	bounceCycleTimeout = 60 * time.Second
)

var (
	alreadyRegistered = regexp.MustCompile(`Fatal error during KafkaServer startup.*a broker is already registered on the path /brokers/ids/`)
	bouncedLine       = regexp.MustCompile(`bounced brokers: (\d+,)*%d(,\d+)*, all live brokers`)
	// leaderAndIsrLine is state.change.logger's line for each partition of a LeaderAndIsr request
	// a broker receives.
	leaderAndIsrLine = regexp.MustCompile(`TRACE Broker (\d+) received LeaderAndIsr request \{Topic:(\S+) Partition:(\d+) ControllerEpoch:\d+ Leader:(-?\d+) LeaderEpoch:(\d+) `)
)

// lastLeaderAndIsr is, per partition of topic, the (leader, leader epoch) of the last
// LeaderAndIsr request b's current process received.
func lastLeaderAndIsr(b *BrokerProcess, topic string) map[int32][2]int32 {
	out := map[int32][2]int32{}
	for _, line := range b.Logs().Matches(leaderAndIsrLine) {
		m := leaderAndIsrLine.FindStringSubmatch(line)
		if m[1] != fmt.Sprint(b.ID) || m[2] != topic {
			continue
		}
		p, _ := strconv.ParseInt(m[3], 10, 32)
		l, _ := strconv.ParseInt(m[4], 10, 32)
		e, _ := strconv.ParseInt(m[5], 10, 32)
		out[int32(p)] = [2]int32{int32(l), int32(e)}
	}
	return out
}

func TestSIGKILLImmediateRestartIsSeenByController(t *testing.T) {
	c := newCluster(t, ClusterConfig{Brokers: 3, Properties: controllerProps(map[string]string{
		"zookeeper.session.timeout.ms": fmt.Sprint(bounceSession.Milliseconds()),
	})})
	ctx := within(t, 10*time.Minute)
	if err := WaitFor(within(t, 30*time.Second), func() string { return "no controller" }, func() bool { id, _ := c.ControllerInfo(); return id >= 0 }); err != nil {
		t.Fatal(err)
	}
	requireReplication(t, c)
	const topic = "bounce"
	const parts = 6
	assignment := rf3(parts)
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	load, err := StartLoad(c.BootstrapServers(), LoadSpec{Topic: topic, Partitions: parts, Size: 100, Rate: 300}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer load.Stop()
	if err := load.WaitAcked(within(t, 30*time.Second), 100); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	bounced, controllerKills, supervisorRestarts := 0, 0, 0
	for cycle := 0; cycle < bounceCycles; cycle++ {
		// Every fourth cycle kills the controller's host; the others take the other brokers
		// in turn.
		ctl, ctlEpoch := c.ControllerInfo()
		var others []*BrokerProcess
		for _, b := range c.Brokers {
			if b.ID != ctl {
				others = append(others, b)
			}
		}
		victim := others[cycle%len(others)]
		if cycle%4 == 3 && ctl >= 0 {
			victim = c.Broker(ctl)
		}
		if victim.ID == ctl {
			controllerKills++
		}
		epochs := map[int32]int32{}
		for p := int32(0); p < parts; p++ {
			s, ok, err := c.PartitionState(topic, p)
			if err != nil || !ok {
				t.Fatalf("cycle %d: state of [%s,%d]: %v", cycle, topic, p, err)
			}
			epochs[p] = s.LeaderAndIsr.LeaderEpoch
		}
		_, oldReg, err := z.ReadData(zkutils.BrokerIdPath(victim.ID))
		if err != nil {
			t.Fatalf("cycle %d: registration of broker %d: %v", cycle, victim.ID, err)
		}
		var ctlMark int64
		if ctl >= 0 {
			ctlMark = c.Broker(ctl).Logs().Mark()
		}
		t0 := time.Now()
		if err := victim.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		reregistered := func() bool {
			_, st, err := z.ReadData(zkutils.BrokerIdPath(victim.ID))
			return err == nil && st.Czxid != oldReg.Czxid
		}
		supervised := supervise(t, victim, reregistered, bounceCycleTimeout)
		if ctl >= 0 && victim.ID != ctl {
			stutter(t, c.Broker(ctl), reregistered, 4*bounceSession+10*time.Second)
		}
		n, err := supervised()
		supervisorRestarts += n
		if err != nil {
			t.Fatalf("cycle %d: %v", cycle, err)
		}
		// A controller that lost its session meanwhile (a loaded machine) is replaced, and its
		// successor tells every broker the state at once without a failure to handle: then, as
		// when the victim was the controller, only what the new process was told is checked.
		failedOver := func() bool { _, e := c.ControllerInfo(); return e != ctlEpoch }
		var last string
		if err := WaitFor(within(t, bounceCycleTimeout), func() string {
			return fmt.Sprintf("cycle %d: the restarted broker %d is not back: %s", cycle, victim.ID, last)
		}, func() bool {
			toldByController := lastLeaderAndIsr(victim, topic)
			for p := int32(0); p < parts; p++ {
				s, ok, err := c.PartitionState(topic, p)
				if err != nil || !ok {
					last = fmt.Sprintf("[%s,%d]: %v", topic, p, err)
					return false
				}
				l := s.LeaderAndIsr
				told, ok := toldByController[p]
				switch {
				case victim.ID != ctl && !failedOver() && l.LeaderEpoch <= epochs[p]:
					last = fmt.Sprintf("[%s,%d] leader epoch %d did not move on: the controller did not handle the failure", topic, p, l.LeaderEpoch)
					return false
				case !FullIsr(assignment)(p, s):
					last = fmt.Sprintf("[%s,%d] leader %d ISR %v", topic, p, l.Leader, l.Isr)
					return false
				case !ok || told != [2]int32{l.Leader, l.LeaderEpoch}:
					last = fmt.Sprintf("[%s,%d] is led by %d in epoch %d; the new process of broker %d was told %v (leader, epoch)", topic, p, l.Leader, l.LeaderEpoch, victim.ID, told)
					return false
				}
				if _, _, err := ListOffset(c.Broker(l.Leader).Addr(), topic, p, -1); err != nil {
					last = fmt.Sprintf("leader %d does not serve [%s,%d]: %v", l.Leader, topic, p, err)
					return false
				}
			}
			if n := metadataBrokers(victim); n != 3 {
				last = fmt.Sprintf("broker %d's metadata lists %d brokers", victim.ID, n)
				return false
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		seen := "a deletion, then a startup"
		if victim.ID != ctl && failedOver() {
			seen = "a controller failover (the controller lost its session)"
		} else if ctl >= 0 && victim.ID != ctl && len(c.Broker(ctl).Logs().MatchesFrom(ctlMark, idLine(bouncedLine, victim.ID))) > 0 {
			bounced++
			seen = "a bounced registration (same ids, new czxid)"
		} else if victim.ID == ctl {
			seen = "a controller failover"
		}
		if err := load.WaitAcked(within(t, bounceCycleTimeout), 20); err != nil {
			t.Fatalf("cycle %d: the producer does not go on: %v", cycle, err)
		}
		t.Logf("cycle %d: SIGKILL + restart of broker %d (controller %d): seen as %s; back in every ISR after %v",
			cycle, victim.ID, ctl, seen, time.Since(t0).Round(time.Millisecond))
	}
	t.Logf("%d cycles in %v: %d of the controller's host, %d seen as bounced registrations; %d restarts after the new process gave up waiting for its old registration",
		bounceCycles, time.Since(start).Round(time.Millisecond), controllerKills, bounced, supervisorRestarts)
	if controllerKills == 0 {
		t.Errorf("no cycle killed the controller's host")
	}
	if bounced == 0 {
		t.Errorf("no cycle reproduced the restart behind a delayed controller (no \"bounced brokers\" line): the scenario was not exercised")
	}

	// Leadership can move back: a preferred replica election for every partition.
	election := `{"version":1,"partitions":[`
	for p := int32(0); p < parts; p++ {
		if p > 0 {
			election += ","
		}
		election += fmt.Sprintf(`{"topic":"%s","partition":%d}`, topic, p)
	}
	election += "]}"
	if err := z.CreatePersistentPath(zkutils.PreferredReplicaLeaderElectionPath, []byte(election)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 60*time.Second), topic, parts, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return s.LeaderAndIsr.Leader == assignment[p][0] && FullIsr(assignment)(p, s)
	}); err != nil {
		t.Fatalf("preferred replica election: %v", err)
	}
	if err := c.WaitServing(within(t, 60*time.Second), topic, parts); err != nil {
		t.Fatal(err)
	}
	if err := load.WaitAcked(within(t, 30*time.Second), 100); err != nil {
		t.Fatal(err)
	}
	sent, acked, errs := load.Stop()
	n, err := c.ConsumeAll(ctx, topic, parts, checker)
	if err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	t.Logf("sent %d, acked %d, failed after retries %d, consumed %d; %v", sent, acked, len(errs), n, rep)
	if !rep.OK() {
		t.Fatalf("acknowledged vs consumed: %v", rep)
	}
}

// stutter delays b's work (its controller's ZooKeeper event goroutine among it): SIGSTOP for
// bounceStutterStop, SIGCONT for bounceStutterRun, until done holds or limit passes. Each stop is
// well under the session timeout, so b keeps its session. b runs again when stutter returns.
func stutter(t *testing.T, b *BrokerProcess, done func() bool, limit time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	defer func() { _ = b.Resume() }()
	for ctx.Err() == nil && !done() {
		if err := b.Pause(); err != nil {
			t.Logf("stutter: pausing broker %d: %v", b.ID, err)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(bounceStutterStop):
		}
		_ = b.Resume()
		time.Sleep(bounceStutterRun)
	}
}

// supervise restarts b, as a supervisor would, each time it exits because its old registration
// outlived its wait ("a broker is already registered"), until registered holds. The returned
// function waits for that (up to limit) and says how many restarts it took.
func supervise(t *testing.T, b *BrokerProcess, registered func() bool, limit time.Duration) func() (int, error) {
	type result struct {
		restarts int
		err      error
	}
	done := make(chan result, 1)
	go func() {
		deadline := time.Now().Add(limit)
		restarts := 0
		for !registered() {
			if time.Now().After(deadline) {
				done <- result{restarts, fmt.Errorf("broker %d did not register again within %v", b.ID, limit)}
				return
			}
			if !b.Running() {
				if len(b.Logs().Matches(alreadyRegistered)) == 0 {
					done <- result{restarts, fmt.Errorf("broker %d exited (code %d) for another reason:\n%s", b.ID, b.ExitCode(), b.Logs().Tail(20))}
					return
				}
				restarts++
				if err := b.Start(); err != nil {
					done <- result{restarts, err}
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		done <- result{restarts, nil}
	}()
	return func() (int, error) {
		r := <-done
		return r.restarts, r.err
	}
}
