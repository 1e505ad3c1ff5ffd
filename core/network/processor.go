package network

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
)

// Processor owns a set of connections: their requests are framed and parsed onto the
// RequestChannel (processCompletedReceive, run by each connection's reader goroutine), and the
// Processor's own goroutine writes the responses the handlers put on its response queue, unmutes
// the connections, and closes them.
//
// Kafka 0.10.2: kafka.network.Processor.
type Processor struct {
	id             int
	listenerName   string
	protocol       common.SecurityProtocol
	requestChannel *RequestChannel
	quotas         *ConnectionQuotas
	maxRequestSize int32
	idleTimeout    time.Duration
	log            *logrus.Entry
	requestMetrics requestMetricsMap                                              // nil: metrics off
	idle           *idleMeter                                                     // nil: metrics off
	memory         *memoryReturner                                                // nil: large receives are not tracked
	parse          func(protocol.RequestHeader, []byte) (protocol.Message, error) // nil: protocol.ParseRequest
	sasl           *security.SaslServerAuthenticator                              // non-nil on SASL_PLAINTEXT and SASL_SSL listeners
	tls            *tls.Config                                                    // non-nil on SSL and SASL_SSL listeners

	newConnections chan net.Conn
	sends          chan completedSend
	disconnects    chan disconnect

	channels map[string]*KafkaChannel // owned by the run goroutine
	nextID   int
	done     chan struct{}
	wg       sync.WaitGroup // the run goroutine
	connWG   sync.WaitGroup // every channel's goroutine
}

func newProcessor(id int, listenerName string, securityProtocol common.SecurityProtocol, rc *RequestChannel, quotas *ConnectionQuotas,
	maxRequestSize int32, idleTimeout time.Duration, log *logrus.Entry) *Processor {
	return &Processor{
		id: id, listenerName: listenerName, protocol: securityProtocol, requestChannel: rc, quotas: quotas,
		maxRequestSize: maxRequestSize, idleTimeout: idleTimeout,
		log:            log.WithField("ident", fmt.Sprintf("[Processor %d]: ", id)),
		newConnections: make(chan net.Conn, 20),
		sends:          make(chan completedSend),
		disconnects:    make(chan disconnect),
		channels:       map[string]*KafkaChannel{},
		done:           make(chan struct{}),
	}
}

// accept queues a new connection for this Processor (called by the Acceptor).
func (p *Processor) accept(c net.Conn) bool {
	select {
	case p.newConnections <- c:
		return true
	case <-p.done:
		return false
	}
}

// run is the Processor's loop, in the order of SocketServer.scala's Processor.run.
func (p *Processor) run() {
	defer p.wg.Done()
	wakeup := p.requestChannel.responseQueues[p.id].wakeup
	reap := time.NewTicker(p.reapInterval())
	defer reap.Stop()
	for {
		waitStart := p.idle.begin() // the time spent in select is the Processor's idle time
		select {
		case c := <-p.newConnections:
			p.idle.end(waitStart)
			p.configureNewConnection(c)
		case <-wakeup:
			p.idle.end(waitStart)
			p.processNewResponses()
		case s := <-p.sends:
			p.idle.end(waitStart)
			p.processCompletedSend(s)
		case d := <-p.disconnects:
			p.idle.end(waitStart)
			p.processDisconnected(d)
		case <-reap.C:
			p.idle.end(waitStart)
			p.maybeCloseOldestConnection()
		case <-p.done:
			p.closeAll()
			return
		}
	}
}

func (p *Processor) reapInterval() time.Duration {
	iv := p.idleTimeout / 10
	if iv < 10*time.Millisecond {
		iv = 10 * time.Millisecond
	}
	if iv > time.Second {
		iv = time.Second
	}
	return iv
}

func (p *Processor) configureNewConnection(c net.Conn) {
	id := connectionID(c, p.nextID)
	if p.tls != nil {
		// The handshake runs on the channel's reader goroutine (KafkaChannel.readLoop); a TLS
		// connection has no descriptor for the non-blocking and sendfile paths, so every byte
		// goes through crypto/tls.
		c = tls.Server(c, p.tls)
	}
	p.nextID++
	ch := newKafkaChannel(id, c, p.maxRequestSize)
	p.channels[id] = ch
	ch.start(p)
}

// connectionID is Kafka's "localHost:localPort-remoteHost:remotePort" plus an index, so a quickly
// reused port pair cannot collide with a connection still being closed.
func connectionID(c net.Conn, n int) string {
	return c.LocalAddr().String() + "-" + c.RemoteAddr().String() + "-" + strconv.Itoa(n)
}

// processNewResponses takes the responses off the Processor's queue, where SendResponse puts a
// response to a Request that did not come from a connection's goroutine, and hands each to its
// connection, which writes it.
func (p *Processor) processNewResponses() {
	for _, resp := range p.requestChannel.drainResponses(p.id) {
		ch, ok := p.channels[resp.Request.ConnectionID]
		if !ok {
			// The connection closed while the request was being handled: nothing to send, but the
			// request still counts (Kafka's sendResponse to a channel the Selector closed).
			p.requestMetrics.updateRequestMetrics(resp.Request, time.Now())
			continue
		}
		ch.deliver(resp)
	}
}

