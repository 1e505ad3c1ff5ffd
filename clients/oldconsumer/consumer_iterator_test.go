package oldconsumer

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

// recordsAt builds n messages "v<offset>" from base, in one set (compressed with codec).
func recordsAt(t *testing.T, base int64, n int, codec record.CompressionType) *record.MemoryRecords {
	t.Helper()
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, codec, record.CreateTime, base, 0, 0)
	for i := 0; i < n; i++ {
		off := base + int64(i)
		if _, err := b.AppendWithOffset(off, 1000+off, []byte(fmt.Sprintf("k%d", off)), []byte(fmt.Sprintf("v%d", off))); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func newTestStream(timeoutMs int32) (*chunkQueue, *KafkaStream[string, string], *PartitionTopicInfo) {
	q := newChunkQueue(4)
	pti := newPartitionTopicInfo("t", 3, q, 0, 0, 1<<20, "c", nil, discardEntry())
	s := newKafkaStream[string, string](q, timeoutMs, serialization.StringDecoder{}, serialization.StringDecoder{}, "c", nil, discardEntry())
	return q, s, pti
}

// TestConsumerIterator: messages come out of chunks in order with their metadata, each Next
// moves the partition's consumed offset, consumer.timeout.ms gives ErrConsumerTimeout without
// breaking the iterator, and the shutdown chunk ends the stream.
func TestConsumerIterator(t *testing.T) {
	q, s, pti := newTestStream(50)
	ctx := context.Background()
	if err := pti.Enqueue(ctx, recordsAt(t, 0, 3, record.NONE)); err != nil {
		t.Fatal(err)
	}
	if pti.GetFetchOffset() != 3 {
		t.Fatalf("fetch offset %d after enqueueing 0..2", pti.GetFetchOffset())
	}
	it := s.Iterator()
	for i := int64(0); i < 3; i++ {
		m, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if m.Topic != "t" || m.Partition != 3 || m.Offset != i || m.Key() != fmt.Sprintf("k%d", i) || m.Message() != fmt.Sprintf("v%d", i) ||
			m.Timestamp != 1000+i || m.TimestampType != record.CreateTime {
			t.Fatalf("message %d: %+v key %q value %q", i, m, m.Key(), m.Message())
		}
		if pti.GetConsumeOffset() != i+1 {
			t.Fatalf("consumed offset %d after offset %d", pti.GetConsumeOffset(), i)
		}
	}
	start := time.Now()
	if _, err := it.HasNext(); !errors.Is(err, ErrConsumerTimeout) {
		t.Fatalf("want a consumer timeout, got %v", err)
	}
	if time.Since(start) < 40*time.Millisecond {
		t.Fatal("the timeout came before consumer.timeout.ms")
	}
	// After a timeout the iterator works again.
	if err := pti.Enqueue(ctx, recordsAt(t, 3, 1, record.GZIP)); err != nil {
		t.Fatal(err)
	}
	if m, err := it.Next(); err != nil || m.Offset != 3 || m.Message() != "v3" {
		t.Fatalf("after timeout: %+v %v", m, err)
	}
	// The Go iterator form: the next chunk's messages, then the end of the stream.
	if err := pti.Enqueue(ctx, recordsAt(t, 4, 2, record.LZ4)); err != nil {
		t.Fatal(err)
	}
	_ = q.put(ctx, shutdownCommand)
	var offsets []int64
	for m, err := range it.All() {
		if err != nil {
			t.Fatal(err)
		}
		offsets = append(offsets, m.Offset)
	}
	if fmt.Sprint(offsets) != "[4 5]" {
		t.Fatalf("All gave %v", offsets)
	}
	q.clear()
	_ = q.put(ctx, shutdownCommand)
	if ok, err := it.HasNext(); ok || err != nil {
		t.Fatalf("after shutdown: %v %v", ok, err)
	}
	if _, err := it.Next(); !errors.Is(err, ErrNoSuchElement) {
		t.Fatalf("Next after the end: %v", err)
	}
}

// TestConsumerIteratorSkipsConsumedAndClears: a compressed set fetched from inside its wrapper
// starts before the consumed offset (those messages are skipped), and ClearCurrentChunk drops
// the rest of the chunk being iterated.
func TestConsumerIteratorSkipsConsumedAndClears(t *testing.T) {
	_, s, pti := newTestStream(20)
	ctx := context.Background()
	pti.ResetConsumeOffset(2)
	pti.ResetFetchOffset(2)
	// The wrapper holds 0..4 (the broker returns whole wrappers); consumption resumes at 2.
	if err := pti.Enqueue(ctx, recordsAt(t, 0, 5, record.SNAPPY)); err != nil {
		t.Fatal(err)
	}
	it := s.Iterator()
	m, err := it.Next()
	if err != nil || m.Offset != 2 {
		t.Fatalf("first message %+v %v, want offset 2", m, err)
	}
	s.Clear()
	if _, err := it.HasNext(); !errors.Is(err, ErrConsumerTimeout) {
		t.Fatalf("the cleared chunk must not give more messages: %v", err)
	}
}

// TestConsumerIteratorMessageTooLarge: a chunk with bytes but no whole message (a message
// bigger than fetch.message.max.bytes) fails the iterator for good.
func TestConsumerIteratorMessageTooLarge(t *testing.T) {
	_, s, pti := newTestStream(20)
	full := recordsAt(t, 0, 1, record.NONE).Bytes()
	if err := pti.Enqueue(context.Background(), record.NewMemoryRecords(full[:len(full)-3])); err != nil {
		t.Fatal(err)
	}
	it := s.Iterator()
	if _, err := it.HasNext(); !errors.Is(err, ErrMessageSizeTooLarge) {
		t.Fatalf("want MessageSizeTooLarge, got %v", err)
	}
	if _, err := it.HasNext(); !errors.Is(err, ErrIteratorFailed) {
		t.Fatalf("a failed iterator stays failed: %v", err)
	}
}

// TestEnqueueWaitsForRoom: a full queue blocks the fetcher until its context ends.
func TestEnqueueWaitsForRoom(t *testing.T) {
	q := newChunkQueue(1)
	pti := newPartitionTopicInfo("t", 0, q, 0, 0, 1<<20, "c", nil, discardEntry())
	if err := pti.Enqueue(context.Background(), recordsAt(t, 0, 1, record.NONE)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := pti.Enqueue(ctx, recordsAt(t, 1, 1, record.NONE)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the wait to end with the context, got %v", err)
	}
	if pti.GetFetchOffset() != 1 {
		t.Fatalf("a chunk not queued must not move the fetch offset: %d", pti.GetFetchOffset())
	}
}
