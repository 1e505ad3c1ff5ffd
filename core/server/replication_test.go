package server

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// replicationCluster is brokers 0..n-1 in one process against a real ZooKeeper, driven by a
// test controller that writes the partition state znodes and sends UpdateMetadata and
// LeaderAndIsr, as KafkaController would (its epoch is high so that a real controller, if one
// runs in the brokers, is ignored as stale).
type replicationCluster struct {
	t       testing.TB
	connect string
	dirs    []string
	extra   map[string]string
	servers []*KafkaServer
	ports   []int32
	ctl     []*rawClient
	repl    []*replicaManagerReplication
	hooks   []*captureHook
	prod    map[int32]*rawClient // producer connections, by broker
	trace   bool                 // state.change.logger at TRACE, as Kafka's log4j.properties sets it
	epoch   int32
	corr    int32
}

const testControllerEpoch = 1000

func newReplicationCluster(t testing.TB, n int, extra map[string]string, trace ...bool) *replicationCluster {
	c := &replicationCluster{t: t, connect: zktest.Chroot(t), extra: extra, epoch: testControllerEpoch, trace: len(trace) > 0 && trace[0]}
	for i := 0; i < n; i++ {
		c.dirs = append(c.dirs, t.TempDir())
		c.servers = append(c.servers, nil)
		c.ports = append(c.ports, 0)
		c.ctl = append(c.ctl, nil)
		c.repl = append(c.repl, nil)
		c.hooks = append(c.hooks, nil)
		c.start(int32(i))
	}
	t.Cleanup(func() {
		for i := range c.servers {
			c.stop(int32(i))
		}
	})
	return c
}

func (c *replicationCluster) start(id int32) {
	c.t.Helper()
	props := map[string]string{"broker.id": fmt.Sprint(id), "replica.lag.time.max.ms": "1000",
		"replica.fetch.wait.max.ms": "100", "replica.fetch.backoff.ms": "50",
		"replica.high.watermark.checkpoint.interval.ms": "100", "controlled.shutdown.enable": "false"}
	for k, v := range c.extra {
		props[k] = v
	}
	loggers, hook := testLoggers(c.t)
	if c.trace {
		loggers.Server.Logger.SetLevel(logrus.TraceLevel)
	}
	c.hooks[id] = hook
	srv := NewKafkaServer(brokerConfig(c.t, c.connect, c.dirs[id], props), nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		c.t.Fatal(err)
	}
	c.servers[id] = srv
	c.ports[id] = srv.BoundPort("PLAINTEXT")
	c.ctl[id] = dialRaw(c.t, c.ports[id])
	if c.prod == nil {
		c.prod = map[int32]*rawClient{}
	}
	delete(c.prod, id)
	c.repl[id] = srv.ReplicaManager().replication
}

func (c *replicationCluster) stop(id int32) {
	if c.servers[id] != nil {
		c.servers[id].Shutdown()
		c.servers[id] = nil
	}
}

func (c *replicationCluster) live() []int32 {
	var ids []int32
	for i, s := range c.servers {
		if s != nil {
			ids = append(ids, int32(i))
		}
	}
	return ids
}

// partitionState is one partition's assignment and leadership, as the test controller decides.
type partitionState struct {
	topic       string
	partition   int32
	leader      int32
	leaderEpoch int32
	isr         []int32
	replicas    []int32
	zkVersion   int32
}

// writeState creates or overwrites the partition's state znode (as the controller does on
// election) and returns the zkVersion it now has.
func (c *replicationCluster) writeState(s partitionState) int32 {
	c.t.Helper()
	z := c.servers[c.live()[0]].ZkUtils()
	path := zkutils.TopicPartitionLeaderAndIsrPath(s.topic, s.partition)
	data := zkutils.LeaderAndIsrZkData(zkutils.LeaderAndIsr{Leader: s.leader, LeaderEpoch: s.leaderEpoch, Isr: s.isr}, c.epoch)
	if err := z.UpdatePersistentPath(path, data); err != nil {
		c.t.Fatal(err)
	}
	_, stat, err := z.ReadData(path)
	if err != nil {
		c.t.Fatal(err)
	}
	return stat.Version
}

