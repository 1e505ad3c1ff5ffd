package systemtests

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// Issue 5 acceptance: garbage, truncated frames, oversized frames, unknown api keys and
// slow-loris connections never crash the broker process nor disturb other connections. Good
// clients (sarama producing with acks=1 and consuming; raw ApiVersions/Metadata round trips)
// run throughout and must see no error; afterwards every acknowledged message is consumed at its
// offset and the process is still the same one, still registered.
func TestBadClientsDoNotDisturbGoodOnes(t *testing.T) {
	CaptureSaramaLog(t, 200)
	c := newCluster(t, ClusterConfig{Brokers: 1, Properties: map[string]string{
		"socket.request.max.bytes": "1048576", // oversized frames are cheap to send
	}})
	b := c.Brokers[0]
	pid := b.PID()
	ctx := within(t, 5*time.Minute)
	const topic = "bad-clients"
	if err := c.CreateTopic(ctx, topic, map[int32][]int32{0: {0}, 1: {0}}); err != nil {
		t.Fatal(err)
	}
	duration := 8 * time.Second
	if long() {
		duration = 60 * time.Second
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var goodErrs sync.Map
	var badOps [8]atomic.Int64
	var closedByBroker, notClosed atomic.Int64

	// Bad clients.
	for g := 0; g < 24; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for kind := g % 8; ; kind = (kind + 1) % 8 {
				select {
				case <-stop:
					return
				default:
				}
				expectClose, err := misbehave(b.Addr(), kind, rng, stop)
				if err != nil {
					continue // dial errors while the accept queue is busy are not the point
				}
				badOps[kind].Add(1)
				switch expectClose {
				case closedYes:
					closedByBroker.Add(1)
				case closedNo:
					notClosed.Add(1)
				}
			}
		}(g)
	}

	// Good raw clients: ApiVersions and Metadata round trips on long-lived connections.
	var rawOK atomic.Int64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			w, err := DialWire(b.Addr(), fmt.Sprintf("good-%d", g), 30*time.Second)
			if err != nil {
				goodErrs.Store(fmt.Sprintf("raw %d dial", g), err)
				return
			}
			defer w.Close()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := w.Roundtrip(&protocol.ApiVersionsRequest{Version: 0}); err != nil {
					goodErrs.Store(fmt.Sprintf("raw %d ApiVersions", g), err)
					return
				}
				resp, err := w.Roundtrip(&protocol.MetadataRequest{Version: 1, Topics: []string{topic}})
				if err != nil {
					goodErrs.Store(fmt.Sprintf("raw %d Metadata", g), err)
					return
				}
				if md := resp.(*protocol.MetadataResponse); len(md.TopicMetadata) != 1 || md.TopicMetadata[0].TopicErrorCode != 0 {
					goodErrs.Store(fmt.Sprintf("raw %d Metadata", g), fmt.Errorf("unexpected metadata %+v", md.TopicMetadata))
					return
				}
				rawOK.Add(1)
			}
		}(g)
	}

	// Good producer: batches of acks=1 messages until stop, every acknowledgement recorded.
	checker := NewChecker()
	cfg, err := SaramaConfig(sarama.V0_10_2_0, "snappy")
	if err != nil {
		t.Fatal(err)
	}
	var produced atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for batch := 0; ; batch++ {
			select {
			case <-stop:
				return
			default:
			}
			const per = 2000
			err := SaramaProduce(ctx, c.BootstrapServers(), cfg, ProduceSpec{
				Topic: topic, Partitions: 2, First: batch * per, Count: per, Size: 100,
				OnAck: func(i int, p int32, off int64) {
					k, v := MessageFor(i, 100)
					checker.Sent(k, v)
					checker.Acked(common.TopicPartition{Topic: topic, Partition: p}, off, k, v)
					produced.Add(1)
				},
			})
			if err != nil {
				goodErrs.Store(fmt.Sprintf("producer batch %d", batch), err)
				return
			}
		}
	}()

	time.Sleep(duration)
	close(stop)
	wg.Wait()
	goodErrs.Range(func(k, v any) bool {
		t.Errorf("good client %v: %v", k, v)
		return true
	})
	if b.PID() != pid {
		t.Fatalf("broker process %d is gone (now %d, exit code %d)", pid, b.PID(), b.ExitCode())
	}
	if _, err := c.WaitRegistered(ctx, b); err != nil {
		t.Fatal(err)
	}
	var ops int64
	for i := range badOps {
		ops += badOps[i].Load()
	}
	t.Logf("%d bad connections (%d closed by the broker as expected, %d expected closes not seen), %d raw good round trips, %d messages acknowledged",
		ops, closedByBroker.Load(), notClosed.Load(), rawOK.Load(), produced.Load())
	if notClosed.Load() > 0 {
		t.Errorf("%d connections with an invalid frame were not closed by the broker", notClosed.Load())
	}
	if rawOK.Load() == 0 || produced.Load() == 0 {
		t.Fatalf("good clients made no progress: %d round trips, %d acknowledged", rawOK.Load(), produced.Load())
	}
	// Consume everything up to the latest offset and compare with the acknowledgements.
	checkAllAcked(ctx, t, c, cfg, topic, 2, checker)
	if lines := b.Logs().Matches(regexp.MustCompile(`panic|fatal error:|goroutine [0-9]+ \[`)); len(lines) > 0 {
		t.Errorf("broker log shows a panic: %q", lines[0])
	}
}

