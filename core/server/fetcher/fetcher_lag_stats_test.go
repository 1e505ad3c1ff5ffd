package fetcher

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/metrics"
)

// TestFetcherMaxLag: a fetch response sets the partition's lag to the source's HW minus the
// next offset to fetch; the manager's MaxLag gauge is the largest lag over its threads, and a
// removed partition no longer counts.
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
	th.RemovePartitions(map[common.TopicPartition]struct{}{tp0: {}})
	if v := lag(); v != 0 {
		t.Errorf("MaxLag %v after removing the lagging partition, want 0", v)
	}
}
