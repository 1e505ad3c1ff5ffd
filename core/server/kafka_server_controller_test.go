package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Every broker hosts a controller module and exactly one is active; a broker shutting down with
// controlled.shutdown.enable asks the active controller (found through /controller) to move its
// leaderships away first and logs the success, so no partition is left led by it.
//
// Kafka 0.10.2: the in-process half of ControlledShutdownLeaderSelector/KafkaServer tests.
func TestControllerHostedAndControlledShutdown(t *testing.T) {
	connect := zktest.Chroot(t)
	var servers []*KafkaServer
	var hooks []*captureHook
	for id := 0; id < 2; id++ {
		loggers, hook := testLoggers(t)
		cfg := brokerConfig(t, connect, t.TempDir(), map[string]string{"broker.id": fmt.Sprint(id),
			"controlled.shutdown.enable": "true", "controlled.shutdown.retry.backoff.ms": "200"})
		srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
		if err := srv.Startup(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Shutdown)
		servers, hooks = append(servers, srv), append(hooks, hook)
	}
	z := servers[0].ZkUtils()
	zktest.WaitUntilTrue(t, func() bool {
		n := 0
		for _, s := range servers {
			if s.Controller != nil && s.Controller.IsActive() {
				n++
			}
		}
		return n == 1
	}, "one active controller", 20*time.Second)
	ctl, err := z.GetController()
	if err != nil {
		t.Fatal(err)
	}
	if !servers[ctl].Controller.IsActive() {
		t.Fatalf("/controller names %d, which is not active", ctl)
	}
	// Four partitions, two led by each broker.
	const topic = "moved"
	assignment := map[int32][]int32{0: {0, 1}, 1: {1, 0}, 2: {0, 1}, 3: {1, 0}}
	if err := z.CreatePersistentPath(zkutils.TopicPath(topic), zkutils.ReplicaAssignmentZkData(assignment)); err != nil {
		t.Fatal(err)
	}
	leaders := func() []int32 {
		var out []int32
		for p := int32(0); p < 4; p++ {
			l, ok, err := z.GetLeaderIsrAndEpochForPartition(topic, p)
			if err != nil || !ok {
				return nil
			}
			out = append(out, l.LeaderAndIsr.Leader)
		}
		return out
	}
	zktest.WaitUntilTrue(t, func() bool { return fmt.Sprint(leaders()) == "[0 1 0 1]" }, "preferred leaders elected", 20*time.Second)

	// Shut down the broker that is not the controller, once it follows the partitions it does not
	// lead (the controller's first LeaderAndIsr may still be on its way when ZooKeeper shows the
	// leaders, and fetchers it adds for it are not the shutdown's).
	victim := 1 - ctl
	for p := int32(0); p < 4; p++ {
		if assignment[p][0] == int32(victim) {
			continue
		}
		name := fmt.Sprintf("[%s-%d, initOffset", topic, p)
		zktest.WaitUntilTrue(t, func() bool { return hooks[victim].contains(name) }, "broker "+fmt.Sprint(victim)+" fetching "+name, 20*time.Second)
	}
	servers[victim].Shutdown()
	if !hooks[victim].contains("Controlled shutdown succeeded") {
		t.Fatalf("broker %d did not complete a controlled shutdown", victim)
	}
	want := fmt.Sprint([]int32{ctl, ctl, ctl, ctl})
	if got := fmt.Sprint(leaders()); got != want {
		t.Fatalf("leaders after the controlled shutdown of %d: %s, want %s", victim, got, want)
	}
	// The controller made the stopping broker a follower of the partitions it gave up; as in
	// 0.10.2 (KafkaServer sets isShuttingDown before controlledShutdown, and ReplicaManager.
	// makeFollowers checks it), it started no fetcher, so it could not rejoin their ISRs.
	if added := hooks[victim].linesAfter("Starting controlled shutdown", "Added fetcher"); len(added) > 0 {
		t.Errorf("broker %d started fetchers while shutting down: %q", victim, added)
	}
	if len(hooks[victim].linesAfter("Starting controlled shutdown", "Removed fetcher for partitions")) == 0 {
		t.Errorf("broker %d got no become-follower request during its controlled shutdown", victim)
	}
	for p := int32(0); p < 4; p++ {
		l, _, err := z.GetLeaderIsrAndEpochForPartition(topic, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.LeaderAndIsr.Isr {
			if r == int32(victim) {
				t.Errorf("partition %d: the stopped broker %d is in the ISR %v", p, victim, l.LeaderAndIsr.Isr)
			}
		}
	}
}
