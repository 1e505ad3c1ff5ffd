package network

import (
	"bufio"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// readBufferSize is the reader's user-space buffer: a small response and the next one's size
// prefix come in with one read(2); a larger payload is read straight into its own buffer.
const readBufferSize = 64 << 10

// sendQueueSize bounds the sends queued on one channel; NetworkClient keeps at most one in
// progress (InFlightRequests.canSendMore), so the queue only absorbs callers that do not.
const sendQueueSize = 16

// KafkaChannel is one connection of a Selector: an id (the node id for NetworkClient), the
// socket, a reader goroutine that reads one NetworkReceive at a time and stops reading while the
// channel is muted, and a writer goroutine that writes the queued Sends in order.
//
// Kafka 0.10.2: org.apache.kafka.common.network.KafkaChannel (with its TransportLayer: a
// PLAINTEXT channel is the net.Conn itself). Go difference: the non-blocking reads and writes the
// Selector performs on the channel's behalf are done by these two goroutines, which hand their
// results to the Selector's next Poll.
type KafkaChannel struct {
	id   string
	conn net.Conn
	sel  *Selector

	sends  chan Send
	closed chan struct{}
	once   sync.Once

	muteMu sync.Mutex
	muted  bool
	unmute chan struct{} // closed and replaced when the channel is unmuted

	lastActivity atomic.Int64 // unix nanos of the last byte read or written
}

func newKafkaChannel(id string, conn net.Conn, sel *Selector) *KafkaChannel {
	ch := &KafkaChannel{id: id, conn: conn, sel: sel, sends: make(chan Send, sendQueueSize),
		closed: make(chan struct{}), unmute: make(chan struct{})}
	ch.touch()
	return ch
}

// ID is the connection id.
func (ch *KafkaChannel) ID() string { return ch.id }

// SocketAddress is the peer's address.
func (ch *KafkaChannel) SocketAddress() net.Addr { return ch.conn.RemoteAddr() }

func (ch *KafkaChannel) touch() { ch.lastActivity.Store(time.Now().UnixNano()) }

func (ch *KafkaChannel) start() {
	ch.sel.wg.Add(2)
	go ch.readLoop()
	go ch.writeLoop()
}

// mute stops reads after the receive in progress (Kafka removes OP_READ).
func (ch *KafkaChannel) mute() {
	ch.muteMu.Lock()
	ch.muted = true
	ch.muteMu.Unlock()
}

// unmuteChannel lets the reader go on.
func (ch *KafkaChannel) unmuteChannel() {
	ch.muteMu.Lock()
	if ch.muted {
		ch.muted = false
		close(ch.unmute)
		ch.unmute = make(chan struct{})
	}
	ch.muteMu.Unlock()
}

// IsMute reports whether reads are disabled.
func (ch *KafkaChannel) IsMute() bool {
	ch.muteMu.Lock()
	defer ch.muteMu.Unlock()
	return ch.muted
}

// waitUnmuted blocks while the channel is muted; false once it is closed.
func (ch *KafkaChannel) waitUnmuted() bool {
	for {
		ch.muteMu.Lock()
		muted, wake := ch.muted, ch.unmute
		ch.muteMu.Unlock()
		if !muted {
			select {
			case <-ch.closed:
				return false
			default:
				return true
			}
		}
		select {
		case <-wake:
		case <-ch.closed:
			return false
		}
	}
}

func (ch *KafkaChannel) readLoop() {
	defer ch.sel.wg.Done()
	r := bufio.NewReaderSize(activityReader{ch}, readBufferSize)
	for ch.waitUnmuted() {
		rcv, err := ReadNetworkReceive(r, ch.id, ch.sel.maxReceiveSize)
		if err != nil {
			ch.sel.channelFailed(ch, err)
			return
		}
		ch.sel.metrics.recordBytesReceived(ch.id, len(rcv.payload)+FrameHeaderSize)
		// The read may have been under way when the channel was muted: its receive is
		// held until the channel is unmuted, as Kafka's Selector keeps a muted
		// channel's staged receives out of completedReceives.
		if !ch.waitUnmuted() {
			return
		}
		ch.sel.receiveCompleted(ch, rcv)
	}
}

func (ch *KafkaChannel) writeLoop() {
	defer ch.sel.wg.Done()
	w := activityWriter{ch}
	for {
		select {
		case s := <-ch.sends:
			if _, err := s.WriteTo(w); err != nil {
				ch.sel.channelFailed(ch, err)
				return
			}
			ch.sel.metrics.recordBytesSent(ch.id, s.Size())
			ch.sel.sendCompleted(ch, s)
		case <-ch.closed:
			return
		}
	}
}

// queue hands a send to the writer; false when the channel is closed or its queue is full.
func (ch *KafkaChannel) queue(s Send) bool {
	select {
	case <-ch.closed:
		return false
	default:
	}
	select {
	case ch.sends <- s:
		return true
	default:
		return false
	}
}

// close closes the socket; both goroutines exit. Safe to call more than once.
func (ch *KafkaChannel) close() {
	ch.once.Do(func() {
		close(ch.closed)
		_ = ch.conn.Close()
	})
}

func (ch *KafkaChannel) isClosed() bool {
	select {
	case <-ch.closed:
		return true
	default:
		return false
	}
}

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