// updateMetadata tells every live broker (or just to) who is alive, with the given states.
func (c *replicationCluster) updateMetadata(states []partitionState, to ...int32) {
	c.t.Helper()
	c.updateMetadataLive(states, c.live(), to...)
}

// updateMetadataLive is updateMetadata announcing the brokers in live as alive (a broker that
// died but is still registered in ZooKeeper is alive to the controller).
func (c *replicationCluster) updateMetadataLive(states []partitionState, live []int32, to ...int32) {
	c.t.Helper()
	ur := &protocol.UpdateMetadataRequest{Version: 3, ControllerID: 0, ControllerEpoch: c.epoch}
	for _, id := range live {
		ur.LiveBrokers = append(ur.LiveBrokers, protocol.UpdateMetadataRequestLiveBroker{ID: id,
			EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: c.ports[id], Host: "127.0.0.1", ListenerName: "PLAINTEXT"}}})
	}
	for _, s := range states {
		ur.PartitionStates = append(ur.PartitionStates, protocol.UpdateMetadataRequestPartitionState{Topic: s.topic,
			Partition: s.partition, ControllerEpoch: c.epoch, Leader: s.leader, LeaderEpoch: s.leaderEpoch, Isr: s.isr,
			ZkVersion: s.zkVersion, Replicas: s.replicas})
	}
	if len(to) == 0 {
		to = c.live()
	}
	for _, id := range to {
		if resp := c.ctl[id].roundTrip(c.t, ur).(*protocol.UpdateMetadataResponse); resp.ErrorCode != 0 {
			c.t.Fatalf("UpdateMetadata to %d: error %d", id, resp.ErrorCode)
		}
	}
}

// leaderAndIsr sends the state to each listed broker (by default every live replica).
func (c *replicationCluster) leaderAndIsr(s partitionState, to ...int32) {
	c.t.Helper()
	lr := &protocol.LeaderAndIsrRequest{Version: 0, ControllerID: 0, ControllerEpoch: c.epoch,
		PartitionStates: []protocol.LeaderAndIsrRequestPartitionState{{Topic: s.topic, Partition: s.partition,
			ControllerEpoch: c.epoch, Leader: s.leader, LeaderEpoch: s.leaderEpoch, Isr: s.isr, ZkVersion: s.zkVersion,
			Replicas: s.replicas}}}
	if c.servers[s.leader] != nil {
		lr.LiveLeaders = []protocol.LeaderAndIsrRequestLiveLeader{{ID: s.leader, Host: "127.0.0.1", Port: c.ports[s.leader]}}
	}
	if len(to) == 0 {
		for _, id := range s.replicas {
			if c.servers[id] != nil {
				to = append(to, id)
			}
		}
	}
	for _, id := range to {
		resp := c.ctl[id].roundTrip(c.t, lr).(*protocol.LeaderAndIsrResponse)
		if resp.ErrorCode != 0 || len(resp.Partitions) != 1 || resp.Partitions[0].ErrorCode != 0 {
			c.t.Fatalf("LeaderAndIsr to %d: %+v", id, resp)
		}
	}
}

// elect makes the state current: znode, then UpdateMetadata to all, then LeaderAndIsr to the
// replicas (the controller's order on a new topic).
func (c *replicationCluster) elect(s *partitionState) {
	c.t.Helper()
	s.zkVersion = c.writeState(*s)
	c.updateMetadata([]partitionState{*s})
	c.leaderAndIsr(*s)
}

func (c *replicationCluster) replica(id int32, tp common.TopicPartition) (leo, hw int64) {
	p := c.servers[id].ReplicaManager().GetPartition(tp)
	if p == nil || p.LocalReplica() == nil {
		return -1, -1
	}
	r := p.LocalReplica()
	return r.LogEndOffset().MessageOffset, r.HighWatermark().MessageOffset
}

// produce sends n messages to the leader with the given acks and returns the partition's
// error code and base offset.
func (c *replicationCluster) produce(leader int32, tp common.TopicPartition, acks int16, n int) (int16, int64) {
	c.t.Helper()
	values := make([]string, n)
	for i := range values {
		values[i] = fmt.Sprintf("m%d", i)
	}
	return c.produceValues(leader, tp, acks, values...)
}