// checkAllAcked consumes each partition up to its latest offset and runs the checker.
func checkAllAcked(ctx context.Context, t *testing.T, c *Cluster, cfg *sarama.Config, topic string, partitions int32, checker *Checker) {
	t.Helper()
	for p := int32(0); p < partitions; p++ {
		latest, _, err := ListOffset(c.Brokers[0].Addr(), topic, p, -1)
		if err != nil {
			t.Fatal(err)
		}
		tp := common.TopicPartition{Topic: topic, Partition: p}
		if latest > 0 {
			if _, err := SaramaConsume(ctx, c.BootstrapServers(), cfg, topic, p, latest, func(m ConsumedMessage) error {
				checker.Consumed(tp, m.Offset, m.Key, m.Value)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		checker.HighWatermark(tp, latest)
	}
	r := checker.Check()
	t.Logf("acked vs consumed: %s", r)
	if !r.OK() {
		t.Fatalf("acked vs consumed: %s", r)
	}
}

type closeExpectation int

const (
	closedDontCare closeExpectation = iota
	closedYes
	closedNo
)

// misbehave opens one connection and does bad thing kind to it. For the kinds after which
// 0.10.2 closes the connection (a frame it cannot parse, a size it refuses), it waits for the
// close and reports whether it came.
func misbehave(addr string, kind int, rng *rand.Rand, stop <-chan struct{}) (closeExpectation, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return closedDontCare, err
	}
	defer conn.Close()
	header := func(key, version int16) []byte {
		cid := "bad"
		return protocol.RequestHeader{ApiKey: protocol.ApiKeys(key), ApiVersion: version, CorrelationID: 1, ClientID: &cid}.AppendTo(nil)
	}
	frame := func(body []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
		return append(out, body...)
	}
	expectClose := func() closeExpectation {
		_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
		_, err := io.Copy(io.Discard, conn)
		var ne net.Error
		if err == nil || !(errors.As(err, &ne) && ne.Timeout()) {
			return closedYes // EOF or reset
		}
		return closedNo
	}
	switch kind {
	case 0: // garbage, then hang up
		junk := make([]byte, 1+rng.Intn(2000))
		rng.Read(junk)
		_, _ = conn.Write(junk)
		return closedDontCare, nil
	case 1: // truncated frame: the size promises more than comes, then hang up
		body := append(header(3, 1), 0, 0, 0, 1)
		f := frame(body)
		_, _ = conn.Write(f[:len(f)-3])
		return closedDontCare, nil
	case 2: // oversized frame (above socket.request.max.bytes): the broker closes
		_, _ = conn.Write(binary.BigEndian.AppendUint32(nil, 64<<20))
		_, _ = conn.Write(make([]byte, 1024))
		return expectClose(), nil
	case 3: // negative size: the broker closes
		_, _ = conn.Write([]byte{0xff, 0xff, 0xff, 0xf0, 1, 2, 3})
		return expectClose(), nil
	case 4: // unknown api key: the broker closes without answering
		_, _ = conn.Write(frame(append(header(99, 0), 1, 2, 3, 4)))
		return expectClose(), nil
	case 5: // known key at a version 0.10.2 does not speak: closed
		_, _ = conn.Write(frame(append(header(0, 77), 0, 1, 0, 0, 0, 0)))
		return expectClose(), nil
	case 6: // slow loris: a valid request one byte at a time, slower than anyone would
		f := frame(header(18, 0))
		for i := 0; i < len(f)-1; i++ {
			select {
			case <-stop:
				return closedDontCare, nil
			case <-time.After(150 * time.Millisecond):
			}
			if _, err := conn.Write(f[i : i+1]); err != nil {
				return closedDontCare, nil
			}
		}
		return closedDontCare, nil
	default: // a well-formed body that does not decode (Produce v2 with a huge array count)
		body := header(0, 2)
		body = binary.BigEndian.AppendUint16(body, 1)     // acks
		body = binary.BigEndian.AppendUint32(body, 1000)  // timeout
		body = binary.BigEndian.AppendUint32(body, 1<<30) // topic count far beyond the bytes
		_, _ = conn.Write(frame(body))
		return expectClose(), nil
	}
}
