package zkclient

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/sirupsen/logrus"
)

// Client is a ZooKeeper session with persistent listeners, one event goroutine
// and retries across connection loss.
//
// Kafka 0.10.2: org.I0Itec.zkclient.ZkClient (with ZkConnection and
// ZKStringSerializer folded in: data is raw bytes, nil means a null znode value).
type Client struct {
	conn    *gozk.Conn
	zkEvts  <-chan gozk.Event
	chroot  string // "" or "/a/b", never ending in '/'
	servers []string
	log     *logrus.Entry
	acl     func(path string) []ACL // nil: OPEN_ACL_UNSAFE

	sessionTimeout    time.Duration
	connectionTimeout time.Duration

	stateMu      sync.Mutex
	keeperState  KeeperState
	hasSession   bool
	expired      bool          // an expiry was seen and no new session yet
	stateChanged chan struct{} // closed and replaced at every state change

	listenersMu    sync.Mutex
	childListeners map[string][]ChildListener
	dataListeners  map[string][]DataListener
	stateListeners []StateListener

	eventThread *ZkEventThread

	closeOnce sync.Once
	closed    chan struct{}
}

// Option configures New.
type Option func(*options)

type options struct {
	dialer    gozk.Dialer
	log       *logrus.Entry
	eventHook func(desc string)

	authScheme string
	auth       []byte
	acl        func(path string) []ACL
}

// WithDialer makes the session connect through dialer (tests pass a
// SessionCapture's Dial to learn the session id and password, or a proxy).
// The separate connection that creates a missing chroot does not use it.
func WithDialer(dialer gozk.Dialer) Option { return func(o *options) { o.dialer = dialer } }

// WithEventHook runs hook on the event goroutine before each listener callback, with the
// event's description (e.g. "Children of /brokers/ids"). Tests use it to make the event
// goroutine slow, as a busy controller's is.
func WithEventHook(hook func(desc string)) Option { return func(o *options) { o.eventHook = hook } }

// WithLogger sets the logger (default: a logrus entry on the standard logger
// with logger=org.I0Itec.zkclient.ZkClient).
func WithLogger(log *logrus.Entry) Option { return func(o *options) { o.log = log } }

// ParseConnectString splits "h1:p1,h2:p2/chroot" into its servers and chroot
// ("" when there is none). A trailing '/' on the chroot is dropped; "/" alone means
// no chroot.
func ParseConnectString(connect string) (servers []string, chroot string, err error) {
	hosts := connect
	if i := strings.IndexByte(connect, '/'); i >= 0 {
		hosts, chroot = connect[:i], strings.TrimRight(connect[i:], "/")
	}
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			servers = append(servers, h)
		}
	}
	if len(servers) == 0 {
		return nil, "", fmt.Errorf("zkclient: no server in connect string %q", connect)
	}
	if strings.Contains(chroot, "//") {
		return nil, "", fmt.Errorf("zkclient: invalid chroot in connect string %q", connect)
	}
	return servers, chroot, nil
}

// New connects to ZooKeeper and waits up to connectionTimeout for a session.
// If the connect string carries a chroot that does not exist yet, it is created
// first through a separate connection without chroot (KafkaServer.initZk does
// the same), and the returned client then works below it.
func New(connect string, sessionTimeout, connectionTimeout time.Duration, opts ...Option) (*Client, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.log == nil {
		o.log = logrus.NewEntry(logrus.StandardLogger()).WithField("logger", "org.I0Itec.zkclient.ZkClient")
	}
	servers, chroot, err := ParseConnectString(connect)
	if err != nil {
		return nil, err
	}
	if chroot != "" {
		root, err := newClient(servers, "", sessionTimeout, connectionTimeout,
			options{log: o.log, authScheme: o.authScheme, auth: o.auth, acl: o.acl})
		if err != nil {
			return nil, err
		}
		// makeSurePersistentPathExists: an existing chroot is left alone (a create would be
		// refused with InvalidACL by a session whose ACL needs a login it does not have).
		var exists bool
		if exists, err = root.Exists(chroot); err == nil && !exists {
			err = root.CreatePersistent(chroot, nil, true)
		}
		root.Close()
		if err != nil {
			return nil, fmt.Errorf("zkclient: create chroot %s: %w", chroot, err)
		}
	}
	return newClient(servers, chroot, sessionTimeout, connectionTimeout, o)
}

