package clients

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var sysTime = common.SystemTime{}

func newClient(t *testing.T, metadata *Metadata, maxInFlight int, requestTimeoutMs int64) *NetworkClient {
	t.Helper()
	sel := network.NewSelector(network.SelectorConfig{})
	c := NewNetworkClient(sel, metadata, NetworkClientConfig{ClientID: "test-client", MaxInFlightRequestsPerConnection: maxInFlight,
		ReconnectBackoffMs: 50, SocketSendBuffer: -1, SocketReceiveBuffer: -1, RequestTimeoutMs: requestTimeoutMs, DiscoverBrokerVersions: true})
	t.Cleanup(c.Close)
	return c
}

// pollFor polls c until cond holds (10 s at most).
func pollFor(t *testing.T, c *NetworkClient, cond func([]*ClientResponse) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond(c.Poll(100, sysTime.Milliseconds())) {
			return
		}
	}
	t.Fatal("condition not met within 10 s")
}

func awaitReady(t *testing.T, c *NetworkClient, n common.Node) {
	t.Helper()
	pollFor(t, c, func([]*ClientResponse) bool { return c.Ready(n, sysTime.Milliseconds()) })
}

// From bootstrap.servers to a real cluster view: the DefaultMetadataUpdater connects to the
// bootstrap node, asks for ApiVersions, then Metadata v2 for the topics of interest.
func TestMetadataBootstrapAndUpdate(t *testing.T) {
	b := newTestBroker(t, 7)
	md := NewMetadata(100, 300000, true, nil)
	addrs, err := ParseAndValidateAddresses([]string{b.addr()})
	if err != nil {
		t.Fatal(err)
	}
	md.Update(common.BootstrapCluster(addrs), nil, 0)
	md.Add("t1")
	c := newClient(t, md, 5, 30000)
	v := md.RequestUpdate()
	pollFor(t, c, func([]*ClientResponse) bool { return md.Version() > v })
	cluster := md.Fetch()
	if l := cluster.LeaderFor(common.TopicPartition{Topic: "t1", Partition: 0}); l == nil || l.ID != 7 {
		t.Fatalf("leader of t1-0: %v (%s)", l, cluster)
	}
	hs := b.headers()
	if len(hs) < 2 || hs[0].ApiKey != protocol.ApiVersions || hs[1].ApiKey != protocol.Metadata || hs[1].ApiVersion != 2 || hs[1].ClientIDOrEmpty() != "test-client" {
		t.Fatalf("requests: %v", hs)
	}
	if err := md.AwaitUpdate(md.Version(), 50); err == nil || !strings.Contains(err.Error(), "Failed to update metadata after 50 ms.") || !errors.Is(err, protocol.ErrRequestTimedOut) {
		t.Fatalf("AwaitUpdate timeout: %v", err)
	}
	md.Close()
	if err := md.AwaitUpdate(md.Version(), 60000); !errors.Is(err, ErrMetadataClosed) {
		t.Fatalf("AwaitUpdate after Close: %v", err)
	}
}

func produceBody(acks int16) *protocol.ProduceRequest {
	b := record.NewMemoryRecordsBuilder(1, record.NONE, record.CreateTime, 0, -1, 0)
	b.Append(1, nil, []byte("v")) //nolint:errcheck
	return &protocol.ProduceRequest{Version: 2, Acks: acks, Timeout: 1000,
		TopicData: []protocol.ProduceRequestTopicData{{Topic: "t", Data: []protocol.ProduceRequestData{{Partition: 0, RecordSet: b.Build()}}}}}
}

