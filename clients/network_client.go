package clients

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
)

// NetworkClientConfig configures a NetworkClient.
type NetworkClientConfig struct {
	ClientID                         string
	MaxInFlightRequestsPerConnection int   // max.in.flight.requests.per.connection
	ReconnectBackoffMs               int64 // reconnect.backoff.ms
	SocketSendBuffer                 int   // send.buffer.bytes (network.UseDefaultBufferSize: OS default)
	SocketReceiveBuffer              int   // receive.buffer.bytes
	RequestTimeoutMs                 int64 // request.timeout.ms
	// DiscoverBrokerVersions sends ApiVersions on every new connection and lowers each request
	// to a version the node supports (the Java clients do; the broker's own clients do not).
	DiscoverBrokerVersions bool
	Time                   common.Time
	Log                    *logrus.Entry
}

// ErrNodeNotReady is Send's error for a node that is not ready (Ready first).
var ErrNodeNotReady = errors.New("node is not ready")

// NetworkClient sends requests to nodes and matches responses to them over a Selector: Ready
// connects to a node when needed and reports whether a request may be sent now (connected,
// API versions known, fewer than max.in.flight requests in flight, no metadata update due);
// Send queues a request; Poll does the I/O and returns the completed requests (responses,
// disconnections, timeouts) after calling their handlers. It keeps the cluster metadata
// current through its MetadataUpdater, and picks the LeastLoadedNode for requests any node can
// answer. It is driven by one goroutine; only Wakeup may be called from others.
//
// Kafka 0.10.2: org.apache.kafka.clients.NetworkClient.
//
// Response rules (the one place every client of the repository gets them): a response whose
// correlation id is not the oldest in-flight request's, or that does not parse, closes the
// connection and completes every request in flight on it as disconnected (Kafka throws
// IllegalStateException out of poll and leaves the connection up); a request unanswered after
// request.timeout.ms closes its connection the same way; frames are read with
// network.CheckReceiveSize.
type NetworkClient struct {
	selector         network.Selectable
	metadataUpdater  MetadataUpdater
	connectionStates *ClusterConnectionStates
	inFlightRequests *InFlightRequests
	cfg              NetworkClientConfig
	time             common.Time
	log              *logrus.Entry
	correlation      int32
	nodeApiVersions  map[string]*NodeApiVersions
	needApiVersions  map[string]bool
	abortedSends     []*ClientResponse
	defaultUpdater   *DefaultMetadataUpdater
	frames           [][]byte     // request buffers whose sends completed, reused for the next requests
	inFlightGauge    atomic.Int64 // InFlightRequests.TotalCount, for gauges read by other goroutines
}

// NewNetworkClient returns a client that keeps metadata up to date itself
// (DefaultMetadataUpdater over metadata).
func NewNetworkClient(selector network.Selectable, metadata *Metadata, cfg NetworkClientConfig) *NetworkClient {
	c := newNetworkClient(selector, cfg)
	c.defaultUpdater = &DefaultMetadataUpdater{client: c, metadata: metadata}
	c.metadataUpdater = c.defaultUpdater
	return c
}

// NewNetworkClientWithUpdater returns a client with another MetadataUpdater (a
// ManualMetadataUpdater for the broker's own clients).
func NewNetworkClientWithUpdater(selector network.Selectable, updater MetadataUpdater, cfg NetworkClientConfig) *NetworkClient {
	c := newNetworkClient(selector, cfg)
	c.metadataUpdater = updater
	return c
}

func newNetworkClient(selector network.Selectable, cfg NetworkClientConfig) *NetworkClient {
	if cfg.Time == nil {
		cfg.Time = common.SystemTime{}
	}
	if cfg.Log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		cfg.Log = logrus.NewEntry(l)
	}
	if cfg.MaxInFlightRequestsPerConnection <= 0 {
		cfg.MaxInFlightRequestsPerConnection = 1
	}
	return &NetworkClient{
		selector:         selector,
		connectionStates: NewClusterConnectionStates(cfg.ReconnectBackoffMs),
		inFlightRequests: NewInFlightRequests(cfg.MaxInFlightRequestsPerConnection),
		cfg:              cfg,
		time:             cfg.Time,
		log:              cfg.Log.WithField("logger", "org.apache.kafka.clients.NetworkClient"),
		nodeApiVersions:  map[string]*NodeApiVersions{},
		needApiVersions:  map[string]bool{},
	}
}

