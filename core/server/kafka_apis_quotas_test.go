package server

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	kmetrics "github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/server/fetcher"
)

// Quotas through KafkaApis and the ReplicaManager on a MockTime: a response over the quota is
// held back for the throttle time and carries it (v1+), replication throttling leaves data out
// of a follower's fetch, and the ReplicaManager's read obeys shouldLeaderThrottle
// (Kafka 0.10.2's ReplicaManagerQuotasTest).

// withQuotas gives the env's KafkaApis and ReplicaManager quota managers on its clock.
func (e *apisEnv) withQuotas(t *testing.T) *QuotaManagers {
	q := newTestQuotaManagers(t, e.clock)
	e.apis.quotas = q
	e.rm.quotaManager = q.Follower
	return q
}

// handleAs runs one request from a session with principal (the Processor sets User:ANONYMOUS
// on PLAINTEXT).
func (e *apisEnv) handleAs(m protocol.Message, clientID, principal string) *network.Request {
	e.corr++
	req := &network.Request{ConnectionID: "c", ListenerName: "PLAINTEXT", Body: m, Session: network.Session{Principal: principal},
		Header: protocol.RequestHeader{ApiKey: m.Key(), ApiVersion: m.GetVersion(), CorrelationID: e.corr, ClientID: &clientID}}
	e.apis.Handle(req)
	return req
}

// releaseAfter checks that nothing is answered until delayMs have passed on the clock, then
// runs the reaper and returns the response.
func (e *apisEnv) releaseAfter(t *testing.T, m *ClientQuotaManager, delayMs int32) *network.Response {
	t.Helper()
	if e.ch.count() != 0 || m.QueueSize() != 1 {
		t.Fatalf("over the quota: %d responses sent, %d queued; want 0, 1", e.ch.count(), m.QueueSize())
	}
	e.clock.Sleep(time.Duration(delayMs-1) * time.Millisecond)
	m.reaperDoWork(0)
	if e.ch.count() != 0 {
		t.Fatalf("answered before the %d ms throttle time", delayMs)
	}
	e.clock.Sleep(time.Millisecond)
	m.reaperDoWork(0)
	return e.ch.take(t)
}

func TestApisProduceThrottled(t *testing.T) {
	for _, version := range []int16{0, 1, 2} {
		e := newApisEnv(t, nil)
		q := e.withQuotas(t)
		e.lead(t, "t", 1, []int32{0})
		q.Produce.UpdateQuota(nil, opt("p"), upper(100)) // 100 B/s: anything over 1,000 B in 10 s throttles

		// Another client id is not limited.
		e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 100, record.NONE)}), "other")
		if r := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse); r.ThrottleTimeMs != 0 {
			t.Fatalf("unlimited client throttled %d ms", r.ThrottleTimeMs)
		}

		pr := produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 100, record.NONE)})
		pr.Version = version
		req := e.handle(pr, "p")
		size := requestSize(req)
		// Kafka's arithmetic: size bytes over 10 full windows against 100 B/s.
		want := int32(math.Floor((float64(size)/10-100)/100*10_000 + 0.5))
		resp := e.releaseAfter(t, q.Produce, want)
		r := decode(t, resp, protocol.Produce, version).(*protocol.ProduceResponse)
		if p := r.Responses[0].PartitionResponses[0]; p.ErrorCode != 0 || p.BaseOffset != 100 {
			t.Errorf("v%d: partition response %+v", version, p)
		}
		wantField := want
		if version == 0 {
			wantField = 0 // v0 has no throttle_time_ms: the response is only delayed
		}
		if r.ThrottleTimeMs != wantField {
			t.Errorf("v%d: throttle_time_ms %d, want %d", version, r.ThrottleTimeMs, wantField)
		}
		if th := q.Produce.metrics.Metric(q.Produce.metrics.MetricName("throttle-time", "Produce", "",
			map[string]string{"user": "", "client-id": "p"})); th == nil || th.Value() != float64(want) {
			t.Errorf("v%d: throttle-time metric %v", version, th)
		}
	}
}