// completeSend finishes ch's request in flight (its response is written, or it needs none): the
// request's metrics, and the channel is unmuted. It runs on the channel's goroutine; whoever
// takes the request out of ch.inflight records it, so a connection closing meanwhile counts it
// once.
func (p *Processor) completeSend(ch *KafkaChannel) {
	if req := ch.inflight.Swap(nil); req != nil {
		p.requestMetrics.updateRequestMetrics(req, time.Now())
	}
}

// processCompletedReceive turns a request read from ch into a Request on the RequestChannel. It
// runs on ch's reader goroutine, which has muted the channel (Kafka's Processor does this on its
// own thread; doing it here saves two goroutine hand-offs per request), and touches only
// Processor fields that never change. A request that does not parse is returned as an error: the
// reader reports it and the Processor closes the connection.
func (p *Processor) processCompletedReceive(ch *KafkaChannel, payload []byte) error {
	req, err := p.parseRequest(ch, payload)
	if err != nil {
		return fmt.Errorf("%w: %w", errInvalidRequest, err)
	}
	req.channel = ch
	ch.inflight.Store(req)
	p.requestChannel.SendRequest(req, p.done)
	return nil
}

// parseRequest is RequestChannel.Request's construction: the header, then the body for the
// header's api key and version (protocol.ParseRequest applies 0.10.2's special cases: an
// ApiVersions request of an unsupported version is not decoded, so KafkaApis can answer it with
// error 35 in the v0 layout; ControlledShutdown goes through the legacy reader).
func (p *Processor) parseRequest(ch *KafkaChannel, payload []byte) (*Request, error) {
	header, body, err := protocol.ReadRequestHeader(payload)
	if err != nil {
		return nil, err
	}
	req := &Request{
		Processor: p.id, ConnectionID: ch.id, ListenerName: p.listenerName, Header: header, RawBody: body,
		Session:   Session{Principal: ch.principal, ClientAddr: ch.conn.RemoteAddr()},
		StartTime: time.Now(),
	}
	parse := protocol.ParseRequest
	if p.parse != nil {
		parse = p.parse
	}
	msg, err := parse(header, body)
	if err != nil {
		return nil, err
	}
	req.Body = msg
	return req, nil
}

// processCompletedSend handles a response the connection's goroutine failed to write, or a
// CloseConnection response it took up: the connection is closed.
func (p *Processor) processCompletedSend(s completedSend) {
	ch := s.ch
	if p.channels[ch.id] != ch {
		return
	}
	if s.err != nil {
		p.requestMetrics.updateRequestMetrics(ch.inflight.Swap(nil), time.Now())
		if errors.Is(s.err, errCloseConnectionAction) {
			p.log.Debugf("Closing socket connection to %s.", ch.conn.RemoteAddr())
		} else {
			p.log.Debugf("Closing socket for %s because of error writing a response: %v", ch.id, s.err)
		}
		p.close(ch)
		return
	}
	p.completeSend(ch)
}

func (p *Processor) processDisconnected(d disconnect) {
	if _, ok := p.channels[d.ch.id]; !ok {
		return
	}
	switch {
	case errors.Is(d.err, errInvalidRequest):
		p.log.WithError(d.err).Warnf("Closing socket connection to %s due to %v", d.ch.conn.RemoteAddr(), d.err)
	case errors.Is(d.err, errSslHandshake):
		p.log.Infof("Failed authentication with %s (%v)", d.ch.conn.RemoteAddr(), d.err)
	case errors.Is(d.err, security.ErrAuthentication):
		// 0.10.2 closes the connection with no response; the reason is logged here.
		p.log.Infof("Failed authentication with %s (%v)", d.ch.conn.RemoteAddr(), d.err)
	case errors.Is(d.err, errInvalidReceive):
		p.log.Warnf("Closing socket connection to %s: %v", d.ch.conn.RemoteAddr(), d.err)
	}
	p.close(d.ch)
}

// maybeCloseOldestConnection closes connections idle for connections.max.idle.ms. A connection
// with a request in flight is not idle: the broker, not the client, owes the next byte.
func (p *Processor) maybeCloseOldestConnection() {
	if p.idleTimeout <= 0 {
		return
	}
	limit := time.Now().Add(-p.idleTimeout).UnixNano()
	for id, ch := range p.channels {
		if ch.inflight.Load() != nil {
			continue
		}
		if ch.lastActivity.Load() < limit {
			p.log.Debugf("About to close the idle connection from %s due to being idle for %v", id, p.idleTimeout)
			p.close(ch)
		}
	}
}

func (p *Processor) close(ch *KafkaChannel) {
	if req := ch.inflight.Swap(nil); req != nil && req.responseDequeue.Load() != 0 {
		// The response was being written when the connection went: it is finished as far as the
		// metrics go (Kafka: processDisconnected's inflightResponses). A request still with the
		// handlers counts later, when its response comes back to a closed connection.
		p.requestMetrics.updateRequestMetrics(req, time.Now())
	}
	delete(p.channels, ch.id)
	ch.close()
	ch.dropResponse() // a response handed over as it closed
	p.quotas.dec(ch.conn.RemoteAddr())
}

func (p *Processor) closeAll() {
	chans := make([]*KafkaChannel, 0, len(p.channels))
	for _, ch := range p.channels {
		chans = append(chans, ch)
	}
	for _, ch := range chans {
		p.close(ch)
	}
	p.connWG.Wait()
	for {
		select {
		case c := <-p.newConnections:
			c.Close()
			p.quotas.dec(c.RemoteAddr())
		default:
			return
		}
	}
}
