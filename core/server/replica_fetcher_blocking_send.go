package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/cluster"
)

// errFetcherClosed is sendRequest's error once the fetcher's client is closed.
var errFetcherClosed = errors.New("the replica fetcher's network client is closed")

// replicaFetcherBlockingSend is the follower's connection to its leader: one request at a time
// on the fetcher's NetworkClient, connected lazily (within replica.socket.timeout.ms), closed
// after any error so that the next request reconnects.
//
// Kafka 0.10.2: the NetworkClient of ReplicaFetcherThread (ManualMetadataUpdater, max.in.flight
// 1, reconnect backoff 0, replica.socket.receive.buffer.bytes, request.timeout.ms,
// connections.max.idle.ms) driven through NetworkClientBlockingOps: blockingReady, then
// blockingSendAndReceive; on any exception the connection is closed. Plaintext only: the
// inter-broker listener must be PLAINTEXT.
type replicaFetcherBlockingSend struct {
	sourceNode     common.Node
	connectTimeout time.Duration // replica.socket.timeout.ms

	mu            sync.Mutex // one exchange at a time (the fetch loop, and offset lookups from AddPartitions)
	networkClient *clients.NetworkClient
	blockingOps   clients.NetworkClientBlockingOps
	closed        bool
}

func newReplicaFetcherBlockingSend(sourceBroker cluster.BrokerEndPoint, clientID string, connectTimeout, requestTimeout time.Duration,
	recvBuffer int, connectionsMaxIdleMs int64, interBroker *security.InterBrokerSecurity, log *logrus.Entry) *replicaFetcherBlockingSend {
	// On a TLS or SASL inter-broker listener the connection is secured as it is made.
	sel := network.NewSelector(network.SelectorConfig{MaxReceiveSize: network.Unlimited, ConnectionsMaxIdleMs: connectionsMaxIdleMs, Log: log,
		Dial: interBroker.Dial(clientID, connectTimeout)})
	nc := clients.NewNetworkClientWithUpdater(sel, &clients.ManualMetadataUpdater{}, clients.NetworkClientConfig{
		ClientID: clientID, MaxInFlightRequestsPerConnection: 1, ReconnectBackoffMs: 0,
		SocketSendBuffer: network.UseDefaultBufferSize, SocketReceiveBuffer: recvBuffer,
		RequestTimeoutMs: max(requestTimeout.Milliseconds(), 1), Log: log})
	return &replicaFetcherBlockingSend{
		sourceNode:     common.Node{ID: sourceBroker.ID, Host: sourceBroker.Host, Port: sourceBroker.Port},
		connectTimeout: connectTimeout,
		networkClient:  nc,
		blockingOps:    clients.NetworkClientBlockingOps{Client: nc, Time: common.SystemTime{}},
	}
}

// close closes the client (and its connection); later requests fail.
func (b *replicaFetcherBlockingSend) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.networkClient.Close()
	}
}

// sendRequest sends req and returns the leader's response to it (at req's version). A
// cancelled ctx aborts the exchange.
//
// Kafka 0.10.2: ReplicaFetcherThread.sendRequest.
func (b *replicaFetcherBlockingSend) sendRequest(ctx context.Context, req protocol.Message) (resp protocol.Message, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errFetcherClosed
	}
	id := b.sourceNode.IDString()
	defer func() {
		if err != nil {
			b.networkClient.CloseNode(id)
		}
	}()
	ready, err := b.blockingOps.BlockingReady(ctx, b.sourceNode, b.connectTimeout.Milliseconds())
	if err != nil {
		return nil, err
	}
	if !ready {
		return nil, fmt.Errorf("Failed to connect within %d ms", b.connectTimeout.Milliseconds())
	}
	r := b.networkClient.NewClientRequest(id, req, b.blockingOps.Time.Milliseconds(), true, nil)
	cr, err := b.blockingOps.BlockingSendAndReceive(ctx, r)
	if err != nil {
		return nil, err
	}
	return cr.ResponseBody, nil
}
