package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/brokerstate"
)

// controlledShutdown asks the controller (whoever /controller names, looked up afresh on every
// attempt) to move this broker's leaderships elsewhere, and retries until the controller
// answers with no error and no partitions left, at most controlled.shutdown.max.retries times
// with controlled.shutdown.retry.backoff.ms (on the broker's clock) between attempts. It
// reports whether it succeeded; the caller shuts down either way (an "unclean" shutdown when it
// did not).
//
// Shutdown has set isShuttingDown before this runs, and the ReplicaManager shares that flag, so
// the LeaderAndIsr that makes this broker a follower of the partitions it gave up starts no
// fetcher: the broker does not rejoin the ISRs the controller just took it out of.
//
// Kafka 0.10.2: KafkaServer.controlledShutdown (networkClientControlledShutdown): a NetworkClient
// of its own (ManualMetadataUpdater set to the controller's node, max.in.flight 1, reconnect
// backoff 0, request.timeout.ms, connections.max.idle.ms) driven through NetworkClientBlockingOps,
// blockingReady within controller.socket.timeout.ms then blockingSendAndReceive. The connection
// is kept while the controller stays the same and dropped after an I/O error, as there.
func (s *KafkaServer) controlledShutdown() bool {
	if !s.config.Props.ControlledShutdownEnable {
		return false
	}
	s.logger.Info("Starting controlled shutdown")
	s.BrokerState.NewState(brokerstate.PendingControlledShutdown)

	retries := int(s.config.Props.ControlledShutdownMaxRetries)
	backoff := time.Duration(s.config.Props.ControlledShutdownRetryBackoffMs) * time.Millisecond
	socketTimeoutMs := int64(s.config.Props.ControllerSocketTimeoutMs)

	metadataUpdater := &clients.ManualMetadataUpdater{}
	// On a TLS or SASL inter-broker listener the connection is secured as it is made.
	sel := network.NewSelector(network.SelectorConfig{MaxReceiveSize: network.Unlimited,
		ConnectionsMaxIdleMs: s.config.Props.ConnectionsMaxIdleMs, Log: s.logger,
		Dial: s.interBroker.Dial(strconv.Itoa(int(s.config.BrokerID)), time.Duration(socketTimeoutMs)*time.Millisecond)})
	networkClient := clients.NewNetworkClientWithUpdater(sel, metadataUpdater, clients.NetworkClientConfig{
		ClientID: strconv.Itoa(int(s.config.BrokerID)), MaxInFlightRequestsPerConnection: 1, ReconnectBackoffMs: 0,
		SocketSendBuffer: network.UseDefaultBufferSize, SocketReceiveBuffer: network.UseDefaultBufferSize,
		RequestTimeoutMs: max(int64(s.config.Props.RequestTimeoutMs), 1), Log: s.logger})
	defer networkClient.Close()
	ops := clients.NetworkClientBlockingOps{Client: networkClient, Time: common.SystemTime{}}
	ctx := context.Background()

	var prevController *common.Node
	ioException := false
	succeeded := false
	for remaining := retries; !succeeded && remaining > 0; remaining-- {
		// 1. Find the current controller; reconnect when it moved or the last attempt failed.
		if node, err := s.controllerNode(); err == nil && (ioException || prevController == nil || node != *prevController) {
			ioException = false
			if prevController != nil {
				networkClient.CloseNode(prevController.IDString())
			}
			prevController = &node
			metadataUpdater.Nodes = []common.Node{node}
		}
		// 2. Ask it.
		if prevController != nil {
			resp, err := s.sendControlledShutdown(ctx, networkClient, ops, *prevController, socketTimeoutMs)
			switch {
			case err != nil:
				ioException = true
				s.logger.Warnf("Error during controlled shutdown, possibly because leader movement took longer than the configured socket.timeout.ms: %v", err)
			case resp.ErrorCode == 0 && len(resp.PartitionsRemaining) == 0:
				succeeded = true
				s.logger.Info("Controlled shutdown succeeded")
			default:
				left := make([]string, 0, len(resp.PartitionsRemaining))
				for _, p := range resp.PartitionsRemaining {
					left = append(left, fmt.Sprintf("%s-%d", p.Topic, p.Partition)) // TopicPartition.toString
				}
				s.logger.Infof("Remaining partitions to move: %s", strings.Join(left, ","))
				s.logger.Infof("Error code from controller: %d", resp.ErrorCode)
			}
		}
		if !succeeded {
			s.time.Sleep(backoff)
			s.logger.Warn("Retrying controlled shutdown after the previous attempt failed...")
		}
	}
	if !succeeded {
		s.logger.Warn("Proceeding to do an unclean shutdown as all the controlled shutdown attempts failed")
	}
	return succeeded
}

// sendControlledShutdown connects to the controller (within controller.socket.timeout.ms) and
// sends ControlledShutdown v1 for this broker; any error closes the connection.
func (s *KafkaServer) sendControlledShutdown(ctx context.Context, nc *clients.NetworkClient, ops clients.NetworkClientBlockingOps,
	controller common.Node, socketTimeoutMs int64) (resp *protocol.ControlledShutdownResponse, err error) {
	defer func() {
		if err != nil {
			nc.CloseNode(controller.IDString())
		}
	}()
	ready, err := ops.BlockingReady(ctx, controller, socketTimeoutMs)
	if err != nil {
		return nil, err
	}
	if !ready {
		return nil, fmt.Errorf("Failed to connect within %d ms", socketTimeoutMs)
	}
	req := nc.NewClientRequest(controller.IDString(), &protocol.ControlledShutdownRequest{Version: 1, BrokerID: s.config.BrokerID},
		ops.Time.Milliseconds(), true, nil)
	cr, err := ops.BlockingSendAndReceive(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, ok := cr.ResponseBody.(*protocol.ControlledShutdownResponse)
	if !ok {
		return nil, fmt.Errorf("unexpected response %T to a ControlledShutdown request", cr.ResponseBody)
	}
	return resp, nil
}

// controllerNode is the node of the broker /controller names, on the inter-broker listener
// (an empty host is localhost).
//
// Kafka 0.10.2: zkUtils.getController, getBrokerInfo and controlledShutdown's node(broker).
func (s *KafkaServer) controllerNode() (common.Node, error) {
	id, err := s.zkUtils.GetController()
	if err != nil {
		return common.Node{}, err
	}
	b, ok, err := s.zkUtils.GetBrokerInfo(id)
	switch {
	case err != nil:
		return common.Node{}, err
	case !ok:
		return common.Node{}, fmt.Errorf("broker %d is not registered", id)
	}
	ep, ok := b.EndPoint(s.config.InterBrokerListenerName)
	if !ok {
		return common.Node{}, fmt.Errorf("broker %d has no endpoint for listener %s", b.ID, s.config.InterBrokerListenerName)
	}
	host := ep.Host
	if host == "" {
		host = "localhost"
	}
	return common.Node{ID: b.ID, Host: host, Port: ep.Port}, nil
}
