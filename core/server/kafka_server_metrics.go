package server

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/config"
)

// The KafkaServer side of the broker's metrics: the BrokerState gauge, handing the registry to
// the components that KafkaServer builds without it (the controller, the request handler pool),
// and the HTTP reporter that stands in for JMX.
//
// The registry itself (KafkaServer.Metrics) is made in NewKafkaServer so that it outlives
// restarts of the same KafkaServer; components re-register their gauges on each Startup
// (metrics.Registry's NewGauge replaces the previous closure).

// MetricsHTTPPortProp names the port of the HTTP metrics reporter (zkafka's own key; Kafka
// exports over JMX on JMX_PORT instead). JMX_PORT is used when it is not set.
const MetricsHTTPPortProp = config.MetricsHTTPPortProp

// MetricsHTTPHostProp names the address the reporter binds (all interfaces when empty, as JMX).
const MetricsHTTPHostProp = config.MetricsHTTPHostProp

// metricsHTTPAddr is where the reporter listens, or "" when neither metrics.http.port nor
// JMX_PORT is set.
func (s *KafkaServer) metricsHTTPAddr() (string, error) {
	host := s.config.MetricsHTTPHost
	if p := s.config.MetricsHTTPPort; p != nil {
		return net.JoinHostPort(host, strconv.Itoa(int(*p))), nil
	}
	if p := JmxPortFromEnv(s.getenv); p >= 0 {
		return net.JoinHostPort(host, strconv.Itoa(int(p))), nil
	}
	return "", nil
}

// startMetrics registers the broker-level gauges and starts the HTTP reporter when a port is
// configured. Startup calls it once every component exists.
//
// Kafka 0.10.2: the newGauge("BrokerState") call in KafkaServer, and the JMX agent that
// kafka-run-class.sh starts when JMX_PORT is set.
func (s *KafkaServer) startMetrics() error {
	reg := s.Metrics
	metrics.NewKafkaMetricsGroup(reg, "kafka.server", "KafkaServer").
		NewGauge("BrokerState", func() int64 { return int64(s.BrokerState.CurrentState()) })
	if s.kafkaController != nil {
		s.kafkaController.RegisterMetrics(reg)
	}
	if s.requestHandlerPool != nil {
		s.requestHandlerPool.RegisterMetrics(reg)
	}
	if s.kafkaHealthcheck != nil {
		s.kafkaHealthcheck.RegisterMetrics(reg)
	}
	addr, err := s.metricsHTTPAddr()
	if err != nil || addr == "" {
		return err
	}
	rep, err := metrics.Serve(context.Background(), addr, reg)
	if err != nil {
		return fmt.Errorf("starting the metrics reporter on %s: %w", addr, err)
	}
	s.metricsReporter.Store(rep)
	s.logger.Infof("Metrics served over HTTP on %s (/metrics.json, /metrics)", rep.Addr())
	return nil
}

// stopMetrics stops the HTTP reporter (the registry stays: a restarted server reuses it).
func (s *KafkaServer) stopMetrics() {
	if rep := s.metricsReporter.Swap(nil); rep != nil {
		if err := rep.Shutdown(); err != nil {
			s.logger.WithError(err).Warn("error stopping the metrics reporter")
		}
	}
}

// MetricsReporterAddr is the address the HTTP metrics reporter listens on, or nil when it does
// not run.
func (s *KafkaServer) MetricsReporterAddr() net.Addr {
	if rep := s.metricsReporter.Load(); rep != nil {
		return rep.Addr()
	}
	return nil
}