// An acks=0 produce over the quota is not answered, but its connection stays muted for the
// throttle time (the no-op response is what unmutes it).
func TestApisProduceAcksZeroThrottled(t *testing.T) {
	e := newApisEnv(t, nil)
	q := e.withQuotas(t)
	e.lead(t, "t", 1, []int32{0})
	q.Produce.UpdateQuota(nil, opt("p"), upper(10))
	e.handle(produceReq("t", 0, map[int32]record.Records{0: recordSet(t, 20, record.NONE)}), "p")
	if e.ch.count() != 0 {
		t.Fatal("acks=0 over the quota unmuted at once")
	}
	e.clock.Sleep(time.Hour)
	q.Produce.reaperDoWork(0)
	if r := e.ch.take(t); r.Action != network.NoOpAction {
		t.Fatalf("action %v, want no-op", r.Action)
	}
}

func TestApisFetchThrottled(t *testing.T) {
	e := newApisEnv(t, nil)
	q := e.withQuotas(t)
	e.lead(t, "t", 1, []int32{0})
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 200, record.NONE)}), "p")
	e.ch.take(t)
	// A user-level quota: the session principal of a PLAINTEXT request is ANONYMOUS.
	q.Fetch.UpdateQuota(opt("ANONYMOUS"), nil, upper(100))
	for _, version := range []int16{0, 1, 3} {
		fr := fetchReq(-1, "t", 0, 0, 0)
		fr.Version = version
		e.handleAs(fr, "c", "User:ANONYMOUS")
		if e.ch.count() != 0 {
			t.Fatalf("v%d: fetch over the quota answered at once", version)
		}
		if q.Fetch.QueueSize() != 1 {
			t.Fatalf("v%d: %d responses queued", version, q.Fetch.QueueSize())
		}
		// The bytes are metered on the user, not the client id.
		if rate := q.Fetch.metrics.Metric(q.Fetch.metrics.MetricName("byte-rate", "Fetch", "",
			map[string]string{"user": "ANONYMOUS", "client-id": ""})); rate == nil || rate.Value() <= 100 {
			t.Fatalf("v%d: user byte-rate %v", version, rate)
		}
		e.clock.Sleep(time.Hour) // whatever the delay was
		q.Fetch.reaperDoWork(0)
		r := decode(t, e.ch.take(t), protocol.Fetch, version).(*protocol.FetchResponse)
		if p := r.Responses[0].PartitionResponses[0]; p.PartitionHeader.ErrorCode != 0 || p.RecordSet.SizeInBytes() == 0 {
			t.Fatalf("v%d: partition %+v", version, p.PartitionHeader)
		}
		if (version == 0) != (r.ThrottleTimeMs == 0) {
			t.Errorf("v%d: throttle_time_ms %d", version, r.ThrottleTimeMs)
		}
	}
	// A follower's fetch is never delayed by client quotas.
	q.Fetch.UpdateQuota(nil, opt("follower"), upper(1))
	e.handle(fetchReq(1, "t", 0, 0, 0), "follower")
	if r := decode(t, e.ch.take(t), protocol.Fetch, 3).(*protocol.FetchResponse); r.ThrottleTimeMs != 0 {
		t.Errorf("follower throttle %d", r.ThrottleTimeMs)
	}
}

