package clients

import (
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
)

// testBroker answers requests with handle's response; handle returning nil answers nothing
// (and a negative correlation offset lets a test send a wrong correlation id).
type testBroker struct {
	t      *testing.T
	ln     net.Listener
	id     int32
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
	handle func(h protocol.RequestHeader, req protocol.Message) (protocol.Message, int32)
	seen   []protocol.RequestHeader
}

func newTestBroker(t *testing.T, id int32) *testBroker {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &testBroker{t: t, ln: ln, id: id}
	b.handle = b.defaultHandle
	b.wg.Add(1)
	go b.accept()
	t.Cleanup(b.close)
	return b
}

func (b *testBroker) node() common.Node {
	addr := b.ln.Addr().(*net.TCPAddr)
	return common.Node{ID: b.id, Host: "127.0.0.1", Port: int32(addr.Port)}
}

func (b *testBroker) addr() string { return b.ln.Addr().String() }

func (b *testBroker) accept() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns = append(b.conns, c)
		b.mu.Unlock()
		b.wg.Add(1)
		go b.serve(c)
	}
}

func (b *testBroker) serve(c net.Conn) {
	defer b.wg.Done()
	defer c.Close()
	for {
		rcv, err := network.ReadNetworkReceive(c, "", network.Unlimited)
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
		b.mu.Lock()
		b.seen = append(b.seen, h)
		handle := b.handle
		b.mu.Unlock()
		resp, corrDelta := handle(h, req)
		if resp == nil {
			continue
		}
		resp.SetVersion(h.ApiVersion)
		if _, err := protocol.WriteResponse(c, protocol.ResponseHeader{CorrelationID: h.CorrelationID + corrDelta}, resp); err != nil {
			return
		}
	}
}

func (b *testBroker) setHandle(f func(h protocol.RequestHeader, req protocol.Message) (protocol.Message, int32)) {
	b.mu.Lock()
	b.handle = f
	b.mu.Unlock()
}

func (b *testBroker) headers() []protocol.RequestHeader {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]protocol.RequestHeader(nil), b.seen...)
}

func (b *testBroker) defaultHandle(h protocol.RequestHeader, req protocol.Message) (protocol.Message, int32) {
	switch r := req.(type) {
	case *protocol.ApiVersionsRequest:
		return protocol.ApiVersionsResponseDefault(), 0
	case *protocol.MetadataRequest:
		n := b.node()
		resp := &protocol.MetadataResponse{Brokers: []protocol.MetadataResponseBrokers{{NodeID: n.ID, Host: n.Host, Port: n.Port}}, ControllerID: n.ID}
		for _, t := range r.Topics {
			resp.TopicMetadata = append(resp.TopicMetadata, protocol.MetadataResponseTopicMetadata{Topic: t,
				PartitionMetadata: []protocol.MetadataResponsePartitionMetadata{{PartitionID: 0, Leader: n.ID, Replicas: []int32{n.ID}, Isr: []int32{n.ID}}}})
		}
		return resp, 0
	case *protocol.ProduceRequest:
		resp := &protocol.ProduceResponse{}
		for _, td := range r.TopicData {
			rr := protocol.ProduceResponseResponses{Topic: td.Topic}
			for _, d := range td.Data {
				rr.PartitionResponses = append(rr.PartitionResponses, protocol.ProduceResponsePartitionResponses{Partition: d.Partition, BaseOffset: 42, LogAppendTime: -1})
			}
			resp.Responses = append(resp.Responses, rr)
		}
		if r.Acks == 0 {
			return nil, 0
		}
		return resp, 0
	}
	b.t.Errorf("test broker: unexpected %s", h.ApiKey)
	return nil, 0
}

func (b *testBroker) close() {
	b.ln.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }
