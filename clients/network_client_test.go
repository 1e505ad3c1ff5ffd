package clients_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/clientstest"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

var sysTime = common.SystemTime{}

func brokerNode(t *testing.T, c *clientstest.MockCluster, id int32) common.Node {
	t.Helper()
	host, port, _ := net.SplitHostPort(c.Broker(id).Addr())
	p, _ := strconv.Atoi(port)
	return common.Node{ID: id, Host: host, Port: int32(p)}
}

func newClient(t *testing.T, metadata *clients.Metadata, maxInFlight int, requestTimeoutMs int64) *clients.NetworkClient {
	t.Helper()
	sel := network.NewSelector(network.SelectorConfig{})
	c := clients.NewNetworkClient(sel, metadata, clients.NetworkClientConfig{ClientID: "test-client", MaxInFlightRequestsPerConnection: maxInFlight,
		ReconnectBackoffMs: 50, SocketSendBuffer: -1, SocketReceiveBuffer: -1, RequestTimeoutMs: requestTimeoutMs, DiscoverBrokerVersions: true})
	t.Cleanup(c.Close)
	return c
}

// pollFor polls c until cond holds (10 s at most).
func pollFor(t *testing.T, c *clients.NetworkClient, cond func([]*clients.ClientResponse) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond(c.Poll(100, sysTime.Milliseconds())) {
			return
		}
	}
	t.Fatal("condition not met within 10 s")
}

func awaitReady(t *testing.T, c *clients.NetworkClient, n common.Node) {
	t.Helper()
	pollFor(t, c, func([]*clients.ClientResponse) bool { return c.Ready(n, sysTime.Milliseconds()) })
}

func metadataFor(t *testing.T, c *clientstest.MockCluster, ids ...int32) *clients.Metadata {
	md := clients.NewMetadata(100, 300000, true, nil)
	var nodes []common.Node
	for _, id := range ids {
		nodes = append(nodes, brokerNode(t, c, id))
	}
	md.Update(common.NewCluster("", nodes, nil, nil, nil), nil, sysTime.Milliseconds())
	return md
}

