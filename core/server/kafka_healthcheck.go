package server

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// KafkaHealthcheck registers this broker in /brokers/ids/<id> (an ephemeral znode, so its
// presence means the broker is alive) and registers it again whenever ZooKeeper gives the
// broker a new session (the old session's ephemeral node is gone by then).
//
// Kafka 0.10.2: kafka.server.KafkaHealthcheck. The JSON is version 4 (2 with an
// inter.broker.protocol.version older than 0.10.0-IV1); an endpoint with an empty host is
// advertised with the machine's canonical host name; jmx_port is the JMX_PORT environment
// variable (-1 when unset), read once by the process wrapper and passed in.
type KafkaHealthcheck struct {
	brokerID   int32
	endPoints  []config.EndPoint
	zkUtils    *zkutils.ZkUtils
	rack       *string
	apiVersion config.ApiVersion
	jmxPort    int32
	time       common.Time
	logger     *logrus.Entry
	listener   *sessionExpireListener
	// stateMeters are the SessionExpireListener meters (kafka_healthcheck_metrics.go).
	stateMeters atomic.Pointer[map[zkclient.KeeperState]*metrics.Meter]
}

// NewKafkaHealthcheck prepares the registration of the given advertised endpoints.
func NewKafkaHealthcheck(brokerID int32, endPoints []config.EndPoint, z *zkutils.ZkUtils, rack *string,
	apiVersion config.ApiVersion, jmxPort int32, clock common.Time, logger *logrus.Entry) *KafkaHealthcheck {
	if logger == nil {
		logger = discardEntry()
	}
	return &KafkaHealthcheck{brokerID: brokerID, endPoints: endPoints, zkUtils: z, rack: rack, apiVersion: apiVersion,
		jmxPort: jmxPort, time: clock, logger: logger.WithField("logger", "kafka.server.KafkaHealthcheck")}
}

// Startup subscribes to session events and registers.
func (h *KafkaHealthcheck) Startup() error {
	h.listener = &sessionExpireListener{h: h}
	h.zkUtils.ZkClient.SubscribeStateChanges(h.listener)
	return h.Register()
}

// Shutdown stops listening (the znode disappears with the session).
func (h *KafkaHealthcheck) Shutdown() {
	if h.listener != nil {
		h.zkUtils.ZkClient.UnsubscribeStateChanges(h.listener)
	}
}

// Register writes /brokers/ids/<id>.
func (h *KafkaHealthcheck) Register() error {
	eps := make([]zkutils.RegisteredEndPoint, 0, len(h.endPoints))
	for _, e := range h.endPoints {
		host := e.Host
		if host == "" {
			if hn, err := os.Hostname(); err == nil {
				host = hn
			}
		}
		eps = append(eps, zkutils.RegisteredEndPoint{ListenerName: e.ListenerName, SecurityProtocol: e.SecurityProtocol, Host: host, Port: e.Port})
	}
	version := int32(4)
	if !h.apiVersion.AtLeast(config.KAFKA_0_10_0_IV1) {
		version = 2
	}
	rack := ""
	if h.rack != nil {
		rack = *h.rack
	}
	info := zkutils.NewBrokerInfo(h.brokerID, version, eps, h.jmxPort, rack, h.time.Milliseconds())
	return h.zkUtils.RegisterBrokerInZk(info)
}

// JmxPortFromEnv is JMX_PORT as kafka-run-class.sh passes it (com.sun.management.jmxremote.port),
// or -1.
func JmxPortFromEnv(getenv func(string) string) int32 {
	if v := getenv("JMX_PORT"); v != "" {
		if p, err := strconv.ParseInt(v, 10, 32); err == nil {
			return int32(p)
		}
	}
	return -1
}

// sessionExpireListener re-registers the broker on a new session.
//
// Kafka 0.10.2: KafkaHealthcheck.SessionExpireListener.
type sessionExpireListener struct{ h *KafkaHealthcheck }

func (l *sessionExpireListener) HandleStateChanged(state zkclient.KeeperState) error {
	l.h.markState(state)
	return nil
}

func (l *sessionExpireListener) HandleNewSession() error {
	l.h.logger.Infof("re-registering broker info in ZK for broker %d", l.h.brokerID)
	if err := l.h.Register(); err != nil {
		return fmt.Errorf("re-registering broker %d: %w", l.h.brokerID, err)
	}
	l.h.logger.Info("done re-registering broker")
	l.h.logger.Info("Subscribing to /brokers/topics path to watch for new topics")
	return nil
}
