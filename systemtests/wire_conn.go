package systemtests

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
)

// WireConn is one blocking Kafka protocol connection: each Roundtrip sends a request and waits
// for its response. It is the harness' stand-in for the broker's own blocking clients, and runs
// on the same code: a clients.NetworkClient (max.in.flight 1, reconnect backoff 0, the
// round-trip timeout as request.timeout.ms) driven through NetworkClientBlockingOps, so frames,
// sizes and correlation ids are checked where every other client of the repository checks them.
//
// Kafka 0.10.2: kafka.utils.NetworkClientBlockingOps over org.apache.kafka.clients.NetworkClient.
type WireConn struct {
	node    common.Node
	client  *clients.NetworkClient
	ops     clients.NetworkClientBlockingOps
	timeout time.Duration
}

// DialWire connects to addr, waiting up to timeout, and uses timeout for each round trip.
func DialWire(addr, clientID string, timeout time.Duration) (*WireConn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseInt(portStr, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("invalid port in %q: %w", addr, err)
	}
	sel := network.NewSelector(network.SelectorConfig{MaxReceiveSize: network.Unlimited})
	nc := clients.NewNetworkClientWithUpdater(sel, &clients.ManualMetadataUpdater{}, clients.NetworkClientConfig{
		ClientID: clientID, MaxInFlightRequestsPerConnection: 1, ReconnectBackoffMs: 0,
		SocketSendBuffer: network.UseDefaultBufferSize, SocketReceiveBuffer: network.UseDefaultBufferSize,
		RequestTimeoutMs: max(timeout.Milliseconds(), 1)})
	w := &WireConn{node: common.Node{ID: -1, Host: host, Port: int32(port)}, client: nc,
		ops: clients.NetworkClientBlockingOps{Client: nc, Time: common.SystemTime{}}, timeout: timeout}
	ready, err := w.ops.BlockingReady(context.Background(), w.node, timeout.Milliseconds())
	if err == nil && !ready {
		err = fmt.Errorf("Failed to connect within %d ms", timeout.Milliseconds())
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return w, nil
}

// Close closes the connection.
func (w *WireConn) Close() error {
	w.client.Close()
	return nil
}

// Roundtrip sends req (at its version) and returns the decoded response. After a failed round
// trip the connection is closed and later ones fail.
func (w *WireConn) Roundtrip(req protocol.Message) (protocol.Message, error) {
	r := w.client.NewClientRequest(w.node.IDString(), req, w.ops.Time.Milliseconds(), true, nil)
	resp, err := w.ops.BlockingSendAndReceive(context.Background(), r)
	if err != nil {
		w.client.CloseNode(w.node.IDString())
		return nil, fmt.Errorf("%s round trip: %w", req.Key(), err)
	}
	return resp.ResponseBody, nil
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