// From bootstrap.servers to a real cluster view: the DefaultMetadataUpdater connects to the
// bootstrap node, asks for ApiVersions, then Metadata v2 for the topics of interest.
func TestMetadataBootstrapAndUpdate(t *testing.T) {
	mc := clientstest.NewMockCluster(t, 1)
	mc.CreateTopic("t1", 1)
	var mu sync.Mutex
	var seen []protocol.RequestHeader
	mc.SetHook(func(_ int32, h protocol.RequestHeader, _ protocol.Message) (protocol.Message, bool) {
		mu.Lock()
		seen = append(seen, h)
		mu.Unlock()
		return nil, false
	})
	md := clients.NewMetadata(100, 300000, true, nil)
	addrs, err := clients.ParseAndValidateAddresses([]string{mc.Bootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	md.Update(common.BootstrapCluster(addrs), nil, 0)
	md.Add("t1")
	c := newClient(t, md, 5, 30000)
	v := md.RequestUpdate()
	pollFor(t, c, func([]*clients.ClientResponse) bool { return md.Version() > v })
	cluster := md.Fetch()
	if l := cluster.LeaderFor(common.TopicPartition{Topic: "t1", Partition: 0}); l == nil || l.ID != 0 {
		t.Fatalf("leader of t1-0: %v (%s)", l, cluster)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 || seen[0].ApiKey != protocol.ApiVersions || seen[1].ApiKey != protocol.Metadata || seen[1].ApiVersion != 2 || seen[1].ClientIDOrEmpty() != "test-client" {
		t.Fatalf("requests: %v", seen)
	}
	if err := md.AwaitUpdate(md.Version(), 50); err == nil || !strings.Contains(err.Error(), "Failed to update metadata after 50 ms.") || !errors.Is(err, protocol.ErrRequestTimedOut) {
		t.Fatalf("AwaitUpdate timeout: %v", err)
	}
	md.Close()
	if err := md.AwaitUpdate(md.Version(), 60000); !errors.Is(err, clients.ErrMetadataClosed) {
		t.Fatalf("AwaitUpdate after Close: %v", err)
	}
}

func produceBody(acks int16) *protocol.ProduceRequest {
	b := record.NewMemoryRecordsBuilder(1, record.NONE, record.CreateTime, 0, -1, 0)
	b.Append(1, nil, []byte("v")) //nolint:errcheck
	return &protocol.ProduceRequest{Version: 2, Acks: acks, Timeout: 1000,
		TopicData: []protocol.ProduceRequestTopic{{Topic: "t", Data: []protocol.ProduceRequestTopicPartition{{Partition: 0, RecordSet: b.Build()}}}}}
}

// Requests are answered in order; at most max.in.flight are outstanding; an acks=0 request
// completes when its bytes are written.
func TestSendPollInFlight(t *testing.T) {
	mc := clientstest.NewMockCluster(t, 1)
	mc.CreateTopic("t", 1)
	c := newClient(t, metadataFor(t, mc, 0), 2, 30000)
	n := brokerNode(t, mc, 0)
	awaitReady(t, c, n)
	var order []int32
	cb := func(r *clients.ClientResponse) { order = append(order, r.RequestHeader.CorrelationID) }
	for sent := 0; sent < 6; {
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
	pollFor(t, c, func([]*clients.ClientResponse) bool { return len(order) == 6 })
	for i := 1; i < len(order); i++ {
		if order[i] <= order[i-1] {
			t.Fatalf("responses out of order: %v", order)
		}
	}
	if err := c.Send(c.NewClientRequest("99", produceBody(1), 0, true, nil), 0); !errors.Is(err, clients.ErrNodeNotReady) {
		t.Fatalf("send to unready node: %v", err)
	}
	var zero *clients.ClientResponse
	awaitReady(t, c, n)
	now := sysTime.Milliseconds()
	if err := c.Send(c.NewClientRequest(n.IDString(), produceBody(0), now, false, func(r *clients.ClientResponse) { zero = r }), now); err != nil {
		t.Fatal(err)
	}
	pollFor(t, c, func([]*clients.ClientResponse) bool { return zero != nil })
	if zero.HasResponse() || zero.Disconnected {
		t.Fatalf("acks=0 response %v", zero)
	}
	pollFor(t, c, func([]*clients.ClientResponse) bool { return len(mc.Records("t", 0)) == 7 })
}

// A response with the wrong correlation id closes the connection and fails every request in
// flight on it as disconnected (the one rule for a mismatch); the client reconnects after.
func TestCorrelationMismatchDisconnects(t *testing.T) {
	mc := clientstest.NewMockCluster(t, 1)
	mc.CreateTopic("t", 1)
	c := newClient(t, metadataFor(t, mc, 0), 5, 30000)
	n := brokerNode(t, mc, 0)
	awaitReady(t, c, n)
	mc.CorrelationSkew.Store(1000)
	var got *clients.ClientResponse
	now := sysTime.Milliseconds()
	c.Send(c.NewClientRequest(n.IDString(), produceBody(1), now, true, func(r *clients.ClientResponse) { got = r }), now) //nolint:errcheck
	pollFor(t, c, func([]*clients.ClientResponse) bool { return got != nil })
	if !got.Disconnected || c.IsReady(n, sysTime.Milliseconds()) {
		t.Fatalf("mismatch: %v", got)
	}
	mc.CorrelationSkew.Store(0)
	awaitReady(t, c, n)
}

// An unanswered request fails as disconnected after request.timeout.ms, and the metadata is
// marked for refresh.
func TestRequestTimeout(t *testing.T) {
	mc := clientstest.NewMockCluster(t, 1)
	md := metadataFor(t, mc, 0)
	c := newClient(t, md, 5, 200)
	n := brokerNode(t, mc, 0)
	awaitReady(t, c, n)
	mc.SetHook(func(_ int32, h protocol.RequestHeader, _ protocol.Message) (protocol.Message, bool) {
		return nil, h.ApiKey == protocol.Produce
	})
	var got *clients.ClientResponse
	now := sysTime.Milliseconds()
	c.Send(c.NewClientRequest(n.IDString(), produceBody(1), now, true, func(r *clients.ClientResponse) { got = r }), now) //nolint:errcheck
	pollFor(t, c, func([]*clients.ClientResponse) bool { return got != nil })
	if !got.Disconnected || !md.UpdateRequested() {
		t.Fatalf("timeout: %v, update requested %v", got, md.UpdateRequested())
	}
}

// The blocking operations, as the broker's senders use them: ready, one exchange, and the
// errors for a dead node, a cancelled caller and an unanswered request.
func TestBlockingOps(t *testing.T) {
	mc := clientstest.NewMockCluster(t, 1)
	sel := network.NewSelector(network.SelectorConfig{})
	c := clients.NewNetworkClientWithUpdater(sel, &clients.ManualMetadataUpdater{}, clients.NetworkClientConfig{ClientID: "broker-0",
		MaxInFlightRequestsPerConnection: 1, ReconnectBackoffMs: 50, SocketSendBuffer: -1, SocketReceiveBuffer: -1, RequestTimeoutMs: 1000})
	defer c.Close()
	ops := clients.NetworkClientBlockingOps{Client: c, Time: sysTime}
	ctx := context.Background()
	n := brokerNode(t, mc, 0)
	if ok, err := ops.BlockingReady(ctx, n, 10000); !ok || err != nil {
		t.Fatalf("BlockingReady: %v %v", ok, err)
	}
	mc.CreateTopic("x", 1)
	resp, err := ops.BlockingSendAndReceive(ctx, c.NewClientRequest(n.IDString(), &protocol.MetadataRequest{Version: 0, Topics: []string{"x"}}, sysTime.Milliseconds(), true, nil))
	if err != nil {
		t.Fatal(err)
	}
	if md, ok := resp.ResponseBody.(*protocol.MetadataResponse); !ok || len(md.TopicMetadata) != 1 || md.TopicMetadata[0].TopicErrorCode != 0 {
		t.Fatalf("response %v", resp.ResponseBody)
	}
	dead := common.Node{ID: 9, Host: "127.0.0.1", Port: 1}
	if ok, err := ops.BlockingReady(ctx, dead, 10000); ok || !errors.Is(err, clients.ErrConnectionFailed) {
		t.Fatalf("dead node: %v %v", ok, err)
	}
	mc.SetHook(func(int32, protocol.RequestHeader, protocol.Message) (protocol.Message, bool) { return nil, true })
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := ops.BlockingSendAndReceive(cctx, c.NewClientRequest(n.IDString(), &protocol.MetadataRequest{Version: 0}, sysTime.Milliseconds(), true, nil)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled exchange: %v", err)
	}
	c.CloseNode(n.IDString())
	if ok, err := ops.BlockingReady(ctx, n, 10000); !ok || err != nil {
		t.Fatalf("BlockingReady again: %v %v", ok, err)
	}
	if _, err := ops.BlockingSendAndReceive(ctx, c.NewClientRequest(n.IDString(), &protocol.MetadataRequest{Version: 0}, sysTime.Milliseconds(), true, nil)); !errors.Is(err, clients.ErrDisconnected) {
		t.Fatalf("timed-out exchange: %v", err)
	}
}
