package controller

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// reconnectBackoff is how long a send goroutine waits before retrying a
// broker it could not reach (RequestSendThread.backoff in 0.10.2: 100 ms).
const reconnectBackoff = 100 * time.Millisecond

// QueueItem is one request waiting to be sent to a broker, with the callback
// that receives its response.
//
// Kafka 0.10.2: kafka.controller.QueueItem.
type QueueItem struct {
	Request  protocol.Message
	Callback func(protocol.Message)
}

// RequestSendThread sends the controller's requests to one broker, one at a
// time, waiting for each response before the next; a failed send is retried
// on a new connection after a backoff until it succeeds or the thread stops.
//
// Kafka 0.10.2: kafka.controller.RequestSendThread, a ShutdownableThread over
// its broker's NetworkClient (ManualMetadataUpdater with the one node,
// max.in.flight 1, reconnect backoff 0, request.timeout.ms) driven through
// NetworkClientBlockingOps: brokerReady (blockingReady within
// controller.socket.timeout.ms), then blockingSendAndReceive. Its queue is
// unbounded, as Kafka's LinkedBlockingQueue is, so that enqueuing under the
// controller lock never blocks. The NetworkClient belongs to the goroutine,
// which closes it when it ends (KAFKA-4959's hand-off, here by construction).
type RequestSendThread struct {
	controllerID   int32
	epoch          func() int32
	broker         zkutils.BrokerInfo
	listenerName   string
	socketTimeout  time.Duration // connect (controller.socket.timeout.ms)
	log            *logrus.Entry
	stateChangeLog *logrus.Entry

	networkClient *clients.NetworkClient // used only by the run goroutine
	blockingOps   clients.NetworkClientBlockingOps

	mu     sync.Mutex
	queue  []QueueItem
	closed bool

	wake   chan struct{}
	ctx    context.Context // done once shutdown begins
	cancel context.CancelFunc
	done   chan struct{}
}

