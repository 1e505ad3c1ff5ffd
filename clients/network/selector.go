package network

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
)

// UseDefaultBufferSize leaves a socket buffer at the operating system's default.
//
// Kafka 0.10.2: Selectable.USE_DEFAULT_BUFFER_SIZE.
const UseDefaultBufferSize = -1

// Selectable is the Selector's API, which NetworkClient drives (and a MockSelector fakes).
//
// Kafka 0.10.2: org.apache.kafka.common.network.Selectable.
type Selectable interface {
	Connect(id, address string, sendBufferSize, receiveBufferSize int) error
	Wakeup()
	Close()
	CloseConnection(id string)
	Send(send Send)
	Poll(timeoutMs int64) error
	CompletedSends() []Send
	CompletedReceives() []*NetworkReceive
	Disconnected() []string
	Connected() []string
	Mute(id string)
	Unmute(id string)
	MuteAll()
	UnmuteAll()
	IsChannelReady(id string) bool
}

// SelectorConfig configures a Selector.
type SelectorConfig struct {
	// MaxReceiveSize bounds the size prefix of a frame read (Unlimited, the clients' default, or
	// 0, means no bound; see CheckReceiveSize).
	MaxReceiveSize int
	// ConnectionsMaxIdleMs closes a connection that has neither read nor written for this long
	// (connections.max.idle.ms); <= 0 never closes idle connections.
	ConnectionsMaxIdleMs int64
	// Metrics, with MetricGrpPrefix ("producer" gives group producer-metrics) and MetricTags
	// (client-id), registers the Selector's metrics; nil registers none.
	Metrics         *metrics.Metrics
	MetricGrpPrefix string
	MetricTags      map[string]string
	Time            common.Time
	Log             *logrus.Entry
	// Dial opens a connection (tests); nil dials TCP.
	Dial func(ctx context.Context, address string) (net.Conn, error)
}

// Selector does the network I/O of a client over many connections, each named by an id, with
// Kafka's Selector API: Connect, Send and Poll, after which CompletedSends, CompletedReceives,
// Connected and Disconnected list what happened during that Poll; Mute and Unmute stop and
// resume reading a connection. It is driven by one goroutine (the Sender, a consumer's caller,
// the controller's RequestSendThread); only Wakeup may be called from others.
//
// Kafka 0.10.2: org.apache.kafka.common.network.Selector (imported as KSelector by the broker;
// here knetwork.Selector). Go difference (layout.md B.7): each KafkaChannel's bytes move on a
// reader and a writer goroutine and each Connect dials on a goroutine of its own; Poll waits, up
// to its timeout, for one of them (or Wakeup) to report, and then publishes everything they
// completed since the last Poll. An IOException in Kafka is here the connection showing up in
// Disconnected.
type Selector struct {
	maxReceiveSize int
	idleNanos      int64
	time           common.Time
	log            *logrus.Entry
	metrics        *selectorMetrics
	dial           func(ctx context.Context, address string) (net.Conn, error)
	ctx            context.Context
	cancel         context.CancelFunc
	wg             sync.WaitGroup

	// Owned by the driving goroutine.
	channels          map[string]*KafkaChannel
	connecting        map[string]*pendingConnect
	failedSends       []string
	completedSends    []Send
	completedReceives []*NetworkReceive
	connected         []string
	disconnected      []string
	nextIdleCheck     int64
	timer             *time.Timer
	channelCount      atomic.Int64 // len(channels), for the connection-count gauge read by others

	// What the goroutines completed since the last Poll, guarded by mu.
	mu      sync.Mutex
	pending pendingEvents
	closed  bool
	notify  chan struct{} // cap 1: an event was queued, or Wakeup
}

type pendingConnect struct {
	id     string
	cancel context.CancelFunc
	conn   net.Conn
	err    error
}

type channelFailure struct {
	ch  *KafkaChannel
	err error
}

