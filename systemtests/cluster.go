package systemtests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/ensemble"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ClusterConfig describes a ZooKeeper ensemble and the brokers around it.
type ClusterConfig struct {
	// Bin is the zkafka binary (BuildZkafka).
	Bin string
	// Dir holds every broker's directory (broker-<id>/) and, for an owned ensemble, ZooKeeper's.
	Dir string
	// Brokers is the number of brokers; ids are 0..Brokers-1 unless FirstID says otherwise.
	Brokers int
	// FirstID is the first broker id.
	FirstID int32
	// Ensemble is a running ZooKeeper to share; the cluster then lives under Chroot. Nil starts
	// an ensemble of ZooKeepers servers owned (and closed) by the cluster.
	Ensemble *ensemble.Ensemble
	// ZooKeepers is the size of an owned ensemble: 1 or 3 (0 means 1).
	ZooKeepers int
	// Chroot is the cluster's ZooKeeper chroot ("/name"); required with a shared Ensemble,
	// optional otherwise. The broker creates it (KafkaServer.initZk).
	Chroot string
	// LogDirs is the number of log.dirs per broker (0 means 1).
	LogDirs int
	// Properties are server.properties keys for every broker (over the harness defaults).
	Properties map[string]string
	// BrokerProperties, when set, adds per-broker keys.
	BrokerProperties func(id int32) map[string]string
	// Wrapper, when set, returns a command prefix for a broker (e.g. strace writing into dir).
	Wrapper func(id int32, dir string) []string
	// BrokerHost, when set, returns a broker's listener address (else 127.0.0.1).
	BrokerHost func(id int32) string
	// Env is added to every broker's environment.
	Env []string
}

// Cluster is a ZooKeeper ensemble plus broker processes.
//
// Kafka 0.10.2: kafkatest's ZookeeperService + KafkaService pair, and
// kafka.integration.KafkaServerTestHarness for the real-process case.
type Cluster struct {
	Bin     string
	ZK      *ensemble.Ensemble
	Chroot  string
	Brokers []*BrokerProcess

	ownZK bool
	mu    sync.Mutex
	zk    *zkutils.ZkUtils
}

// NewCluster starts the ensemble when it owns one and writes each broker's config; the brokers
// are not started (StartAll).
func NewCluster(ctx context.Context, cfg ClusterConfig) (*Cluster, error) {
	c := &Cluster{Bin: cfg.Bin, ZK: cfg.Ensemble, Chroot: strings.TrimRight(cfg.Chroot, "/")}
	if c.ZK == nil {
		n := cfg.ZooKeepers
		if n == 0 {
			n = 1
		}
		e, err := ensemble.Start(ctx, ensemble.Config{Servers: n, BaseDir: filepath.Join(cfg.Dir, "zookeeper"), KeepDir: true})
		if err != nil {
			return nil, err
		}
		c.ZK, c.ownZK = e, true
	} else if c.Chroot == "" {
		return nil, errors.New("a shared ensemble needs a chroot")
	}
	for i := 0; i < cfg.Brokers; i++ {
		id := cfg.FirstID + int32(i)
		dir := filepath.Join(cfg.Dir, fmt.Sprintf("broker-%d", id))
		props := map[string]string{}
		for k, v := range cfg.Properties {
			props[k] = v
		}
		if cfg.BrokerProperties != nil {
			for k, v := range cfg.BrokerProperties(id) {
				props[k] = v
			}
		}
		bc := BrokerConfig{ID: id, Dir: dir, LogDirs: cfg.LogDirs, ZkConnect: c.ZkConnect(), Properties: props, Env: cfg.Env}
		if cfg.BrokerHost != nil {
			bc.Host = cfg.BrokerHost(id)
		}
		if cfg.Wrapper != nil {
			bc.Wrapper = cfg.Wrapper(id, dir)
		}
		b, err := NewBrokerProcess(cfg.Bin, bc)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Brokers = append(c.Brokers, b)
	}
	return c, nil
}

// ZkConnect is zookeeper.connect for the brokers: the ensemble's addresses plus the chroot.
func (c *Cluster) ZkConnect() string { return c.ZK.ConnectString() + c.Chroot }

// Path is p as the cluster's ZkUtils sees it: Zk() already works under the chroot, so this is
// p itself; it marks the places where a raw, chroot-less path would differ.
func (c *Cluster) Path(p string) string { return p }

// Broker returns the broker with id, or nil.
func (c *Cluster) Broker(id int32) *BrokerProcess {
	for _, b := range c.Brokers {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// BootstrapServers lists every broker's address.
func (c *Cluster) BootstrapServers() []string {
	out := make([]string, 0, len(c.Brokers))
	for _, b := range c.Brokers {
		out = append(out, b.Addr())
	}
	return out
}

func quietEntry() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

// Zk returns the cluster's own ZkUtils, rooted at the cluster's chroot (created on first use, as
// KafkaServer.initZk creates it).
func (c *Cluster) Zk() (*zkutils.ZkUtils, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.zk != nil {
		return c.zk, nil
	}
	if c.Chroot != "" {
		root, err := zkutils.Connect(c.ZK.ConnectString(), 10*time.Second, 30*time.Second, false, quietEntry(), common.SystemTime{})
		if err != nil {
			return nil, err
		}
		err = root.MakeSurePersistentPathExists(c.Chroot)
		root.Close()
		if err != nil {
			return nil, fmt.Errorf("create chroot %s: %w", c.Chroot, err)
		}
	}
	z, err := zkutils.Connect(c.ZkConnect(), 10*time.Second, 30*time.Second, false, quietEntry(), common.SystemTime{})
	if err != nil {
		return nil, err
	}
	c.zk = z
	return z, nil
}

// StartAll starts every broker and waits until each has registered in /brokers/ids.
func (c *Cluster) StartAll(ctx context.Context) error {
	for _, b := range c.Brokers {
		if err := b.Start(); err != nil {
			return err
		}
	}
	for _, b := range c.Brokers {
		if _, err := c.WaitRegistered(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// WaitRegistered polls /brokers/ids/<id> until it exists and returns its bytes. It fails early
// when the process exits.
func (c *Cluster) WaitRegistered(ctx context.Context, b *BrokerProcess) ([]byte, error) {
	path := c.Path(zkutils.BrokerIdPath(b.ID))
	exited := b.Exited()
	for {
		z, err := c.Zk()
		if err == nil {
			data, _, err := z.ReadData(path)
			if err == nil {
				return data, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("broker %d did not register %s: %w; log tail:\n%s", b.ID, path, ctx.Err(), b.Logs().Tail(30))
		case <-exited:
			return nil, fmt.Errorf("broker %d exited (code %d) before registering; log tail:\n%s", b.ID, b.ExitCode(), b.Logs().Tail(30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitUnregistered polls until /brokers/ids/<id> is gone (the broker's session ended).
func (c *Cluster) WaitUnregistered(ctx context.Context, id int32) error {
	path := c.Path(zkutils.BrokerIdPath(id))
	for {
		z, err := c.Zk()
		if err == nil {
			ok, err := z.PathExists(path)
			if err == nil && !ok {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s still registered: %w", path, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Close kills every broker (SIGKILL: cleanup must not hang on a broken shutdown), closes the
// ZooKeeper connection and, when owned, the ensemble. Safe to call twice.
func (c *Cluster) Close() {
	for _, b := range c.Brokers {
		_ = b.Kill()
	}
	c.mu.Lock()
	if c.zk != nil {
		c.zk.Close()
		c.zk = nil
	}
	c.mu.Unlock()
	if c.ownZK && c.ZK != nil {
		_ = c.ZK.Close()
	}
}