// The leader leaves a throttled partition's data out of an out-of-sync follower's fetch once
// the leader quota is exceeded; an in-sync follower always gets it.
func TestApisFollowerFetchLeaderThrottled(t *testing.T) {
	for _, inSync := range []bool{false, true} {
		e := newApisEnv(t, nil)
		q := e.withQuotas(t)
		isr := []int32{0}
		if inSync {
			isr = []int32{0, 1}
		}
		e.lead(t, "t", 2, []int32{0, 1}, isr...)
		e.handle(produceReq("t", 0, map[int32]record.Records{0: recordSet(t, 50, record.NONE), 1: recordSet(t, 50, record.NONE)}), "p")
		e.ch.take(t)
		q.Leader.UpdateQuota(kmetrics.UpperBound(100))
		q.Leader.MarkThrottled("t", []int32{0}) // partition 0 only

		// The first fetch is within the quota: both partitions' data, and the bytes of partition 0 count.
		e.handle(fetchReq2(1, "t", 0, 0), "follower")
		r := decode(t, e.ch.take(t), protocol.Fetch, 3).(*protocol.FetchResponse)
		got0, got1 := sizes(r)
		if got0 == 0 || got1 == 0 {
			t.Fatalf("in sync %v: first fetch %d/%d bytes", inSync, got0, got1)
		}
		if !q.Leader.IsQuotaExceeded() {
			t.Fatalf("in sync %v: %d bytes in 1 s did not exceed 100 B/s", inSync, got0)
		}
		// Over the quota: partition 0 reads empty unless the follower is in sync; partition 1 is not throttled.
		e.handle(fetchReq2(1, "t", 0, 0), "follower")
		r = decode(t, e.ch.take(t), protocol.Fetch, 3).(*protocol.FetchResponse)
		got0, got1 = sizes(r)
		if inSync != (got0 > 0) || got1 == 0 {
			t.Errorf("in sync %v: throttled fetch %d/%d bytes", inSync, got0, got1)
		}
	}
}

// fetchReq2 fetches partitions 0 and 1 of topic from offset.
func fetchReq2(replicaID int32, topic string, offset int64, maxWait int32) *protocol.FetchRequest {
	return &protocol.FetchRequest{Version: 3, ReplicaID: replicaID, MaxWaitTime: maxWait, MaxBytes: 1 << 20,
		Topics: []protocol.FetchRequestTopic{{Topic: topic, Partitions: []protocol.FetchRequestTopicPartition{
			{Partition: 0, FetchOffset: offset, MaxBytes: 1 << 20}, {Partition: 1, FetchOffset: offset, MaxBytes: 1 << 20}}}}}
}

func sizes(r *protocol.FetchResponse) (p0, p1 int) {
	for _, p := range r.Responses[0].PartitionResponses {
		if p.PartitionHeader.Partition == 0 {
			p0 = p.RecordSet.SizeInBytes()
		} else {
			p1 = p.RecordSet.SizeInBytes()
		}
	}
	return p0, p1
}

// A throttled follower's fetch with min_bytes does not complete early on throttled bytes while
// the quota is exceeded; it waits for max_wait and then answers without them.
func TestDelayedFetchThrottledPartitions(t *testing.T) {
	e := newApisEnv(t, nil)
	q := e.withQuotas(t)
	e.lead(t, "t", 1, []int32{0, 1})
	e.handle(produceReq("t", 0, map[int32]record.Records{0: recordSet(t, 50, record.NONE)}), "p")
	e.ch.take(t)
	q.Leader.UpdateQuota(kmetrics.UpperBound(1))
	q.Leader.MarkThrottled("t", AllReplicas)
	q.Leader.Record(1000) // exceeded
	e.handle(fetchReq(1, "t", 0, 1, 500), "follower")
	if e.ch.count() != 0 {
		t.Fatal("a throttled fetch completed at once on throttled bytes")
	}
	e.handle(produceReq("t", 0, map[int32]record.Records{0: recordSet(t, 5, record.NONE)}), "p")
	e.ch.take(t) // the no-op; the parked fetch must still wait
	if e.ch.count() != 0 {
		t.Fatal("an append completed a throttled fetch")
	}
	e.rm.delayedFetchPurgatory.AdvanceClock(501)
	r := decode(t, e.ch.take(t), protocol.Fetch, 3).(*protocol.FetchResponse)
	if n := r.Responses[0].PartitionResponses[0].RecordSet.SizeInBytes(); n != 0 {
		t.Errorf("throttled fetch returned %d bytes", n)
	}
}

// scriptedQuota throttles every partition and answers IsQuotaExceeded from a script.
type scriptedQuota struct{ exceeded []bool }