type pendingEvents struct {
	sends    []Send
	receives []*NetworkReceive
	connects []*pendingConnect
	failures []channelFailure
}

// NewSelector returns a Selector with no connections.
func NewSelector(cfg SelectorConfig) *Selector {
	if cfg.Time == nil {
		cfg.Time = common.SystemTime{}
	}
	if cfg.Log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		cfg.Log = logrus.NewEntry(l)
	}
	if cfg.MaxReceiveSize == 0 {
		cfg.MaxReceiveSize = Unlimited
	}
	s := &Selector{
		maxReceiveSize: cfg.MaxReceiveSize,
		time:           cfg.Time,
		log:            cfg.Log.WithField("logger", "org.apache.kafka.common.network.Selector"),
		dial:           cfg.Dial,
		channels:       map[string]*KafkaChannel{},
		connecting:     map[string]*pendingConnect{},
		notify:         make(chan struct{}, 1),
	}
	if cfg.ConnectionsMaxIdleMs > 0 {
		s.idleNanos = cfg.ConnectionsMaxIdleMs * int64(time.Millisecond)
		s.nextIdleCheck = time.Now().UnixNano() + s.idleNanos
	}
	if s.dial == nil {
		d := &net.Dialer{KeepAlive: 30 * time.Second}
		s.dial = func(ctx context.Context, address string) (net.Conn, error) { return d.DialContext(ctx, "tcp", address) }
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.metrics = newSelectorMetrics(cfg.Metrics, cfg.MetricGrpPrefix, cfg.MetricTags, cfg.Time, func() int { return int(s.channelCount.Load()) })
	return s
}

// Connect starts connecting to address as connection id; the outcome shows up in Connected or
// Disconnected of a later Poll. Buffer sizes of UseDefaultBufferSize keep the OS defaults.
//
// Kafka 0.10.2: Selector.connect.
func (s *Selector) Connect(id, address string, sendBufferSize, receiveBufferSize int) error {
	if s.channels[id] != nil || s.connecting[id] != nil {
		return fmt.Errorf("There is already a connection for id %s", id)
	}
	ctx, cancel := context.WithCancel(s.ctx)
	pc := &pendingConnect{id: id, cancel: cancel}
	s.connecting[id] = pc
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		conn, err := s.dial(ctx, address)
		if err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetNoDelay(true)
				_ = tc.SetKeepAlive(true)
				if sendBufferSize != UseDefaultBufferSize && sendBufferSize > 0 {
					_ = tc.SetWriteBuffer(sendBufferSize)
				}
				if receiveBufferSize != UseDefaultBufferSize && receiveBufferSize > 0 {
					_ = tc.SetReadBuffer(receiveBufferSize)
				}
			}
		}
		pc.conn, pc.err = conn, err
		if !s.queueEvent(func(p *pendingEvents) { p.connects = append(p.connects, pc) }) && conn != nil {
			_ = conn.Close()
		}
	}()
	return nil
}

// queueEvent records what a goroutine completed and wakes Poll; false once the Selector is closed.
func (s *Selector) queueEvent(add func(*pendingEvents)) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	add(&s.pending)
	s.mu.Unlock()
	s.Wakeup()
	return true
}

func (s *Selector) receiveCompleted(ch *KafkaChannel, r *NetworkReceive) {
	s.queueEvent(func(p *pendingEvents) { p.receives = append(p.receives, r) })
}

func (s *Selector) sendCompleted(ch *KafkaChannel, send Send) {
	s.queueEvent(func(p *pendingEvents) { p.sends = append(p.sends, send) })
}

func (s *Selector) channelFailed(ch *KafkaChannel, err error) {
	if ch.isClosed() {
		return // closed here: CloseConnection does not report a disconnection
	}
	s.queueEvent(func(p *pendingEvents) { p.failures = append(p.failures, channelFailure{ch, err}) })
}

