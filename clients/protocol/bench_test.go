package protocol

import (
	"bytes"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

// produce1MiB is a Produce v2 request of 16 partitions × 64 KiB record sets (1 MiB of records).
func produce1MiB() []byte {
	m := &ProduceRequest{Version: 2, Acks: 1, Timeout: 30000}
	td := ProduceRequestTopic{Topic: "bench"}
	for p := int32(0); p < 16; p++ {
		td.Data = append(td.Data, ProduceRequestTopicPartition{Partition: p, RecordSet: record.NewMemoryRecords(bytes.Repeat([]byte{byte(p)}, 64<<10))})
	}
	m.TopicData = []ProduceRequestTopic{td}
	return m.AppendTo(nil)
}

// BenchmarkProduceRequestDecode decodes a 1 MiB Produce request (record sets are wrapped, not copied).
func BenchmarkProduceRequestDecode(b *testing.B) {
	body := produce1MiB()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	h := RequestHeader{ApiKey: Produce, ApiVersion: 2}
	for b.Loop() {
		if _, err := ParseRequest(h, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProduceRequestDecodeEncode decodes a 1 MiB Produce request and encodes it again into a
// reused buffer (the encode copies the record sets).
func BenchmarkProduceRequestDecodeEncode(b *testing.B) {
	body := produce1MiB()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	h := RequestHeader{ApiKey: Produce, ApiVersion: 2}
	buf := make([]byte, 0, len(body))
	for b.Loop() {
		m, err := ParseRequest(h, body)
		if err != nil {
			b.Fatal(err)
		}
		buf = m.AppendTo(buf[:0])
	}
	if !bytes.Equal(buf, body) {
		b.Fatal("re-encoding differs")
	}
}