// Ready reports whether a request may be sent to node now, starting a connection to it if
// there is none and the reconnect backoff allows.
//
// Kafka 0.10.2: NetworkClient.ready.
func (c *NetworkClient) Ready(node common.Node, nowMs int64) bool {
	if node.IsEmpty() {
		c.log.Errorf("Cannot connect to empty node %s", node)
		return false
	}
	if c.IsReady(node, nowMs) {
		return true
	}
	if c.connectionStates.CanConnect(node.IDString(), nowMs) {
		c.initiateConnect(node, nowMs)
	}
	return false
}

// CloseNode closes the connection to node id; requests in flight on it are dropped (a metadata
// update in flight is forgotten).
//
// Kafka 0.10.2: NetworkClient.close(String nodeId).
func (c *NetworkClient) CloseNode(nodeID string) {
	c.selector.CloseConnection(nodeID)
	for _, r := range c.inFlightRequests.clearAll(nodeID) {
		if r.isInternalRequest && r.header.ApiKey == protocol.Metadata {
			c.metadataUpdater.HandleDisconnection(r.destination)
		}
	}
	c.connectionStates.Remove(nodeID)
	c.inFlightGauge.Store(int64(c.inFlightRequests.TotalCount()))
}

// ConnectionDelay is how long until node may be connected to again (see ClusterConnectionStates).
func (c *NetworkClient) ConnectionDelay(node common.Node, nowMs int64) int64 {
	return c.connectionStates.ConnectionDelay(node.IDString(), nowMs)
}

// ConnectionFailed reports a node whose connection is down.
func (c *NetworkClient) ConnectionFailed(node common.Node) bool {
	return c.connectionStates.ConnectionState(node.IDString()) == DISCONNECTED
}

// IsReady reports a node a request can be sent to now (and no metadata update is due, which
// goes first).
func (c *NetworkClient) IsReady(node common.Node, nowMs int64) bool {
	return !c.metadataUpdater.IsUpdateDue(nowMs) && c.canSendRequest(node.IDString())
}

func (c *NetworkClient) canSendRequest(node string) bool {
	return c.connectionStates.IsReady(node) && c.selector.IsChannelReady(node) && c.inFlightRequests.CanSendMore(node)
}

// Send queues request for its node, which must be ready (ErrNodeNotReady otherwise).
//
// Kafka 0.10.2: NetworkClient.send.
func (c *NetworkClient) Send(request *ClientRequest, nowMs int64) error {
	return c.doSend(request, false, nowMs)
}

func (c *NetworkClient) doSend(r *ClientRequest, internal bool, nowMs int64) error {
	node := r.destination
	if !internal && !c.canSendRequest(node) {
		return fmt.Errorf("%w: Attempt to send a request to node %s which is not ready.", ErrNodeNotReady, node)
	}
	if info := c.nodeApiVersions[node]; info != nil {
		v, err := info.UsableVersion(r.body.Key(), r.body.GetVersion())
		if err != nil {
			c.log.Debugf("Version mismatch when attempting to send %s to %s: %v", r, node, err)
			c.abortedSends = append(c.abortedSends, &ClientResponse{RequestHeader: r.MakeHeader(), Destination: node,
				ReceivedTimeMs: nowMs, VersionMismatch: err, callback: r.callback})
			return nil
		}
		r.body.SetVersion(v)
	}
	header := r.MakeHeader()
	frame := network.AppendFrameHeader(c.takeFrame())
	frame = header.AppendTo(frame)
	frame = r.body.AppendTo(frame)
	send := network.NewNetworkSend(node, frame)
	c.inFlightRequests.add(&inFlightRequest{header: header, destination: node, callback: r.callback,
		expectResponse: r.expectResponse, isInternalRequest: internal, send: send, sendTimeMs: nowMs, createdTimeMs: r.createdTimeMs})
	c.selector.Send(send)
	c.inFlightGauge.Add(1)
	return nil
}

