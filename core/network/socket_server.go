package network

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/config"
)

// ConnectionQuotas enforces max.connections.per.ip and its per-host overrides.
//
// Kafka 0.10.2: kafka.network.ConnectionQuotas.
type ConnectionQuotas struct {
	mu         sync.Mutex
	defaultMax int32
	overrides  map[string]int32 // ip -> max
	counts     map[string]int32
}

// NewConnectionQuotas builds the quotas; override keys are host names or addresses, resolved once.
func NewConnectionQuotas(defaultMax int32, overrides map[string]int32) *ConnectionQuotas {
	q := &ConnectionQuotas{defaultMax: defaultMax, overrides: map[string]int32{}, counts: map[string]int32{}}
	for host, n := range overrides {
		if ip := net.ParseIP(host); ip != nil {
			q.overrides[ip.String()] = n
			continue
		}
		if addrs, err := net.LookupIP(host); err == nil {
			for _, ip := range addrs {
				q.overrides[ip.String()] = n
			}
		}
	}
	return q
}

// TooManyConnectionsError is kafka.network.TooManyConnectionsException.
type TooManyConnectionsError struct {
	IP    string
	Count int32
}

func (e *TooManyConnectionsError) Error() string {
	return fmt.Sprintf("Too many connections from %s (maximum = %d)", e.IP, e.Count)
}

func ipOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

func (q *ConnectionQuotas) inc(a net.Addr) error {
	ip := ipOf(a)
	q.mu.Lock()
	defer q.mu.Unlock()
	max, ok := q.overrides[ip]
	if !ok {
		max = q.defaultMax
	}
	if q.counts[ip]+1 > max {
		return &TooManyConnectionsError{IP: ip, Count: max}
	}
	q.counts[ip]++
	return nil
}

func (q *ConnectionQuotas) dec(a net.Addr) {
	ip := ipOf(a)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.counts[ip] <= 1 {
		delete(q.counts, ip)
		return
	}
	q.counts[ip]--
}

// Acceptor accepts connections on one listener and hands them to the Processors round-robin.
//
// Kafka 0.10.2: kafka.network.Acceptor.
type Acceptor struct {
	endPoint   config.EndPoint
	listener   net.Listener
	processors []*Processor
	quotas     *ConnectionQuotas
	sendBuf    int
	recvBuf    int
	log        *logrus.Entry
	wg         sync.WaitGroup
}

func (a *Acceptor) run() {
	defer a.wg.Done()
	next := 0
	for {
		c, err := a.listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			a.log.WithError(err).Error("Error occurred while accepting a connection")
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err := a.quotas.inc(c.RemoteAddr()); err != nil {
			a.log.Infof("Rejected connection from %s, address already has the configured maximum of %d connections.",
				ipOf(c.RemoteAddr()), err.(*TooManyConnectionsError).Count)
			c.Close()
			continue
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
			tc.SetKeepAlive(true)
			if a.sendBuf > 0 {
				tc.SetWriteBuffer(a.sendBuf)
			}
			if a.recvBuf > 0 {
				tc.SetReadBuffer(a.recvBuf)
			}
		}
		p := a.processors[next%len(a.processors)]
		next++
		if !p.accept(c) {
			c.Close()
			a.quotas.dec(c.RemoteAddr())
			return
		}
	}
}

// SocketServer is the broker's network layer: an Acceptor per listener, and num.network.threads
// Processors per listener, all feeding one RequestChannel.
//
// Kafka 0.10.2: kafka.network.SocketServer.
type SocketServer struct {
	RequestChannel *RequestChannel
	acceptors      []*Acceptor
	processors     []*Processor
	quotas         *ConnectionQuotas
	log            *logrus.Entry
	boundPorts     map[string]int32
	metrics        *metrics.Registry
	requestMetrics requestMetricsMap
	memory         *memoryReturner // started by Startup, stopped by Shutdown
}

// SocketServerConfig is the subset of KafkaConfig the SocketServer reads.
type SocketServerConfig struct {
	Listeners                    []config.EndPoint
	NumNetworkThreads            int
	QueuedMaxRequests            int
	SocketSendBufferBytes        int
	SocketReceiveBufferBytes     int
	SocketRequestMaxBytes        int32
	MaxConnectionsPerIP          int32
	MaxConnectionsPerIPOverrides map[string]int32
	ConnectionsMaxIdle           time.Duration
	// Metrics is the broker's registry for RequestMetrics, the RequestChannel queue gauges and the
	// Processors' idle gauges; nil turns them off.
	Metrics *metrics.Registry
	// ParseRequest decodes a request body for its header; nil is protocol.ParseRequest (0.10.2's
	// rules). The broker replaces it to accept its broker-to-broker extension (key 23).
	ParseRequest func(protocol.RequestHeader, []byte) (protocol.Message, error)
	// SaslAuthenticator authenticates every connection of a SASL_PLAINTEXT or SASL_SSL listener;
	// such a listener without one fails Startup.
	SaslAuthenticator *security.SaslServerAuthenticator
	// TLSConfig serves the SSL and SASL_SSL listeners; such a listener without one fails Startup.
	TLSConfig *tls.Config
}

