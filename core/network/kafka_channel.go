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

// completedSend reports a response the Processor wrote itself, or one the writer failed to write.
type completedSend struct {
	ch  *KafkaChannel
	err error
}

// KafkaChannel is one client connection owned by a Processor. Its reader goroutine reads a
// size-prefixed request and queues it for the handlers, then reads nothing more until the channel
// is unmuted (the request is answered). Its writer goroutine writes a response Send that the
// Processor could not write at once without blocking.
//
// Kafka 0.10.2: org.apache.kafka.common.network.KafkaChannel (with the Selector's per-channel
// read and blocking-write work moved onto two goroutines, docs/design.md §2).
type KafkaChannel struct {
	id           string
	conn         net.Conn
	raw          syscall.RawConn // nil when the connection has no descriptor (net.Pipe in tests)
	nbw          nonBlockingWriter
	maxReceive   int32
	principal    string       // "User:ANONYMOUS", or the SASL user once authenticated (set before the first request)
	lastActivity atomic.Int64 // unix nanos of the last byte read or written

	// muted holds a token while a request of this channel is in flight: the reader puts it in
	// before reading a request (waiting while the previous one is unanswered) and the Processor
	// takes it out when the request is finished (response written, NoOp). This is Kafka's
	// mute/unmute, and why responses leave in request order. (Reading the next request ahead while
	// one is in flight was measured: it put a read(2) on every request's critical path and was
	// slower for synchronous and pipelining clients alike.)
	muted chan struct{}
	// inflight is the request the channel is muted on (nil when unmuted): set by the reader, cleared
	// by the Processor, read by the Processor for idle reaping and metrics.
	inflight atomic.Pointer[Request]

	sends  chan Send // cap 1; the Processor hands the writer at most one response at a time
	closed chan struct{}
	once   sync.Once
	wg     *sync.WaitGroup // the Processor's: Processor shutdown waits for every channel goroutine
}

// readBufferSize is the reader's user-space buffer: a small request and its size prefix (or
// several pipelined small requests) come in with one read(2); larger payloads are read straight
// into their own buffer.
const readBufferSize = 16 << 10

func newKafkaChannel(id string, conn net.Conn, maxReceive int32) *KafkaChannel {
	ch := &KafkaChannel{
		id: id, conn: conn, maxReceive: maxReceive, principal: "User:ANONYMOUS",
		muted: make(chan struct{}, 1), sends: make(chan Send, 1), closed: make(chan struct{}),
	}
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			ch.raw = raw
		}
	}
	ch.touch()
	return ch
}

func (ch *KafkaChannel) touch() { ch.lastActivity.Store(time.Now().UnixNano()) }

// ID is Kafka's connection id: "localAddr-remoteAddr".
func (ch *KafkaChannel) ID() string { return ch.id }

// start launches the reader and writer goroutines of a channel owned by p.
func (ch *KafkaChannel) start(p *Processor) {
	ch.wg = &p.connWG
	ch.wg.Add(2)
	go ch.readLoop(p)
	go ch.writeLoop(p)
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
		if !ch.mute() { // wait until the previous request is answered: a muted channel is not read
			return
		}
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
	}
	// The channel was unmuted to get here, so the request before the end of the stream or the bad
	// frame has been answered, as in Kafka: report.
	ch.readErr(err, p.disconnects)
}

// mute waits until no request of this channel is in flight and marks the channel muted for the
// next one; false once the channel is closed.
func (ch *KafkaChannel) mute() bool {
	select {
	case ch.muted <- struct{}{}:
		return true
	case <-ch.closed:
		return false
	}
}

func (ch *KafkaChannel) readErr(err error, disconnects chan<- disconnect) {
	select {
	case disconnects <- disconnect{ch: ch, err: err}:
	case <-ch.closed:
	}
}

// tryWrite writes as much of b as the socket takes without blocking (Kafka's Selector writes a
// Send as far as the socket buffer allows and waits for OP_WRITE for the rest). It returns the
// bytes written; the caller hands the remainder to the writer goroutine.
func (ch *KafkaChannel) tryWrite(b []byte) (int, error) {
	if ch.raw == nil {
		return 0, nil
	}
	n, err := ch.nbw.writeNonBlocking(ch.raw, b)
	if n > 0 {
		ch.touch()
	}
	return n, err
}

// writeLoop writes the sends the Processor could not finish without blocking. A send written
// whole completes the request right here; a failed one goes back to the Processor, which closes
// the connection.
func (ch *KafkaChannel) writeLoop(p *Processor) {
	defer ch.wg.Done()
	w := activityWriter{ch}
	for {
		select {
		case s := <-ch.sends:
			if _, err := s.WriteTo(w); err != nil {
				select {
				case p.sends <- completedSend{ch: ch, err: err}:
				case <-ch.closed:
					return
				}
				continue
			}
			p.completeSend(ch)
		case <-ch.closed:
			return
		}
	}
}

// close shuts the connection; the goroutines exit. Safe to call more than once.
func (ch *KafkaChannel) close() {
	ch.once.Do(func() {
		close(ch.closed)
		ch.conn.Close()
	})
}