// Poll does network I/O for up to timeoutMs (less when a metadata update or a request timeout
// is due sooner), then completes what it can and calls the handlers of the completed requests,
// which it also returns.
//
// Kafka 0.10.2: NetworkClient.poll.
func (c *NetworkClient) Poll(timeoutMs, nowMs int64) []*ClientResponse {
	metadataTimeout := c.metadataUpdater.MaybeUpdate(nowMs)
	wait := max(min(timeoutMs, metadataTimeout, c.cfg.RequestTimeoutMs), 0)
	if len(c.abortedSends) > 0 {
		wait = 0
	}
	if err := c.selector.Poll(wait); err != nil {
		c.log.Errorf("Unexpected error during I/O: %v", err)
	}
	updatedNow := c.time.Milliseconds()
	var responses []*ClientResponse
	responses = append(responses, c.abortedSends...)
	c.abortedSends = c.abortedSends[:0]
	responses = c.handleCompletedSends(responses, updatedNow)
	responses = c.handleCompletedReceives(responses, updatedNow)
	responses = c.handleDisconnections(responses, updatedNow)
	c.handleConnections()
	c.handleInitiateApiVersionRequests(updatedNow)
	responses = c.handleTimedOutRequests(responses, updatedNow)
	c.inFlightGauge.Store(int64(c.inFlightRequests.TotalCount()))
	for _, r := range responses {
		c.complete(r)
	}
	return responses
}

func (c *NetworkClient) complete(r *ClientResponse) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Errorf("Uncaught error in request completion: %v", p)
		}
	}()
	r.OnComplete()
}

// InFlightRequestCount is the number of requests in flight to every node.
func (c *NetworkClient) InFlightRequestCount() int { return c.inFlightRequests.TotalCount() }

// InFlightRequestCountFor is the number of requests in flight to node.
func (c *NetworkClient) InFlightRequestCountFor(node string) int {
	return c.inFlightRequests.Count(node)
}

// InFlightRequestGauge is the number of requests in flight as of the last Send or Poll, safe to
// read from any goroutine (the producer's requests-in-flight metric).
func (c *NetworkClient) InFlightRequestGauge() int { return int(c.inFlightGauge.Load()) }

// HasInFlightRequests reports any request in flight.
func (c *NetworkClient) HasInFlightRequests() bool { return c.inFlightRequests.TotalCount() > 0 }

// Wakeup interrupts a Poll in progress (from any goroutine).
func (c *NetworkClient) Wakeup() { c.selector.Wakeup() }

// Close closes every connection.
func (c *NetworkClient) Close() { c.selector.Close() }

// LeastLoadedNode is the node with the fewest requests in flight, preferring a connected idle
// one, skipping nodes in reconnect backoff, starting from a random node; nil when every node
// is backing off.
//
// Kafka 0.10.2: NetworkClient.leastLoadedNode.
func (c *NetworkClient) LeastLoadedNode(nowMs int64) *common.Node {
	nodes := c.metadataUpdater.FetchNodes()
	if len(nodes) == 0 {
		return nil
	}
	inflight := math.MaxInt
	var found *common.Node
	offset := rand.IntN(len(nodes))
	for i := range nodes {
		n := nodes[(offset+i)%len(nodes)]
		id := n.IDString()
		cur := c.inFlightRequests.Count(id)
		if cur == 0 && c.connectionStates.IsReady(id) {
			return &n
		}
		if !c.connectionStates.IsBlackedOut(id, nowMs) && cur < inflight {
			inflight = cur
			found = &n
		}
	}
	return found
}

// NewClientRequest makes a request with the next correlation id.
func (c *NetworkClient) NewClientRequest(nodeID string, body protocol.Message, createdTimeMs int64, expectResponse bool, callback RequestCompletionHandler) *ClientRequest {
	r := &ClientRequest{destination: nodeID, body: body, correlationID: c.correlation, clientID: c.cfg.ClientID,
		createdTimeMs: createdTimeMs, expectResponse: expectResponse, callback: callback}
	c.correlation++
	return r
}

