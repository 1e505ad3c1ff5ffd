package ensemble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// Defaults used when the matching Config field is zero.
const (
	DefaultTickTime          = 500 * time.Millisecond // as Kafka's EmbeddedZookeeper
	DefaultInitLimit         = 10
	DefaultSyncLimit         = 5
	DefaultMaxSessionTimeout = 60 * time.Second
	DefaultStartTimeout      = 60 * time.Second
	DefaultJavaOpts          = "-Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -XX:MaxMetaspaceSize=64m -XX:-UsePerfData"
	defaultStopTimeout       = 15 * time.Second
	maxPortAttempts          = 3
)

// Config describes the ensemble to run. The zero value (apart from Servers)
// is usable: a temp dir, free ports and test-friendly timings.
type Config struct {
	// Servers is 1 (standalone) or 3 (a quorum).
	Servers int
	// BaseDir holds every node's zoo.cfg, data and log. Empty means a new
	// temp dir, removed by Close unless KeepDir.
	BaseDir string
	// KeepDir keeps BaseDir on Close. A BaseDir given by the caller is never
	// removed.
	KeepDir bool
	// ClientPorts fixes the client port of each node (len must equal
	// Servers), e.g. 2181 for `make run`. Empty means free ports.
	ClientPorts []int
	// TickTime is ZooKeeper's tick; minimum and maximum session timeouts
	// are 2 and 20 ticks unless MaxSessionTimeout says otherwise.
	TickTime time.Duration
	// InitLimit and SyncLimit are in ticks.
	InitLimit, SyncLimit int
	// MaxSessionTimeout caps what clients may negotiate.
	MaxSessionTimeout time.Duration
	// StartTimeout bounds the wait for the ensemble to serve.
	StartTimeout time.Duration
	// JavaOpts are the JVM options (space separated); empty means
	// DefaultJavaOpts.
	JavaOpts string
	// Java is the java binary; empty means $JAVA_HOME/bin/java, else java
	// on PATH.
	Java string
	// Classpath overrides ZOOKEEPER_CLASSPATH, ZOOKEEPER_HOME and the Debian
	// default.
	Classpath string
	// ExtraConfig lines are appended to every zoo.cfg (later keys win in
	// java.util.Properties), e.g. the rest of a zookeeper.properties.
	ExtraConfig map[string]string
	// Logger receives the harness's own log lines; nil means discard.
	Logger *logrus.Entry
	// Stdout is where RunForeground prints the connect string; nil means
	// os.Stdout.
	Stdout io.Writer
	// Hosts gives node i its own IP address (len must equal Servers): the
	// client, quorum and election ports bind there and zoo.cfg's server.N
	// lines name it. Empty means 127.0.0.1 for every node. The partition
	// tests give each node an address in a network namespace of its own.
	Hosts []string
	// Wrapper, when set, returns a command prefix for node i's JVM, e.g.
	// `ip netns exec <ns>` to run it inside a network namespace. The prefix
	// must exec the JVM (keep its pid), so that Pause and Kill reach it.
	Wrapper func(i int) []string
}

// Ensemble is a running set of ZooKeeper server processes.
//
// Kafka 0.10.2: kafka.zk.EmbeddedZookeeper (test support). Kafka embeds a
// ZooKeeperServer in its test JVM; here each server is a child JVM, which
// also lets tests kill, pause and restart servers for real.
type Ensemble struct {
	cfg       Config
	java      string
	classpath string
	javaOpts  []string
	ownDir    bool // BaseDir was created by Start
	log       *logrus.Entry

	mu     sync.Mutex
	nodes  []*node
	closed bool
}

