package consumer

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// ErrDisconnect is a request whose connection was lost before its response (retriable).
//
// Kafka 0.10.2: org.apache.kafka.common.errors.DisconnectException.
var ErrDisconnect = errors.New("org.apache.kafka.common.errors.DisconnectException")

// ErrCoordinatorNotAvailable is a group request with no known coordinator (retriable).
var ErrCoordinatorNotAvailable = protocol.ErrGroupCoordinatorNotAvailable

// ConsumerNetworkClient is the consumer's layer over NetworkClient: Send queues a request for a
// node (unsent until the node is ready) and returns a RequestFuture; Poll sends what it can, does
// the I/O and completes the futures of the responses; PollFuture blocks until one future is
// done. The application's goroutine and the HeartbeatThread share it, so it is guarded by a
// mutex; futures complete after the mutex is released, so their listeners may send again.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.ConsumerNetworkClient.
type ConsumerNetworkClient struct {
	mu              sync.Mutex
	client          *clients.NetworkClient
	metadata        *clients.Metadata
	time            common.Time
	retryBackoffMs  int64
	unsentExpiryMs  int64
	unsentMu        sync.Mutex // guards unsent and nodes; taken after mu
	unsent          map[int32][]*unsentRequest
	nodes           map[int32]common.Node
	log             *logrus.Entry
	pendingMu       sync.Mutex
	pending         []completion
	wakeup          atomic.Bool
	wakeupsDisabled atomic.Int32
	closed          atomic.Bool
}

type unsentRequest struct {
	body     protocol.Message
	future   *RequestFuture[*clients.ClientResponse]
	queuedMs int64
}

type completion struct {
	future   *RequestFuture[*clients.ClientResponse]
	response *clients.ClientResponse
	err      error
}

// NewConsumerNetworkClient wraps client; requests unsent after requestTimeoutMs fail.
func NewConsumerNetworkClient(client *clients.NetworkClient, metadata *clients.Metadata, t common.Time, retryBackoffMs, requestTimeoutMs int64, log *logrus.Entry) *ConsumerNetworkClient {
	return &ConsumerNetworkClient{client: client, metadata: metadata, time: t, retryBackoffMs: retryBackoffMs, unsentExpiryMs: requestTimeoutMs,
		unsent: map[int32][]*unsentRequest{}, nodes: map[int32]common.Node{},
		log: log.WithField("logger", "org.apache.kafka.clients.consumer.internals.ConsumerNetworkClient")}
}

// Send queues body for node; the request goes out on a later Poll once the node is ready.
//
// Kafka 0.10.2: ConsumerNetworkClient.send.
func (c *ConsumerNetworkClient) Send(node common.Node, body protocol.Message) *RequestFuture[*clients.ClientResponse] {
	f := NewRequestFuture[*clients.ClientResponse]()
	c.unsentMu.Lock()
	c.nodes[node.ID] = node
	c.unsent[node.ID] = append(c.unsent[node.ID], &unsentRequest{body: body, future: f, queuedMs: c.time.Milliseconds()})
	c.unsentMu.Unlock()
	c.client.Wakeup()
	return f
}

// LeastLoadedNode is NetworkClient.LeastLoadedNode.
func (c *ConsumerNetworkClient) LeastLoadedNode() *common.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.client.LeastLoadedNode(c.time.Milliseconds())
}