// produceValues sends one message per value to the leader with the given acks.
func (c *replicationCluster) produceValues(leader int32, tp common.TopicPartition, acks int16, values ...string) (int16, int64) {
	c.t.Helper()
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, 0, 0)
	for _, v := range values {
		if _, err := b.Append(time.Now().UnixMilli(), nil, []byte(v)); err != nil {
			c.t.Fatal(err)
		}
	}
	req := &protocol.ProduceRequest{Version: 2, Acks: acks, Timeout: 5000, TopicData: []protocol.ProduceRequestTopic{
		{Topic: tp.Topic, Data: []protocol.ProduceRequestTopicPartition{{Partition: tp.Partition, RecordSet: b.Build()}}}}}
	cl := c.prod[leader]
	if cl == nil {
		cl = dialRaw(c.t, c.ports[leader])
		c.prod[leader] = cl
	}
	resp := cl.roundTrip(c.t, req).(*protocol.ProduceResponse)
	pr := resp.Responses[0].PartitionResponses[0]
	return pr.ErrorCode, pr.BaseOffset
}

func (c *replicationCluster) zkIsr(tp common.TopicPartition) []int32 {
	c.t.Helper()
	isr, err := c.servers[c.live()[0]].ZkUtils().GetInSyncReplicasForPartition(tp.Topic, tp.Partition)
	if err != nil {
		c.t.Fatal(err)
	}
	return isr
}

// TestReplicationHighWatermarkAndMinInsyncReplicas: three brokers, a partition led by 0 with
// followers 1 and 2. Followers replicate and the HW advances; acks=-1 with
// min.insync.replicas=2 succeeds; a follower that stops fetching is dropped from the ISR after
// replica.lag.time.max.ms, in ZooKeeper through a conditional update, and the HW no longer
// waits for it; with only the leader left, acks=-1 is refused with NOT_ENOUGH_REPLICAS; when a
// follower fetches again it rejoins the ISR.
func TestReplicationHighWatermarkAndMinInsyncReplicas(t *testing.T) {
	c := newReplicationCluster(t, 3, map[string]string{"min.insync.replicas": "2"})
	tp := tpOf("rep", 0)
	s := partitionState{topic: "rep", partition: 0, leader: 0, leaderEpoch: 0, isr: []int32{0, 1, 2}, replicas: []int32{0, 1, 2}}
	c.elect(&s)

	start := time.Now()
	code, base := c.produce(0, tp, -1, 100)
	if code != 0 || base != 0 {
		t.Fatalf("acks=-1 produce: error %d base %d", code, base)
	}
	t.Logf("acks=-1 produce of 100 messages to an ISR of 3 completed in %s", time.Since(start))
	if _, hw := c.replica(0, tp); hw != 100 {
		t.Fatalf("leader HW %d after acks=-1, want 100", hw)
	}
	zktest.WaitUntilTrue(t, func() bool {
		for _, id := range []int32{1, 2} {
			if leo, hw := c.replica(id, tp); leo != 100 || hw != 100 {
				return false
			}
		}
		return true
	}, "followers' LEO and HW at 100", 5*time.Second)

	// Follower 2 stops fetching (its fetchers go): out of the ISR after the lag.
	c.repl[2].replicaFetcherManager.CloseAllFetchers()
	stopped := time.Now()
	zktest.WaitUntilTrue(t, func() bool { return slices.Equal(c.zkIsr(tp), []int32{0, 1}) }, "ISR [0 1] in ZooKeeper", 5*time.Second)
	t.Logf("stuck follower dropped from the ISR after %s (replica.lag.time.max.ms=1000)", time.Since(stopped))
	if isr := c.servers[0].ReplicaManager().GetPartition(tp).InSyncReplicas(); !slices.Equal(isr, []int32{0, 1}) {
		t.Fatalf("leader's ISR %v", isr)
	}
	if code, _ := c.produce(0, tp, -1, 10); code != 0 {
		t.Fatalf("acks=-1 with ISR [0 1] and min.insync.replicas 2: error %d", code)
	}
	if _, hw := c.replica(0, tp); hw != 110 {
		t.Fatalf("leader HW %d, want 110", hw)
	}

	// Follower 1 stops too: below min.insync.replicas, acks=-1 fails before the append; acks=1 still works.
	c.repl[1].replicaFetcherManager.CloseAllFetchers()
	zktest.WaitUntilTrue(t, func() bool { return slices.Equal(c.zkIsr(tp), []int32{0}) }, "ISR [0] in ZooKeeper", 5*time.Second)
	leoBefore, _ := c.replica(0, tp)
	if code, _ := c.produce(0, tp, -1, 10); code != protocol.ErrNotEnoughReplicas.Code {
		t.Fatalf("acks=-1 with ISR [0]: error %d, want NOT_ENOUGH_REPLICAS", code)
	}
	if leo, _ := c.replica(0, tp); leo != leoBefore {
		t.Fatalf("NOT_ENOUGH_REPLICAS still appended: LEO %d -> %d", leoBefore, leo)
	}
	if code, _ := c.produce(0, tp, 1, 10); code != 0 {
		t.Fatalf("acks=1 with ISR [0]: error %d", code)
	}

	// Follower 1 restarts: the controller tells it who is alive and that it follows 0; it
	// fetches, catches up and rejoins the ISR.
	c.stop(1)
	c.start(1)
	c.updateMetadata([]partitionState{s}, 1)
	s.leaderEpoch++
	c.leaderAndIsr(s, 1)
	zktest.WaitUntilTrue(t, func() bool { return slices.Equal(c.zkIsr(tp), []int32{0, 1}) }, "follower 1 back in the ISR", 5*time.Second)
	if code, _ := c.produce(0, tp, -1, 10); code != 0 {
		t.Fatalf("acks=-1 after follower 1 rejoined: error %d", code)
	}

	// The ISR changes were queued for /isr_change_notification.
	c.servers[0].ReplicaManager().isrChangeMu.Lock()
	pending := len(c.servers[0].ReplicaManager().isrChangeSet)
	c.servers[0].ReplicaManager().isrChangeMu.Unlock()
	notes, _ := c.servers[0].ZkUtils().GetChildrenParentMayNotExist(zkutils.IsrChangeNotificationPath)
	if pending == 0 && len(notes) == 0 {
		t.Fatal("ISR changes neither pending nor propagated")
	}
}

