package server

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/cluster"
)

// replicaFetcherBlockingSend is the follower's connection to its leader: one request at a time,
// connected lazily, closed after any error so that the next request reconnects.
//
// Kafka 0.10.2: the NetworkClient of ReplicaFetcherThread driven through
// NetworkClientBlockingOps (blockingReady, then blockingSendAndReceive; on any exception the
// connection is closed). Plaintext only: the inter-broker listener must be PLAINTEXT.
type replicaFetcherBlockingSend struct {
	sourceBroker   cluster.BrokerEndPoint
	clientID       string
	connectTimeout time.Duration                 // replica.socket.timeout.ms
	requestTimeout time.Duration                 // request.timeout.ms
	recvBuffer     int                           // replica.socket.receive.buffer.bytes (-1: OS default)
	security       *security.InterBrokerSecurity // TLS and SASL on a secured inter-broker listener (nil: none)

	mu            sync.Mutex // one exchange at a time (the fetch loop, and offset lookups from AddPartitions)
	conn          net.Conn
	correlationID int32
}

// maxReplicaResponseSize bounds a frame read from the leader (Kafka's NetworkReceive.UNLIMITED
// would accept anything; a corrupt size must not make us allocate gigabytes).
const maxReplicaResponseSize = 1 << 30

func (b *replicaFetcherBlockingSend) connect(ctx context.Context) error {
	if b.conn != nil {
		return nil
	}
	d := net.Dialer{Timeout: b.connectTimeout}
	c, err := d.DialContext(ctx, "tcp", b.sourceBroker.ConnectionString())
	if err != nil {
		return fmt.Errorf("failed to connect to broker %d (%s) within %s: %w", b.sourceBroker.ID,
			b.sourceBroker.ConnectionString(), b.connectTimeout, err)
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		if b.recvBuffer > 0 {
			_ = tc.SetReadBuffer(b.recvBuffer)
		}
	}
	secured, err := b.security.Secure(c, b.clientID, b.connectTimeout)
	if err != nil {
		c.Close()
		return fmt.Errorf("failed to authenticate to broker %d (%s): %w", b.sourceBroker.ID, b.sourceBroker.ConnectionString(), err)
	}
	b.conn = secured
	return nil
}

func (b *replicaFetcherBlockingSend) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closeLocked()
}

func (b *replicaFetcherBlockingSend) closeLocked() {
	if b.conn != nil {
		_ = b.conn.Close()
		b.conn = nil
	}
}

// sendRequest writes req and decodes the answer into resp (resp.Version must match req's). A
// cancelled ctx aborts the exchange at once.
func (b *replicaFetcherBlockingSend) sendRequest(ctx context.Context, req, resp protocol.Message) (err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() {
		if err != nil {
			b.closeLocked()
		}
	}()
	if err := b.connect(ctx); err != nil {
		return err
	}
	conn := b.conn
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if err := conn.SetDeadline(time.Now().Add(b.requestTimeout)); err != nil {
		return err
	}
	b.correlationID++
	id := b.clientID
	h := protocol.RequestHeader{ApiKey: req.Key(), ApiVersion: req.GetVersion(), CorrelationID: b.correlationID, ClientID: &id}
	if _, err := protocol.WriteRequest(conn, h, req); err != nil {
		return err
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		return err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 4 || n > maxReplicaResponseSize {
		return fmt.Errorf("invalid response size %d from broker %d", n, b.sourceBroker.ID)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return err
	}
	rh, body, err := protocol.ReadResponseHeader(buf)
	if err != nil {
		return err
	}
	if rh.CorrelationID != b.correlationID {
		return fmt.Errorf("correlation id %d does not match request %d", rh.CorrelationID, b.correlationID)
	}
	return resp.ReadFrom(body)
}
