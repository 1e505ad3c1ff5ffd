package systemtests

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
)

// WireConn is one blocking Kafka protocol connection: each Roundtrip writes a request frame and
// reads its response frame, checking the correlation id. It is the harness' stand-in for
// kafka.network.BlockingChannel (what the Scala controller and tools use to talk to one broker).
//
// Kafka 0.10.2: kafka.network.BlockingChannel.
type WireConn struct {
	conn     net.Conn
	r        *bufio.Reader
	clientID string
	corr     int32
	timeout  time.Duration
}

// DialWire connects to addr with a per-roundtrip timeout.
func DialWire(addr, clientID string, timeout time.Duration) (*WireConn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &WireConn{conn: c, r: bufio.NewReaderSize(c, 64<<10), clientID: clientID, timeout: timeout}, nil
}

// Close closes the connection.
func (w *WireConn) Close() error { return w.conn.Close() }

// Conn is the underlying connection (for tests that misbehave on purpose).
func (w *WireConn) Conn() net.Conn { return w.conn }

// Roundtrip sends req (at its version) and returns the decoded response.
func (w *WireConn) Roundtrip(req protocol.Message) (protocol.Message, error) {
	w.corr++
	cid := w.clientID
	h := protocol.RequestHeader{ApiKey: req.Key(), ApiVersion: req.GetVersion(), CorrelationID: w.corr, ClientID: &cid}
	_ = w.conn.SetDeadline(time.Now().Add(w.timeout))
	if _, err := protocol.WriteRequest(w.conn, h, req); err != nil {
		return nil, fmt.Errorf("write %s: %w", req.Key(), err)
	}
	body, err := ReadFrame(w.r, 256<<20)
	if err != nil {
		return nil, fmt.Errorf("read %s response: %w", req.Key(), err)
	}
	rh, rest, err := protocol.ReadResponseHeader(body)
	if err != nil {
		return nil, err
	}
	if rh.CorrelationID != w.corr {
		return nil, fmt.Errorf("%s response has correlation id %d, want %d", req.Key(), rh.CorrelationID, w.corr)
	}
	version := req.GetVersion()
	if req.Key() == protocol.ApiVersions {
		version = 0 // always answered in v0
	}
	return protocol.ParseResponse(req.Key(), version, rest)
}

// ReadFrame reads one INT32-size-prefixed frame and returns its body.
func ReadFrame(r io.Reader, max int) ([]byte, error) {
	var sz [4]byte
	if _, err := io.ReadFull(r, sz[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(sz[:]))
	if n < 0 || int(n) > max {
		return nil, fmt.Errorf("frame size %d out of range", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// ListOffset asks the partition's leader at addr for the offset of timestamp with ListOffsets v1
// (-1 latest, -2 earliest, else the first message whose timestamp is at or after it; Kafka
// answers offset -1 when there is none).
func ListOffset(addr, topic string, partition int32, timestamp int64) (offset, foundTimestamp int64, err error) {
	w, err := DialWire(addr, "systemtests-list-offsets", 30*time.Second)
	if err != nil {
		return 0, 0, err
	}
	defer w.Close()
	resp, err := w.Roundtrip(&protocol.ListOffsetRequest{Version: 1, ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{
		Topic: topic, Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: partition, Timestamp: timestamp}},
	}}})
	if err != nil {
		return 0, 0, err
	}
	r := resp.(*protocol.ListOffsetResponse)
	for _, t := range r.Responses {
		for _, p := range t.PartitionResponses {
			if t.Topic == topic && p.Partition == partition {
				if p.ErrorCode != 0 {
					return 0, 0, protocol.ErrorForCode(p.ErrorCode)
				}
				return p.Offset, p.Timestamp, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("ListOffsets response has no [%s,%d]", topic, partition)
}
