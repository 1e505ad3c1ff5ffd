package oldclient

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
)

// maxResponseSize bounds a response frame a BlockingChannel accepts.
const maxResponseSize = 100 << 20

// BlockingChannel sends one request at a time on a TCP connection and reads
// its response.
//
// Kafka 0.10.2: kafka.network.BlockingChannel (also the synchronous use of NetworkClient in
// kafka.admin.AdminClient: send, then poll until the response arrives).
type BlockingChannel struct {
	conn          net.Conn
	clientID      string
	correlationID int32
	timeout       time.Duration
}

// Connect dials addr; every request carries clientID and must complete within timeout.
func Connect(addr, clientID string, timeout time.Duration) (*BlockingChannel, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &BlockingChannel{conn: conn, clientID: clientID, timeout: timeout}, nil
}

// Close closes the connection.
func (c *BlockingChannel) Close() error { return c.conn.Close() }

// Send writes req and decodes the answer into resp (whose Version is set by
// the caller).
func (c *BlockingChannel) Send(req, resp protocol.Message) error {
	c.correlationID++
	id := c.clientID
	h := protocol.RequestHeader{ApiKey: req.Key(), ApiVersion: req.GetVersion(), CorrelationID: c.correlationID, ClientID: &id}
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return err
	}
	if _, err := protocol.WriteRequest(c.conn, h, req); err != nil {
		return err
	}
	var size [4]byte
	if _, err := io.ReadFull(c.conn, size[:]); err != nil {
		return err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 4 || n > maxResponseSize {
		return fmt.Errorf("invalid response size %d", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.conn, buf); err != nil {
		return err
	}
	rh, body, err := protocol.ReadResponseHeader(buf)
	if err != nil {
		return err
	}
	if rh.CorrelationID != c.correlationID {
		return fmt.Errorf("correlation id %d does not match request %d", rh.CorrelationID, c.correlationID)
	}
	return resp.ReadFrom(body)
}
