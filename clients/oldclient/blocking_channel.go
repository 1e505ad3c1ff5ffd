package oldclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
)

// ErrNotConnected is returned by a send on a channel that is not connected.
var ErrNotConnected = errors.New("channel is not connected")

// BlockingChannel sends one request at a time on a TCP connection and reads its response.
// Responses are read as the clients' network.NetworkReceive (no size limit, as Kafka's
// BlockingChannel reads them, but no allocation ahead of the bytes that arrived).
//
// Kafka 0.10.2: kafka.network.BlockingChannel (also the synchronous use of NetworkClient in
// kafka.admin.AdminClient: send, then poll until the response arrives). Like Kafka's, it is
// meant for one user at a time (SimpleConsumer and SyncProducer serialise their calls); only
// Disconnect may be called from another goroutine, to unblock a send in progress (what
// SimpleConsumer.disconnectToHandleJavaIOBug is for). Any I/O error closes the connection,
// since a half-finished exchange leaves the stream unusable; the next Connect opens a new one.
type BlockingChannel struct {
	host        string
	port        int32
	clientID    string
	readTimeout time.Duration

	mu            sync.Mutex // guards conn against a concurrent Disconnect
	conn          net.Conn
	correlationID int32
}

// NewBlockingChannel makes an unconnected channel to host:port; readTimeout bounds the
// connect and each exchange (Kafka's readTimeoutMs, which is also its connect timeout).
func NewBlockingChannel(host string, port int32, clientID string, readTimeout time.Duration) *BlockingChannel {
	return &BlockingChannel{host: host, port: port, clientID: clientID, readTimeout: readTimeout}
}

// Connect dials addr ("host:port") and returns the connected channel; every request carries
// clientID and must complete within timeout.
func Connect(addr, clientID string, timeout time.Duration) (*BlockingChannel, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseInt(portStr, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("invalid port in %q: %w", addr, err)
	}
	c := NewBlockingChannel(host, int32(port), clientID, timeout)
	if err := c.Connect(); err != nil {
		return nil, err
	}
	return c, nil
}

// Host is the broker's host.
func (c *BlockingChannel) Host() string { return c.host }

// Port is the broker's port.
func (c *BlockingChannel) Port() int32 { return c.port }

// Addr is host:port.
func (c *BlockingChannel) Addr() string {
	return net.JoinHostPort(c.host, strconv.Itoa(int(c.port)))
}

// CorrelationID is the id of the last request sent.
func (c *BlockingChannel) CorrelationID() int32 { return c.correlationID }

// Connect opens the connection if it is not open.
func (c *BlockingChannel) Connect() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		return nil
	}
	conn, err := net.DialTimeout("tcp", c.Addr(), c.readTimeout)
	if err != nil {
		return err
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c.conn = conn
	return nil
}

// IsConnected reports whether the connection is open.
func (c *BlockingChannel) IsConnected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn != nil
}

// Disconnect closes the connection (a send blocked on it fails at once).
func (c *BlockingChannel) Disconnect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

// Close is Disconnect; it never fails.
func (c *BlockingChannel) Close() error {
	c.Disconnect()
	return nil
}

func (c *BlockingChannel) current() net.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// disconnectIf closes conn if it is still the channel's connection.
func (c *BlockingChannel) disconnectIf(conn net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == conn {
		_ = conn.Close()
		c.conn = nil
	}
}

// Send writes req and decodes the answer into resp (whose Version is set by the caller).
func (c *BlockingChannel) Send(req, resp protocol.Message) error {
	return c.SendContext(context.Background(), req, resp)
}

// SendContext is Send, aborted when ctx is done. A nil resp sends without reading an answer
// (a produce request with acks=0, which the broker does not answer).
func (c *BlockingChannel) SendContext(ctx context.Context, req, resp protocol.Message) (err error) {
	conn := c.current()
	if conn == nil {
		return ErrNotConnected
	}
	defer func() {
		if err != nil {
			c.disconnectIf(conn)
		}
	}()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if c.readTimeout > 0 {
		if err := conn.SetDeadline(time.Now().Add(c.readTimeout)); err != nil {
			return err
		}
	}
	c.correlationID++
	id := c.clientID
	h := protocol.RequestHeader{ApiKey: req.Key(), ApiVersion: req.GetVersion(), CorrelationID: c.correlationID, ClientID: &id}
	if _, err := protocol.WriteRequest(conn, h, req); err != nil {
		return ctxErr(ctx, err)
	}
	if resp == nil {
		return nil
	}
	rcv, err := network.ReadNetworkReceive(conn, c.Addr(), network.Unlimited)
	if err != nil {
		return ctxErr(ctx, err)
	}
	rh, body, err := protocol.ReadResponseHeader(rcv.Payload())
	if err != nil {
		return err
	}
	if rh.CorrelationID != c.correlationID {
		return fmt.Errorf("correlation id %d does not match request %d", rh.CorrelationID, c.correlationID)
	}
	return resp.ReadFrom(body)
}

// ctxErr prefers the context's error when the exchange was cut short by it.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}
