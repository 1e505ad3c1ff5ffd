package network

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zkafka/zkafka/clients/security"
)

// errInvalidReceive is InvalidReceiveException: a size prefix out of range.
var errInvalidReceive = errors.New("invalid receive")

// errSslHandshake marks a connection whose TLS handshake failed.
var errSslHandshake = errors.New("SSL handshake failed")

// errInvalidRequest marks a request whose header or body does not parse.
var errInvalidRequest = errors.New("invalid request")

// disconnect reports that a connection's reader stopped: the peer closed (err nil), sent an
// invalid size prefix, or sent a request that does not parse.
type disconnect struct {
	ch  *KafkaChannel
	err error
}

// completedSend reports a response the channel's goroutine failed to write, or a
// CloseConnection response it took up (err is errCloseConnectionAction): the Processor closes the
// connection.
type completedSend struct {
	ch  *KafkaChannel
	err error
}

// errCloseConnectionAction marks a completedSend that is a CloseConnection response.
var errCloseConnectionAction = errors.New("close connection requested")

// KafkaChannel is one client connection owned by a Processor. Its goroutine reads a size-prefixed
// request and queues it for the handlers, then reads nothing more until the request is answered
// (the channel is muted): the handler hands the response straight back to it, and it writes the
// response, records the request's metrics and reads the next request.
//
// Kafka 0.10.2: org.apache.kafka.common.network.KafkaChannel (with the Selector's per-channel
// read and write work on one goroutine per connection, docs/design.md §2).
type KafkaChannel struct {
	id           string
	conn         net.Conn
	p            *Processor
	maxReceive   int32
	principal    string       // "User:ANONYMOUS", or the SASL user once authenticated (set before the first request)
	lastActivity atomic.Int64 // unix nanos of the last byte read or written

	// inflight is the request the channel is muted on (nil when unmuted): set by the channel's
	// goroutine before the request goes to the handlers, cleared by whoever records its metrics,
	// read by the Processor for idle reaping. This is Kafka's mute/unmute, and why responses leave
	// in request order. (Reading the next request ahead while one is in flight was measured: it
	// put a read(2) on every request's critical path and was slower for synchronous and
	// pipelining clients alike.)
	inflight atomic.Pointer[Request]

	// responses holds the response to the request in flight (cap 1: one request at a time).
	responses chan *Response
	closed    chan struct{}
	once      sync.Once
	wg        *sync.WaitGroup // the Processor's: Processor shutdown waits for every channel goroutine
}

// readBufferSize is the reader's user-space buffer: a small request and its size prefix (or
// several pipelined small requests) come in with one read(2); larger payloads are read straight
// into their own buffer.
const readBufferSize = 16 << 10

func newKafkaChannel(id string, conn net.Conn, maxReceive int32) *KafkaChannel {
	ch := &KafkaChannel{
		id: id, conn: conn, maxReceive: maxReceive, principal: "User:ANONYMOUS",
		responses: make(chan *Response, 1), closed: make(chan struct{}),
	}
	ch.touch()
	return ch
}

func (ch *KafkaChannel) touch() { ch.lastActivity.Store(time.Now().UnixNano()) }

// ID is Kafka's connection id: "localAddr-remoteAddr".
func (ch *KafkaChannel) ID() string { return ch.id }

// start launches the goroutine of a channel owned by p.
func (ch *KafkaChannel) start(p *Processor) {
	ch.p = p
	ch.wg = &p.connWG
	ch.wg.Add(1)
	go ch.readLoop(p)
}

// activityReader records activity on every successful read, so a slow but live client is not
// reaped as idle while a fully silent one is.
type activityReader struct{ ch *KafkaChannel }

func (r activityReader) Read(p []byte) (int, error) {
	n, err := r.ch.conn.Read(p)
	if n > 0 {
		r.ch.touch()
	}
	return n, err
}

type activityWriter struct{ ch *KafkaChannel }

func (w activityWriter) Write(p []byte) (int, error) {
	n, err := w.ch.conn.Write(p)
	if n > 0 {
		w.ch.touch()
	}
	return n, err
}

// ReadFrom lets Send implementations reach the real connection for sendfile.
func (w activityWriter) ReadFrom(r io.Reader) (int64, error) {
	rf, ok := w.ch.conn.(io.ReaderFrom)
	if !ok {
		return io.Copy(struct{ io.Writer }{w}, r)
	}
	n, err := rf.ReadFrom(r)
	if n > 0 {
		w.ch.touch()
	}
	return n, err
}

// SyscallConn exposes the socket's descriptor, so a FileRecords in a response goes out with
// sendfile(2) straight from the segment file (record.FileRecords.WriteTo looks for a
// syscall.Conn). A connection without a descriptor (a net.Pipe in tests) reports an error and
// the bytes are copied instead.
func (w activityWriter) SyscallConn() (syscall.RawConn, error) {
	sc, ok := w.ch.conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("connection has no file descriptor")
	}
	w.ch.touch()
	return sc.SyscallConn()
}

