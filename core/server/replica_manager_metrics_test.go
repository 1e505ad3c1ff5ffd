package server

import (
	"bytes"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/metrics"
)

// TestReplicaManagerMetrics: the ReplicaManager gauges follow leadership and the ISR, the ISR
// meters count each shrink and expand, an oversized message set is counted in
// BytesRejectedPerSec, the purgatories' gauges are registered, and a topic's
// BrokerTopicMetrics go when its last partition is deleted.
func TestReplicaManagerMetrics(t *testing.T) {
	e := newApisEnv(t, map[string]string{"replica.lag.time.max.ms": "100", "replica.fetch.wait.max.ms": "50",
		"message.max.bytes": "200"})
	reg := metrics.NewRegistry(nil)
	e.rm.topicStats = metrics.NewBrokerTopicStats(reg)
	e.rm.registerMetrics(reg)
	gauge := func(name string) float64 {
		t.Helper()
		v, ok := reg.GaugeValue("kafka.server:type=ReplicaManager,name=" + name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		return v
	}
	meter := func(name string) int64 {
		t.Helper()
		m := reg.Meter(name)
		if m == nil {
			t.Fatalf("%s not registered", name)
		}
		return m.Count()
	}
	for _, op := range []string{"Produce", "Fetch"} {
		for _, n := range []string{"PurgatorySize", "NumDelayedOperations"} {
			if v, ok := reg.GaugeValue("kafka.server:type=DelayedOperationPurgatory,name=" + n + ",delayedOperation=" + op); !ok || v != 0 {
				t.Errorf("%s of %s purgatory = %v (registered %v), want 0", n, op, v, ok)
			}
		}
	}
	if gauge("PartitionCount") != 0 || gauge("LeaderCount") != 0 {
		t.Fatal("counts before any LeaderAndIsr")
	}

	repl := newTestReplication(t, e)
	repl.startReplicationTasks()
	e.lead(t, "t", 2, []int32{0, 1}, 0, 1)
	if gauge("PartitionCount") != 2 || gauge("LeaderCount") != 2 || gauge("UnderReplicatedPartitions") != 0 {
		t.Fatalf("after leading 2 partitions: PartitionCount %v LeaderCount %v UnderReplicated %v",
			gauge("PartitionCount"), gauge("LeaderCount"), gauge("UnderReplicatedPartitions"))
	}
	followerFetch := func() {
		t.Helper()
		e.handle(&protocol.FetchRequest{Version: 3, ReplicaID: 1, MaxBytes: 1 << 20, Topics: []protocol.FetchRequestTopic{
			{Topic: "t", Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0, MaxBytes: 1 << 20}, {Partition: 1, MaxBytes: 1 << 20}}}}}, "replica")
		e.ch.take(t)
	}
	// Follower 1 fetches once, then stops: both partitions shrink their ISR to [0].
	followerFetch()
	e.clock.Advance(150 * time.Millisecond)
	e.sched.Tick()
	if n := meter("kafka.server:type=ReplicaManager,name=IsrShrinksPerSec"); n != 2 {
		t.Errorf("IsrShrinksPerSec count %d, want 2", n)
	}
	if v := gauge("UnderReplicatedPartitions"); v != 2 {
		t.Errorf("UnderReplicatedPartitions %v after the shrinks, want 2", v)
	}
	// It comes back caught up: both expand again.
	followerFetch()
	if n := meter("kafka.server:type=ReplicaManager,name=IsrExpandsPerSec"); n != 2 {
		t.Errorf("IsrExpandsPerSec count %d, want 2", n)
	}
	if v := gauge("UnderReplicatedPartitions"); v != 0 {
		t.Errorf("UnderReplicatedPartitions %v after the expands, want 0", v)
	}

	// A message above message.max.bytes is rejected and its set's bytes counted.
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, 0, 0)
	if _, err := b.AppendWithOffset(0, 1_700_000_000_000, nil, bytes.Repeat([]byte("x"), 300)); err != nil {
		t.Fatal(err)
	}
	big := b.Build()
	e.handle(produceReq("t", 1, map[int32]record.Records{0: big}), "p")
	if p := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse).Responses[0].PartitionResponses[0]; p.ErrorCode != protocol.ErrMessageTooLarge.Code {
		t.Fatalf("oversized produce: %+v", p)
	}
	for _, name := range []string{"kafka.server:type=BrokerTopicMetrics,name=BytesRejectedPerSec",
		"kafka.server:type=BrokerTopicMetrics,name=BytesRejectedPerSec,topic=t"} {
		if n := meter(name); n != int64(big.SizeInBytes()) {
			t.Errorf("%s count %d, want %d", name, n, big.SizeInBytes())
		}
	}

	// The topic's meters stay while one of its partitions is hosted.
	topicMeter := "kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec,topic=t"
	stop := func(p int32) {
		t.Helper()
		e.handle(&protocol.StopReplicaRequest{ControllerID: 0, ControllerEpoch: 1, DeletePartitions: true,
			Partitions: []protocol.StopReplicaRequestPartition{{Topic: "t", Partition: p}}}, "c")
		e.ch.take(t)
	}
	stop(0)
	if reg.Get(topicMeter) == nil {
		t.Error("topic meters removed while partition 1 is still hosted")
	}
	if gauge("PartitionCount") != 1 || gauge("LeaderCount") != 1 {
		t.Errorf("after deleting one partition: PartitionCount %v LeaderCount %v", gauge("PartitionCount"), gauge("LeaderCount"))
	}
	stop(1)
	if reg.Get(topicMeter) != nil {
		t.Error("topic meters still registered after its last partition was deleted")
	}
	if reg.Get("kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec") == nil {
		t.Error("all-topics meters removed with the topic's")
	}
}