// Wakeup interrupts a Poll that is waiting (or makes the next one return at once). It is the
// one method other goroutines may call.
//
// Kafka 0.10.2: Selector.wakeup.
func (s *Selector) Wakeup() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Send queues send on its destination's connection. A send to a connection that does not
// exist, or is failing, shows its destination in the next Poll's Disconnected.
//
// Kafka 0.10.2: Selector.send.
func (s *Selector) Send(send Send) {
	ch := s.channels[send.Destination()]
	if ch == nil || !ch.queue(send) {
		s.failedSends = append(s.failedSends, send.Destination())
		if ch != nil {
			s.closeChannel(ch)
		}
	}
}

// Poll waits up to timeoutMs (0: not at all) for network events, then publishes everything
// completed since the previous Poll: CompletedSends, CompletedReceives, Connected and
// Disconnected. Connections idle for longer than connections.max.idle.ms are closed and
// listed in Disconnected.
//
// Kafka 0.10.2: Selector.poll (select, pollSelectionKeys, maybeCloseOldestConnection).
func (s *Selector) Poll(timeoutMs int64) error {
	if timeoutMs < 0 {
		return errors.New("timeout should be >= 0")
	}
	s.completedSends = s.completedSends[:0]
	s.completedReceives = s.completedReceives[:0]
	s.connected = s.connected[:0]
	s.disconnected = append(s.disconnected[:0], s.failedSends...)
	s.failedSends = s.failedSends[:0]

	startSelect := s.time.Nanoseconds()
	if timeoutMs > 0 && len(s.disconnected) == 0 && !s.hasPending() {
		if s.timer == nil {
			s.timer = time.NewTimer(time.Duration(timeoutMs) * time.Millisecond)
		} else {
			s.timer.Reset(time.Duration(timeoutMs) * time.Millisecond)
		}
		select {
		case <-s.notify:
		case <-s.timer.C:
		}
		s.timer.Stop()
	} else {
		select { // consume a stale wakeup
		case <-s.notify:
		default:
		}
	}
	endSelect := s.time.Nanoseconds()
	s.metrics.recordSelect(endSelect-startSelect, s.time.Milliseconds())

	s.mu.Lock()
	ev := s.pending
	s.pending = pendingEvents{}
	s.mu.Unlock()

	for _, pc := range ev.connects {
		if s.connecting[pc.id] != pc {
			if pc.conn != nil {
				_ = pc.conn.Close() // CloseConnection was called while it dialed
			}
			continue
		}
		delete(s.connecting, pc.id)
		pc.cancel()
		if pc.err != nil {
			s.log.Debugf("Connection with %s disconnected: %v", pc.id, pc.err)
			s.disconnected = append(s.disconnected, pc.id)
			continue
		}
		ch := newKafkaChannel(pc.id, pc.conn, s)
		s.channels[pc.id] = ch
		s.channelCount.Add(1)
		ch.start()
		s.connected = append(s.connected, pc.id)
		s.metrics.connectionCreated(pc.id)
	}
	for _, send := range ev.sends {
		if ch := s.channels[send.Destination()]; ch != nil && !ch.isClosed() {
			s.completedSends = append(s.completedSends, send)
		}
	}
	for _, r := range ev.receives {
		if ch := s.channels[r.source]; ch != nil && !ch.isClosed() {
			s.completedReceives = append(s.completedReceives, r)
		}
	}
	for _, f := range ev.failures {
		if s.channels[f.ch.id] != f.ch {
			continue
		}
		if f.err != nil && !errors.Is(f.err, io.EOF) {
			s.log.Debugf("Connection with %s disconnected: %v", f.ch.SocketAddress(), f.err)
		}
		s.closeChannel(f.ch)
		s.disconnected = append(s.disconnected, f.ch.id)
	}
	s.maybeCloseIdleConnections()
	s.metrics.recordIO(s.time.Nanoseconds()-endSelect, s.time.Milliseconds())
	return nil
}