func newRequestSendThread(controllerID int32, epoch func() int32, broker zkutils.BrokerInfo, listenerName string,
	socketTimeout, requestTimeout time.Duration, log *logrus.Entry, stateChangeLog *logrus.Entry, interBroker *security.InterBrokerSecurity) *RequestSendThread {
	name := fmt.Sprintf("Controller-%d-to-broker-%d-send-thread", controllerID, broker.ID)
	t := &RequestSendThread{
		controllerID: controllerID, epoch: epoch, broker: broker, listenerName: listenerName,
		socketTimeout: socketTimeout, stateChangeLog: stateChangeLog,
		log:  log.WithField("logger", "kafka.controller.RequestSendThread").WithField("ident", "["+name+"]: "),
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	// On a TLS or SASL inter-broker listener the connection is secured as it is made.
	sel := network.NewSelector(network.SelectorConfig{MaxReceiveSize: network.Unlimited, Log: log,
		Dial: interBroker.Dial(strconv.Itoa(int(controllerID)), socketTimeout)})
	t.networkClient = clients.NewNetworkClientWithUpdater(sel, &clients.ManualMetadataUpdater{}, clients.NetworkClientConfig{
		ClientID: strconv.Itoa(int(controllerID)), MaxInFlightRequestsPerConnection: 1, ReconnectBackoffMs: 0,
		SocketSendBuffer: network.UseDefaultBufferSize, SocketReceiveBuffer: network.UseDefaultBufferSize,
		RequestTimeoutMs: max(requestTimeout.Milliseconds(), 1), Log: log})
	t.blockingOps = clients.NetworkClientBlockingOps{Client: t.networkClient, Time: common.SystemTime{}}
	return t
}

// start launches the goroutine.
func (t *RequestSendThread) start() { go t.run() }

// enqueue adds an item without blocking.
func (t *RequestSendThread) enqueue(item QueueItem) {
	t.mu.Lock()
	t.queue = append(t.queue, item)
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// shutdown stops the goroutine, dropping queued requests, and waits for it
// (which closes the NetworkClient).
func (t *RequestSendThread) shutdown() {
	t.mu.Lock()
	t.closed = true
	t.queue = nil
	t.mu.Unlock()
	t.cancel()
	<-t.done
}

func (t *RequestSendThread) take() (QueueItem, bool) {
	for {
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			return QueueItem{}, false
		}
		if len(t.queue) > 0 {
			item := t.queue[0]
			t.queue[0] = QueueItem{}
			t.queue = t.queue[1:]
			t.mu.Unlock()
			return item, true
		}
		t.mu.Unlock()
		select {
		case <-t.wake:
		case <-t.ctx.Done():
			return QueueItem{}, false
		}
	}
}

func (t *RequestSendThread) run() {
	defer close(t.done)
	defer t.networkClient.Close()
	t.log.Info("Starting ")
	defer t.log.Info("Stopped ")
	for {
		item, ok := t.take()
		if !ok {
			return
		}
		resp, ok := t.sendUntilAnswered(item.Request)
		if !ok {
			return
		}
		t.stateChangeLog.Tracef("Controller %d epoch %d received response %s for a request sent to broker %d",
			t.controllerID, t.epoch(), resp.Key(), t.broker.ID)
		if item.Callback != nil {
			item.Callback(resp)
		}
	}
}

// sendUntilAnswered sends req until a response arrives (false: the thread is
// stopping). Every failure closes the connection and backs off before the
// next attempt.
//
// Kafka 0.10.2: the retry loop of RequestSendThread.doWork.
func (t *RequestSendThread) sendUntilAnswered(req protocol.Message) (protocol.Message, bool) {
	for t.ctx.Err() == nil {
		node, ready := t.brokerReady()
		if ready {
			r := t.networkClient.NewClientRequest(node.IDString(), req, t.blockingOps.Time.Milliseconds(), true, nil)
			resp, err := t.blockingOps.BlockingSendAndReceive(t.ctx, r)
			if err == nil {
				return resp.ResponseBody, true
			}
			if t.ctx.Err() != nil {
				return nil, false
			}
			t.log.WithError(err).Warnf("Controller %d epoch %d fails to send request %s to broker %s. Reconnecting to broker.",
				t.controllerID, t.epoch(), req.Key(), node)
			t.networkClient.CloseNode(node.IDString())
		}
		select {
		case <-t.ctx.Done():
		case <-time.After(reconnectBackoff):
		}
	}
	return nil, false
}

// brokerReady connects to the broker's inter-broker listener if there is no
// connection, waiting up to controller.socket.timeout.ms; a failure is logged
// and closes the connection.
//
// Kafka 0.10.2: RequestSendThread.brokerReady.
func (t *RequestSendThread) brokerReady() (common.Node, bool) {
	node, err := t.brokerNode()
	if err != nil {
		t.log.WithError(err).Warnf("Controller %d's connection to broker %d was unsuccessful", t.controllerID, t.broker.ID)
		return node, false
	}
	if t.networkClient.IsReady(node, t.blockingOps.Time.Milliseconds()) {
		return node, true
	}
	ready, err := t.blockingOps.BlockingReady(t.ctx, node, t.socketTimeout.Milliseconds())
	if err == nil && !ready {
		err = fmt.Errorf("Failed to connect within %d ms", t.socketTimeout.Milliseconds())
	}
	if err != nil {
		if t.ctx.Err() == nil {
			t.log.WithError(err).Warnf("Controller %d's connection to broker %s was unsuccessful", t.controllerID, node)
		}
		t.networkClient.CloseNode(node.IDString())
		return node, false
	}
	t.log.Infof("Controller %d connected to %s for sending state change requests", t.controllerID, node)
	return node, true
}

// brokerNode is the broker's node on the inter-broker listener (an empty host
// is localhost).
func (t *RequestSendThread) brokerNode() (common.Node, error) {
	ep, ok := t.broker.EndPoint(t.listenerName)
	if !ok {
		return common.Node{ID: t.broker.ID, Port: -1}, fmt.Errorf("broker %d has no endpoint for listener %s", t.broker.ID, t.listenerName)
	}
	host := ep.Host
	if host == "" {
		host = "localhost"
	}
	return common.Node{ID: t.broker.ID, Host: host, Port: ep.Port}, nil
}