func newClient(servers []string, chroot string, sessionTimeout, connectionTimeout time.Duration, o options) (*Client, error) {
	c := &Client{
		chroot:            chroot,
		servers:           servers,
		log:               o.log,
		acl:               o.acl,
		sessionTimeout:    sessionTimeout,
		connectionTimeout: connectionTimeout,
		keeperState:       Disconnected,
		stateChanged:      make(chan struct{}),
		childListeners:    map[string][]ChildListener{},
		dataListeners:     map[string][]DataListener{},
		closed:            make(chan struct{}),
	}
	c.eventThread = newZkEventThread(o.log, o.eventHook)
	dialer := o.dialer
	if dialer == nil {
		dialer = net.DialTimeout
	}
	conn, evts, err := gozk.Connect(servers, sessionTimeout,
		gozk.WithEventCallback(c.process),
		gozk.WithLogger(gozkLogger{o.log}),
		gozk.WithLogInfo(false),
		gozk.WithDialer(dialer))
	if err != nil {
		c.eventThread.shutdown()
		return nil, err
	}
	c.conn, c.zkEvts = conn, evts
	if !c.waitUntilConnected(connectionTimeout) {
		c.Close()
		return nil, fmt.Errorf("%w (%v, servers %s)", ErrTimeout, connectionTimeout, strings.Join(servers, ","))
	}
	if o.authScheme != "" {
		if err := conn.AddAuth(o.authScheme, o.auth); err != nil {
			c.Close()
			return nil, fmt.Errorf("zkclient: authenticating with scheme %s: %w", o.authScheme, translate(err))
		}
	}
	c.log.Infof("connected with session 0x%x", conn.SessionID())
	return c, nil
}

// gozkLogger sends go-zookeeper's own log lines to logrus at debug level.
type gozkLogger struct{ log *logrus.Entry }

func (l gozkLogger) Printf(format string, args ...any) {
	l.log.Debugf("go-zookeeper: "+format, args...)
}

// SessionID is the id of the current session (0 while there is none).
func (c *Client) SessionID() int64 { return c.conn.SessionID() }

// Chroot is the namespace prefix this client works under ("" for none).
func (c *Client) Chroot() string { return c.chroot }

// Close ends the session and stops the event goroutine. Ephemeral nodes of the
// session disappear. Close must not be called from a listener callback.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.conn != nil {
			c.conn.Close()
			// go-zookeeper closes its event channel when its last goroutine ends;
			// waiting for that keeps Close free of leaked goroutines.
			timeout := time.NewTimer(5 * time.Second)
			defer timeout.Stop()
		drain:
			for {
				select {
				case _, ok := <-c.zkEvts:
					if !ok {
						break drain
					}
				case <-timeout.C:
					c.log.Warn("go-zookeeper did not stop within 5s")
					break drain
				}
			}
		}
		c.eventThread.shutdown()
		c.log.Debug("Closed zookeeper client")
	})
}

func (c *Client) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// fullPath maps a client path to the server's namespace.
func (c *Client) fullPath(path string) string {
	if c.chroot == "" {
		return path
	}
	if path == "/" {
		return c.chroot
	}
	return c.chroot + path
}

// clientPath maps a server path back into the chroot; ok is false for paths
// outside it.
func (c *Client) clientPath(server string) (string, bool) {
	if c.chroot == "" {
		return server, true
	}
	if server == c.chroot {
		return "/", true
	}
	if strings.HasPrefix(server, c.chroot+"/") {
		return server[len(c.chroot):], true
	}
	return "", false
}

// waitUntilConnected waits for a live session; timeout < 0 waits until Close.
func (c *Client) waitUntilConnected(timeout time.Duration) bool {
	var deadline <-chan time.Time
	if timeout >= 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		c.stateMu.Lock()
		ok, ch := c.hasSession, c.stateChanged
		c.stateMu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		case <-c.closed:
			return false
		}
	}
}

// RetryUntilConnected runs op, and while it fails because the connection was
// lost (or the session expired) waits for a session and runs it again.
//
// Kafka 0.10.2: ZkClient.retryUntilConnected (with no operation retry timeout,
// Kafka's setting). It returns ErrClosed once the client is closed.
func (c *Client) RetryUntilConnected(op func() error) error {
	for {
		if c.isClosed() {
			return ErrClosed
		}
		err := op()
		if err == nil || !isConnectionLoss(err) {
			return err
		}
		if c.isClosed() {
			return ErrClosed
		}
		c.log.Debugf("retrying after connection loss: %v", err)
		// A request can fail before go-zookeeper has published the state change;
		// a short pause keeps this from spinning.
		select {
		case <-time.After(10 * time.Millisecond):
		case <-c.closed:
			return ErrClosed
		}
		if !c.waitUntilConnected(-1) {
			return ErrClosed
		}
	}
}

// opErr wraps a translated error with the operation and path.
func opErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrClosed) {
		return err
	}
	return fmt.Errorf("zkclient: %s %s: %w", op, path, translate(err))
}

func toStat(s *gozk.Stat) *Stat {
	if s == nil {
		return &Stat{}
	}
	return &Stat{
		Czxid: s.Czxid, Mzxid: s.Mzxid, Ctime: s.Ctime, Mtime: s.Mtime,
		Version: s.Version, Cversion: s.Cversion, Aversion: s.Aversion,
		EphemeralOwner: s.EphemeralOwner, DataLength: s.DataLength,
		NumChildren: s.NumChildren, Pzxid: s.Pzxid,
	}
}

// WaitUntilConnected waits up to timeout (forever if negative) for a live
// session and reports whether there is one.
func (c *Client) WaitUntilConnected(timeout time.Duration) bool { return c.waitUntilConnected(timeout) }

// Server is the address of the ZooKeeper server the session is connected
// through (for tests and log lines).
func (c *Client) Server() string { return c.conn.Server() }
