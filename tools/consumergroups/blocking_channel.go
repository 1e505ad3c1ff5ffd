package consumergroups

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
)

const maxResponseSize = 100 << 20

// blockingChannel sends one request at a time on a TCP connection and reads its response.
//
// Kafka 0.10.2: kafka.network.BlockingChannel (the old-consumer path) and, for the new-consumer
// path, what AdminClient's ConsumerNetworkClient does one request at a time.
type blockingChannel struct {
	conn          net.Conn
	clientID      string
	correlationID int32
	timeout       time.Duration
}

func connect(host string, port int32, timeout time.Duration) (*blockingChannel, error) {
	return connectAddr(net.JoinHostPort(host, strconv.Itoa(int(port))), timeout)
}

func connectAddr(addr string, timeout time.Duration) (*blockingChannel, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &blockingChannel{conn: conn, clientID: "ConsumerGroupCommand", timeout: timeout}, nil
}

func (c *blockingChannel) close() { _ = c.conn.Close() }

// send writes req and decodes the answer into resp (whose Version the caller set).
func (c *blockingChannel) send(req, resp protocol.Message) error {
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

// roundTrip opens a connection, sends one request and closes it.
func roundTrip(host string, port int32, timeout time.Duration, req, resp protocol.Message) error {
	c, err := connect(host, port, timeout)
	if err != nil {
		return err
	}
	defer c.close()
	return c.send(req, resp)
}
