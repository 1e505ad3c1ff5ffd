package clientstest

import (
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// StoredRecord is a record a MockCluster accepted.
type StoredRecord struct {
	Offset    int64
	Timestamp int64
	Key       []byte // nil for a null key
	Value     []byte // nil for a null value
	Codec     record.CompressionType
}

// Hook sees every request before the fake broker answers it: returning a response (or drop)
// replaces the default answer; drop answers nothing.
type Hook func(brokerID int32, h protocol.RequestHeader, req protocol.Message) (resp protocol.Message, drop bool)

// MockCluster is a set of fake brokers sharing one view of topics, leaders and logs.
type MockCluster struct {
	t       testing.TB
	brokers []*MockBroker

	// CorrelationSkew is added to the correlation id of every response (a broker that answers
	// the wrong request, for the clients' mismatch rule).
	CorrelationSkew atomic.Int32

	mu       sync.Mutex
	topics   map[string][]int32 // partition -> leader id (-1: none)
	logs     map[common.TopicPartition][]StoredRecord
	requests map[protocol.ApiKeys]int
	hook     Hook
}

// MockBroker is one fake broker of a MockCluster.
type MockBroker struct {
	ID      int32
	cluster *MockCluster
	ln      net.Listener
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
}

// NewMockCluster starts n brokers (ids 0..n-1) on loopback; they stop at the end of the test.
func NewMockCluster(t testing.TB, n int) *MockCluster {
	t.Helper()
	c := &MockCluster{t: t, topics: map[string][]int32{}, logs: map[common.TopicPartition][]StoredRecord{}, requests: map[protocol.ApiKeys]int{}}
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		b := &MockBroker{ID: int32(i), cluster: c, ln: ln, conns: map[net.Conn]struct{}{}}
		c.brokers = append(c.brokers, b)
		b.wg.Add(1)
		go b.accept()
	}
	t.Cleanup(c.Close)
	return c
}

// Bootstrap is bootstrap.servers for the cluster.
func (c *MockCluster) Bootstrap() string {
	addrs := make([]string, len(c.brokers))
	for i, b := range c.brokers {
		addrs[i] = b.ln.Addr().String()
	}
	return strings.Join(addrs, ",")
}

// Broker returns broker id.
func (c *MockCluster) Broker(id int32) *MockBroker { return c.brokers[id] }

// CreateTopic adds a topic whose partition p is led by broker p % brokers.
func (c *MockCluster) CreateTopic(name string, partitions int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	leaders := make([]int32, partitions)
	for p := range leaders {
		leaders[p] = int32(p % len(c.brokers))
	}
	c.topics[name] = leaders
}

// SetLeader moves the leadership of a partition (-1: no leader).
func (c *MockCluster) SetLeader(topic string, partition, leader int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.topics[topic][partition] = leader
}

// SetHook installs (nil: removes) a request hook.
func (c *MockCluster) SetHook(h Hook) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hook = h
}

// Records returns what a partition's log holds.
func (c *MockCluster) Records(topic string, partition int32) []StoredRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]StoredRecord(nil), c.logs[common.TopicPartition{Topic: topic, Partition: partition}]...)
}

// Requests counts the requests of key the brokers received.
func (c *MockCluster) Requests(key protocol.ApiKeys) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests[key]
}

// Close stops every broker.
func (c *MockCluster) Close() {
	for _, b := range c.brokers {
		b.Close()
	}
}

// Addr is the broker's host:port.
func (b *MockBroker) Addr() string { return b.ln.Addr().String() }

// Close stops the broker: its listener and every connection.
func (b *MockBroker) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.ln.Close()
	for c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// DropConnections closes the broker's open connections (it keeps listening).
func (b *MockBroker) DropConnections() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.conns {
		c.Close()
	}
}

func (b *MockBroker) accept() {
	defer b.wg.Done()
	for {
		conn, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			conn.Close()
			return
		}
		b.conns[conn] = struct{}{}
		b.wg.Add(1)
		b.mu.Unlock()
		go b.serve(conn)
	}
}

func (b *MockBroker) serve(conn net.Conn) {
	defer b.wg.Done()
	defer func() {
		conn.Close()
		b.mu.Lock()
		delete(b.conns, conn)
		b.mu.Unlock()
	}()
	for {
		rcv, err := network.ReadNetworkReceive(conn, "", 100<<20)
		if err != nil {
			return
		}
		h, body, err := protocol.ReadRequestHeader(rcv.Payload())
		if err != nil {
			return
		}
		req, err := protocol.ParseRequest(h, body)
		if err != nil {
			return
		}
		resp := b.cluster.handle(b.ID, h, req)
		if resp == nil {
			continue
		}
		resp.SetVersion(h.ApiVersion)
		if _, err := protocol.WriteResponse(conn, protocol.ResponseHeader{CorrelationID: h.CorrelationID + b.cluster.CorrelationSkew.Load()}, resp); err != nil {
			return
		}
	}
}

