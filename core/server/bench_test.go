package server

import (
	"bytes"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/network"
)

func hundredByteRecords(b testing.TB, n int) *record.MemoryRecords {
	bld := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, 0, 0)
	v := bytes.Repeat([]byte("x"), 100)
	for i := 0; i < n; i++ {
		if _, err := bld.AppendWithOffset(int64(i), 1_700_000_000_000, nil, v); err != nil {
			b.Fatal(err)
		}
	}
	return bld.Build()
}

// BenchmarkHandleProduce: KafkaApis + ReplicaManager + Log for a produce of 1,000 100-byte
// records with acks=1 (no network).
func BenchmarkHandleProduce(b *testing.B) {
	e := newApisEnv(b, nil)
	e.lead(b, "t", 1, []int32{0})
	recs := hundredByteRecords(b, 1000)
	b.SetBytes(int64(recs.SizeInBytes()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.handle(produceReq("t", 1, map[int32]record.Records{0: recs}), "p")
		if r := e.ch.take(b); r.Action != network.SendAction {
			b.Fatal(r.Action)
		}
	}
}

// BenchmarkHandleFetch: a 1 MiB fetch answered and written to a discarding writer (the
// FileRecords slice is copied here; on a socket it goes by sendfile).
func BenchmarkHandleFetch(b *testing.B) {
	e := newApisEnv(b, nil)
	e.lead(b, "t", 1, []int32{0})
	recs := hundredByteRecords(b, 100)
	for i := 0; i < 100; i++ { // 100 produces of 100 records: the index gets an entry per 4 KiB
		e.handle(produceReq("t", 1, map[int32]record.Records{0: recs}), "p")
		e.ch.take(b)
	}
	req := fetchReq(-1, "t", 0, 1, 0)
	req.Topics[0].Partitions[0].MaxBytes = 1 << 20
	var sink countingWriter
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.handle(req, "c")
		r := e.ch.take(b)
		n, err := r.Send.WriteTo(&sink)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
	_ = protocol.Fetch
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }
