package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/controller"
	"github.com/zkafka/zkafka/core/server/brokerstate"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// The KafkaServer side of the controller: building the KafkaController module every broker
// runs (only the one elected through /controller is active), and the broker's half of a
// controlled shutdown.

// ControlledShutdownHandler is what KafkaApis needs from the controller to answer a
// ControlledShutdown request: move leadership and follower duty off broker id and report the
// partitions it still leads. *controller.KafkaController satisfies it.
//
// Kafka 0.10.2: KafkaController.shutdownBroker, called from KafkaApis.handleControlledShutdownRequest.
type ControlledShutdownHandler interface {
	ShutdownBroker(id int32) ([]common.TopicPartition, error)
}

var _ ControlledShutdownHandler = (*controller.KafkaController)(nil)
var _ Controller = (*controller.KafkaController)(nil)

// newKafkaController builds the broker's controller module. It gets a scheduler of its own for
// the auto-rebalance task (the controller shuts it down when it resigns, so it must not be the
// broker's shared one), the "kafka.controller" logger (controller.log) and the
// state.change.logger (state-change.log).
func (s *KafkaServer) newKafkaController() *controller.KafkaController {
	ctlLog := s.loggers.Controller
	return controller.NewKafkaController(s.config, s.zkUtils, &s.BrokerState, s.time,
		utils.NewKafkaScheduler(1, ctlLog), ctlLog, entryLogger(s.loggers.StateChange))
}

// entryLogger turns an entry into a *logrus.Logger writing to the same place with the same
// level, whose lines carry the entry's fields (the controller takes its state.change.logger as
// a Logger; a plain e.Logger would drop the logger=state.change.logger field).
func entryLogger(e *logrus.Entry) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(e.Logger.Out)
	l.SetLevel(e.Logger.GetLevel())
	l.SetFormatter(&fieldsFormatter{fields: e.Data, next: e.Logger.Formatter})
	l.ReportCaller = e.Logger.ReportCaller
	return l
}

// fieldsFormatter adds fixed fields to every entry (without overriding the entry's own) and
// formats it with next.
type fieldsFormatter struct {
	fields logrus.Fields
	next   logrus.Formatter
}

func (f *fieldsFormatter) Format(e *logrus.Entry) ([]byte, error) {
	if len(f.fields) > 0 {
		data := make(logrus.Fields, len(e.Data)+len(f.fields))
		for k, v := range f.fields {
			data[k] = v
		}
		for k, v := range e.Data {
			data[k] = v
		}
		c := *e
		c.Data = data
		return f.next.Format(&c)
	}
	return f.next.Format(e)
}