func (q *scriptedQuota) IsThrottled(common.TopicPartition) bool { return true }
func (q *scriptedQuota) IsQuotaExceeded() bool {
	v := q.exceeded[0]
	q.exceeded = q.exceeded[1:]
	return v
}

// Kafka 0.10.2's ReplicaManagerQuotasTest: readFromLocalLog for a follower of two throttled
// partitions, with the quota exceeded for the second only, for both, for none, and with the
// follower in sync.
func TestReplicaManagerQuotas(t *testing.T) {
	for _, tc := range []struct {
		name     string
		inSync   bool
		exceeded []bool
		want     [2]bool // data for partition 0, 1
	}{
		{"shouldExcludeSubsequentThrottledPartitions", false, []bool{false, true}, [2]bool{true, false}},
		{"shouldGetNoMessagesIfQuotasExceededOnSubsequentPartitions", false, []bool{true, true}, [2]bool{false, false}},
		{"shouldGetBothMessagesIfQuotasAllow", false, []bool{false, false}, [2]bool{true, true}},
		{"shouldIncludeInSyncThrottledReplicas", true, []bool{false, true}, [2]bool{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newApisEnv(t, nil)
			isr := []int32{0}
			if tc.inSync {
				isr = []int32{0, 1}
			}
			e.lead(t, "test-topic", 2, []int32{0, 1}, isr...)
			e.handle(produceReq("test-topic", 0, map[int32]record.Records{0: recordSet(t, 1, record.NONE), 1: recordSet(t, 1, record.NONE)}), "p")
			e.ch.take(t)
			infos := []PartitionFetchInfo{{TopicPartition: tpOf("test-topic", 0), Offset: 0, MaxBytes: 100},
				{TopicPartition: tpOf("test-topic", 1), Offset: 0, MaxBytes: 100}}
			res := e.rm.readFromLocalLog(1, true, false, math.MaxInt32, false, infos, &scriptedQuota{exceeded: tc.exceeded})
			for i, r := range res {
				if got := r.result.Info.Records.SizeInBytes() > 0; got != tc.want[i] {
					t.Errorf("partition %d: data %v, want %v", i, got, tc.want[i])
				}
			}
		})
	}
}

// The follower's fetcher leaves a throttled partition out of its request while the follower
// quota is exceeded and the partition is not known to be in sync; the bytes it appends for
// throttled partitions count towards the quota.
func TestReplicaFetcherFollowerThrottle(t *testing.T) {
	e := newApisEnv(t, nil)
	q := e.withQuotas(t)
	th := NewReplicaFetcherThread("ReplicaFetcherThread-0-1", 0, cluster.BrokerEndPoint{ID: 1, Host: "127.0.0.1", Port: 1},
		e.rm.Config(), e.rm, e.clock, func(int) { t.Error("exit") }, nil)
	states := []fetcher.PartitionStateEntry{
		{TopicPartition: tpOf("t", 0), State: fetcher.NewPartitionFetchState(5)},
		{TopicPartition: tpOf("t", 1), State: fetcher.NewPartitionFetchState(7)},
	}
	asked := func() []int32 {
		req := th.BuildFetchRequest(states).(*replicaFetchRequest)
		var ps []int32
		for _, tt := range req.underlying.Topics {
			for _, p := range tt.Partitions {
				ps = append(ps, p.Partition)
			}
		}
		return ps
	}
	if got := fmt.Sprint(asked()); got != "[0 1]" {
		t.Fatalf("without throttles the request asks for %s", got)
	}
	q.Follower.UpdateQuota(kmetrics.UpperBound(100))
	q.Follower.MarkThrottled("t", []int32{1})
	if got := fmt.Sprint(asked()); got != "[0 1]" {
		t.Fatalf("under the quota the request asks for %s", got)
	}
	q.Follower.Record(10_000)
	if got := fmt.Sprint(asked()); got != "[0]" {
		t.Fatalf("over the quota the request asks for %s, want [0]", got)
	}
}