func (ch *KafkaChannel) readLoop(p *Processor) {
	defer ch.wg.Done()
	if tc, ok := ch.conn.(*tls.Conn); ok { // SSL and SASL_SSL: the handshake, then the peer's principal
		if err := tc.Handshake(); err != nil {
			ch.readErr(fmt.Errorf("%w: %w", errSslHandshake, err), p.disconnects)
			return
		}
		ch.principal = security.SslPrincipal(tc.ConnectionState())
	}
	if p.sasl != nil { // a SASL listener: nothing reaches the handlers before authentication
		principal, err := p.sasl.Authenticate(struct {
			io.Reader
			io.Writer
		}{activityReader{ch}, activityWriter{ch}})
		if err != nil {
			ch.readErr(err, p.disconnects)
			return
		}
		ch.principal = principal
	}
	r := bufio.NewReaderSize(activityReader{ch}, readBufferSize)
	var sizeBuf [4]byte
	var err error
	for {
		if _, rerr := io.ReadFull(r, sizeBuf[:]); rerr != nil {
			break
		}
		size := int32(binary.BigEndian.Uint32(sizeBuf[:]))
		if size < 0 || size > ch.maxReceive {
			err = fmt.Errorf("%w: size %d larger than %d", errInvalidReceive, size, ch.maxReceive)
			break
		}
		payload, rerr := readPayload(r, int(size), p.memory)
		if rerr != nil {
			break
		}
		if err = p.processCompletedReceive(ch, payload); err != nil {
			ch.readErr(err, p.disconnects)
			return
		}
		// Muted: nothing more is read until the handlers answer (Kafka's Processor writes the
		// response in poll, then unmutes the channel in processCompletedSends).
		select {
		case resp := <-ch.responses:
			if !ch.processResponse(resp) {
				return
			}
		case <-ch.closed:
			return
		}
	}
	// The request before the end of the stream or the bad frame has been answered, as in Kafka:
	// report.
	ch.readErr(err, p.disconnects)
}

// deliver hands the response to the request in flight to the channel's goroutine (the
// RequestChannel's SendResponse). If the channel is closed, the response is taken back and the
// request recorded here, unless the goroutine or Processor.close took it first.
func (ch *KafkaChannel) deliver(resp *Response) {
	ch.delivered().Add(1)
	select {
	case ch.responses <- resp:
	default:
		ch.p.log.Errorf("Dropping a second response to one request (correlation id %d) on %s", resp.Request.Header.CorrelationID, ch.id)
		ch.delivered().Add(-1)
		return
	}
	select {
	case <-ch.closed:
		ch.dropResponse()
	default:
	}
}

// delivered counts the responses handed to this Processor's connections and not yet taken up
// (part of the ResponseQueueSize gauge).
func (ch *KafkaChannel) delivered() *atomic.Int64 {
	return &ch.p.requestChannel.responseQueues[ch.p.id].delivered
}

// dropResponse records a response that will not be written because the channel closed (Kafka's
// sendResponse to a channel the Selector closed still completes the request's metrics).
func (ch *KafkaChannel) dropResponse() {
	select {
	case resp := <-ch.responses:
		ch.delivered().Add(-1)
		ch.inflight.CompareAndSwap(resp.Request, nil)
		ch.p.requestMetrics.updateRequestMetrics(resp.Request, time.Now())
	default:
	}
}

// processResponse writes the response to the request in flight (Kafka's Processor:
// processNewResponses, the Selector's write, processCompletedSends), then unmutes the channel.
// False: the connection is closing (a failed write or a CloseConnection response, handed to the
// Processor).
func (ch *KafkaChannel) processResponse(resp *Response) bool {
	p := ch.p
	resp.Request.responseDequeue.Store(time.Now().UnixNano()) // Kafka: receiveResponse sets responseDequeueTimeMs
	ch.delivered().Add(-1)
	var err error
	switch resp.Action {
	case NoOpAction:
	case SendAction:
		_, err = resp.Send.WriteTo(activityWriter{ch})
	case CloseConnectionAction:
		err = errCloseConnectionAction
	}
	if err != nil {
		select {
		case p.sends <- completedSend{ch: ch, err: err}:
		case <-ch.closed:
			p.completeSend(ch) // closed meanwhile: the request still counts, once
		}
		return false
	}
	p.completeSend(ch)
	return true
}

func (ch *KafkaChannel) readErr(err error, disconnects chan<- disconnect) {
	select {
	case disconnects <- disconnect{ch: ch, err: err}:
	case <-ch.closed:
	}
}

// close shuts the connection; the goroutines exit. Safe to call more than once.
func (ch *KafkaChannel) close() {
	ch.once.Do(func() {
		close(ch.closed)
		ch.conn.Close()
	})
}