// Requests are answered in order; at most max.in.flight are outstanding; an acks=0 request
// completes when its bytes are written.
func TestSendPollInFlight(t *testing.T) {
	b := newTestBroker(t, 1)
	md := NewMetadata(100, 300000, true, nil)
	md.Update(common.NewCluster("", []common.Node{b.node()}, nil, nil, nil), nil, sysTime.Milliseconds())
	c := newClient(t, md, 2, 30000)
	n := b.node()
	awaitReady(t, c, n)
	var order []int32
	cb := func(r *ClientResponse) { order = append(order, r.RequestHeader.CorrelationID) }
	sent := 0
	for sent < 6 {
		now := sysTime.Milliseconds()
		if c.IsReady(n, now) {
			if err := c.Send(c.NewClientRequest(n.IDString(), produceBody(1), now, true, cb), now); err != nil {
				t.Fatal(err)
			}
			sent++
		}
		if c.InFlightRequestCountFor(n.IDString()) > 2 {
			t.Fatalf("%d in flight with max 2", c.InFlightRequestCountFor(n.IDString()))
		}
		c.Poll(10, sysTime.Milliseconds())
	}
	pollFor(t, c, func([]*ClientResponse) bool { return len(order) == 6 })
	for i := 1; i < len(order); i++ {
		if order[i] <= order[i-1] {
			t.Fatalf("responses out of order: %v", order)
		}
	}
	// A request to a node that is not ready is refused.
	if err := c.Send(c.NewClientRequest("99", produceBody(1), 0, true, nil), 0); !errors.Is(err, ErrNodeNotReady) {
		t.Fatalf("send to unready node: %v", err)
	}
	// acks=0: completed by its send, with no body.
	var zero *ClientResponse
	awaitReady(t, c, n)
	now := sysTime.Milliseconds()
	if err := c.Send(c.NewClientRequest(n.IDString(), produceBody(0), now, false, func(r *ClientResponse) { zero = r }), now); err != nil {
		t.Fatal(err)
	}
	pollFor(t, c, func([]*ClientResponse) bool { return zero != nil })
	if zero.HasResponse() || zero.Disconnected {
		t.Fatalf("acks=0 response %v", zero)
	}
}

// A response with the wrong correlation id closes the connection and fails every request in
// flight on it as disconnected (the one rule for a mismatch); the client reconnects after.
func TestCorrelationMismatchDisconnects(t *testing.T) {
	b := newTestBroker(t, 1)
	md := NewMetadata(100, 300000, true, nil)
	md.Update(common.NewCluster("", []common.Node{b.node()}, nil, nil, nil), nil, sysTime.Milliseconds())
	c := newClient(t, md, 5, 30000)
	n := b.node()
	awaitReady(t, c, n)
	b.setHandle(func(h protocol.RequestHeader, req protocol.Message) (protocol.Message, int32) {
		if h.ApiKey == protocol.Produce {
			return &protocol.ProduceResponse{}, 1000
		}
		return b.defaultHandle(h, req)
	})
	var got *ClientResponse
	now := sysTime.Milliseconds()
	c.Send(c.NewClientRequest(n.IDString(), produceBody(1), now, true, func(r *ClientResponse) { got = r }), now) //nolint:errcheck
	pollFor(t, c, func([]*ClientResponse) bool { return got != nil })
	if !got.Disconnected || c.IsReady(n, sysTime.Milliseconds()) {
		t.Fatalf("mismatch: %v, ready %v", got, c.IsReady(n, sysTime.Milliseconds()))
	}
	b.setHandle(b.defaultHandle)
	awaitReady(t, c, n)
}

// An unanswered request fails as disconnected after request.timeout.ms, and the metadata is
// marked for refresh.
func TestRequestTimeout(t *testing.T) {
	b := newTestBroker(t, 1)
	md := NewMetadata(100, 300000, true, nil)
	md.Update(common.NewCluster("", []common.Node{b.node()}, nil, nil, nil), nil, sysTime.Milliseconds())
	c := newClient(t, md, 5, 200)
	n := b.node()
	awaitReady(t, c, n)
	b.setHandle(func(h protocol.RequestHeader, req protocol.Message) (protocol.Message, int32) {
		if h.ApiKey == protocol.Produce {
			return nil, 0
		}
		return b.defaultHandle(h, req)
	})
	var got *ClientResponse
	now := sysTime.Milliseconds()
	c.Send(c.NewClientRequest(n.IDString(), produceBody(1), now, true, func(r *ClientResponse) { got = r }), now) //nolint:errcheck
	pollFor(t, c, func([]*ClientResponse) bool { return got != nil })
	if !got.Disconnected || !md.UpdateRequested() {
		t.Fatalf("timeout: %v, update requested %v", got, md.UpdateRequested())
	}
}

