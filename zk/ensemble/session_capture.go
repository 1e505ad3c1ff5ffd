package ensemble

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// maxConnectResponse bounds the ConnectResponse frame SessionCapture will
// buffer; a real one is about 40 bytes (the password is 16).
const maxConnectResponse = 4096

// ConnectResponse is the first frame a ZooKeeper server sends on a client
// connection (jute org.apache.zookeeper.proto.ConnectResponse). SessionID 0
// with TimeOut 0 means the session the client asked to resume has expired.
type ConnectResponse struct {
	ProtocolVersion int32
	TimeOut         int32
	SessionID       int64
	Passwd          []byte
	ReadOnly        bool // optional trailing field (3.4+ servers send it)
}

// DecodeConnectResponse decodes a ConnectResponse body (after the int32
// length prefix). It never panics on bad input.
func DecodeConnectResponse(b []byte) (ConnectResponse, error) {
	var r ConnectResponse
	if len(b) < 20 {
		return r, fmt.Errorf("ensemble: ConnectResponse too short (%d bytes)", len(b))
	}
	r.ProtocolVersion = int32(binary.BigEndian.Uint32(b[0:4]))
	r.TimeOut = int32(binary.BigEndian.Uint32(b[4:8]))
	r.SessionID = int64(binary.BigEndian.Uint64(b[8:16]))
	n := int32(binary.BigEndian.Uint32(b[16:20]))
	rest := b[20:]
	switch {
	case n == -1: // jute's null buffer
	case n < 0 || int(n) > len(rest):
		return r, fmt.Errorf("ensemble: ConnectResponse passwd length %d with %d bytes left", n, len(rest))
	default:
		r.Passwd = append([]byte(nil), rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		r.ReadOnly = rest[0] != 0
	}
	return r, nil
}

// SessionCapture is a dialer that records, from each connection's
// ConnectResponse, the session id and password a ZooKeeper client was
// given, so that a test can expire exactly that session
// (Ensemble.ExpireCaptured). Dial has go-zookeeper's zk.Dialer signature:
// pass it as zk.WithDialer(capture.Dial). The bytes are passed through
// untouched.
//
// SetBlackhole(true) turns the capture into the blackhole proxy of the
// layout's test plan: traffic on every wrapped connection is silently
// dropped in both directions and new dials fail, so the client times out
// on its own and the server expires the session after its timeout, exactly
// as in a network partition. SetBlackhole(false) lets traffic through again
// on new connections; a connection that lost bytes fails from then on, so
// the client reconnects instead of reading an out-of-step stream.
//
// No Kafka counterpart: Kafka's tests expire sessions by reaching into the
// embedded ZooKeeperServer; a child JVM needs the wire instead.
type SessionCapture struct {
	mu        sync.Mutex
	sessionID int64
	passwd    []byte
	timeout   time.Duration
	responses int // ConnectResponses seen, including expired ones
	expired   int // of which announced an expired session
	changed   chan struct{}
	blackhole atomic.Bool
}

// NewSessionCapture returns an empty capture.
func NewSessionCapture() *SessionCapture {
	return &SessionCapture{changed: make(chan struct{})}
}

// Dial connects like net.DialTimeout and wraps the connection.
func (s *SessionCapture) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	if s.blackhole.Load() {
		return nil, errBlackholed
	}
	c, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &captureConn{Conn: c, s: s}, nil
}

// SetBlackhole drops (true) or passes (false) all traffic through the
// capture's connections.
func (s *SessionCapture) SetBlackhole(on bool) { s.blackhole.Store(on) }

// Session returns the latest live session seen (id 0 if none yet).
func (s *SessionCapture) Session() (sessionID int64, passwd []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID, append([]byte(nil), s.passwd...)
}

// SessionTimeout is the timeout the server granted the latest session.
func (s *SessionCapture) SessionTimeout() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timeout
}

// Counts returns how many ConnectResponses were seen and how many of them
// told the client its session had expired.
func (s *SessionCapture) Counts() (responses, expired int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.responses, s.expired
}

// Changed returns a channel closed at the next ConnectResponse.
func (s *SessionCapture) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

func (s *SessionCapture) record(r ConnectResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responses++
	if r.SessionID == 0 {
		s.expired++
	} else {
		s.sessionID, s.passwd = r.SessionID, r.Passwd
		s.timeout = time.Duration(r.TimeOut) * time.Millisecond
	}
	if s.changed != nil {
		close(s.changed)
	}
	s.changed = make(chan struct{})
}

// captureConn copies the first frame read from the server aside, decodes
// it once complete, and then stops looking.
type captureConn struct {
	net.Conn
	s     *SessionCapture
	buf   []byte
	done  bool        // owned by the reading goroutine
	holed atomic.Bool // traffic was dropped by the blackhole
}

func (c *captureConn) Read(p []byte) (int, error) {
	for {
		if c.broken() {
			return 0, errBlackholed
		}
		n, err := c.Conn.Read(p)
		if n > 0 && c.s.blackhole.Load() {
			c.holed.Store(true)
			if err != nil {
				return 0, err
			}
			continue // dropped; the reader's deadline still applies
		}
		if !c.done && n > 0 {
			c.observe(p[:n])
		}
		return n, err
	}
}

func (c *captureConn) Write(p []byte) (int, error) {
	if c.broken() {
		return 0, errBlackholed
	}
	if c.s.blackhole.Load() {
		c.holed.Store(true)
		return len(p), nil // "sent", never delivered
	}
	return c.Conn.Write(p)
}

// broken reports a connection that lost bytes to a blackhole which has
// since been lifted: its stream is out of step, so it fails rather than
// deliver garbage, and the client reconnects.
func (c *captureConn) broken() bool {
	return c.holed.Load() && !c.s.blackhole.Load()
}

func (c *captureConn) observe(b []byte) {
	c.buf = append(c.buf, b...)
	if len(c.buf) < 4 {
		return
	}
	size := int32(binary.BigEndian.Uint32(c.buf[:4]))
	if size < 0 || size > maxConnectResponse {
		c.done, c.buf = true, nil // not a ConnectResponse: give up quietly
		return
	}
	if len(c.buf) < 4+int(size) {
		return
	}
	if r, err := DecodeConnectResponse(c.buf[4 : 4+size]); err == nil {
		c.s.record(r)
	}
	c.done, c.buf = true, nil
}

// errBlackholed is what Dial returns while the blackhole is on.
var errBlackholed = errors.New("ensemble: SessionCapture blackhole: connection refused")

// errNoSession is returned by ExpireCaptured before any session was seen.
var errNoSession = errors.New("ensemble: SessionCapture has seen no session yet")
