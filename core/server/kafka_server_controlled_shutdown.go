package server

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/oldclient"
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
// Kafka 0.10.2: KafkaServer.controlledShutdown (networkClientControlledShutdown). A connection
// is kept while the controller stays the same and dropped after an I/O error, as there.
func (s *KafkaServer) controlledShutdown() bool {
	if !s.config.Props.ControlledShutdownEnable {
		return false
	}
	s.logger.Info("Starting controlled shutdown")
	s.BrokerState.NewState(brokerstate.PendingControlledShutdown)

	retries := int(s.config.Props.ControlledShutdownMaxRetries)
	backoff := time.Duration(s.config.Props.ControlledShutdownRetryBackoffMs) * time.Millisecond
	socketTimeout := time.Duration(s.config.Props.ControllerSocketTimeoutMs) * time.Millisecond

	var conn *oldclient.BlockingChannel
	closeConn := func() {
		if conn != nil {
			_ = conn.Close()
			conn = nil
		}
	}
	defer closeConn()
	prev := int32(-1)
	succeeded := false
	for remaining := retries; !succeeded && remaining > 0; remaining-- {
		// 1. Find the current controller; reconnect when it moved or the last attempt failed.
		if id, err := s.zkUtils.GetController(); err == nil && (conn == nil || id != prev) {
			closeConn()
			prev = id
			if conn, err = s.connectToBroker(id, socketTimeout); err != nil {
				s.logger.WithError(err).Warn("Error during controlled shutdown, possibly because leader movement took longer than the configured controller.socket.timeout.ms")
			}
		}
		// 2. Ask it.
		if conn != nil {
			resp := &protocol.ControlledShutdownResponse{Version: 1}
			switch err := conn.Send(&protocol.ControlledShutdownRequest{Version: 1, BrokerID: s.config.BrokerID}, resp); {
			case err != nil:
				s.logger.WithError(err).Warn("Error during controlled shutdown, possibly because leader movement took longer than the configured controller.socket.timeout.ms")
				closeConn()
			case resp.ErrorCode == 0 && len(resp.PartitionsRemaining) == 0:
				succeeded = true
				s.logger.Info("Controlled shutdown succeeded")
			default:
				left := make([]string, 0, len(resp.PartitionsRemaining))
				for _, p := range resp.PartitionsRemaining {
					left = append(left, fmt.Sprintf("[%s,%d]", p.Topic, p.Partition))
				}
				s.logger.Infof("Remaining partitions to move: %v", left)
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

// connectToBroker opens a blocking channel to broker id on the inter-broker listener, with this
// broker's id as the client id (as 0.10.2's controlled shutdown client sends).
func (s *KafkaServer) connectToBroker(id int32, timeout time.Duration) (*oldclient.BlockingChannel, error) {
	b, ok, err := s.zkUtils.GetBrokerInfo(id)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("broker %d is not registered", id)
	}
	ep, ok := b.EndPoint(s.config.InterBrokerListenerName)
	if !ok {
		return nil, fmt.Errorf("broker %d has no endpoint for listener %s", b.ID, s.config.InterBrokerListenerName)
	}
	host := ep.Host
	if host == "" {
		host = "localhost"
	}
	clientID := strconv.Itoa(int(s.config.BrokerID))
	c := oldclient.NewBlockingChannel(host, ep.Port, clientID, timeout)
	if s.interBroker != nil {
		c.Secure = func(conn net.Conn) (net.Conn, error) { return s.interBroker.Secure(conn, clientID, timeout) }
	}
	if err := c.Connect(); err != nil {
		return nil, fmt.Errorf("Failed to connect within %v: %w", timeout, err)
	}
	return c, nil
}