// Start launches the ensemble and waits until it serves: standalone for one
// server, one leader and two followers for three. It fails fast with a
// clear error when java or the ZooKeeper jars are missing, and with the tail
// of a node's log when a node exits or does not become ready in time.
func Start(ctx context.Context, cfg Config) (*Ensemble, error) {
	if cfg.Servers != 1 && cfg.Servers != 3 {
		return nil, fmt.Errorf("ensemble: Servers must be 1 or 3, got %d", cfg.Servers)
	}
	if len(cfg.ClientPorts) != 0 && len(cfg.ClientPorts) != cfg.Servers {
		return nil, fmt.Errorf("ensemble: %d ClientPorts for %d servers", len(cfg.ClientPorts), cfg.Servers)
	}
	if len(cfg.Hosts) != 0 && len(cfg.Hosts) != cfg.Servers {
		return nil, fmt.Errorf("ensemble: %d Hosts for %d servers", len(cfg.Hosts), cfg.Servers)
	}
	applyDefaults(&cfg)
	java, err := findJava(cfg.Java)
	if err != nil {
		return nil, err
	}
	classpath, err := resolveClasspath(cfg.Classpath)
	if err != nil {
		return nil, err
	}
	e := &Ensemble{cfg: cfg, java: java, classpath: classpath, javaOpts: strings.Fields(cfg.JavaOpts), log: cfg.Logger}
	if e.cfg.BaseDir == "" {
		dir, err := os.MkdirTemp("", "zkensemble-")
		if err != nil {
			return nil, fmt.Errorf("ensemble: temp dir: %w", err)
		}
		e.cfg.BaseDir, e.ownDir = dir, true
	} else if err := os.MkdirAll(e.cfg.BaseDir, 0o755); err != nil {
		return nil, fmt.Errorf("ensemble: base dir: %w", err)
	}

	begin := time.Now()
	attempts := 1
	if len(cfg.ClientPorts) == 0 {
		// Free ports are picked by binding and releasing them, so another
		// process may grab one before ZooKeeper binds it: retry on that.
		attempts = maxPortAttempts
	}
	for attempt := 1; ; attempt++ {
		err = e.startAll(ctx)
		if err == nil {
			break
		}
		e.killAll()
		if attempt >= attempts || !errors.Is(err, errAddressInUse) {
			e.removeDir()
			return nil, err
		}
		e.log.WithError(err).Warn("ensemble: port taken, retrying with new ports")
	}
	e.log.WithField("connect", e.ConnectString()).WithField("elapsed", time.Since(begin)).Info("ensemble: serving")
	return e, nil
}

func applyDefaults(cfg *Config) {
	if cfg.TickTime <= 0 {
		cfg.TickTime = DefaultTickTime
	}
	if cfg.InitLimit <= 0 {
		cfg.InitLimit = DefaultInitLimit
	}
	if cfg.SyncLimit <= 0 {
		cfg.SyncLimit = DefaultSyncLimit
	}
	if cfg.MaxSessionTimeout <= 0 {
		cfg.MaxSessionTimeout = DefaultMaxSessionTimeout
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if strings.TrimSpace(cfg.JavaOpts) == "" {
		cfg.JavaOpts = DefaultJavaOpts
	}
	if cfg.Logger == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		cfg.Logger = logrus.NewEntry(l)
	}
}

// startAll picks ports, writes every node's files, starts every JVM and
// waits for the ensemble to serve.
func (e *Ensemble) startAll(ctx context.Context) error {
	n := e.cfg.Servers
	free := 3 * n
	if len(e.cfg.ClientPorts) != 0 {
		free = 2 * n
	}
	ports, err := freePorts(free)
	if err != nil {
		return err
	}
	nodes := make([]*node, n)
	for i := range nodes {
		nd := &node{e: e, id: i + 1, dir: fmt.Sprintf("%s/node%d", e.cfg.BaseDir, i+1)}
		if len(e.cfg.Hosts) != 0 {
			nd.host = e.cfg.Hosts[i]
		}
		if len(e.cfg.ClientPorts) != 0 {
			nd.clientPort = e.cfg.ClientPorts[i]
			nd.quorumPort, nd.electionPort = ports[2*i], ports[2*i+1]
		} else {
			nd.clientPort, nd.quorumPort, nd.electionPort = ports[3*i], ports[3*i+1], ports[3*i+2]
		}
		nodes[i] = nd
	}
	e.mu.Lock()
	e.nodes = nodes
	e.mu.Unlock()
	for _, nd := range nodes {
		if err := nd.writeFiles(nodes); err != nil {
			return err
		}
	}
	e.mu.Lock()
	for _, nd := range nodes {
		if err := nd.start(); err != nil {
			e.mu.Unlock()
			return err
		}
	}
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, e.cfg.StartTimeout)
	defer cancel()
	return e.waitQuorum(ctx, n)
}

// waitQuorum waits until every running node serves and, for a quorum, one
// of them leads. want is how many nodes must serve.
func (e *Ensemble) waitQuorum(ctx context.Context, want int) error {
	for {
		leaders, serving := 0, 0
		var lastErr error
		for i := 0; i < e.Size(); i++ {
			if err := e.exitError(i); err != nil {
				return err
			}
			mode, err := e.Mode(i)
			if err != nil {
				lastErr = err
				continue
			}
			serving++
			if mode == ModeLeader || mode == ModeStandalone {
				leaders++
			}
		}
		if serving >= want && leaders == 1 {
			return nil
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return e.notReady(lastErr, err)
		}
	}
}