// The blocking operations, as the broker's senders use them: ready, one exchange, and the
// errors for a dead node and for a cancelled caller.
func TestBlockingOps(t *testing.T) {
	b := newTestBroker(t, 3)
	sel := network.NewSelector(network.SelectorConfig{})
	c := NewNetworkClientWithUpdater(sel, &ManualMetadataUpdater{}, NetworkClientConfig{ClientID: "broker-0",
		MaxInFlightRequestsPerConnection: 1, ReconnectBackoffMs: 50, SocketSendBuffer: -1, SocketReceiveBuffer: -1, RequestTimeoutMs: 1000})
	defer c.Close()
	ops := NetworkClientBlockingOps{Client: c, Time: sysTime}
	ctx := context.Background()
	n := b.node()
	if ok, err := ops.BlockingReady(ctx, n, 10000); !ok || err != nil {
		t.Fatalf("BlockingReady: %v %v", ok, err)
	}
	resp, err := ops.BlockingSendAndReceive(ctx, c.NewClientRequest(n.IDString(), &protocol.MetadataRequest{Version: 0, Topics: []string{"x"}}, sysTime.Milliseconds(), true, nil))
	if err != nil {
		t.Fatal(err)
	}
	if md, ok := resp.ResponseBody.(*protocol.MetadataResponse); !ok || len(md.TopicMetadata) != 1 {
		t.Fatalf("response %v", resp.ResponseBody)
	}
	// A node nobody listens on.
	dead := common.Node{ID: 9, Host: "127.0.0.1", Port: 1}
	if ok, err := ops.BlockingReady(ctx, dead, 10000); ok || !errors.Is(err, ErrConnectionFailed) {
		t.Fatalf("dead node: %v %v", ok, err)
	}
	// A caller whose context ends.
	b.setHandle(func(protocol.RequestHeader, protocol.Message) (protocol.Message, int32) { return nil, 0 })
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := ops.BlockingSendAndReceive(cctx, c.NewClientRequest(n.IDString(), &protocol.MetadataRequest{Version: 0}, sysTime.Milliseconds(), true, nil)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled exchange: %v", err)
	}
	// The same unanswered request without a deadline fails by request.timeout.ms.
	c.CloseNode(n.IDString())
	if ok, err := ops.BlockingReady(ctx, n, 10000); !ok || err != nil {
		t.Fatalf("BlockingReady again: %v %v", ok, err)
	}
	if _, err := ops.BlockingSendAndReceive(ctx, c.NewClientRequest(n.IDString(), &protocol.MetadataRequest{Version: 0}, sysTime.Milliseconds(), true, nil)); !errors.Is(err, ErrDisconnected) {
		t.Fatalf("timed-out exchange: %v", err)
	}
}

func TestLeastLoadedNodeAndConnectionStates(t *testing.T) {
	s := NewClusterConnectionStates(100)
	if !s.CanConnect("1", 0) || s.IsBlackedOut("1", 0) || s.ConnectionDelay("1", 0) != 0 {
		t.Fatal("unknown node")
	}
	s.Connecting("1", 0)
	if s.CanConnect("1", 10) || !s.IsConnecting("1") || s.ConnectionDelay("1", 10) != 1<<63-1 {
		t.Fatal("connecting")
	}
	s.Disconnected("1", 20)
	if s.CanConnect("1", 50) || !s.IsBlackedOut("1", 50) || s.ConnectionDelay("1", 50) != 70 || !s.CanConnect("1", 120) {
		t.Fatal("backoff")
	}
	md := NewMetadata(100, 300000, false, nil)
	nodes := []common.Node{{ID: 1, Host: "127.0.0.1", Port: 1}, {ID: 2, Host: "127.0.0.1", Port: 2}}
	md.Update(common.NewCluster("", nodes, nil, nil, nil), nil, 0)
	c := newClient(t, md, 5, 30000)
	c.connectionStates.Connecting("1", 0)
	c.connectionStates.Disconnected("1", sysTime.Milliseconds())
	for i := 0; i < 20; i++ {
		if n := c.LeastLoadedNode(sysTime.Milliseconds()); n == nil || n.ID != 2 {
			t.Fatalf("least loaded with node 1 blacked out: %v", n)
		}
	}
	c.connectionStates.Disconnected("2", sysTime.Milliseconds())
	if n := c.LeastLoadedNode(sysTime.Milliseconds()); n != nil {
		t.Fatalf("every node blacked out: %v", n)
	}
	if _, err := ParseAndValidateAddresses([]string{"nohostport"}); err == nil || err.Error() != "Invalid url in bootstrap.servers: nohostport" {
		t.Fatal(err)
	}
	if _, err := ParseAndValidateAddresses([]string{"", " "}); err == nil || err.Error() != "No resolvable bootstrap urls given in bootstrap.servers" {
		t.Fatal(err)
	}
	if a, err := ParseAndValidateAddresses([]string{"[::1]:9092", "localhost:1"}); err != nil || a[0] != "[::1]:9092" {
		t.Fatal(a, err)
	}
}