func (c *replicationCluster) zkVersionOf(tp common.TopicPartition) int32 {
	c.t.Helper()
	_, stat, err := c.servers[c.live()[0]].ZkUtils().ReadData(zkutils.TopicPartitionLeaderAndIsrPath(tp.Topic, tp.Partition))
	if err != nil {
		c.t.Fatal(err)
	}
	return stat.Version
}

// TestBecomeFollowerTruncatesToHighWatermark: broker 1 leads with follower 0 in its ISR that
// never fetches, so messages it takes with acks=1 stay above its HW. When the controller makes
// 0 the leader, broker 1 truncates its log to the HW before fetching from 0 (those messages
// were never committed), and then replicates what 0 has.
func TestBecomeFollowerTruncatesToHighWatermark(t *testing.T) {
	c := newReplicationCluster(t, 2, nil, true)
	tp := tpOf("trunc", 0)
	s := partitionState{topic: "trunc", partition: 0, leader: 1, leaderEpoch: 0, isr: []int32{1, 0}, replicas: []int32{1, 0}}
	s.zkVersion = c.writeState(s)
	c.updateMetadata([]partitionState{s})
	c.leaderAndIsr(s, 1) // broker 0 is not told: it never fetches
	if code, _ := c.produce(1, tp, 1, 10); code != 0 {
		t.Fatalf("acks=1 produce: %d", code)
	}
	if leo, hw := c.replica(1, tp); leo != 10 || hw != 0 {
		t.Fatalf("broker 1 LEO %d HW %d, want 10 and 0", leo, hw)
	}
	// 0 becomes leader (with an empty log), 1 its follower.
	s.leader, s.leaderEpoch, s.isr = 0, 1, []int32{0, 1}
	s.zkVersion = c.writeState(s)
	c.updateMetadata([]partitionState{s})
	c.leaderAndIsr(s, 0)
	c.leaderAndIsr(s, 1)
	if leo, _ := c.replica(1, tp); leo != 0 {
		t.Fatalf("broker 1 LEO %d after becoming follower, want 0 (truncated to its HW)", leo)
	}
	// The state-change log tells the become-follower story, step by step.
	corr := c.ctl[1].corr
	for _, line := range []string{
		fmt.Sprintf("Broker 1 handling LeaderAndIsr request correlationId %d from controller 0 epoch 1000 starting the become-follower transition for partition trunc-0", corr),
		fmt.Sprintf("Broker 1 stopped fetchers as part of become-follower request from controller 0 epoch 1000 with correlation id %d for partition trunc-0", corr),
		fmt.Sprintf("Broker 1 truncated logs and checkpointed recovery boundaries for partition trunc-0 as part of become-follower request with correlation id %d from controller 0 epoch 1000", corr),
		fmt.Sprintf("Broker 1 started fetcher to new leader as part of become-follower request from controller 0 epoch 1000 with correlation id %d for partition trunc-0", corr),
		fmt.Sprintf("Broker 1 completed LeaderAndIsr request correlationId %d from controller 0 epoch 1000 for the become-follower transition for partition trunc-0", corr),
	} {
		if !c.hooks[1].contains(line) {
			t.Errorf("state-change log lacks %q", line)
		}
	}
	if code, _ := c.produce(0, tp, -1, 3); code != 0 {
		t.Fatalf("acks=-1 produce to the new leader: %d", code)
	}
	zktest.WaitUntilTrue(t, func() bool { leo, _ := c.replica(1, tp); return leo == 3 }, "follower at LEO 3", 5*time.Second)
	if _, hw := c.replica(1, tp); hw > 3 {
		t.Fatalf("follower HW %d beyond the leader's", hw)
	}
}

