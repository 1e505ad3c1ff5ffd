package zktest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/zk/ensemble"
)

// SessionTimeout is the session timeout Conn asks for (Kafka's
// ZooKeeperTestHarness uses 6000 ms).
const SessionTimeout = 6 * time.Second

// connectTimeout bounds the wait for a session in Conn.
const connectTimeout = 20 * time.Second

var (
	startOnce   sync.Once
	startErr    error
	lazyServers int

	mu       sync.Mutex
	shared   *ensemble.Ensemble
	connect  string
	chrootNo atomic.Int64
)

// Main starts one ensemble of the given size (1 or 3) for the package, or
// uses $ZK_CONNECT, runs the tests, closes the ensemble and then checks for
// leaked goroutines. It returns the exit code for os.Exit.
//
// Kafka 0.10.2: kafka.zk.ZooKeeperTestHarness.setUp/tearDown, per package.
//
// When the test binary is fuzzing (-test.fuzz, and in its fuzz workers) the ensemble is
// started only if a test asks for it (Chroot, ConnectString, Ensemble): a fuzz target rarely
// needs ZooKeeper, and every fuzz worker process runs Main.
func Main(m *testing.M, servers int, opts ...goleak.Option) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	if env := strings.TrimSpace(os.Getenv("ZK_CONNECT")); env != "" {
		mu.Lock()
		connect = env
		mu.Unlock()
	} else {
		mu.Lock()
		lazyServers = servers
		mu.Unlock()
		if !fuzzing() {
			if err := ensure(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	}
	code := m.Run()
	mu.Lock()
	e := shared
	shared = nil
	mu.Unlock()
	if e != nil {
		if err := e.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "zktest: %v\n", err)
		}
	}
	if code == 0 {
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "zktest: goroutine leak after tests: %v\n", err)
			return 1
		}
	}
	return code
}

// fuzzing reports whether the test binary runs a fuzz target (or is a fuzz worker).
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// ensure starts the ensemble Main was asked for, once.
func ensure() error {
	startOnce.Do(func() {
		mu.Lock()
		n, have := lazyServers, connect != ""
		mu.Unlock()
		if have || n == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		e, err := ensemble.Start(ctx, ensemble.Config{Servers: n})
		cancel()
		if err != nil {
			startErr = fmt.Errorf("zktest: cannot start a %d-server ZooKeeper ensemble: %w", n, err)
			return
		}
		mu.Lock()
		shared, connect = e, e.ConnectString()
		mu.Unlock()
	})
	return startErr
}

// Ensemble is the package's shared ensemble, or nil when ZK_CONNECT is used
// (or outside Main).
func Ensemble() *ensemble.Ensemble {
	_ = ensure()
	mu.Lock()
	defer mu.Unlock()
	return shared
}

// ConnectString is the shared ZooKeeper's connect string, without chroot.
// It panics outside Main, which is a wiring mistake in the test package.
func ConnectString() string {
	if err := ensure(); err != nil {
		panic(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if connect == "" {
		panic("zktest: ConnectString used without zktest.Main in TestMain")
	}
	return connect
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Chroot returns ConnectString plus a fresh chroot "/t-<test name>-<n>".
// The chroot znode is not created (the client under test does that, as
// Kafka's broker does in KafkaServer.initZk); a cleanup deletes it and
// everything below it.
func Chroot(t testing.TB) string {
	t.Helper()
	base := ConnectString()
	name := unsafeChars.ReplaceAllString(t.Name(), "_")
	if len(name) > 80 {
		name = name[:80]
	}
	path := fmt.Sprintf("/t-%s-%d", name, chrootNo.Add(1))
	t.Cleanup(func() {
		c, err := dial(base)
		if err != nil {
			t.Errorf("zktest: chroot cleanup %s: %v", path, err)
			return
		}
		defer c.Close()
		if err := DeleteRecursive(c, path); err != nil {
			t.Errorf("zktest: chroot cleanup %s: %v", path, err)
		}
	})
	return base + path
}

// SplitConnect splits "h1:p1,h2:p2/chroot" into the server list and the
// chroot ("" when none). go-zookeeper has no chroot support, so callers
// holding a raw *gozk.Conn must prefix paths with the chroot themselves.
func SplitConnect(connect string) (servers []string, chroot string) {
	hosts := connect
	if i := strings.IndexByte(connect, '/'); i >= 0 {
		hosts, chroot = connect[:i], strings.TrimRight(connect[i:], "/")
	}
	for _, s := range strings.Split(hosts, ",") {
		if s = strings.TrimSpace(s); s != "" {
			servers = append(servers, s)
		}
	}
	return servers, chroot
}

// Conn connects go-zookeeper to the servers in connect, waits for a
// session, and closes the connection when the test ends. go-zookeeper has
// no chroot: the chroot part of connect is ignored and paths are absolute
// (see SplitConnect).
func Conn(t testing.TB, connect string) *gozk.Conn {
	t.Helper()
	c, err := dial(connect)
	if err != nil {
		t.Fatalf("zktest: connect %s: %v", connect, err)
	}
	t.Cleanup(c.Close)
	return c
}

func dial(connect string) (*gozk.Conn, error) {
	servers, _ := SplitConnect(connect)
	c, events, err := gozk.Connect(servers, SessionTimeout, gozk.WithLogger(logger()))
	if err != nil {
		return nil, err
	}
	timer := time.NewTimer(connectTimeout)
	defer timer.Stop()
	for {
		select {
		case ev := <-events:
			if ev.State == gozk.StateHasSession {
				return c, nil
			}
		case <-timer.C:
			c.Close()
			return nil, fmt.Errorf("no session within %v", connectTimeout)
		}
	}
}

// DeleteRecursive deletes path and everything below it; a missing path is
// not an error.
func DeleteRecursive(c *gozk.Conn, path string) error {
	children, _, err := c.Children(path)
	if err == gozk.ErrNoNode {
		return nil
	}
	if err != nil {
		return fmt.Errorf("children %s: %w", path, err)
	}
	for _, ch := range children {
		if err := DeleteRecursive(c, strings.TrimSuffix(path, "/")+"/"+ch); err != nil {
			return err
		}
	}
	if err := c.Delete(path, -1); err != nil && err != gozk.ErrNoNode {
		return fmt.Errorf("delete %s: %w", path, err)
	}
	return nil
}

// logger is go-zookeeper's logger: silent unless ZKTEST_VERBOSE is set, so
// that its background goroutines never log through a finished test.
func logger() gozk.Logger {
	l := logrus.New()
	if os.Getenv("ZKTEST_VERBOSE") == "" {
		l.SetOutput(io.Discard)
	}
	return l.WithField("logger", "gozk")
}