// maxPooledFrames and maxPooledFrameSize bound the request buffers kept for reuse: a producer
// writing 1 MiB requests would otherwise allocate (and clear) a new megabyte per request.
const (
	maxPooledFrames    = 8
	maxPooledFrameSize = 8 << 20
)

func (c *NetworkClient) takeFrame() []byte {
	if n := len(c.frames); n > 0 {
		f := c.frames[n-1]
		c.frames[n-1] = nil
		c.frames = c.frames[:n-1]
		return f[:0]
	}
	return nil
}

// releaseFrame keeps the buffer of a completed send (its bytes are all written).
func (c *NetworkClient) releaseFrame(f []byte) {
	if len(c.frames) < maxPooledFrames && cap(f) <= maxPooledFrameSize {
		c.frames = append(c.frames, f[:0])
	}
}

// processDisconnection fails every request in flight to node as disconnected.
func (c *NetworkClient) processDisconnection(responses []*ClientResponse, node string, nowMs int64) []*ClientResponse {
	c.connectionStates.Disconnected(node, nowMs)
	delete(c.nodeApiVersions, node)
	delete(c.needApiVersions, node)
	reqs := c.inFlightRequests.clearAll(node)
	for i := len(reqs) - 1; i >= 0; i-- { // oldest first
		r := reqs[i]
		c.log.Tracef("Cancelled request %s due to node %s being disconnected", r.header, node)
		if r.isInternalRequest && r.header.ApiKey == protocol.Metadata {
			c.metadataUpdater.HandleDisconnection(r.destination)
		} else if !r.isInternalRequest {
			responses = append(responses, r.disconnected(nowMs))
		}
	}
	return responses
}

func (c *NetworkClient) handleTimedOutRequests(responses []*ClientResponse, nowMs int64) []*ClientResponse {
	nodes := c.inFlightRequests.nodesWithTimedOutRequests(nowMs, c.cfg.RequestTimeoutMs)
	for _, node := range nodes {
		c.selector.CloseConnection(node)
		c.log.Debugf("Disconnecting from node %s due to request timeout.", node)
		responses = c.processDisconnection(responses, node, nowMs)
	}
	if len(nodes) > 0 {
		c.metadataUpdater.RequestUpdate()
	}
	return responses
}

func (c *NetworkClient) handleCompletedSends(responses []*ClientResponse, nowMs int64) []*ClientResponse {
	for _, s := range c.selector.CompletedSends() {
		if ns, ok := s.(*network.NetworkSend); ok {
			c.releaseFrame(ns.Frame())
		}
		if r := c.inFlightRequests.completeSend(s); r != nil {
			responses = append(responses, r.completed(nil, nowMs))
		}
	}
	return responses
}

