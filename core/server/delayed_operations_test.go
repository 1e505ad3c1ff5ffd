package server

import (
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

func fetchReq(replicaID int32, topic string, offset int64, minBytes, maxWait int32) *protocol.FetchRequest {
	return &protocol.FetchRequest{Version: 3, ReplicaID: replicaID, MaxWaitTime: maxWait, MinBytes: minBytes, MaxBytes: 1 << 20,
		Topics: []protocol.FetchRequestTopic{{Topic: topic, Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0, FetchOffset: offset, MaxBytes: 1 << 20}}}}}
}

// TestDelayedProduceCompletesWhenFollowerCatchesUp: acks=-1 waits until the follower in the ISR
// has fetched past the appended messages (the HW passes them).
func TestDelayedProduceCompletesWhenFollowerCatchesUp(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0, 1}, 0, 1)
	e.handle(produceReq("t", -1, map[int32]record.Records{0: recordSet(t, 3, record.NONE)}), "p")
	if e.ch.count() != 0 {
		t.Fatal("acks=-1 answered before the follower fetched")
	}
	// The follower fetches from 0: it now has LEO 0, the HW stays 0.
	e.handle(fetchReq(1, "t", 0, 0, 0), "follower")
	f := decode(t, e.ch.take(t), protocol.Fetch, 3).(*protocol.FetchResponse)
	if p := f.Responses[0].PartitionResponses[0]; p.PartitionHeader.ErrorCode != 0 || p.RecordSet.SizeInBytes() == 0 {
		t.Fatalf("follower fetch %+v", p.PartitionHeader)
	}
	if e.ch.count() != 0 {
		t.Fatal("produce answered while the follower is behind")
	}
	// The follower fetches from 3: it has everything; the HW moves to 3 and the produce completes.
	e.handle(fetchReq(1, "t", 3, 0, 0), "follower")
	first := e.ch.take(t)
	second := e.ch.take(t)
	var prod *protocol.ProduceResponse
	if first.Request.Header.ApiKey == protocol.Produce {
		prod = decode(t, first, protocol.Produce, 2).(*protocol.ProduceResponse)
	} else {
		prod = decode(t, second, protocol.Produce, 2).(*protocol.ProduceResponse)
	}
	if p := prod.Responses[0].PartitionResponses[0]; p.ErrorCode != 0 || p.BaseOffset != 0 {
		t.Fatalf("produce %+v", p)
	}
	if hw, _ := e.rm.GetHighWatermark(tpOf("t", 0)); hw != 3 {
		t.Fatalf("HW %d", hw)
	}
}

// TestDelayedProduceExpires: without the follower, acks=-1 times out with REQUEST_TIMED_OUT; the
// data stays appended (base offset reported).
func TestDelayedProduceExpires(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0, 1}, 0, 1)
	e.handle(produceReq("t", -1, map[int32]record.Records{0: recordSet(t, 2, record.NONE)}), "p")
	e.rm.delayedProducePurgatory.AdvanceClock(999)
	if e.ch.count() != 0 {
		t.Fatal("expired before its timeout")
	}
	e.rm.delayedProducePurgatory.AdvanceClock(2)
	r := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse)
	if p := r.Responses[0].PartitionResponses[0]; p.ErrorCode != protocol.ErrRequestTimedOut.Code || p.BaseOffset != 0 {
		t.Fatalf("expired produce %+v", p)
	}
	// With a single-replica ISR, acks=-1 completes at once.
	e2 := newApisEnv(t, nil)
	e2.lead(t, "t", 1, []int32{0})
	e2.handle(produceReq("t", -1, map[int32]record.Records{0: recordSet(t, 2, record.NONE)}), "p")
	if r := decode(t, e2.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse); r.Responses[0].PartitionResponses[0].ErrorCode != 0 {
		t.Fatalf("%+v", r)
	}
}