// AwaitMetadataUpdate requests a metadata update and polls until it arrives or timeoutMs
// passes (negative: no limit); it reports whether it arrived.
//
// Kafka 0.10.2: ConsumerNetworkClient.awaitMetadataUpdate.
func (c *ConsumerNetworkClient) AwaitMetadataUpdate(timeoutMs int64) (bool, error) {
	version := c.metadata.RequestUpdate()
	start := c.time.Milliseconds()
	for c.metadata.Version() <= version {
		remaining := int64(1 << 62)
		if timeoutMs >= 0 {
			remaining = timeoutMs - (c.time.Milliseconds() - start)
			if remaining <= 0 {
				return false, nil
			}
		}
		if err := c.Poll(min(remaining, c.retryBackoffMs*10)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// PollFuture polls until f is done or timeoutMs passes (negative: no limit); it reports
// whether f is done.
func PollFuture[T any](c *ConsumerNetworkClient, f *RequestFuture[T], timeoutMs int64) (bool, error) {
	start := c.time.Milliseconds()
	for !f.IsDone() {
		wait := int64(1 << 62)
		if timeoutMs >= 0 {
			wait = timeoutMs - (c.time.Milliseconds() - start)
			if wait <= 0 {
				return false, nil
			}
		}
		if err := c.pollUntil(wait, func() bool { return f.IsDone() }, false); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Poll does I/O for up to timeoutMs; ErrWakeup if Wakeup was called.
//
// Kafka 0.10.2: ConsumerNetworkClient.poll(long).
func (c *ConsumerNetworkClient) Poll(timeoutMs int64) error {
	return c.pollUntil(timeoutMs, nil, false)
}

// PollNoWakeup does the I/O that is ready without blocking and ignores Wakeup (the heartbeat
// thread and close).
func (c *ConsumerNetworkClient) PollNoWakeup() { _ = c.pollUntil(0, nil, true) }

// TryPollNoWakeup is PollNoWakeup unless another goroutine is polling (which then does the
// I/O): the heartbeat thread never waits for the application's poll.
func (c *ConsumerNetworkClient) TryPollNoWakeup() {
	if !c.mu.TryLock() {
		return
	}
	c.mu.Unlock()
	c.PollNoWakeup()
}

// pollUntil is one poll: send what is ready, block up to timeoutMs unless condition already
// holds, fail what was disconnected or expired, send again, then complete futures.
func (c *ConsumerNetworkClient) pollUntil(timeoutMs int64, condition func() bool, disableWakeup bool) error {
	c.firePendingCompletedRequests()
	c.mu.Lock()
	now := c.time.Milliseconds()
	c.trySend(now)
	if condition == nil || !condition() {
		// A completion to fire, or a wakeup that came before this poll: do not block.
		if len(c.pendingSnapshot()) > 0 || !disableWakeup && c.wakeupsDisabled.Load() == 0 && c.wakeup.Load() {
			timeoutMs = 0
		}
		c.client.Poll(max(timeoutMs, 0), now)
	} else {
		c.client.Poll(0, now)
	}
	now = c.time.Milliseconds()
	c.checkDisconnects(now)
	c.trySend(now)
	c.failExpiredRequests(now)
	c.mu.Unlock()
	c.firePendingCompletedRequests()
	if !disableWakeup && c.wakeupsDisabled.Load() == 0 && c.wakeup.CompareAndSwap(true, false) {
		return ErrWakeup
	}
	return nil
}

func (c *ConsumerNetworkClient) pendingSnapshot() []completion {
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	return c.pending
}

// trySend sends every unsent request whose node is ready. Caller holds mu.
func (c *ConsumerNetworkClient) trySend(now int64) {
	c.unsentMu.Lock()
	defer c.unsentMu.Unlock()
	for id, reqs := range c.unsent {
		node := c.nodes[id]
		i := 0
		for ; i < len(reqs); i++ {
			if !c.client.Ready(node, now) {
				break
			}
			u := reqs[i]
			f := u.future
			cr := c.client.NewClientRequest(node.IDString(), u.body, now, true, func(r *clients.ClientResponse) { c.onComplete(f, r) })
			if err := c.client.Send(cr, now); err != nil {
				break
			}
		}
		if i == len(reqs) {
			delete(c.unsent, id)
		} else {
			c.unsent[id] = reqs[i:]
		}
	}
}

// onComplete turns a ClientResponse into the future's outcome, to fire after the lock is released.
func (c *ConsumerNetworkClient) onComplete(f *RequestFuture[*clients.ClientResponse], r *clients.ClientResponse) {
	var cp completion
	switch {
	case r.Disconnected:
		cp = completion{future: f, err: fmt.Errorf("%w: the connection to node %s was lost before the response to %s", ErrDisconnect, r.Destination, r.RequestHeader.ApiKey)}
	case r.VersionMismatch != nil:
		cp = completion{future: f, err: r.VersionMismatch}
	default:
		cp = completion{future: f, response: r}
	}
	c.pendingMu.Lock()
	c.pending = append(c.pending, cp)
	c.pendingMu.Unlock()
}

// checkDisconnects fails the unsent requests of nodes whose connection failed. Caller holds mu.
func (c *ConsumerNetworkClient) checkDisconnects(now int64) {
	c.unsentMu.Lock()
	defer c.unsentMu.Unlock()
	for id, reqs := range c.unsent {
		if !c.client.ConnectionFailed(c.nodes[id]) {
			continue
		}
		delete(c.unsent, id)
		for _, u := range reqs {
			c.queueFailure(u.future, fmt.Errorf("%w: cannot connect to node %d", ErrDisconnect, id))
		}
	}
}

// failExpiredRequests fails requests unsent for longer than request.timeout.ms. Caller holds mu.
func (c *ConsumerNetworkClient) failExpiredRequests(now int64) {
	c.unsentMu.Lock()
	defer c.unsentMu.Unlock()
	for id, reqs := range c.unsent {
		keep := reqs[:0]
		for _, u := range reqs {
			if now-u.queuedMs > c.unsentExpiryMs {
				c.queueFailure(u.future, fmt.Errorf("%w: Failed to send request after %d ms.", ErrTimeout, c.unsentExpiryMs))
				continue
			}
			keep = append(keep, u)
		}
		if len(keep) == 0 {
			delete(c.unsent, id)
		} else {
			c.unsent[id] = keep
		}
	}
}

func (c *ConsumerNetworkClient) queueFailure(f *RequestFuture[*clients.ClientResponse], err error) {
	c.pendingMu.Lock()
	c.pending = append(c.pending, completion{future: f, err: err})
	c.pendingMu.Unlock()
}

func (c *ConsumerNetworkClient) firePendingCompletedRequests() {
	for {
		c.pendingMu.Lock()
		ps := c.pending
		c.pending = nil
		c.pendingMu.Unlock()
		if len(ps) == 0 {
			return
		}
		for _, p := range ps {
			if p.err != nil {
				p.future.Raise(p.err)
			} else {
				p.future.Complete(p.response)
			}
		}
	}
}

// FailUnsentRequests fails every request not yet sent to node with err.
func (c *ConsumerNetworkClient) FailUnsentRequests(node common.Node, err error) {
	c.unsentMu.Lock()
	reqs := c.unsent[node.ID]
	delete(c.unsent, node.ID)
	for _, u := range reqs {
		c.queueFailure(u.future, err)
	}
	c.unsentMu.Unlock()
	c.firePendingCompletedRequests()
}

// TryConnect starts a connection to node if there is none (so that ConnectionFailed speaks of
// a real attempt).
//
// Kafka 0.10.2: ConsumerNetworkClient.tryConnect.
func (c *ConsumerNetworkClient) TryConnect(node common.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.client.Ready(node, c.time.Milliseconds())
}

// PendingRequestCount is the number of requests unsent or in flight to node.
func (c *ConsumerNetworkClient) PendingRequestCount(node common.Node) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unsentMu.Lock()
	defer c.unsentMu.Unlock()
	return len(c.unsent[node.ID]) + c.client.InFlightRequestCountFor(node.IDString())
}

// HasPendingRequests reports requests unsent or in flight to any node.
func (c *ConsumerNetworkClient) HasPendingRequests() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unsentMu.Lock()
	defer c.unsentMu.Unlock()
	return len(c.unsent) > 0 || c.client.HasInFlightRequests()
}

// ConnectionFailed reports that the last connection attempt to node failed.
func (c *ConsumerNetworkClient) ConnectionFailed(node common.Node) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.client.ConnectionFailed(node)
}

// Wakeup makes the current or next blocking poll return ErrWakeup (from any goroutine).
//
// Kafka 0.10.2: ConsumerNetworkClient.wakeup.
func (c *ConsumerNetworkClient) Wakeup() {
	c.wakeup.Store(true)
	c.client.Wakeup()
}

// DisableWakeups makes polls ignore Wakeup until EnableWakeups (during close).
func (c *ConsumerNetworkClient) DisableWakeups() { c.wakeupsDisabled.Add(1) }

// Close closes every connection.
func (c *ConsumerNetworkClient) Close() {
	if !c.closed.CompareAndSwap(false, true) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.client.Close()
	c.metadata.Close()
}
