package protocol

import (
	"bytes"
	"io"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

// fileLike is a record set that is not held in memory (like FileRecords): it can only be
// streamed, and counts how often it was.
type fileLike struct {
	data    []byte
	streams int
}

func (f *fileLike) SizeInBytes() int { return len(f.data) }
func (f *fileLike) WriteTo(w io.Writer) (int64, error) {
	f.streams++
	n, err := w.Write(f.data)
	return int64(n), err
}

// chunkWriter records each Write separately, to see that record sets are written by their own
// WriteTo and not copied into the encoded buffer.
type chunkWriter struct{ chunks [][]byte }

func (c *chunkWriter) Write(p []byte) (int, error) {
	c.chunks = append(c.chunks, append([]byte(nil), p...))
	return len(p), nil
}

func TestFetchResponseStreamsFileRecords(t *testing.T) {
	f1 := &fileLike{data: bytes.Repeat([]byte{0xa1}, 100)}
	f2 := &fileLike{data: bytes.Repeat([]byte{0xb2}, 50)}
	mk := func(r1, r2 record.Records) *FetchResponse {
		return &FetchResponse{Version: 3, ThrottleTimeMs: 1, Responses: []FetchResponseTopic{{Topic: "t",
			PartitionResponses: []FetchResponseTopicPartition{
				{PartitionHeader: FetchResponseTopicPartitionHeader{Partition: 0, HighWatermark: 9}, RecordSet: r1},
				{PartitionHeader: FetchResponseTopicPartitionHeader{Partition: 1, ErrorCode: 6, HighWatermark: -1}},
				{PartitionHeader: FetchResponseTopicPartitionHeader{Partition: 2, HighWatermark: 3}, RecordSet: r2},
			}}}}
	}
	inMemory := mk(record.NewMemoryRecords(f1.data), record.NewMemoryRecords(f2.data))
	want := inMemory.AppendTo(nil)

	resp := mk(f1, f2)
	var w chunkWriter
	n, err := resp.WriteTo(&w)
	if err != nil || int(n) != len(want) || resp.SizeOf() != len(want) {
		t.Fatalf("wrote %d (%v), size %d, want %d", n, err, resp.SizeOf(), len(want))
	}
	if got := bytes.Join(w.chunks, nil); !bytes.Equal(got, want) {
		t.Fatalf("streamed bytes differ from the in-memory encoding")
	}
	if f1.streams != 1 || f2.streams != 1 {
		t.Fatalf("record sets streamed %d and %d times", f1.streams, f2.streams)
	}
	if len(w.chunks) != 5 || !bytes.Equal(w.chunks[1], f1.data) || !bytes.Equal(w.chunks[3], f2.data) {
		t.Fatalf("record sets were not written as their own chunks: %d chunks", len(w.chunks))
	}
	// AppendTo still produces the full encoding by copying.
	if got := resp.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatal("AppendTo with file-like records differs")
	}
	// A decoded response wraps the set without copying.
	back := &FetchResponse{Version: 3}
	if err := back.ReadFrom(want); err != nil {
		t.Fatal(err)
	}
	mr := back.Responses[0].PartitionResponses[0].RecordSet.(*record.MemoryRecords)
	if &mr.Bytes()[0] == &f1.data[0] || !bytes.Equal(mr.Bytes(), f1.data) {
		t.Fatal("record set content")
	}
	if &mr.Bytes()[0] != &want[4+4+3+4+4+2+8+4] {
		t.Fatal("decoded record set does not alias the input")
	}
	// The nil set of the failed partition went out empty.
	if back.Responses[0].PartitionResponses[1].RecordSet.SizeInBytes() != 0 {
		t.Fatal("nil record set not empty")
	}
}

func TestWriteFrames(t *testing.T) {
	cid := "x"
	var buf bytes.Buffer
	req := &HeartbeatRequest{GroupID: "g", GroupGenerationID: 1, MemberID: "m"}
	h := RequestHeader{ApiKey: Heartbeat, CorrelationID: 5, ClientID: &cid}
	if _, err := WriteRequest(&buf, h, req); err != nil {
		t.Fatal(err)
	}
	frame := buf.Bytes()
	if int(frame[3]) != len(frame)-4 || frame[0]|frame[1]|frame[2] != 0 {
		t.Fatalf("size prefix %x for %d bytes", frame[:4], len(frame)-4)
	}
	gotH, body, err := ReadRequestHeader(frame[4:])
	if err != nil || gotH.CorrelationID != 5 {
		t.Fatal(err)
	}
	m, err := ParseRequest(gotH, body)
	if err != nil || *m.(*HeartbeatRequest) != *req {
		t.Fatalf("%+v %v", m, err)
	}
}
