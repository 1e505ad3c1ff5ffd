package interop

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// fakeBroker is a single-broker, single-partition Kafka 0.10.2 stand-in on loopback: broker 1,
// leader of partition 0 of topic, whose log is exactly the message set records covering offsets
// [logStart, logEnd). It answers ApiVersions, Metadata, ListOffsets, Fetch and Produce with
// clients/protocol's response types, at the request's version, as KafkaApis would.
type fakeBroker struct {
	t        *testing.T
	ln       net.Listener
	topic    string
	records  *record.MemoryRecords
	logStart int64
	logEnd   int64

	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	seen  map[protocol.ApiKeys][]int16 // versions of each request received, for assertions

	// produced holds the messages of every Produce request, deep-decoded with clients/record;
	// the log end advances by their count, as if they had been appended.
	produced []producedMessage
}

// producedMessage is one message a client produced, as zkafka decoded it.
type producedMessage struct {
	offset     int64 // offset assigned by the fake broker
	magic      int8
	codec      record.CompressionType // of the shallow entry that carried it
	key, value []byte
	timestamp  int64
}

func startFakeBroker(t *testing.T, topic string, records *record.MemoryRecords, logStart, logEnd int64) *fakeBroker {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &fakeBroker{
		t: t, ln: ln, topic: topic, records: records, logStart: logStart, logEnd: logEnd,
		conns: map[net.Conn]struct{}{}, seen: map[protocol.ApiKeys][]int16{},
	}
	b.wg.Add(1)
	go b.acceptLoop()
	t.Cleanup(b.close)
	return b
}

func (b *fakeBroker) addr() string { return b.ln.Addr().String() }

func (b *fakeBroker) close() {
	_ = b.ln.Close()
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *fakeBroker) end() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.logEnd
}

func (b *fakeBroker) versions(key protocol.ApiKeys) []int16 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int16(nil), b.seen[key]...)
}

func (b *fakeBroker) acceptLoop() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns[c] = struct{}{}
		b.mu.Unlock()
		b.wg.Add(1)
		go b.serve(c)
	}
}

// serve handles one connection's requests strictly in order, as a 0.10.2 Processor does with its
// muted channel.
func (b *fakeBroker) serve(c net.Conn) {
	defer b.wg.Done()
	defer func() {
		b.mu.Lock()
		delete(b.conns, c)
		b.mu.Unlock()
		_ = c.Close()
	}()
	for {
		var size [4]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(size[:])
		if n > 1<<20 {
			b.t.Errorf("request of %d bytes", n)
			return
		}
		frame := make([]byte, n)
		if _, err := io.ReadFull(c, frame); err != nil {
			return
		}
		h, body, err := protocol.ReadRequestHeader(frame)
		if err != nil {
			b.t.Errorf("request header: %v", err)
			return
		}
		req, err := protocol.ParseRequest(h, body)
		if err != nil {
			// A 0.10.2 broker closes the connection without an answer.
			b.t.Errorf("%s v%d: %v", h.ApiKey, h.ApiVersion, err)
			return
		}
		b.mu.Lock()
		b.seen[h.ApiKey] = append(b.seen[h.ApiKey], h.ApiVersion)
		b.mu.Unlock()
		resp, err := b.handle(req)
		if err != nil {
			b.t.Errorf("%s v%d: %v", h.ApiKey, h.ApiVersion, err)
			return
		}
		if _, err := protocol.WriteResponse(c, protocol.ResponseHeader{CorrelationID: h.CorrelationID}, resp); err != nil {
			return
		}
	}
}

func (b *fakeBroker) handle(req protocol.Message) (protocol.Message, error) {
	switch r := req.(type) {
	case *protocol.ApiVersionsRequest:
		return protocol.ApiVersionsResponseFor(r.Version), nil
	case *protocol.MetadataRequest:
		return b.metadata(r), nil
	case *protocol.ListOffsetRequest:
		return b.listOffsets(r), nil
	case *protocol.FetchRequest:
		return b.fetch(r), nil
	case *protocol.ProduceRequest:
		return b.produce(r)
	}
	return nil, fmt.Errorf("fake broker does not handle %s", req.Key())
}

func (b *fakeBroker) metadata(r *protocol.MetadataRequest) *protocol.MetadataResponse {
	host, portStr, _ := net.SplitHostPort(b.addr())
	port, _ := strconv.Atoi(portStr)
	clusterID := "zkafka-interop"
	return &protocol.MetadataResponse{
		Version:      r.Version,
		Brokers:      []protocol.MetadataResponseBroker{{NodeID: 1, Host: host, Port: int32(port)}},
		ClusterID:    &clusterID,
		ControllerID: 1,
		TopicMetadata: []protocol.MetadataResponseTopic{{
			Topic: b.topic,
			PartitionMetadata: []protocol.MetadataResponseTopicPartition{{
				PartitionID: 0, Leader: 1, Replicas: []int32{1}, Isr: []int32{1},
			}},
		}},
	}
}

