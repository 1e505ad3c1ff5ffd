package fetcher

import (
	"fmt"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/metrics"
)

// TestFetcherMaxLag: a fetch response sets the partition's lag to the source's HW minus the
// next offset to fetch (its ConsumerLag gauge, and the manager's MaxLag, the largest over its
// threads); the valid bytes count on the thread's FetcherStats BytesPerSec; a removed partition
// no longer counts, and a shut-down thread's metrics are gone.
func TestFetcherMaxLag(t *testing.T) {
	reg := metrics.NewRegistry(nil)
	m := NewAbstractFetcherManager("ReplicaFetcherManager on broker 0", "Replica", 1, nil, nil)
	m.RegisterMetrics(reg, "kafka.server", "ReplicaFetcherManager")
	const name = "kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica"
	lag := func() float64 {
		t.Helper()
		v, ok := reg.GaugeValue(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		return v
	}
	if lag() != 0 {
		t.Fatalf("MaxLag %v without threads", lag())
	}
	h := &fakeHooks{logEnd: map[common.TopicPartition]int64{}, errs: map[common.TopicPartition]int16{}}
	b := cluster.BrokerEndPoint{ID: 1, Host: "h", Port: 1}
	th := NewAbstractFetcherThread("F", "Replica", b, 10, h, common.SystemTime{}, nil) // not started
	h.thread = th
	th.registerMetrics(reg)
	tp1 := common.TopicPartition{Topic: "t", Partition: 1}
	if err := th.AddPartitions(map[common.TopicPartition]int64{tp0: 5, tp1: 0}); err != nil {
		t.Fatal(err)
	}
	m.mapLock.Lock()
	m.fetcherThreadMap[BrokerAndFetcherId{Broker: b}] = th
	m.mapLock.Unlock()

	// tp0: messages 5..9 with the source's HW at 20: lag 10. tp1: caught up (HW 3, got 0..2).
	recs := func(from, to int64) *record.MemoryRecords {
		bl := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, from, 0, 0)
		for o := from; o < to; o++ {
			if _, err := bl.AppendWithOffset(o, 1, nil, []byte("v")); err != nil {
				t.Fatal(err)
			}
		}
		return bl.Build()
	}
	err := th.processResponse(fakeRequest{tp0: 5, tp1: 0}, []FetchedPartition{
		{tp0, fakeData{hw: 20, records: recs(5, 10)}}, {tp1, fakeData{hw: 3, records: recs(0, 3)}}},
		func(common.TopicPartition) { t.Error("unexpected partition error") })
	if err != nil {
		t.Fatal(err)
	}
	if v := lag(); v != 10 {
		t.Errorf("MaxLag %v, want 10", v)
	}
	consumerLag := func(tp common.TopicPartition) (float64, bool) {
		return reg.GaugeValue(fmt.Sprintf("kafka.server:type=FetcherLagMetrics,name=ConsumerLag,clientId=Replica,topic=%s,partition=%d", tp.Topic, tp.Partition))
	}
	if v, ok := consumerLag(tp0); !ok || v != 10 {
		t.Errorf("ConsumerLag of %s = %v (registered %v), want 10", tp0, v, ok)
	}
	if v, ok := consumerLag(tp1); !ok || v != 0 {
		t.Errorf("ConsumerLag of %s = %v (registered %v), want 0", tp1, v, ok)
	}
	const stats = "kafka.server:type=FetcherStats,name=BytesPerSec,clientId=Replica,brokerHost=h,brokerPort=1"
	if m := reg.Meter(stats); m == nil || m.Count() != int64(recs(5, 10).SizeInBytes()+recs(0, 3).SizeInBytes()) {
		t.Errorf("%s = %v", stats, m)
	}
	if v, ok := reg.GaugeValue("kafka.server:type=ReplicaFetcherManager,name=MinFetchRate,clientId=Replica"); !ok || v != 0 {
		t.Errorf("MinFetchRate %v (registered %v), want 0 before any rate tick", v, ok)
	}
	th.RemovePartitions(map[common.TopicPartition]struct{}{tp0: {}})
	if v := lag(); v != 0 {
		t.Errorf("MaxLag %v after removing the lagging partition, want 0", v)
	}
	if _, ok := consumerLag(tp0); ok {
		t.Error("ConsumerLag of a removed partition still registered")
	}
	th.Shutdown()
	if _, ok := consumerLag(tp1); ok || reg.Meter(stats) != nil {
		t.Error("metrics of a shut-down thread still registered")
	}
}