// TestDelayedOperationExpiryMetrics: an acks=-1 produce that times out marks DelayedProduceMetrics'
// ExpiresPerSec (broker-wide and for its partition), and an expired consumer fetch marks
// DelayedFetchMetrics' ExpiresPerSec with fetcherType=consumer; the Partition gauges follow the
// partition's ISR and go when it is deleted.
func TestDelayedOperationExpiryMetrics(t *testing.T) {
	e := newApisEnv(t, nil)
	reg := metrics.NewRegistry(nil)
	e.rm.registerMetrics(reg)
	e.lead(t, "t", 1, []int32{0, 1}, 0) // the follower is not in the ISR
	partGauge := func(name string) (float64, bool) {
		return reg.GaugeValue("kafka.cluster:type=Partition,name=" + name + ",topic=t,partition=0")
	}
	for name, want := range map[string]float64{"UnderReplicated": 1, "InSyncReplicasCount": 1, "ReplicasCount": 2} {
		if v, ok := partGauge(name); !ok || v != want {
			t.Errorf("Partition %s = %v (registered %v), want %v", name, v, ok, want)
		}
	}
	// Follower 1 joins the ISR: acks=-1 now waits for it, and it never fetches again.
	e.handle(&protocol.FetchRequest{Version: 3, ReplicaID: 1, MaxBytes: 1 << 20, Topics: []protocol.FetchRequestTopic{
		{Topic: "t", Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0, MaxBytes: 1 << 20}}}}}, "replica")
	e.ch.take(t)
	if v, _ := partGauge("UnderReplicated"); v != 0 {
		t.Errorf("UnderReplicated %v with the follower in the ISR", v)
	}
	e.handle(produceReq("t", -1, map[int32]record.Records{0: recordSet(t, 2, record.NONE)}), "p")
	e.rm.delayedProducePurgatory.AdvanceClock(1001)
	if r := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse); r.Responses[0].PartitionResponses[0].ErrorCode != protocol.ErrRequestTimedOut.Code {
		t.Fatalf("produce did not time out: %+v", r.Responses[0].PartitionResponses[0])
	}
	for _, name := range []string{"kafka.server:type=DelayedProduceMetrics,name=ExpiresPerSec",
		"kafka.server:type=DelayedProduceMetrics,name=ExpiresPerSec,topic=t,partition=0"} {
		if m := reg.Meter(name); m == nil || m.Count() != 1 {
			t.Errorf("%s = %v, want count 1", name, m)
		}
	}

	e.handle(fetchReq(-1, "t", 2, 1<<20, 500), "consumer")
	e.rm.delayedFetchPurgatory.AdvanceClock(501)
	e.ch.take(t)
	if m := reg.Meter("kafka.server:type=DelayedFetchMetrics,name=ExpiresPerSec,fetcherType=consumer"); m == nil || m.Count() != 1 {
		t.Errorf("consumer fetch expiry not counted: %v", m)
	}
	if m := reg.Meter("kafka.server:type=DelayedFetchMetrics,name=ExpiresPerSec,fetcherType=follower"); m == nil || m.Count() != 0 {
		t.Errorf("follower fetch expiries %v, want 0", m)
	}

	e.handle(&protocol.StopReplicaRequest{ControllerID: 0, ControllerEpoch: 1, DeletePartitions: true,
		Partitions: []protocol.StopReplicaRequestPartition{{Topic: "t", Partition: 0}}}, "c")
	e.ch.take(t)
	for _, name := range partitionMetricNames {
		if _, ok := partGauge(name); ok {
			t.Errorf("Partition %s still registered after the partition was deleted", name)
		}
	}
}
