package systemtests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/zk/ensemble"
)

// The test binary's shared state: one zkafka build and one ZooKeeper for every test (each
// cluster gets its own chroot), as zktest shares one ensemble per package.
var suite struct {
	bin, skip string
	dir       string

	zkOnce sync.Once
	zk     *ensemble.Ensemble
	zkErr  error

	mu     sync.Mutex
	chroot int
}

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "zkafka-systemtests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	suite.dir = dir
	defer func() {
		if suite.zk != nil {
			_ = suite.zk.Close()
		}
		if os.Getenv("SYSTEMTESTS_KEEP") == "" {
			_ = os.RemoveAll(dir)
		} else {
			fmt.Fprintln(os.Stderr, "systemtests: kept", dir)
		}
	}()
	root, err := ModuleRoot()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		suite.bin, err = BuildZkafka(ctx, root, dir)
		cancel()
	}
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "systemtests:", err)
		return 1
	default:
		if ok, why := ServerStartAvailable(suite.bin); !ok {
			suite.skip = "zkafka server-start is not available yet: " + why
		}
	}
	code := m.Run()
	closeZK3()
	if suite.zk != nil {
		_ = suite.zk.Close()
		suite.zk = nil
	}
	if code == 0 {
		if err := goleak.Find(
			goleak.IgnoreAnyFunction("github.com/rcrowley/go-metrics.(*meterArbiter).tick"),
			goleak.IgnoreAnyFunction("github.com/eapache/go-resiliency/breaker.(*Breaker).timer"), // sarama: a 10 s timer after an open circuit
		); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// long reports whether the long scenarios run (ZKAFKA_LONG=1).
func long() bool { return os.Getenv("ZKAFKA_LONG") == "1" }

// sharedZK starts (once) the shared one-node ZooKeeper, skipping the test when java or the
// ZooKeeper jars are missing.
func sharedZK(t *testing.T) *ensemble.Ensemble {
	t.Helper()
	suite.zkOnce.Do(func() {
		if _, err := exec.LookPath("java"); err != nil {
			suite.zkErr = fmt.Errorf("java not found: %w", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		suite.zk, suite.zkErr = ensemble.Start(ctx, ensemble.Config{Servers: 1, BaseDir: filepath.Join(suite.dir, "zookeeper"), KeepDir: true})
	})
	if suite.zkErr != nil {
		t.Skipf("no ZooKeeper: %v", suite.zkErr)
	}
	return suite.zk
}

// newCluster starts the brokers of cfg on the shared ZooKeeper under a fresh chroot; every
// process is killed in t.Cleanup, also when the test fails.
func newCluster(t *testing.T, cfg ClusterConfig) *Cluster {
	t.Helper()
	c := newStoppedCluster(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.StartAll(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// newStoppedCluster is newCluster without starting the brokers.
func newStoppedCluster(t *testing.T, cfg ClusterConfig) *Cluster {
	t.Helper()
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
	if cfg.Ensemble == nil && cfg.ZooKeepers == 0 {
		cfg.Ensemble = sharedZK(t)
	}
	suite.mu.Lock()
	suite.chroot++
	n := suite.chroot
	suite.mu.Unlock()
	name := regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")
	if cfg.Chroot == "" {
		cfg.Chroot = fmt.Sprintf("/st-%s-%d", strings.ToLower(name), n)
	}
	cfg.Bin = suite.bin
	cfg.Dir = filepath.Join(suite.dir, fmt.Sprintf("%s-%d", name, n))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := NewCluster(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, b := range c.Brokers {
				t.Logf("broker %d log (%s) tail:\n%s", b.ID, b.Logs().Path(), b.Logs().Tail(40))
			}
		}
		c.Close()
	})
	return c
}

// within returns a context for one step of a test.
func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
