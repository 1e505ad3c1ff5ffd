package network

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// errInvalidReceive is InvalidReceiveException: a size prefix out of range.
var errInvalidReceive = errors.New("invalid receive")

// networkReceive is one complete size-prefixed request read from a connection.
//
// Kafka 0.10.2: org.apache.kafka.common.network.NetworkReceive.
type networkReceive struct {
	ch      *KafkaChannel
	payload []byte
}

// disconnect reports that a connection's reader stopped: the peer closed (err nil) or sent an
// invalid size prefix.
type disconnect struct {
	ch  *KafkaChannel
	err error
}

// completedSend reports that a connection finished writing a response.
type completedSend struct {
	ch  *KafkaChannel
	err error
}

// KafkaChannel is one client connection owned by a Processor. Its reader goroutine reads one
// request, hands it to the Processor and then waits until the Processor unmutes it (after the
// response went out); its writer goroutine writes one Send at a time.
//
// Kafka 0.10.2: org.apache.kafka.common.network.KafkaChannel (with the Selector's per-channel
// read and write work moved onto two goroutines, layout.md B.7).
type KafkaChannel struct {
	id           string
	conn         net.Conn
	maxReceive   int32
	lastActivity atomic.Int64 // unix nanos of the last byte read or written

	unmute chan struct{} // cap 1; the Processor sends here to let the reader read the next request
	sends  chan Send     // cap 1; the Processor hands the writer one response at a time
	closed chan struct{}
	once   sync.Once
	wg     *sync.WaitGroup // the Processor's: Processor shutdown waits for every channel goroutine
}

func newKafkaChannel(id string, conn net.Conn, maxReceive int32) *KafkaChannel {
	ch := &KafkaChannel{
		id: id, conn: conn, maxReceive: maxReceive,
		unmute: make(chan struct{}, 1), sends: make(chan Send, 1), closed: make(chan struct{}),
	}
	ch.touch()
	return ch
}

func (ch *KafkaChannel) touch() { ch.lastActivity.Store(time.Now().UnixNano()) }

// ID is Kafka's connection id: "localAddr-remoteAddr".
func (ch *KafkaChannel) ID() string { return ch.id }

// start launches the reader and writer goroutines; results go to the Processor's channels.
func (ch *KafkaChannel) start(wg *sync.WaitGroup, receives chan<- networkReceive, sends chan<- completedSend, disconnects chan<- disconnect) {
	ch.wg = wg
	ch.wg.Add(2)
	go ch.readLoop(receives, disconnects)
	go ch.writeLoop(sends)
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

func (ch *KafkaChannel) readLoop(receives chan<- networkReceive, disconnects chan<- disconnect) {
	defer ch.wg.Done()
	r := activityReader{ch}
	var sizeBuf [4]byte
	for {
		if _, err := io.ReadFull(r, sizeBuf[:]); err != nil {
			break
		}
		size := int32(binary.BigEndian.Uint32(sizeBuf[:]))
		if size < 0 || size > ch.maxReceive {
			ch.readErr(fmt.Errorf("%w: size %d larger than %d", errInvalidReceive, size, ch.maxReceive), disconnects)
			return
		}
		payload := make([]byte, size)
		if _, err := io.ReadFull(r, payload); err != nil {
			break
		}
		select {
		case receives <- networkReceive{ch: ch, payload: payload}:
		case <-ch.closed:
			return
		}
		select { // muted until the Processor has answered this request
		case <-ch.unmute:
		case <-ch.closed:
			return
		}
	}
	ch.readErr(nil, disconnects)
}

func (ch *KafkaChannel) readErr(err error, disconnects chan<- disconnect) {
	select {
	case disconnects <- disconnect{ch: ch, err: err}:
	case <-ch.closed:
	}
}

func (ch *KafkaChannel) writeLoop(done chan<- completedSend) {
	defer ch.wg.Done()
	w := activityWriter{ch}
	for {
		select {
		case s := <-ch.sends:
			_, err := s.WriteTo(w)
			select {
			case done <- completedSend{ch: ch, err: err}:
			case <-ch.closed:
				return
			}
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
