package network

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/protocol"
)

// Processor owns a set of connections: it frames and parses their requests onto the
// RequestChannel and writes the responses the handlers put on its response queue.
//
// Kafka 0.10.2: kafka.network.Processor.
type Processor struct {
	id             int
	listenerName   string
	protocol       string
	requestChannel *RequestChannel
	quotas         *ConnectionQuotas
	maxRequestSize int32
	idleTimeout    time.Duration
	log            *logrus.Entry
	requestMetrics requestMetricsMap // nil: metrics off
	idle           *idleMeter        // nil: metrics off

	newConnections chan net.Conn
	receives       chan networkReceive
	sends          chan completedSend
	disconnects    chan disconnect

	channels map[string]*KafkaChannel // owned by the run goroutine
	inflight map[string]*Request      // the one request each muted channel waits on
	nextID   int
	done     chan struct{}
	wg       sync.WaitGroup // the run goroutine
	connWG   sync.WaitGroup // every channel's reader and writer goroutines
}

func newProcessor(id int, listenerName, securityProtocol string, rc *RequestChannel, quotas *ConnectionQuotas,
	maxRequestSize int32, idleTimeout time.Duration, log *logrus.Entry) *Processor {
	return &Processor{
		id: id, listenerName: listenerName, protocol: securityProtocol, requestChannel: rc, quotas: quotas,
		maxRequestSize: maxRequestSize, idleTimeout: idleTimeout,
		log:            log.WithField("ident", fmt.Sprintf("[Processor %d]: ", id)),
		newConnections: make(chan net.Conn, 20),
		receives:       make(chan networkReceive),
		sends:          make(chan completedSend),
		disconnects:    make(chan disconnect),
		channels:       map[string]*KafkaChannel{},
		inflight:       map[string]*Request{},
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
		case r := <-p.receives:
			p.idle.end(waitStart)
			p.processCompletedReceive(r)
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
	p.nextID++
	ch := newKafkaChannel(id, c, p.maxRequestSize)
	p.channels[id] = ch
	ch.start(&p.connWG, p.receives, p.sends, p.disconnects)
}

// connectionID is Kafka's "localHost:localPort-remoteHost:remotePort" plus an index, so a quickly
// reused port pair cannot collide with a connection still being closed.
func connectionID(c net.Conn, n int) string {
	return c.LocalAddr().String() + "-" + c.RemoteAddr().String() + "-" + strconv.Itoa(n)
}

func (p *Processor) processNewResponses() {
	for _, resp := range p.requestChannel.drainResponses(p.id) {
		ch, ok := p.channels[resp.Request.ConnectionID]
		if !ok {
			// The connection closed while the request was being handled: nothing to send, but the
			// request still counts (Kafka's sendResponse to a channel the Selector closed).
			p.requestMetrics.updateRequestMetrics(resp.Request, time.Now())
			continue
		}
		switch resp.Action {
		case NoOpAction:
			delete(p.inflight, ch.id)
			p.requestMetrics.updateRequestMetrics(resp.Request, time.Now())
			p.unmute(ch)
		case SendAction:
			ch.sends <- resp.Send // cap 1 and at most one response per muted channel: never blocks
		case CloseConnectionAction:
			delete(p.inflight, ch.id)
			p.requestMetrics.updateRequestMetrics(resp.Request, time.Now())
			p.log.Debugf("Closing socket connection to %s.", ch.conn.RemoteAddr())
			p.close(ch)
		}
	}
}

func (p *Processor) unmute(ch *KafkaChannel) {
	select {
	case ch.unmute <- struct{}{}:
	default:
	}
}

func (p *Processor) processCompletedReceive(r networkReceive) {
	ch := r.ch
	if _, ok := p.channels[ch.id]; !ok {
		return
	}
	req, err := p.parseRequest(ch, r.payload)
	if err != nil {
		p.log.WithError(err).Warnf("Closing socket connection to %s due to invalid request: %v", ch.conn.RemoteAddr(), err)
		p.close(ch)
		return
	}
	p.inflight[ch.id] = req
	if !p.requestChannel.SendRequest(req, p.done) {
		return
	}
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
		Session:   Session{Principal: "User:ANONYMOUS", ClientAddr: ch.conn.RemoteAddr()},
		StartTime: time.Now(),
	}
	msg, err := protocol.ParseRequest(header, body)
	if err != nil {
		return nil, err
	}
	req.Body = msg
	return req, nil
}

func (p *Processor) processCompletedSend(s completedSend) {
	ch := s.ch
	if _, ok := p.channels[ch.id]; !ok {
		return
	}
	p.requestMetrics.updateRequestMetrics(p.inflight[ch.id], time.Now())
	delete(p.inflight, ch.id)
	if s.err != nil {
		p.log.Debugf("Closing socket for %s because of error writing a response: %v", ch.id, s.err)
		p.close(ch)
		return
	}
	p.unmute(ch)
}

func (p *Processor) processDisconnected(d disconnect) {
	if _, ok := p.channels[d.ch.id]; !ok {
		return
	}
	if d.err != nil && errors.Is(d.err, errInvalidReceive) {
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
		if _, busy := p.inflight[id]; busy {
			continue
		}
		if ch.lastActivity.Load() < limit {
			p.log.Debugf("About to close the idle connection from %s due to being idle for %v", id, p.idleTimeout)
			p.close(ch)
		}
	}
}

func (p *Processor) close(ch *KafkaChannel) {
	if req, ok := p.inflight[ch.id]; ok && !req.responseDequeue.IsZero() {
		// The response was being written when the connection went: it is finished as far as the
		// metrics go (Kafka: processDisconnected's inflightResponses). A request still with the
		// handlers counts later, when its response comes back to a closed connection.
		p.requestMetrics.updateRequestMetrics(req, time.Now())
	}
	delete(p.channels, ch.id)
	delete(p.inflight, ch.id)
	ch.close()
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