// SocketServerConfigFrom extracts the SocketServer's settings from a KafkaConfig.
func SocketServerConfigFrom(c *config.KafkaConfig) SocketServerConfig {
	return SocketServerConfig{
		Listeners: c.Listeners, NumNetworkThreads: int(c.NumNetworkThreads), QueuedMaxRequests: int(c.QueuedMaxRequests),
		SocketSendBufferBytes: int(c.SocketSendBufferBytes), SocketReceiveBufferBytes: int(c.SocketReceiveBufferBytes),
		SocketRequestMaxBytes: c.SocketRequestMaxBytes, MaxConnectionsPerIP: c.MaxConnectionsPerIP,
		MaxConnectionsPerIPOverrides: c.MaxConnectionsPerIPOverrides,
		ConnectionsMaxIdle:           time.Duration(c.ConnectionsMaxIdleMs) * time.Millisecond,
	}
}

// NewSocketServer creates the server; Startup binds the listeners.
func NewSocketServer(cfg SocketServerConfig, log *logrus.Entry) *SocketServer {
	total := cfg.NumNetworkThreads * len(cfg.Listeners)
	s := &SocketServer{
		RequestChannel: NewRequestChannel(total, cfg.QueuedMaxRequests),
		quotas:         NewConnectionQuotas(cfg.MaxConnectionsPerIP, cfg.MaxConnectionsPerIPOverrides),
		log:            log,
		boundPorts:     map[string]int32{},
		metrics:        cfg.Metrics,
		requestMetrics: newRequestMetricsMap(cfg.Metrics),
	}
	s.RequestChannel.registerGauges(cfg.Metrics)
	return s
}

// Startup binds every listener and starts the Acceptors and Processors.
func (s *SocketServer) Startup(ctx context.Context, cfg SocketServerConfig) error {
	s.log.Info("Starting")
	s.memory = newMemoryReturner(5*time.Second, 64<<20)
	go s.memory.run()
	id := 0
	var idle []*idleMeter
	var idleIDs []int
	for _, ep := range cfg.Listeners {
		isTLS := ep.SecurityProtocol == common.SSL || ep.SecurityProtocol == common.SASL_SSL
		isSASL := ep.SecurityProtocol == common.SASL_PLAINTEXT || ep.SecurityProtocol == common.SASL_SSL
		switch {
		case isTLS && cfg.TLSConfig == nil:
			s.Shutdown()
			return fmt.Errorf("Listener %s uses security protocol %s but no SSL keystore is configured", ep.ListenerName, ep.SecurityProtocol)
		case isSASL && cfg.SaslAuthenticator == nil:
			s.Shutdown()
			return fmt.Errorf("Listener %s uses security protocol %s but no SASL authenticator is configured", ep.ListenerName, ep.SecurityProtocol)
		}
		addr := net.JoinHostPort(ep.Host, strconv.Itoa(int(ep.Port)))
		ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
		if err != nil {
			s.Shutdown()
			return fmt.Errorf("Socket server failed to bind to %s: %w", addr, err)
		}
		s.boundPorts[ep.ListenerName] = int32(ln.Addr().(*net.TCPAddr).Port)
		a := &Acceptor{endPoint: ep, listener: ln, quotas: s.quotas, sendBuf: cfg.SocketSendBufferBytes,
			recvBuf: cfg.SocketReceiveBufferBytes, log: s.log.WithField("ident", "[Kafka Acceptor "+ep.ListenerName+"]: ")}
		for i := 0; i < cfg.NumNetworkThreads; i++ {
			p := newProcessor(id, ep.ListenerName, ep.SecurityProtocol, s.RequestChannel, s.quotas,
				cfg.SocketRequestMaxBytes, cfg.ConnectionsMaxIdle, s.log)
			p.memory = s.memory
			p.parse = cfg.ParseRequest
			if isSASL {
				p.sasl = cfg.SaslAuthenticator
			}
			if isTLS {
				p.tls = cfg.TLSConfig
			}
			if s.metrics != nil {
				p.requestMetrics = s.requestMetrics
				p.idle = &idleMeter{m: metrics.NewKafkaMetricsGroup(nil, "kafka.network", "Processor").
					NewMeter("IdlePercent", "percent", time.Nanosecond)}
				idle, idleIDs = append(idle, p.idle), append(idleIDs, id)
			}
			id++
			a.processors = append(a.processors, p)
			s.processors = append(s.processors, p)
			p.wg.Add(1)
			go p.run()
		}
		s.acceptors = append(s.acceptors, a)
		a.wg.Add(1)
		go a.run()
	}
	registerProcessorGauges(s.metrics, idle, idleIDs)
	s.log.Info("Started " + strconv.Itoa(len(s.acceptors)) + " acceptor threads")
	return nil
}

// BoundPort is the port a listener actually bound (useful with port 0).
func (s *SocketServer) BoundPort(listenerName string) int32 { return s.boundPorts[listenerName] }

// Shutdown stops the Acceptors, then the Processors, closing every connection.
func (s *SocketServer) Shutdown() {
	s.log.Info("Shutting down")
	for _, a := range s.acceptors {
		a.listener.Close()
		a.wg.Wait()
	}
	for _, p := range s.processors {
		close(p.done)
	}
	for _, p := range s.processors {
		p.wg.Wait()
	}
	if s.memory != nil {
		s.memory.shutdown()
		s.memory = nil
	}
	s.acceptors, s.processors = nil, nil
	s.log.Info("Shutdown completed")
}

// ConnectionCount returns the number of open connections across Processors. It is approximate
// (each Processor's map is read without stopping it) and meant for tests and gauges.
func (s *SocketServer) ConnectionCount() int {
	s.quotas.mu.Lock()
	defer s.quotas.mu.Unlock()
	n := 0
	for _, c := range s.quotas.counts {
		n += int(c)
	}
	return n
}