// controlledShutdown asks the controller (whoever /controller names, looked up afresh on every
// attempt) to move this broker's leaderships elsewhere, and retries until the controller
// answers with no error and no partitions left, at most controlled.shutdown.max.retries times
// with controlled.shutdown.retry.backoff.ms between attempts. It reports whether it succeeded;
// the caller shuts down either way (an "unclean" shutdown when it did not).
//
// Kafka 0.10.2: KafkaServer.controlledShutdown (networkClientControlledShutdown). A connection
// is kept while the controller stays the same and dropped after an I/O error, as there.
func (s *KafkaServer) controlledShutdown() bool {
	if !s.config.ControlledShutdownEnable {
		return false
	}
	s.logger.Info("Starting controlled shutdown")
	s.BrokerState.NewState(brokerstate.PendingControlledShutdown)

	retries := int(s.config.ControlledShutdownMaxRetries)
	backoff := time.Duration(s.config.ControlledShutdownRetryBackoffMs) * time.Millisecond
	socketTimeout := time.Duration(s.config.ControllerSocketTimeoutMs) * time.Millisecond

	var conn *blockingChannel
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	prev := int32(-1)
	succeeded := false
	for remaining := retries; !succeeded && remaining > 0; remaining-- {
		// 1. Find the current controller; reconnect when it moved or the last attempt failed.
		if id, err := s.zkUtils.GetController(); err == nil {
			if conn == nil || id != prev {
				if conn != nil {
					conn.Close()
					conn = nil
				}
				prev = id
				if b, ok, err := s.zkUtils.GetBrokerInfo(id); err == nil && ok {
					if conn, err = dialBroker(b, s.config.InterBrokerListenerName, s.config.BrokerID, socketTimeout); err != nil {
						s.logger.WithError(err).Warn("Error during controlled shutdown, possibly because leader movement took longer than the configured controller.socket.timeout.ms")
						conn = nil
					}
				}
			}
		}
		// 2. Ask it.
		if conn != nil {
			resp, err := conn.roundtrip(&protocol.ControlledShutdownRequest{Version: 1, BrokerID: s.config.BrokerID})
			switch r, ok := resp.(*protocol.ControlledShutdownResponse); {
			case err != nil:
				s.logger.WithError(err).Warn("Error during controlled shutdown, possibly because leader movement took longer than the configured controller.socket.timeout.ms")
				conn.Close()
				conn = nil
			case !ok:
				s.logger.Warnf("Unexpected controlled shutdown response %T", resp)
			case r.ErrorCode == 0 && len(r.PartitionsRemaining) == 0:
				succeeded = true
				s.logger.Info("Controlled shutdown succeeded")
			default:
				left := make([]string, 0, len(r.PartitionsRemaining))
				for _, p := range r.PartitionsRemaining {
					left = append(left, fmt.Sprintf("[%s,%d]", p.Topic, p.Partition))
				}
				s.logger.Infof("Remaining partitions to move: %v", left)
				s.logger.Infof("Error code from controller: %d", r.ErrorCode)
			}
		}
		if !succeeded {
			time.Sleep(backoff)
			s.logger.Warn("Retrying controlled shutdown after the previous attempt failed...")
		}
	}
	if !succeeded {
		s.logger.Warn("Proceeding to do an unclean shutdown as all the controlled shutdown attempts failed")
	}
	return succeeded
}

// blockingChannel is one request-at-a-time connection to a broker, the shape of what 0.10.2's
// controlled shutdown gets from NetworkClientBlockingOps (blockingReady, then
// blockingSendAndReceive).
type blockingChannel struct {
	conn     net.Conn
	r        *bufio.Reader
	clientID string
	corr     int32
	timeout  time.Duration
}

func dialBroker(b zkutils.BrokerInfo, listenerName string, brokerID int32, timeout time.Duration) (*blockingChannel, error) {
	ep, ok := b.EndPoint(listenerName)
	if !ok {
		return nil, fmt.Errorf("broker %d has no endpoint for listener %s", b.ID, listenerName)
	}
	host := ep.Host
	if host == "" {
		host = "localhost"
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(int(ep.Port))), timeout)
	if err != nil {
		return nil, fmt.Errorf("Failed to connect within %v: %w", timeout, err)
	}
	return &blockingChannel{conn: c, r: bufio.NewReader(c), clientID: strconv.Itoa(int(brokerID)), timeout: timeout}, nil
}

func (c *blockingChannel) Close() { _ = c.conn.Close() }

// roundtrip writes req and reads frames until the response with its correlation id.
func (c *blockingChannel) roundtrip(req protocol.Message) (protocol.Message, error) {
	c.corr++
	h := protocol.RequestHeader{ApiKey: req.Key(), ApiVersion: req.GetVersion(), CorrelationID: c.corr, ClientID: &c.clientID}
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return nil, err
	}
	if _, err := protocol.WriteRequest(c.conn, h, req); err != nil {
		return nil, err
	}
	for {
		var size [4]byte
		if _, err := io.ReadFull(c.r, size[:]); err != nil {
			return nil, err
		}
		n := int32(binary.BigEndian.Uint32(size[:]))
		if n < 0 || n > 100<<20 {
			return nil, errors.New("invalid response frame size " + strconv.Itoa(int(n)))
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(c.r, body); err != nil {
			return nil, err
		}
		rh, rest, err := protocol.ReadResponseHeader(body)
		if err != nil {
			return nil, err
		}
		if rh.CorrelationID == c.corr {
			return protocol.ParseResponse(req.Key(), req.GetVersion(), rest)
		}
	}
}