// listOffsets answers -2 (earliest) with logStart and anything else with logEnd.
func (b *fakeBroker) listOffsets(r *protocol.ListOffsetRequest) *protocol.ListOffsetResponse {
	logEnd := b.end()
	resp := &protocol.ListOffsetResponse{Version: r.Version}
	for _, tp := range r.Topics {
		rt := protocol.ListOffsetResponseTopic{Topic: tp.Topic}
		for _, p := range tp.Partitions {
			pr := protocol.ListOffsetResponseTopicPartition{Partition: p.Partition, Timestamp: -1}
			if tp.Topic != b.topic || p.Partition != 0 {
				pr.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
			} else {
				off := logEnd
				if p.Timestamp == -2 {
					off = b.logStart
				}
				pr.Offset = off
				pr.Offsets = []int64{off}
			}
			rt.PartitionResponses = append(rt.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, rt)
	}
	return resp
}

// fetch returns the whole set when the fetch offset is inside the log (the client skips messages
// before its offset, as with a real segment read that starts at a wrapper), and an empty set,
// after a short wait standing in for DelayedFetch, when the client is at the end.
func (b *fakeBroker) fetch(r *protocol.FetchRequest) *protocol.FetchResponse {
	logEnd := b.end()
	resp := &protocol.FetchResponse{Version: r.Version}
	waited := false
	for _, tp := range r.Topics {
		rt := protocol.FetchResponseTopic{Topic: tp.Topic}
		for _, p := range tp.Partitions {
			pr := protocol.FetchResponseTopicPartition{
				PartitionHeader: protocol.FetchResponseTopicPartitionHeader{Partition: p.Partition, HighWatermark: logEnd},
				RecordSet:       record.NewMemoryRecords(nil),
			}
			switch {
			case tp.Topic != b.topic || p.Partition != 0:
				pr.PartitionHeader.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
				pr.PartitionHeader.HighWatermark = -1
			case p.FetchOffset < b.logStart || p.FetchOffset > logEnd:
				pr.PartitionHeader.ErrorCode = protocol.ErrOffsetOutOfRange.Code
			case p.FetchOffset < logEnd:
				pr.RecordSet = b.records
			default:
				if !waited {
					time.Sleep(min(time.Duration(r.MaxWaitTime)*time.Millisecond, 50*time.Millisecond))
					waited = true
				}
			}
			rt.PartitionResponses = append(rt.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, rt)
	}
	return resp
}

// produce validates and decodes each partition's message set as Log.append would (CRCs, deep
// iteration), assigns offsets from the log end, and answers with the base offset.
func (b *fakeBroker) produce(r *protocol.ProduceRequest) (*protocol.ProduceResponse, error) {
	resp := &protocol.ProduceResponse{Version: r.Version}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, tp := range r.TopicData {
		rt := protocol.ProduceResponseTopic{Topic: tp.Topic}
		for _, p := range tp.Data {
			pr := protocol.ProduceResponseTopicPartition{Partition: p.Partition, BaseOffset: -1, LogAppendTime: -1}
			mr, ok := p.RecordSet.(*record.MemoryRecords)
			if tp.Topic != b.topic || p.Partition != 0 || !ok {
				pr.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
				rt.PartitionResponses = append(rt.PartitionResponses, pr)
				continue
			}
			if _, err := mr.Validate(1 << 20); err != nil {
				return nil, fmt.Errorf("produce: %w", err)
			}
			pr.BaseOffset = b.logEnd
			for shallow, err := range mr.ShallowEntries() {
				if err != nil {
					return nil, fmt.Errorf("produce: %w", err)
				}
				for e, err := range shallow.DeepEntries() {
					if err != nil {
						return nil, fmt.Errorf("produce: %w", err)
					}
					if err := e.Record.EnsureValid(); err != nil {
						return nil, fmt.Errorf("produce: %w", err)
					}
					b.produced = append(b.produced, producedMessage{
						offset: b.logEnd, magic: e.Record.Magic(), codec: shallow.Record.CompressionType(),
						key: e.Record.Key(), value: e.Record.Value(), timestamp: e.Record.Timestamp(),
					})
					b.logEnd++
				}
			}
			rt.PartitionResponses = append(rt.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, rt)
	}
	return resp, nil
}

func (b *fakeBroker) producedMessages() []producedMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]producedMessage(nil), b.produced...)
}
