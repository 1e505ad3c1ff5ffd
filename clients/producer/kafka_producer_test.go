package producer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/clientstest"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

func newProducer(t *testing.T, c *clientstest.MockCluster, kv ...string) *KafkaProducer[[]byte, []byte] {
	t.Helper()
	props := map[string]string{"bootstrap.servers": c.Bootstrap(), "max.block.ms": "10000"}
	for i := 0; i < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	p, err := NewKafkaProducerWith[[]byte, []byte](props, serialization.ByteArraySerializer{}, serialization.ByteArraySerializer{},
		ProducerOptions[[]byte, []byte]{Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(0) }) //nolint:errcheck
	return p
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// Records sent to explicit and partitioner-chosen partitions are acknowledged at their offsets,
// in order, with callbacks in record order, for every codec; null keys and values survive.
func TestSendAcknowledgedEveryCodec(t *testing.T) {
	for _, codec := range []string{"none", "gzip", "snappy", "lz4"} {
		t.Run(codec, func(t *testing.T) {
			c := clientstest.NewMockCluster(t, 2)
			c.CreateTopic("t", 4)
			p := newProducer(t, c, "compression.type", codec, "linger.ms", "5")
			var mu sync.Mutex
			var order []int
			var futs []*FutureRecordMetadata
			for i := 0; i < 200; i++ {
				rec := NewProducerRecord("t", []byte(fmt.Sprintf("k%d", i)), []byte(fmt.Sprintf("v%d", i))).WithPartition(int32(i % 4))
				if i == 7 {
					rec.Key, rec.Value = nil, nil
				}
				f, err := p.Send(rec, func(md *RecordMetadata, err error) {
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					order = append(order, int(md.Offset)*4+int(md.Partition))
					mu.Unlock()
				})
				if err != nil {
					t.Fatal(err)
				}
				futs = append(futs, f)
			}
			p.Flush()
			for i, f := range futs {
				md, err := f.Get(ctx(t))
				if err != nil || md.Partition != int32(i%4) || md.Offset != int64(i/4) || md.Topic != "t" {
					t.Fatalf("record %d: %v %v", i, md, err)
				}
			}
			for p := int32(0); p < 4; p++ {
				recs := c.Records("t", p)
				if len(recs) != 50 {
					t.Fatalf("partition %d holds %d records", p, len(recs))
				}
				for j, r := range recs {
					i := j*4 + int(p)
					if i == 7 {
						if r.Key != nil || r.Value != nil {
							t.Fatalf("null key/value became %q %q", r.Key, r.Value)
						}
						continue
					}
					if string(r.Key) != fmt.Sprintf("k%d", i) || string(r.Value) != fmt.Sprintf("v%d", i) || r.Codec.Name() != codec {
						t.Fatalf("partition %d offset %d: %q %q %s", p, j, r.Key, r.Value, r.Codec)
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			last := map[int]int{}
			for _, o := range order {
				part := o % 4
				if prev, ok := last[part]; ok && o < prev {
					t.Fatalf("callbacks out of order in partition %d", part)
				}
				last[part] = o
			}
		})
	}
}

// Keyed records land where murmur2 says; records without a key spread over the partitions.
func TestSendPartitioning(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("t", 3)
	p := newProducer(t, c)
	for i := 0; i < 30; i++ {
		md, err := mustSend(t, p, NewProducerRecord("t", []byte(fmt.Sprintf("key-%d", i)), []byte("v")))
		if err != nil {
			t.Fatal(err)
		}
		want := (&DefaultPartitioner{}).Partition("t", nil, []byte(fmt.Sprintf("key-%d", i)), nil, nil, p.metadata.Fetch())
		if md.Partition != want {
			t.Fatalf("key-%d in partition %d, want %d", i, md.Partition, want)
		}
	}
	seen := map[int32]int{}
	for i := 0; i < 30; i++ {
		md, err := mustSend(t, p, NewProducerRecord[[]byte, []byte]("t", nil, []byte("v")))
		if err != nil {
			t.Fatal(err)
		}
		seen[md.Partition]++
	}
	if seen[0] != 10 || seen[1] != 10 || seen[2] != 10 {
		t.Fatalf("null keys: %v", seen)
	}
}

func mustSend(t *testing.T, p *KafkaProducer[[]byte, []byte], rec ProducerRecord[[]byte, []byte]) (*RecordMetadata, error) {
	t.Helper()
	f, err := p.Send(rec, nil)
	if err != nil {
		return nil, err
	}
	return f.Get(ctx(t))
}

// The bad-input cases of the issue: none hangs, none panics.
func TestSendErrors(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("t", 1)
	p := newProducer(t, c, "max.request.size", "1000", "max.block.ms", "500")

	// A record over max.request.size: RecordTooLargeException in the callback and the future.
	var cbErr error
	f, err := p.Send(NewProducerRecord("t", []byte("k"), make([]byte, 2000)), func(_ *RecordMetadata, err error) { cbErr = err })
	if err != nil {
		t.Fatal(err)
	}
	_, ferr := f.Get(ctx(t))
	want := "The message is 2035 bytes when serialized which is larger than the maximum request size you have configured with the max.request.size configuration."
	if !errors.Is(cbErr, protocol.ErrMessageTooLarge) || !strings.Contains(cbErr.Error(), want) || ferr != cbErr ||
		protocol.ExceptionName(cbErr) != "org.apache.kafka.common.errors.RecordTooLargeException" {
		t.Fatalf("too large: callback %v, future %v", cbErr, ferr)
	}

	// An absent topic: "Failed to update metadata after 500 ms.", after max.block.ms.
	start := time.Now()
	f, err = p.Send(NewProducerRecord("absent", []byte("k"), []byte("v")), func(_ *RecordMetadata, err error) { cbErr = err })
	if err != nil {
		t.Fatal(err)
	}
	_, ferr = f.Get(ctx(t))
	if time.Since(start) < 450*time.Millisecond || !errors.Is(ferr, protocol.ErrRequestTimedOut) ||
		!strings.HasSuffix(ferr.Error(), "Failed to update metadata after 500 ms.") || cbErr != ferr {
		t.Fatalf("absent topic after %v: %v / %v", time.Since(start), ferr, cbErr)
	}

	// A partition out of range, and a bad timestamp: thrown (returned), no callback.
	cbErr = nil
	if _, err := p.Send(NewProducerRecord("t", []byte("k"), []byte("v")).WithPartition(5), func(*RecordMetadata, error) { cbErr = errors.New("called") }); err == nil ||
		err.Error() != "Invalid partition given with record: 5 is not in the range [0...1)." || cbErr != nil {
		t.Fatalf("partition out of range: %v %v", err, cbErr)
	}
	if _, err := p.Send(NewProducerRecord("t", []byte("k"), []byte("v")).WithTimestamp(-5), nil); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("negative timestamp: %v", err)
	}
	if md, err := mustSend(t, p, NewProducerRecord("t", []byte("k"), []byte("ok"))); err != nil || md.Offset != 0 {
		t.Fatalf("a good record after the bad ones: %v %v", md, err)
	}

	// Send after Close is an error; Close twice is fine.
	if err := p.Close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Send(NewProducerRecord("t", []byte("k"), []byte("v")), nil); !errors.Is(err, ErrProducerClosed) ||
		err.Error() != "Cannot send after the producer is closed." {
		t.Fatalf("send after close: %v", err)
	}
	if err := p.Close(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(-time.Second); !errors.Is(err, ErrIllegalArgument) {
		t.Fatalf("negative timeout: %v", err)
	}
}

// NOT_LEADER_FOR_PARTITION is retried after a metadata refresh, in order, with
// max.in.flight=1; without retries the error reaches the callback.
func TestRetriesAcrossLeaderMove(t *testing.T) {
	c := clientstest.NewMockCluster(t, 2)
	c.CreateTopic("t", 1) // led by broker 0
	p := newProducer(t, c, "retries", "10", "max.in.flight.requests.per.connection", "1", "retry.backoff.ms", "20", "acks", "all")
	if _, err := mustSend(t, p, NewProducerRecord("t", []byte("k"), []byte("first"))); err != nil {
		t.Fatal(err)
	}
	// Broker 0 now refuses (a stale leader), and a little later the metadata moves to broker 1.
	var refused atomic.Int32
	c.SetHook(func(id int32, h protocol.RequestHeader, req protocol.Message) (protocol.Message, bool) {
		if h.ApiKey == protocol.Produce && id == 0 {
			if refused.Add(1) == 3 {
				c.SetLeader("t", 0, 1)
			}
			return &protocol.ProduceResponse{Responses: []protocol.ProduceResponseTopic{{Topic: "t",
				PartitionResponses: []protocol.ProduceResponseTopicPartition{{Partition: 0, ErrorCode: protocol.ErrNotLeaderForPartition.Code, BaseOffset: -1, LogAppendTime: -1}}}}}, false
		}
		return nil, false
	})
	var futs []*FutureRecordMetadata
	for i := 0; i < 20; i++ {
		f, err := p.Send(NewProducerRecord("t", []byte("k"), []byte(fmt.Sprintf("m%d", i))), nil)
		if err != nil {
			t.Fatal(err)
		}
		futs = append(futs, f)
	}
	for i, f := range futs {
		md, err := f.Get(ctx(t))
		if err != nil || md.Offset != int64(i+1) {
			t.Fatalf("record %d: %v %v", i, md, err)
		}
	}
	recs := c.Records("t", 0)
	for i, r := range recs[1:] {
		if string(r.Value) != fmt.Sprintf("m%d", i) {
			t.Fatalf("order lost: offset %d holds %q", i+1, r.Value)
		}
	}
	if refused.Load() < 3 {
		t.Fatalf("broker 0 refused %d times", refused.Load())
	}
	var rate float64
	for _, m := range p.Metrics() {
		if m.MetricName().Name == "record-retry-rate" && m.MetricName().Group == "producer-metrics" {
			rate = m.Value()
		}
	}
	if rate <= 0 {
		t.Fatal("record-retry-rate not recorded")
	}

	// No retries: the error is the callback's.
	p2 := newProducer(t, c, "retries", "0")
	c.SetHook(func(id int32, h protocol.RequestHeader, req protocol.Message) (protocol.Message, bool) {
		if h.ApiKey == protocol.Produce {
			return &protocol.ProduceResponse{Responses: []protocol.ProduceResponseTopic{{Topic: "t",
				PartitionResponses: []protocol.ProduceResponseTopicPartition{{Partition: 0, ErrorCode: protocol.ErrNotEnoughReplicas.Code, BaseOffset: -1, LogAppendTime: -1}}}}}, false
		}
		return nil, false
	})
	if _, err := mustSend(t, p2, NewProducerRecord("t", []byte("k"), []byte("x"))); !errors.Is(err, protocol.ErrNotEnoughReplicas) {
		t.Fatalf("without retries: %v", err)
	}
}

// acks=0: the future completes with offset -1 once the request is written.
func TestAcksZero(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("t", 1)
	p := newProducer(t, c, "acks", "0")
	md, err := mustSend(t, p, NewProducerRecord("t", []byte("k"), []byte("v")))
	if err != nil || md.Offset != -1 {
		t.Fatalf("acks=0: %v %v", md, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(c.Records("t", 0)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(c.Records("t", 0)) != 1 {
		t.Fatal("the record never arrived")
	}
}

type countingInterceptor struct {
	sends, acks, errs atomic.Int32
}

func (i *countingInterceptor) OnSend(r ProducerRecord[string, string]) ProducerRecord[string, string] {
	i.sends.Add(1)
	r.Value = "intercepted:" + r.Value
	return r
}

func (i *countingInterceptor) OnAcknowledgement(_ *RecordMetadata, err error) {
	if err != nil {
		i.errs.Add(1)
	} else {
		i.acks.Add(1)
	}
}

func (i *countingInterceptor) Close() {}

// Interceptors change records before they are sent and see every outcome; string serializers
// are loaded by class name; buffer-available-bytes and the other producer metrics exist.
func TestInterceptorsSerializersMetrics(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("t", 1)
	ic := &countingInterceptor{}
	p, err := NewKafkaProducerWith[string, string](map[string]string{"bootstrap.servers": c.Bootstrap(), "max.block.ms": "300",
		"key.serializer": "org.apache.kafka.common.serialization.StringSerializer", "value.serializer": "org.apache.kafka.common.serialization.StringSerializer"},
		nil, nil, ProducerOptions[string, string]{Interceptors: []ProducerInterceptor[string, string]{ic}, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(0) //nolint:errcheck
	f, err := p.Send(NewProducerRecord("t", "k", "v"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Get(ctx(t)); err != nil {
		t.Fatal(err)
	}
	f, _ = p.Send(NewProducerRecord("absent", "k", "v"), nil)
	f.Get(ctx(t)) //nolint:errcheck
	if got := c.Records("t", 0); string(got[0].Value) != "intercepted:v" || ic.sends.Load() != 2 || ic.acks.Load() != 1 || ic.errs.Load() != 1 {
		t.Fatalf("interceptor: %q sends %d acks %d errs %d", got[0].Value, ic.sends.Load(), ic.acks.Load(), ic.errs.Load())
	}
	names := map[string]bool{}
	for _, m := range p.Metrics() {
		names[m.MetricName().Group+"/"+m.MetricName().Name] = true
		if m.MetricName().Tags["client-id"] != p.ClientID() {
			t.Fatalf("metric %s without the client-id tag", m.MetricName())
		}
	}
	for _, n := range []string{"producer-metrics/record-send-rate", "producer-metrics/record-error-rate", "producer-metrics/request-latency-avg",
		"producer-metrics/batch-size-avg", "producer-metrics/buffer-available-bytes", "producer-metrics/buffer-total-bytes",
		"producer-metrics/record-queue-time-avg", "producer-metrics/requests-in-flight", "producer-metrics/metadata-age",
		"producer-metrics/bufferpool-wait-ratio", "producer-metrics/outgoing-byte-rate", "producer-metrics/connection-count",
		"producer-topic-metrics/record-send-rate", "producer-node-metrics/request-latency-avg"} {
		if !names[n] {
			t.Errorf("metric %s missing", n)
		}
	}
	if !strings.HasPrefix(p.ClientID(), "producer-") {
		t.Fatalf("client id %q", p.ClientID())
	}
}

// Close(0) fails what is queued at once; Close with a timeout sends it first. Many goroutines
// send at once (run with -race).
func TestCloseAndConcurrency(t *testing.T) {
	c := clientstest.NewMockCluster(t, 2)
	c.CreateTopic("t", 4)
	p := newProducer(t, c, "linger.ms", "2")
	var wg sync.WaitGroup
	var ok atomic.Int32
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 250; i++ {
				_, err := p.Send(NewProducerRecord("t", []byte(fmt.Sprintf("%d-%d", g, i)), []byte("v")), func(_ *RecordMetadata, err error) {
					if err == nil {
						ok.Add(1)
					}
				})
				if err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	if err := p.Close(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if ok.Load() != 2000 {
		t.Fatalf("%d of 2000 acknowledged before Close returned", ok.Load())
	}
	// Brokers that never answer a produce request: Close(0) fails the records at once.
	c.SetHook(func(_ int32, h protocol.RequestHeader, _ protocol.Message) (protocol.Message, bool) {
		return nil, h.ApiKey == protocol.Produce
	})
	p2 := newProducer(t, c)
	var futs []*FutureRecordMetadata
	for i := 0; i < 10; i++ {
		f, err := p2.Send(NewProducerRecord("t", []byte("k"), []byte("v")), nil)
		if err != nil {
			t.Fatal(err)
		}
		futs = append(futs, f)
	}
	start := time.Now()
	if err := p2.Close(0); err != nil {
		t.Fatal(err)
	}
	for _, f := range futs {
		if _, err := f.Get(ctx(t)); err == nil || err.Error() != "Producer is closed forcefully." {
			t.Fatalf("after Close(0): %v", err)
		}
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("Close(0) took %v", time.Since(start))
	}
}

// A record with a LogAppendTime broker timestamp reports it; the create time otherwise.
func TestRecordMetadataTimestamp(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("t", 1)
	p := newProducer(t, c)
	md, err := mustSend(t, p, NewProducerRecord("t", []byte("k"), []byte("v")).WithTimestamp(12345))
	if err != nil || md.Timestamp != 12345 || md.SerializedKeySize != 1 || md.SerializedValueSize != 1 {
		t.Fatalf("create time: %+v %v", md, err)
	}
	c.SetHook(func(_ int32, h protocol.RequestHeader, req protocol.Message) (protocol.Message, bool) {
		if h.ApiKey == protocol.Produce {
			return &protocol.ProduceResponse{Responses: []protocol.ProduceResponseTopic{{Topic: "t",
				PartitionResponses: []protocol.ProduceResponseTopicPartition{{Partition: 0, BaseOffset: 9, LogAppendTime: 777}}}}}, false
		}
		return nil, false
	})
	md, err = mustSend(t, p, NewProducerRecord("t", []byte("k"), []byte("v")).WithTimestamp(12345))
	if err != nil || md.Timestamp != 777 || md.Offset != 9 {
		t.Fatalf("log append time: %+v %v", md, err)
	}
	if record.NoTimestamp != -1 {
		t.Fatal("NoTimestamp")
	}
}

// With max.in.flight.requests.per.connection=1 a partition with a batch in flight is muted: when
// its leader moves while batch A is in flight to the old leader, batch B waits, and A (refused by
// the old leader, retried) is written before B at the new leader. Without muting, B would go to
// the new leader at once and land ahead of A.
func TestMutedPartitionKeepsOrderAcrossLeaderMove(t *testing.T) {
	c := clientstest.NewMockCluster(t, 2)
	c.CreateTopic("t", 1) // led by broker 0
	c.CreateTopic("u", 1)
	c.SetLeader("u", 0, 1) // its requests must not queue behind the one held at broker 0
	p := newProducer(t, c, "retries", "5", "max.in.flight.requests.per.connection", "1", "retry.backoff.ms", "10")
	if _, err := mustSend(t, p, NewProducerRecord("t", []byte("k"), []byte("warm-up"))); err != nil {
		t.Fatal(err)
	}
	arrived, release := make(chan struct{}), make(chan struct{})
	var releaseOnce, once sync.Once
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })
	c.SetHook(func(id int32, h protocol.RequestHeader, req protocol.Message) (protocol.Message, bool) {
		r, ok := req.(*protocol.ProduceRequest)
		if !ok || id != 0 || r.TopicData[0].Topic != "t" {
			return nil, false
		}
		first := false
		once.Do(func() { first = true })
		if first {
			close(arrived)
			<-release
		}
		return &protocol.ProduceResponse{Responses: []protocol.ProduceResponseTopic{{Topic: "t",
			PartitionResponses: []protocol.ProduceResponseTopicPartition{{Partition: 0, ErrorCode: protocol.ErrNotLeaderForPartition.Code, BaseOffset: -1, LogAppendTime: -1}}}}}, false
	})
	fa, err := p.Send(NewProducerRecord("t", []byte("k"), []byte("A")), nil)
	if err != nil {
		t.Fatal(err)
	}
	<-arrived
	c.SetLeader("t", 0, 1)
	if _, err := mustSend(t, p, NewProducerRecord("u", []byte("k"), []byte("refresh"))); err != nil { // fetches the new leader
		t.Fatal(err)
	}
	v := p.metadata.RequestUpdate()
	p.sender.Wakeup()
	if err := p.metadata.AwaitUpdate(v, 10_000); err != nil {
		t.Fatal(err)
	}
	fb, err := p.Send(NewProducerRecord("t", []byte("k"), []byte("B")), nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // B would be written now if t-0 were not muted
	releaseOnce.Do(func() { close(release) })
	ma, err := fa.Get(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	mb, err := fb.Get(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if ma.Offset >= mb.Offset {
		t.Fatalf("A at offset %d, B at %d: order lost", ma.Offset, mb.Offset)
	}
	if recs := c.Records("t", 0); string(recs[len(recs)-2].Value) != "A" || string(recs[len(recs)-1].Value) != "B" {
		t.Fatalf("log order %q %q", recs[len(recs)-2].Value, recs[len(recs)-1].Value)
	}
}

// Close with a timeout called from a callback (on the producer's own goroutine) does not wait
// for itself: it returns after the timeout and the producer shuts down.
func TestCloseFromCallback(t *testing.T) {
	c := clientstest.NewMockCluster(t, 1)
	c.CreateTopic("t", 1)
	p := newProducer(t, c)
	closed := make(chan error, 1)
	if _, err := p.Send(NewProducerRecord("t", []byte("k"), []byte("v")), func(*RecordMetadata, error) {
		closed <- p.Close(200 * time.Millisecond)
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close from a callback did not return")
	}
	select {
	case <-p.sender.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the sender did not stop")
	}
	if _, err := p.Send(NewProducerRecord("t", []byte("k"), []byte("v")), nil); !errors.Is(err, ErrProducerClosed) {
		t.Fatalf("send after close from callback: %v", err)
	}
}
