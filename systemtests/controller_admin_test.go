package systemtests

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// Issue 6 acceptance, the admin paths: reassignment, preferred election and topic deletion, each
// started by writing the 0.10.2 znode directly (the scripts are issue 7's test).

// PartitionDirExists reports whether broker b has a log directory for [topic,p].
func PartitionDirExists(b *BrokerProcess, topic string, p int32) bool {
	for _, d := range b.LogDirs {
		if _, err := os.Stat(filepath.Join(d, fmt.Sprintf("%s-%d", topic, p))); err == nil {
			return true
		}
	}
	return false
}

// TopicDirs lists broker b's log directories of topic.
func TopicDirs(b *BrokerProcess, topic string) []string {
	var out []string
	for _, d := range b.LogDirs {
		m, _ := filepath.Glob(filepath.Join(d, topic+"-*"))
		out = append(out, m...)
	}
	return out
}

// Reassignment under load moves replicas and deletes /admin/reassign_partitions, losing
// nothing; a preferred replica election restores the preferred leaders; deleting the topic
// through /admin/delete_topics removes it from ZooKeeper and from every broker's disk.
func TestReassignPreferredElectionDelete(t *testing.T) {
	c := controllerCluster(t, map[string]string{"auto.leader.rebalance.enable": "false"})
	requireReplication(t, c)
	ctx := within(t, 4*time.Minute)
	z, err := c.Zk()
	if err != nil {
		t.Fatal(err)
	}
	const topic = "moving"
	// RF 2 on brokers 0 and 1; the reassignment moves partition 0 to {1,2} and partition 1 to
	// {2,0}.
	assignment := map[int32][]int32{0: {0, 1}, 1: {1, 0}}
	if err := c.CreateTopic(ctx, topic, assignment); err != nil {
		t.Fatal(err)
	}
	checker := NewChecker()
	load, err := StartLoad(c.BootstrapServers(), LoadSpec{Topic: topic, Partitions: 2, Size: 200, Rate: 1000}, checker)
	if err != nil {
		t.Fatal(err)
	}
	defer load.Stop()
	if err := load.WaitAcked(ctx, 1000); err != nil {
		t.Fatal(err)
	}

	// 1. Reassignment (0.10.2's JSON, as kafka-reassign-partitions.sh --execute writes it).
	target := map[int32][]int32{0: {1, 2}, 1: {2, 0}}
	reassign := fmt.Sprintf(`{"version":1,"partitions":[{"topic":"%s","partition":0,"replicas":[1,2]},{"topic":"%s","partition":1,"replicas":[2,0]}]}`, topic, topic)
	t0 := time.Now()
	if err := z.CreatePersistentPath(zkutils.ReassignPartitionsPath, []byte(reassign)); err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(within(t, 60*time.Second), func() string { return zkutils.ReassignPartitionsPath + " not deleted" }, func() bool {
		ok, err := z.PathExists(zkutils.ReassignPartitionsPath)
		return err == nil && !ok
	}); err != nil {
		t.Fatal(err)
	}
	data, _, err := z.ReadData(zkutils.TopicPath(topic))
	if err != nil {
		t.Fatal(err)
	}
	got, err := zkutils.ParseReplicaAssignment(data)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range target {
		if fmt.Sprint(got[p]) != fmt.Sprint(want) {
			t.Errorf("after reassignment partition %d has replicas %v, want %v", p, got[p], want)
		}
	}
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, 2, FullIsr(target)); err != nil {
		t.Fatal(err)
	}
	// The replicas that left stop and delete their logs: broker 0 no longer hosts partition 0,
	// broker 1 no longer hosts partition 1; broker 2 hosts both.
	if err := WaitFor(within(t, 30*time.Second), func() string { return "old replicas' logs not deleted" }, func() bool {
		return !PartitionDirExists(c.Broker(0), topic, 0) && !PartitionDirExists(c.Broker(1), topic, 1) &&
			PartitionDirExists(c.Broker(2), topic, 0) && PartitionDirExists(c.Broker(2), topic, 1)
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("reassignment done in %v", time.Since(t0).Round(time.Millisecond))
	if err := load.WaitAcked(within(t, 30*time.Second), 500); err != nil {
		t.Fatal(err)
	}

	// 2. Move a leadership away from its preferred replica (bounce broker 1, the preferred
	// leader of partition 0), then ask for a preferred replica election.
	b1 := c.Broker(1)
	if err := b1.Stop(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	// Wait until the controller has handled the departure (leader 2, broker 1 out of the ISR)
	// before starting it again, so the full ISR seen next is the rejoined one.
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, 1, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return s.LeaderAndIsr.Leader == 2 && !containsInt32(s.LeaderAndIsr.Isr, 1)
	}); err != nil {
		t.Fatal(err)
	}
	if err := b1.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitRegistered(ctx, b1); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 60*time.Second), topic, 2, FullIsr(target)); err != nil {
		t.Fatal(err)
	}
	if l, _ := c.LeaderOf(topic, 0); l != 2 {
		t.Fatalf("partition 0 leader %d before the election, want 2 (not preferred)", l)
	}
	election := fmt.Sprintf(`{"version":1,"partitions":[{"topic":"%s","partition":0},{"topic":"%s","partition":1}]}`, topic, topic)
	if err := z.CreatePersistentPath(zkutils.PreferredReplicaLeaderElectionPath, []byte(election)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitPartitions(within(t, 30*time.Second), topic, 2, func(p int32, s zkutils.LeaderIsrAndControllerEpoch) bool {
		return s.LeaderAndIsr.Leader == target[p][0]
	}); err != nil {
		t.Fatal(err)
	}
	if err := WaitFor(within(t, 10*time.Second), func() string { return zkutils.PreferredReplicaLeaderElectionPath + " not deleted" }, func() bool {
		ok, err := z.PathExists(zkutils.PreferredReplicaLeaderElectionPath)
		return err == nil && !ok
	}); err != nil {
		t.Fatal(err)
	}

	// Nothing acknowledged was lost.
	if err := load.WaitAcked(within(t, 30*time.Second), 500); err != nil {
		t.Fatal(err)
	}
	sent, acked, errs := load.Stop()
	if _, err := c.ConsumeAll(ctx, topic, 2, checker); err != nil {
		t.Fatal(err)
	}
	rep := checker.Check()
	t.Logf("sent %d acked %d failed %d; %v", sent, acked, len(errs), rep)
	if !rep.OK() {
		t.Fatal(rep)
	}

	// 3. Deletion (delete.topic.enable=true is the harness default).
	if err := z.CreatePersistentPath(zkutils.DeleteTopicPath(topic), nil); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	if err := WaitFor(within(t, 60*time.Second), func() string { return topic + " not deleted" }, func() bool {
		for _, p := range []string{zkutils.TopicPath(topic), zkutils.DeleteTopicPath(topic), zkutils.EntityConfigPath(zkutils.ConfigTypeTopic, topic)} {
			if ok, err := z.PathExists(p); err != nil || ok {
				return false
			}
		}
		for _, b := range c.Brokers {
			if len(TopicDirs(b, topic)) > 0 {
				return false
			}
		}
		return true
	}); err != nil {
		for _, b := range c.Brokers {
			t.Logf("broker %d still has %v", b.ID, TopicDirs(b, topic))
		}
		t.Fatal(err)
	}
	t.Logf("topic deleted from ZooKeeper and every broker in %v", time.Since(t1).Round(time.Millisecond))
}
