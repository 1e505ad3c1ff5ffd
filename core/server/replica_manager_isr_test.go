package server

import (
	"slices"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestIsrExpirationTask: Startup schedules isr-expiration every replica.lag.time.max.ms / 2
// and isr-change-propagation every 2.5 s; a follower that never fetches is dropped from the
// ISR once it has not been caught up for replica.lag.time.max.ms, and the change is recorded
// for propagation.
func TestIsrExpirationTask(t *testing.T) {
	e := newApisEnv(t, map[string]string{"replica.lag.time.max.ms": "100", "replica.fetch.wait.max.ms": "50"})
	repl := newTestReplication(t, e)
	repl.startReplicationTasks()
	pending := e.sched.Pending()
	if !slices.Contains(pending, "isr-expiration") || !slices.Contains(pending, "isr-change-propagation") {
		t.Fatalf("scheduled tasks %v", pending)
	}
	e.lead(t, "t", 1, []int32{0, 1}, 0, 1)
	tp := tpOf("t", 0)
	p := e.rm.GetPartition(tp)
	// Follower 1 fetches once, caught up, then stops.
	e.handle(&protocol.FetchRequest{Version: 3, ReplicaID: 1, MaxBytes: 1 << 20, Topics: []protocol.FetchRequestTopic{
		{Topic: "t", Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0, FetchOffset: 0, MaxBytes: 1 << 20}}}}}, "replica")
	e.ch.take(t)
	e.clock.Advance(50 * time.Millisecond)
	e.sched.Tick()
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0, 1}) {
		t.Fatalf("ISR %v after 50 ms", isr)
	}
	e.clock.Advance(100 * time.Millisecond)
	e.sched.Tick()
	if isr := p.InSyncReplicas(); !slices.Equal(isr, []int32{0}) {
		t.Fatalf("ISR %v after 150 ms without a fetch, want [0]", isr)
	}
	e.rm.isrChangeMu.Lock()
	_, recorded := e.rm.isrChangeSet[tp]
	e.rm.isrChangeMu.Unlock()
	if !recorded {
		t.Fatal("ISR shrink not recorded for propagation")
	}
}

