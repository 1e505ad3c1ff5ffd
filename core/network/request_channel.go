package network

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
)

// Session is who sent a request: the principal and the client's address.
//
// Kafka 0.10.2: kafka.network.RequestChannel.Session.
type Session struct {
	Principal  string // "User:ANONYMOUS" on PLAINTEXT listeners
	ClientAddr net.Addr
}

// Request is one parsed request, tagged with the Processor and connection it came from.
//
// Kafka 0.10.2: kafka.network.RequestChannel.Request.
type Request struct {
	Processor    int
	ConnectionID string
	Session      Session
	ListenerName string
	Header       protocol.RequestHeader
	Body         protocol.Message
	// RawBody is the body bytes as received (Produce record sets alias it, no copy).
	RawBody []byte
	// StartTime is when the Processor finished reading the request (for RequestMetrics).
	StartTime time.Time
	// DequeueTime is when a handler took the request off the queue.
	DequeueTime time.Time

	// The rest of Kafka's RequestMetrics timestamps. The two API marks may be written by a handler
	// or a purgatory goroutine while the Processor reads them, hence atomics (UnixNano, 0 = unset);
	// responseComplete is written by SendResponse before the queue hand-off, responseDequeue by the
	// Processor.
	apiLocalComplete  atomic.Int64
	apiRemoteComplete atomic.Int64
	responseComplete  time.Time
	responseDequeue   atomic.Int64 // UnixNano, 0 = unset: set by the connection's goroutine, read by the Processor closing it
	// channel is the connection the request came from (set by the Processor's parse): its
	// response goes straight back to it.
	channel *KafkaChannel
}

// Send is what a Response writes to the socket: the whole size-prefixed frame. WriteTo receives
// the connection itself, so an implementation can use sendfile for file-backed record sets.
//
// Kafka 0.10.2: org.apache.kafka.common.network.Send.
type Send interface {
	WriteTo(w io.Writer) (int64, error)
}

// ByteBufferSend is a Send of bytes already in memory.
//
// Kafka 0.10.2: org.apache.kafka.common.network.ByteBufferSend.
type ByteBufferSend []byte

// WriteTo implements Send.
func (b ByteBufferSend) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	return int64(n), err
}

// ResponseAction says what the Processor does with a Response.
//
// Kafka 0.10.2: kafka.network.RequestChannel.ResponseAction.
type ResponseAction int

const (
	// SendAction writes the response and then unmutes the connection.
	SendAction ResponseAction = iota
	// NoOpAction sends nothing and unmutes (Produce with acks=0 that succeeded).
	NoOpAction
	// CloseConnectionAction closes the connection (acks=0 produce that failed).
	CloseConnectionAction
)

// Response answers one Request.
//
// Kafka 0.10.2: kafka.network.RequestChannel.Response.
type Response struct {
	Request *Request
	Send    Send
	Action  ResponseAction
}

// NewResponseSend frames a response: size prefix, response header (the request's correlation id),
// and the body encoded by msg.AppendTo. It panics on a body the wire format cannot carry; the
// broker's handlers use EncodeResponseSend.
func NewResponseSend(correlationID int32, msg protocol.Message) ByteBufferSend {
	send, err := EncodeResponseSend(correlationID, msg)
	if err != nil {
		panic(err)
	}
	return send
}

// EncodeResponseSend is NewResponseSend reporting a body that cannot be encoded (a STRING over
// 32767 bytes: protocol.ErrStringTooLong) as an error, as Kafka's response serialization throws.
func EncodeResponseSend(correlationID int32, msg protocol.Message) (ByteBufferSend, error) {
	buf := make([]byte, 4, 64)
	buf = protocol.ResponseHeader{CorrelationID: correlationID}.AppendTo(buf)
	buf, err := protocol.Marshal(buf, msg)
	if err != nil {
		return nil, err
	}
	size := len(buf) - 4
	buf[0], buf[1], buf[2], buf[3] = byte(size>>24), byte(size>>16), byte(size>>8), byte(size)
	return buf, nil
}

// RequestChannel connects the Processors to the request handlers: one bounded request queue
// (queued.max.requests; a full queue blocks the Processors, which is Kafka's back-pressure) and
// one unbounded response queue per Processor.
//
// Kafka 0.10.2: kafka.network.RequestChannel.
type RequestChannel struct {
	requestQueue   chan *Request
	responseQueues []*responseQueue
}

type responseQueue struct {
	mu     sync.Mutex
	items  []*Response
	wakeup chan struct{} // cap 1: "there are responses" (the Selector wakeup)
	// delivered counts responses handed straight to a KafkaChannel and not yet taken up by it.
	delivered atomic.Int64
}

// NewRequestChannel makes the queues.
func NewRequestChannel(numProcessors, queueSize int) *RequestChannel {
	rc := &RequestChannel{requestQueue: make(chan *Request, queueSize)}
	for i := 0; i < numProcessors; i++ {
		rc.responseQueues = append(rc.responseQueues, &responseQueue{wakeup: make(chan struct{}, 1)})
	}
	return rc
}

// SendRequest enqueues a request, blocking while the queue is full or until done is closed.
func (rc *RequestChannel) SendRequest(r *Request, done <-chan struct{}) bool {
	select {
	case rc.requestQueue <- r:
		return true
	case <-done:
		return false
	}
}

// ReceiveRequest waits up to timeout for a request (nil on timeout or when done closes).
func (rc *RequestChannel) ReceiveRequest(timeout time.Duration, done <-chan struct{}) *Request {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-rc.requestQueue:
		return r
	case <-t.C:
		return nil
	case <-done:
		return nil
	}
}

// Requests exposes the request queue for handlers that select on it with other channels.
func (rc *RequestChannel) Requests() <-chan *Request { return rc.requestQueue }

// RequestQueueSize is the number of requests waiting (the RequestQueueSize gauge).
func (rc *RequestChannel) RequestQueueSize() int { return len(rc.requestQueue) }

// SendResponse hands a response to the connection that read the request: straight to the
// KafkaChannel's goroutine, which is waiting for it (the channel is muted until then), or, for a
// Request made elsewhere than a Processor, through the Processor's queue and wakeup.
func (rc *RequestChannel) SendResponse(r *Response) {
	r.Request.responseComplete = time.Now() // Kafka: the Response constructor sets responseCompleteTimeMs
	q := rc.responseQueues[r.Request.Processor]
	if ch := r.Request.channel; ch != nil {
		ch.deliver(r)
		return
	}
	q.mu.Lock()
	q.items = append(q.items, r)
	q.mu.Unlock()
	select {
	case q.wakeup <- struct{}{}:
	default:
	}
}

// NoOperation answers a request with nothing (unmute), as RequestChannel.noOperation.
func (rc *RequestChannel) NoOperation(r *Request) {
	rc.SendResponse(&Response{Request: r, Action: NoOpAction})
}

// CloseConnection answers a request by closing its connection.
func (rc *RequestChannel) CloseConnection(r *Request) {
	rc.SendResponse(&Response{Request: r, Action: CloseConnectionAction})
}

// ResponseQueueSize is the number of responses waiting for processor i: on its queue, or handed
// to one of its connections and not yet taken up.
func (rc *RequestChannel) ResponseQueueSize(i int) int {
	q := rc.responseQueues[i]
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) + int(q.delivered.Load())
}

func (rc *RequestChannel) drainResponses(i int) []*Response {
	q := rc.responseQueues[i]
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.mu.Unlock()
	now := time.Now()
	for _, r := range items {
		r.Request.responseDequeue.Store(now.UnixNano()) // Kafka: receiveResponse sets responseDequeueTimeMs
	}
	return items
}
