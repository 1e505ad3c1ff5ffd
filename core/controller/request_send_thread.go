package controller

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// maxResponseSize bounds a response frame read from a broker; a controller
// response is small, so anything larger is a broken peer.
const maxResponseSize = 100 << 20

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
// Kafka 0.10.2: kafka.controller.RequestSendThread (a ShutdownableThread over
// NetworkClientBlockingOps). Here it is a goroutine over a plain net.Conn with
// the protocol framing; its queue is unbounded, as Kafka's LinkedBlockingQueue
// is, so that enqueuing under the controller lock never blocks.
type RequestSendThread struct {
	controllerID   int32
	epoch          func() int32
	broker         zkutils.BrokerInfo
	listenerName   string
	socketTimeout  time.Duration // connect (controller.socket.timeout.ms)
	requestTimeout time.Duration // round trip (request.timeout.ms)
	log            *logrus.Entry
	stateChangeLog *logrus.Entry

	mu     sync.Mutex
	queue  []QueueItem
	conn   net.Conn
	closed bool

	wake chan struct{}
	stop chan struct{}
	done chan struct{}

	correlationID int32
	interBroker   *security.InterBrokerSecurity // TLS and SASL on a secured inter-broker listener (nil: none)
}

func newRequestSendThread(controllerID int32, epoch func() int32, broker zkutils.BrokerInfo, listenerName string,
	socketTimeout, requestTimeout time.Duration, log *logrus.Entry, stateChangeLog *logrus.Entry) *RequestSendThread {
	name := fmt.Sprintf("Controller-%d-to-broker-%d-send-thread", controllerID, broker.ID)
	return &RequestSendThread{
		controllerID: controllerID, epoch: epoch, broker: broker, listenerName: listenerName,
		socketTimeout: socketTimeout, requestTimeout: requestTimeout, stateChangeLog: stateChangeLog,
		log:  log.WithField("logger", "kafka.controller.RequestSendThread").WithField("ident", "["+name+"]: "),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
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

// shutdown stops the goroutine, dropping queued requests, and waits for it.
func (t *RequestSendThread) shutdown() {
	t.mu.Lock()
	if !t.closed {
		t.closed = true
		close(t.stop)
		if t.conn != nil {
			_ = t.conn.Close()
			t.conn = nil
		}
	}
	t.mu.Unlock()
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
		case <-t.stop:
			return QueueItem{}, false
		}
	}
}

func (t *RequestSendThread) run() {
	defer close(t.done)
	t.log.Info("Starting ")
	defer t.log.Info("Stopped ")
	for {
		item, ok := t.take()
		if !ok {
			return
		}
		var resp protocol.Message
		for {
			var err error
			resp, err = t.sendAndReceive(item.Request)
			if err == nil {
				break
			}
			select {
			case <-t.stop:
				return
			default:
			}
			t.log.WithError(err).Warnf("Controller %d epoch %d fails to send request %s to broker %d. Reconnecting to broker.",
				t.controllerID, t.epoch(), item.Request.Key(), t.broker.ID)
			t.closeConn()
			select {
			case <-t.stop:
				return
			case <-time.After(reconnectBackoff):
			}
		}
		t.stateChangeLog.Tracef("Controller %d epoch %d received response %s for a request sent to broker %d",
			t.controllerID, t.epoch(), resp.Key(), t.broker.ID)
		if item.Callback != nil {
			item.Callback(resp)
		}
	}
}

func (t *RequestSendThread) closeConn() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		_ = t.conn.Close()
		t.conn = nil
	}
}

// connection returns the open connection, dialling the broker's inter-broker
// listener if there is none.
func (t *RequestSendThread) connection() (net.Conn, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, net.ErrClosed
	}
	if c := t.conn; c != nil {
		t.mu.Unlock()
		return c, nil
	}
	t.mu.Unlock()
	ep, ok := t.broker.EndPoint(t.listenerName)
	if !ok {
		return nil, fmt.Errorf("broker %d has no endpoint for listener %s", t.broker.ID, t.listenerName)
	}
	host := ep.Host
	if host == "" {
		host = "localhost"
	}
	raw, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(int(ep.Port))), t.socketTimeout)
	if err != nil {
		return nil, err
	}
	c, err := t.interBroker.Secure(raw, fmt.Sprint(t.controllerID), t.socketTimeout)
	if err != nil {
		raw.Close()
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		_ = c.Close()
		return nil, net.ErrClosed
	}
	t.conn = c
	t.log.Infof("Controller %d connected to %s for sending state change requests", t.controllerID, ep.ConnectionString())
	return c, nil
}

// sendAndReceive is the blocking round trip (NetworkClientBlockingOps'
// blockingSendAndReceive): write one request frame, read frames until the one
// with our correlation id.
func (t *RequestSendThread) sendAndReceive(req protocol.Message) (protocol.Message, error) {
	c, err := t.connection()
	if err != nil {
		return nil, err
	}
	t.correlationID++
	clientID := strconv.Itoa(int(t.controllerID))
	h := protocol.RequestHeader{ApiKey: req.Key(), ApiVersion: req.GetVersion(), CorrelationID: t.correlationID, ClientID: &clientID}
	if err := c.SetDeadline(time.Now().Add(t.requestTimeout)); err != nil {
		return nil, err
	}
	if _, err := protocol.WriteRequest(c, h, req); err != nil {
		return nil, err
	}
	for {
		body, err := readFrame(c)
		if err != nil {
			return nil, err
		}
		rh, rest, err := protocol.ReadResponseHeader(body)
		if err != nil {
			return nil, err
		}
		if rh.CorrelationID != h.CorrelationID {
			continue
		}
		return protocol.ParseResponse(req.Key(), req.GetVersion(), rest)
	}
}

// readFrame reads one size-prefixed frame.
func readFrame(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 0 || n > maxResponseSize {
		return nil, fmt.Errorf("invalid frame size %d", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}