// notReady builds the readiness-timeout error, with each node's log tail.
func (e *Ensemble) notReady(lastErr, ctxErr error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ensemble: not serving after %v (%v; last srvr error: %v)", e.cfg.StartTimeout, ctxErr, lastErr)
	inUse := false
	for i := 0; i < e.Size(); i++ {
		tail := tailFile(e.LogPath(i), 2048)
		inUse = inUse || strings.Contains(tail, "Address already in use")
		fmt.Fprintf(&b, "\n--- tail of %s ---\n%s", e.LogPath(i), tail)
	}
	if inUse {
		return fmt.Errorf("%w: %s", errAddressInUse, b.String())
	}
	return errors.New(b.String())
}

// ConnectString is the comma-separated client address list, without chroot.
func (e *Ensemble) ConnectString() string {
	addrs := make([]string, e.Size())
	for i := range addrs {
		addrs[i] = e.Addr(i)
	}
	return strings.Join(addrs, ",")
}

// Addr is node i's client address, "127.0.0.1:port" (or its Config.Hosts
// address).
func (e *Ensemble) Addr(i int) string {
	nd := e.node(i)
	return net.JoinHostPort(nd.addr(), strconv.Itoa(nd.clientPort))
}

// Size is the number of servers.
func (e *Ensemble) Size() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.nodes)
}

// BaseDir is the directory holding every node's files.
func (e *Ensemble) BaseDir() string { return e.cfg.BaseDir }

// LogPath is the file receiving node i's stdout and stderr.
func (e *Ensemble) LogPath(i int) string { return e.node(i).logPath() }

// PID is node i's process id, or 0 when it is not running.
func (e *Ensemble) PID(i int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.nodes[i].pid()
}

func (e *Ensemble) node(i int) *node {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.nodes[i]
}

// exitError reports a node that was started and exited on its own.
func (e *Ensemble) exitError(i int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.nodes[i].unexpectedExit()
}

// Leader returns the index of the node in Mode leader (or standalone).
func (e *Ensemble) Leader() (int, error) {
	for i := 0; i < e.Size(); i++ {
		if e.PID(i) == 0 {
			continue
		}
		mode, err := e.Mode(i)
		if err == nil && (mode == ModeLeader || mode == ModeStandalone) {
			return i, nil
		}
	}
	return -1, errors.New("ensemble: no leader")
}

// WaitForLeader polls until some running node leads and at least a
// majority of the ensemble serves, and returns the leader's index.
func (e *Ensemble) WaitForLeader(ctx context.Context) (int, error) {
	for {
		serving := 0
		for i := 0; i < e.Size(); i++ {
			if _, err := e.Mode(i); err == nil {
				serving++
			}
		}
		if serving > e.Size()/2 {
			if i, err := e.Leader(); err == nil {
				return i, nil
			}
		}
		if err := sleepCtx(ctx, 50*time.Millisecond); err != nil {
			return -1, fmt.Errorf("ensemble: waiting for a leader: %w", err)
		}
	}
}

// WaitServing polls until node i answers srvr with a Mode.
func (e *Ensemble) WaitServing(ctx context.Context, i int) (string, error) {
	for {
		if err := e.exitError(i); err != nil {
			return "", err
		}
		mode, err := e.Mode(i)
		if err == nil {
			return mode, nil
		}
		if cerr := sleepCtx(ctx, 50*time.Millisecond); cerr != nil {
			return "", fmt.Errorf("ensemble: node %d not serving (%v): %w\n--- tail of %s ---\n%s",
				i, err, cerr, e.LogPath(i), tailFile(e.LogPath(i), 2048))
		}
	}
}

// Close kills every node, waits for the processes and removes the temp dir
// unless KeepDir. It is safe to call twice.
func (e *Ensemble) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.killAll()
	e.log.Info("ensemble: closed")
	return e.removeDir()
}

func (e *Ensemble) killAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, nd := range e.nodes {
		nd.kill()
	}
}

func (e *Ensemble) removeDir() error {
	if !e.ownDir || e.cfg.KeepDir {
		return nil
	}
	if err := os.RemoveAll(e.cfg.BaseDir); err != nil {
		return fmt.Errorf("ensemble: remove %s: %w", e.cfg.BaseDir, err)
	}
	return nil
}

// freePorts binds n listeners on 127.0.0.1:0 at once (so the ports are
// distinct), then releases them for ZooKeeper.
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("ensemble: free port: %w", err)
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// tailFile returns at most the last max bytes of a file.
func tailFile(path string, max int64) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	off := st.Size() - max
	if off < 0 {
		off = 0
	}
	b := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(b, off)
	return string(b[:n])
}