func (s *Selector) hasPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &s.pending
	return len(p.sends)+len(p.receives)+len(p.connects)+len(p.failures) > 0
}

// maybeCloseIdleConnections closes connections idle for longer than connections.max.idle.ms.
//
// Kafka 0.10.2: Selector.maybeCloseOldestConnection (IdleExpiryManager).
func (s *Selector) maybeCloseIdleConnections() {
	if s.idleNanos <= 0 {
		return
	}
	now := time.Now().UnixNano()
	if now < s.nextIdleCheck {
		return
	}
	s.nextIdleCheck = now + s.idleNanos
	for id, ch := range s.channels {
		if now-ch.lastActivity.Load() > s.idleNanos {
			s.log.Tracef("About to close the idle connection from %s due to being idle for %d millis", id,
				(now-ch.lastActivity.Load())/int64(time.Millisecond))
			s.closeChannel(ch)
			s.disconnected = append(s.disconnected, id)
		} else if next := ch.lastActivity.Load() + s.idleNanos; next < s.nextIdleCheck {
			s.nextIdleCheck = next
		}
	}
}

func (s *Selector) closeChannel(ch *KafkaChannel) {
	if s.channels[ch.id] == ch {
		delete(s.channels, ch.id)
		s.channelCount.Add(-1)
		s.metrics.connectionClosed()
	}
	ch.close()
}

// CloseConnection closes connection id (or abandons connecting it). It is not reported in
// Disconnected.
//
// Kafka 0.10.2: Selector.close(String id).
func (s *Selector) CloseConnection(id string) {
	if pc := s.connecting[id]; pc != nil {
		pc.cancel()
		delete(s.connecting, id)
	}
	if ch := s.channels[id]; ch != nil {
		s.closeChannel(ch)
	}
}

// Close closes every connection, stops every goroutine of the Selector and waits for them, and
// removes its metrics.
//
// Kafka 0.10.2: Selector.close().
func (s *Selector) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	for _, ch := range s.channels {
		s.closeChannel(ch)
	}
	s.wg.Wait()
	s.mu.Lock()
	for _, pc := range s.pending.connects {
		if pc.conn != nil {
			_ = pc.conn.Close()
		}
	}
	s.pending = pendingEvents{}
	s.mu.Unlock()
	s.metrics.close()
}

// CompletedSends are the sends that finished during the last Poll.
func (s *Selector) CompletedSends() []Send { return s.completedSends }

// CompletedReceives are the frames read during the last Poll, in order per connection.
func (s *Selector) CompletedReceives() []*NetworkReceive { return s.completedReceives }

// Disconnected are the connections that failed, closed, went idle or could not be made during
// the last Poll.
func (s *Selector) Disconnected() []string { return s.disconnected }

// Connected are the connections established during the last Poll.
func (s *Selector) Connected() []string { return s.connected }

// Mute stops reading from connection id after the frame in progress.
func (s *Selector) Mute(id string) {
	if ch := s.channels[id]; ch != nil {
		ch.mute()
	}
}

// Unmute resumes reading from connection id.
func (s *Selector) Unmute(id string) {
	if ch := s.channels[id]; ch != nil {
		ch.unmuteChannel()
	}
}

// MuteAll mutes every connection.
func (s *Selector) MuteAll() {
	for _, ch := range s.channels {
		ch.mute()
	}
}

// UnmuteAll unmutes every connection.
func (s *Selector) UnmuteAll() {
	for _, ch := range s.channels {
		ch.unmuteChannel()
	}
}

// IsChannelReady reports an established connection (PLAINTEXT needs no handshake).
func (s *Selector) IsChannelReady(id string) bool {
	ch := s.channels[id]
	return ch != nil && !ch.isClosed()
}

// Channel returns connection id, nil when there is none.
func (s *Selector) Channel(id string) *KafkaChannel { return s.channels[id] }