// TestIsrChangePropagationBatching (maybePropagateIsrChanges): changes are written as one
// /isr_change_notification/isr_change_<seq> node once none came for 5 s, or at the latest 60 s
// after the previous write while they keep coming.
func TestIsrChangePropagationBatching(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	z, err := zkutils.Connect(connect, zktest.SessionTimeout, 20*time.Second, false, loggers.Server, common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	e := newApisEnv(t, nil)
	e.rm.zkUtils = z
	repl := newTestReplication(t, e)
	recordChange := func(tp common.TopicPartition) {
		e.rm.RecordIsrChange(tp)
		repl.isrChanged()
	}
	notes := func() []string {
		c, err := z.GetChildrenParentMayNotExist(zkutils.IsrChangeNotificationPath)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(c)
		return c
	}
	recordChange(tpOf("b", 1))
	recordChange(tpOf("a", 0))
	repl.maybePropagateIsrChanges()
	if n := notes(); len(n) != 0 {
		t.Fatalf("propagated within the black-out: %v", n)
	}
	e.clock.Advance(5001 * time.Millisecond)
	repl.maybePropagateIsrChanges()
	n := notes()
	if len(n) != 1 || n[0] != "isr_change_0000000000" {
		t.Fatalf("notifications %v", n)
	}
	data, _, err := z.ReadData(zkutils.IsrChangeNotificationPath + "/" + n[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"version":1,"partitions":[{"topic":"a","partition":0},{"topic":"b","partition":1}]}`; string(data) != want {
		t.Fatalf("notification %s, want %s", data, want)
	}
	// A steady stream of changes (one per 2.5 s) is written once 60 s have passed.
	for i := 0; i < 23; i++ {
		e.clock.Advance(2500 * time.Millisecond)
		recordChange(tpOf("c", int32(i)))
		repl.maybePropagateIsrChanges()
	}
	if n := notes(); len(n) != 1 {
		t.Fatalf("%d notifications while changes keep coming within 57.5 s", len(n))
	}
	e.clock.Advance(2501 * time.Millisecond) // 60.001 s since the first write
	recordChange(tpOf("c", 99))
	repl.maybePropagateIsrChanges()
	if n := notes(); len(n) != 2 {
		t.Fatalf("%d notifications after 60 s of changes, want 2", len(n))
	}
}

// TestClearPurgatoryOnBecomingFollower (ReplicaManagerTest): an acks=-1 produce waiting for a
// follower is answered NOT_LEADER_FOR_PARTITION when the broker becomes a follower, and the
// partition is then fetched from the new leader.
func TestClearPurgatoryOnBecomingFollower(t *testing.T) {
	e := newApisEnv(t, nil)
	repl := newTestReplication(t, e)
	e.lead(t, "t", 1, []int32{0, 1}, 0, 1)
	e.handle(produceReq("t", -1, map[int32]record.Records{0: recordSet(t, 3, record.NONE)}), "p")
	if n := e.ch.count(); n != 0 {
		t.Fatalf("acks=-1 answered at once (%d responses) with a follower in the ISR", n)
	}
	// Broker 1 becomes leader: UpdateMetadata names it alive, then LeaderAndIsr.
	e.handle(&protocol.UpdateMetadataRequest{Version: 3, ControllerID: 0, ControllerEpoch: 1,
		LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{
			{ID: 0, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: 9092, Host: "h0", ListenerName: "PLAINTEXT"}}},
			{ID: 1, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: 1, Host: "127.0.0.1", ListenerName: "PLAINTEXT"}}}}}, "c")
	e.ch.take(t)
	e.handle(&protocol.LeaderAndIsrRequest{ControllerID: 0, ControllerEpoch: 1,
		PartitionStates: []protocol.LeaderAndIsrRequestPartitionState{{Topic: "t", Partition: 0, ControllerEpoch: 1,
			Leader: 1, LeaderEpoch: 1, Isr: []int32{1, 0}, Replicas: []int32{0, 1}}}}, "c")
	var sawProduce, sawLeaderAndIsr bool
	for i := 0; i < 2; i++ {
		r := e.ch.take(t)
		switch r.Request.Header.ApiKey {
		case protocol.Produce:
			sawProduce = true
			pr := decode(t, r, protocol.Produce, 2).(*protocol.ProduceResponse).Responses[0].PartitionResponses[0]
			if pr.ErrorCode != protocol.ErrNotLeaderForPartition.Code {
				t.Fatalf("pending produce answered %+v, want NOT_LEADER_FOR_PARTITION", pr)
			}
		case protocol.LeaderAndIsr:
			sawLeaderAndIsr = true
			if lr := decode(t, r, protocol.LeaderAndIsr, 0).(*protocol.LeaderAndIsrResponse); lr.ErrorCode != 0 || lr.Partitions[0].ErrorCode != 0 {
				t.Fatalf("LeaderAndIsr %+v", lr)
			}
		}
	}
	if !sawProduce || !sawLeaderAndIsr {
		t.Fatalf("responses: produce %t, LeaderAndIsr %t", sawProduce, sawLeaderAndIsr)
	}
	if f := repl.replicaFetcherManager.FetcherFor(tpOf("t", 0)); f == nil || f.SourceBroker().ID != 1 {
		t.Fatalf("partition fetched by %v, want broker 1", f)
	}
	// Truncated to the HW (0): the 3 uncommitted messages are gone.
	if leo := e.rm.GetPartition(tpOf("t", 0)).LocalReplica().LogEndOffset().MessageOffset; leo != 0 {
		t.Fatalf("follower LEO %d, want 0", leo)
	}
}

// newTestReplication is an apisEnv's replication side, with the env's metadata cache.
func newTestReplication(t *testing.T, e *apisEnv) *replicaManagerReplication {
	t.Helper()
	e.rm.replication.metadataCache = e.cache
	return e.rm.replication
}