func (c *NetworkClient) handleCompletedReceives(responses []*ClientResponse, nowMs int64) []*ClientResponse {
	var failed []string
	for _, rcv := range c.selector.CompletedReceives() {
		source := rcv.Source()
		if contains(failed, source) {
			continue
		}
		req := c.inFlightRequests.lastSent(source)
		if req != nil {
			req = c.inFlightRequests.completeNext(source)
		}
		body, err := parseResponse(rcv.Payload(), req)
		if err != nil {
			c.log.Errorf("Closing the connection to node %s: %v", source, err)
			if req != nil {
				c.inFlightRequests.requests[source] = append(c.inFlightRequests.requests[source], req) // fail it with the rest
			}
			c.selector.CloseConnection(source)
			responses = c.processDisconnection(responses, source, nowMs)
			c.metadataUpdater.RequestUpdate()
			failed = append(failed, source)
			continue
		}
		switch b := body.(type) {
		case *protocol.MetadataResponse:
			if req.isInternalRequest {
				c.metadataUpdater.HandleCompletedMetadataResponse(req.header, nowMs, b)
				continue
			}
		case *protocol.ApiVersionsResponse:
			if req.isInternalRequest {
				responses = c.handleApiVersionsResponse(responses, req, nowMs, b)
				continue
			}
		}
		responses = append(responses, req.completed(body, nowMs))
	}
	return responses
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// parseResponse checks the response header against the request it answers and decodes the
// body at the request's version.
//
// Kafka 0.10.2: NetworkClient.parseResponse and correlate.
func parseResponse(payload []byte, req *inFlightRequest) (protocol.Message, error) {
	if req == nil {
		return nil, errors.New("Response from server for which there are no in-flight requests.")
	}
	rh, body, err := protocol.ReadResponseHeader(payload)
	if err != nil {
		return nil, fmt.Errorf("unreadable response header: %w", err)
	}
	if rh.CorrelationID != req.header.CorrelationID {
		return nil, fmt.Errorf("Correlation id for response (%d) does not match request (%d), request header: %s",
			rh.CorrelationID, req.header.CorrelationID, req.header)
	}
	m, err := protocol.ParseResponse(req.header.ApiKey, req.header.ApiVersion, body)
	if err != nil {
		return nil, fmt.Errorf("unparsable %s response (version %d): %w", req.header.ApiKey, req.header.ApiVersion, err)
	}
	return m, nil
}

func (c *NetworkClient) handleApiVersionsResponse(responses []*ClientResponse, req *inFlightRequest, nowMs int64, r *protocol.ApiVersionsResponse) []*ClientResponse {
	node := req.destination
	if r.ErrorCode != 0 {
		c.log.Warnf("Node %s got error %s when making an ApiVersionsRequest.  Disconnecting.", node, protocol.ErrorForCode(r.ErrorCode))
		c.selector.CloseConnection(node)
		return c.processDisconnection(responses, node, nowMs)
	}
	info := NewNodeApiVersions(r.ApiVersions)
	c.nodeApiVersions[node] = info
	c.connectionStates.Ready(node)
	c.log.Debugf("Recorded API versions for node %s: %s", node, info)
	return responses
}

func (c *NetworkClient) handleDisconnections(responses []*ClientResponse, nowMs int64) []*ClientResponse {
	disconnected := c.selector.Disconnected()
	for _, node := range disconnected {
		c.log.Debugf("Node %s disconnected.", node)
		responses = c.processDisconnection(responses, node, nowMs)
	}
	if len(disconnected) > 0 {
		c.metadataUpdater.RequestUpdate()
	}
	return responses
}

func (c *NetworkClient) handleConnections() {
	for _, node := range c.selector.Connected() {
		if c.cfg.DiscoverBrokerVersions {
			c.connectionStates.CheckingApiVersions(node)
			c.needApiVersions[node] = true
			c.log.Debugf("Completed connection to node %s.  Fetching API versions.", node)
		} else {
			c.connectionStates.Ready(node)
			c.log.Debugf("Completed connection to node %s.  Ready.", node)
		}
	}
}

func (c *NetworkClient) handleInitiateApiVersionRequests(nowMs int64) {
	for node := range c.needApiVersions {
		if c.selector.IsChannelReady(node) && c.inFlightRequests.CanSendMore(node) {
			c.log.Debugf("Initiating API versions fetch from node %s.", node)
			r := c.NewClientRequest(node, &protocol.ApiVersionsRequest{Version: 0}, nowMs, true, nil)
			_ = c.doSend(r, true, nowMs)
			delete(c.needApiVersions, node)
		}
	}
}

func (c *NetworkClient) initiateConnect(node common.Node, nowMs int64) {
	id := node.IDString()
	c.log.Debugf("Initiating connection to node %d at %s:%d.", node.ID, node.Host, node.Port)
	c.connectionStates.Connecting(id, nowMs)
	if err := c.selector.Connect(id, node.Addr(), c.cfg.SocketSendBuffer, c.cfg.SocketReceiveBuffer); err != nil {
		c.connectionStates.Disconnected(id, nowMs)
		c.metadataUpdater.RequestUpdate()
		c.log.Debugf("Error connecting to node %d at %s:%d: %v", node.ID, node.Host, node.Port, err)
	}
}

// nodeIDString is the connection id of a node id.
func nodeIDString(id int32) string { return strconv.FormatInt(int64(id), 10) }