func (c *MockCluster) handle(id int32, h protocol.RequestHeader, req protocol.Message) protocol.Message {
	c.mu.Lock()
	c.requests[h.ApiKey]++
	hook := c.hook
	c.mu.Unlock()
	if hook != nil {
		if resp, drop := hook(id, h, req); drop || resp != nil {
			return resp
		}
	}
	switch r := req.(type) {
	case *protocol.ApiVersionsRequest:
		return protocol.ApiVersionsResponseDefault()
	case *protocol.MetadataRequest:
		return c.metadata(r)
	case *protocol.ProduceRequest:
		return c.produce(id, r)
	}
	c.t.Errorf("mock broker %d: no answer for %s", id, h.ApiKey)
	return nil
}

func (c *MockCluster) metadata(r *protocol.MetadataRequest) *protocol.MetadataResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp := &protocol.MetadataResponse{ControllerID: 0}
	for _, b := range c.brokers {
		addr := b.ln.Addr().(*net.TCPAddr)
		resp.Brokers = append(resp.Brokers, protocol.MetadataResponseBroker{NodeID: b.ID, Host: "127.0.0.1", Port: int32(addr.Port)})
	}
	topics := r.Topics
	if topics == nil {
		for t := range c.topics {
			topics = append(topics, t)
		}
	}
	for _, t := range topics {
		leaders, ok := c.topics[t]
		if !ok {
			resp.TopicMetadata = append(resp.TopicMetadata, protocol.MetadataResponseTopic{Topic: t, TopicErrorCode: protocol.ErrUnknownTopicOrPartition.Code})
			continue
		}
		tm := protocol.MetadataResponseTopic{Topic: t}
		for p, l := range leaders {
			pm := protocol.MetadataResponseTopicPartition{PartitionID: int32(p), Leader: l, Replicas: []int32{max(l, 0)}, Isr: []int32{max(l, 0)}}
			if l < 0 {
				pm.PartitionErrorCode = protocol.ErrLeaderNotAvailable.Code
			}
			tm.PartitionMetadata = append(tm.PartitionMetadata, pm)
		}
		resp.TopicMetadata = append(resp.TopicMetadata, tm)
	}
	return resp
}

func (c *MockCluster) produce(id int32, r *protocol.ProduceRequest) protocol.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp := &protocol.ProduceResponse{}
	for _, td := range r.TopicData {
		rr := protocol.ProduceResponseTopic{Topic: td.Topic}
		for _, d := range td.Data {
			pr := protocol.ProduceResponseTopicPartition{Partition: d.Partition, BaseOffset: -1, LogAppendTime: -1}
			leaders, ok := c.topics[td.Topic]
			switch {
			case !ok || int(d.Partition) >= len(leaders):
				pr.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
			case leaders[d.Partition] != id:
				pr.ErrorCode = protocol.ErrNotLeaderForPartition.Code
			default:
				pr.BaseOffset, pr.ErrorCode = c.appendLocked(common.TopicPartition{Topic: td.Topic, Partition: d.Partition}, d.RecordSet)
			}
			rr.PartitionResponses = append(rr.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, rr)
	}
	if r.Acks == 0 {
		return nil
	}
	return resp
}

func (c *MockCluster) appendLocked(tp common.TopicPartition, recs record.Records) (int64, int16) {
	mr, ok := recs.(*record.MemoryRecords)
	if !ok {
		return -1, protocol.ErrCorruptMessage.Code
	}
	log := c.logs[tp]
	base := int64(len(log))
	for shallow, err := range mr.ShallowEntries() {
		if err != nil {
			return -1, protocol.ErrCorruptMessage.Code
		}
		codec := shallow.Record.CompressionType()
		for e, err := range shallow.DeepEntries() {
			if err != nil {
				return -1, protocol.ErrCorruptMessage.Code
			}
			log = append(log, StoredRecord{Offset: int64(len(log)), Timestamp: e.Record.Timestamp(),
				Key: clone(e.Record.Key()), Value: clone(e.Record.Value()), Codec: codec})
		}
	}
	c.logs[tp] = log
	return base, 0
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// NodeString is a broker's id as a connection id.
func NodeString(id int32) string { return strconv.Itoa(int(id)) }