// TestHighWatermarkCheckpointWrittenAndUsedAtRestart (HighwatermarkPersistenceTest): the
// followers' HWs reach replication-offset-checkpoint, a clean shutdown writes it a last time,
// and after a restart the replica starts from the checkpointed HW, before any fetch.
func TestHighWatermarkCheckpointWrittenAndUsedAtRestart(t *testing.T) {
	c := newReplicationCluster(t, 2, nil)
	tp := tpOf("hwp", 0)
	s := partitionState{topic: "hwp", partition: 0, leader: 0, leaderEpoch: 0, isr: []int32{0, 1}, replicas: []int32{0, 1}}
	c.elect(&s)
	if code, _ := c.produce(0, tp, -1, 25); code != 0 {
		t.Fatalf("produce: %d", code)
	}
	cp := filepath.Join(c.dirs[1], "replication-offset-checkpoint")
	want := "0\n1\nhwp 0 25\n"
	zktest.WaitUntilTrue(t, func() bool {
		b, _ := os.ReadFile(cp)
		return string(b) == want
	}, "follower checkpoint with HW 25", 5*time.Second)
	c.stop(1)
	if b, _ := os.ReadFile(cp); string(b) != want {
		t.Fatalf("checkpoint after shutdown %q, want %q", b, want)
	}
	c.start(1)
	// The leader is not in broker 1's metadata cache yet: becoming follower only creates the
	// local replica (KAFKA-1647), whose HW comes from the checkpoint.
	s.leaderEpoch++
	c.leaderAndIsr(s, 1)
	if leo, hw := c.replica(1, tp); leo != 25 || hw != 25 {
		t.Fatalf("after restart LEO %d HW %d, want 25 and 25", leo, hw)
	}
	// The brokers' own controller may tell broker 1 of broker 0 (UpdateMetadata after its
	// registration) before the LeaderAndIsr above; only while broker 0 is still unknown to broker 1
	// must no fetcher have started.
	if n := len(c.repl[1].replicaFetcherManager.FetcherThreads()); n != 0 && !c.servers[1].MetadataCache().IsBrokerAlive(0) {
		t.Fatalf("%d fetchers started toward an unknown leader", n)
	}
}