// TestDelayedFetch: a consumer fetch waits for min_bytes and completes on append, or at
// max_wait with what there is, or at once when the broker stops leading the partition.
func TestDelayedFetch(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0})
	e.handle(fetchReq(-1, "t", 0, 1, 500), "consumer")
	if e.ch.count() != 0 {
		t.Fatal("fetch answered with no data")
	}
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 4, record.NONE)}), "p")
	var fetch *protocol.FetchResponse
	for i := 0; i < 2; i++ {
		r := e.ch.take(t)
		if r.Request.Header.ApiKey == protocol.Fetch {
			fetch = decode(t, r, protocol.Fetch, 3).(*protocol.FetchResponse)
		}
	}
	if fetch == nil {
		t.Fatal("fetch not completed by the append")
	}
	p := fetch.Responses[0].PartitionResponses[0]
	if p.PartitionHeader.ErrorCode != 0 || p.PartitionHeader.HighWatermark != 4 || p.RecordSet.SizeInBytes() == 0 {
		t.Fatalf("fetch %+v size %d", p.PartitionHeader, p.RecordSet.SizeInBytes())
	}

	// Expiry: nothing new after offset 4.
	e.handle(fetchReq(-1, "t", 4, 1, 500), "consumer")
	e.rm.delayedFetchPurgatory.AdvanceClock(501)
	fetch = decode(t, e.ch.take(t), protocol.Fetch, 3).(*protocol.FetchResponse)
	if p := fetch.Responses[0].PartitionResponses[0]; p.PartitionHeader.ErrorCode != 0 || p.RecordSet.SizeInBytes() != 0 {
		t.Fatalf("expired fetch %+v", p.PartitionHeader)
	}

	// min_bytes not reached by a small append; then leadership moves: completes with NOT_LEADER.
	e.handle(fetchReq(-1, "t", 4, 1<<20, 500), "consumer")
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 1, record.NONE)}), "p")
	if r := e.ch.take(t); r.Request.Header.ApiKey != protocol.Produce {
		t.Fatalf("got %s before the produce answer", r.Request.Header.ApiKey)
	}
	if e.ch.count() != 0 {
		t.Fatal("fetch completed below min_bytes")
	}
	e.follow(t, "t")
	var sawFetch bool
	for i := 0; i < 2; i++ {
		r := e.ch.take(t)
		if r.Request.Header.ApiKey == protocol.Fetch {
			sawFetch = true
			f := decode(t, r, protocol.Fetch, 3).(*protocol.FetchResponse)
			if c := f.Responses[0].PartitionResponses[0].PartitionHeader.ErrorCode; c != protocol.ErrNotLeaderForPartition.Code {
				t.Fatalf("fetch after losing leadership: code %d", c)
			}
		}
	}
	if !sawFetch {
		t.Fatal("fetch not completed when the broker became follower")
	}
}

// TestFetchV3MaxBytesInOrder: v3 reads partitions in request order within max_bytes; the first
// message may exceed the limit (minOneMessage), later partitions get nothing rather than a
// partial message.
func TestFetchV3MaxBytesInOrder(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 2, []int32{0})
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 10, record.NONE), 1: recordSet(t, 10, record.NONE)}), "p")
	e.ch.take(t)
	one := recordSet(t, 1, record.NONE).SizeInBytes()
	req := &protocol.FetchRequest{Version: 3, ReplicaID: -1, MaxBytes: 10, Topics: []protocol.FetchRequestTopic{{Topic: "t",
		Partitions: []protocol.FetchRequestTopicPartition{{Partition: 1, MaxBytes: 1 << 20}, {Partition: 0, MaxBytes: 1 << 20}}}}}
	e.handle(req, "c")
	f := decode(t, e.ch.take(t), protocol.Fetch, 3).(*protocol.FetchResponse)
	ps := f.Responses[0].PartitionResponses
	if len(ps) != 2 || ps[0].PartitionHeader.Partition != 1 || ps[1].PartitionHeader.Partition != 0 {
		t.Fatalf("order %+v", ps)
	}
	if ps[0].RecordSet.SizeInBytes() != one || ps[1].RecordSet.SizeInBytes() != 0 {
		t.Fatalf("sizes %d, %d; want %d, 0", ps[0].RecordSet.SizeInBytes(), ps[1].RecordSet.SizeInBytes(), one)
	}
	// v2: the per-partition limit is hard (a truncated first message is returned as is).
	req2 := &protocol.FetchRequest{Version: 2, ReplicaID: -1, Topics: []protocol.FetchRequestTopic{{Topic: "t",
		Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0, MaxBytes: 10}}}}}
	e.handle(req2, "c")
	f = decode(t, e.ch.take(t), protocol.Fetch, 2).(*protocol.FetchResponse)
	if n := f.Responses[0].PartitionResponses[0].RecordSet.SizeInBytes(); n != 10 {
		t.Fatalf("v2 fetch of 10 bytes returned %d", n)
	}
}

// TestFetchDownConversion: a v0/v1 fetcher gets magic-0 messages when the log holds magic 1
// (with the same offsets and values); v2 gets the stored bytes.
func TestFetchDownConversion(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0})
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 5, record.GZIP)}), "p")
	e.ch.take(t)
	for _, v := range []int16{0, 1, 2} {
		req := fetchReq(-1, "t", 0, 0, 0)
		req.Version = v
		e.handle(req, "c")
		f := decode(t, e.ch.take(t), protocol.Fetch, v).(*protocol.FetchResponse)
		recs := f.Responses[0].PartitionResponses[0].RecordSet.(*record.MemoryRecords)
		wantMagic := record.MagicValueV0
		if v == 2 {
			wantMagic = record.MagicValueV1
		}
		n := 0
		for entry, err := range recs.DeepEntries() {
			if err != nil {
				t.Fatal(err)
			}
			if entry.Magic() != wantMagic || entry.Offset != int64(n) {
				t.Fatalf("v%d: entry %d magic %d offset %d", v, n, entry.Magic(), entry.Offset)
			}
			n++
		}
		if n != 5 {
			t.Fatalf("v%d: %d messages", v, n)
		}
	}
}
