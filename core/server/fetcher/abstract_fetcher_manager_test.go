package fetcher

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/cluster"
)

func TestGetFetcherIDMatchesJava(t *testing.T) {
	m := NewAbstractFetcherManager("m", "c", 3, nil, nil)
	// "topic".hashCode() = 110546223; 31*110546223 overflows to -868034383; abs % 3 = 1.
	if got := m.getFetcherID("topic", 0); got != 1 {
		t.Fatalf("fetcher id %d, want 1", got)
	}
	// 31*110546223 + 2 = -868034381 → 868034381 % 3 = 2
	if got := m.getFetcherID("topic", 2); got != 2 {
		t.Fatalf("fetcher id %d, want 2", got)
	}
}

func TestFetcherManagerCreatesPerBrokerAndShutsDownIdle(t *testing.T) {
	var created []*AbstractFetcherThread
	m := NewAbstractFetcherManager("m", "c", 1, func(id int, b cluster.BrokerEndPoint) *AbstractFetcherThread {
		h := &fakeHooks{logEnd: map[common.TopicPartition]int64{}, errs: map[common.TopicPartition]int16{}}
		th := NewAbstractFetcherThread("F", "c", b, 10, h, common.SystemTime{}, nil)
		h.thread = th
		created = append(created, th)
		return th
	}, nil)
	defer m.CloseAllFetchers()
	b1 := cluster.BrokerEndPoint{ID: 1, Host: "h", Port: 1}
	b2 := cluster.BrokerEndPoint{ID: 2, Host: "h", Port: 2}
	tpA, tpB, tpC := common.TopicPartition{Topic: "a"}, common.TopicPartition{Topic: "b"}, common.TopicPartition{Topic: "c"}
	if err := m.AddFetcherForPartitions(map[common.TopicPartition]BrokerAndInitialOffset{
		tpA: {b1, 0}, tpB: {b1, 0}, tpC: {b2, 0}}); err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 || len(m.FetcherThreads()) != 2 {
		t.Fatalf("created %d threads, want 2 (one per broker)", len(created))
	}
	if f := m.FetcherFor(tpC); f == nil || f.SourceBroker().ID != 2 {
		t.Fatalf("tpC fetched by %v", f)
	}
	m.RemoveFetcherForPartitions(map[common.TopicPartition]struct{}{tpC: {}})
	m.ShutdownIdleFetcherThreads()
	threads := m.FetcherThreads()
	if len(threads) != 1 || threads[0].SourceBroker().ID != 1 || threads[0].PartitionCount() != 2 {
		t.Fatalf("after idle shutdown: %d threads", len(threads))
	}
	for _, th := range created {
		if th.SourceBroker().ID == 2 && th.IsRunning() {
			t.Fatal("idle thread still running")
		}
	}
}
