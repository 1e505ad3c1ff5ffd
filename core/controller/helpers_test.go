package controller

import (
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 3)) }

const (
	testSessionTimeout = 6 * time.Second
	waitTimeout        = 30 * time.Second
)

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	defer func() { _ = recover() }() // t.Log after the test ended panics
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// logCapture records every line of a logger, for assertions on
// state.change.logger output.
type logCapture struct {
	mu    sync.Mutex
	lines []string
}

func (c *logCapture) Levels() []logrus.Level { return logrus.AllLevels }

func (c *logCapture) Fire(e *logrus.Entry) error {
	line := e.Message
	if err, ok := e.Data[logrus.ErrorKey]; ok {
		line += fmt.Sprintf(" error=%v", err)
	}
	c.mu.Lock()
	c.lines = append(c.lines, line)
	c.mu.Unlock()
	return nil
}

func (c *logCapture) find(substr string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.lines {
		if strings.Contains(l, substr) {
			return l, true
		}
	}
	return "", false
}

func (c *logCapture) count(substr string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.lines {
		if strings.Contains(l, substr) {
			n++
		}
	}
	return n
}

func newLogger(t testing.TB, level logrus.Level) *logrus.Logger {
	l := logrus.New()
	l.SetOutput(testWriter{t})
	l.SetLevel(level)
	if os.Getenv("ZKTEST_VERBOSE") != "" {
		l.SetLevel(logrus.TraceLevel)
	}
	return l
}

// stateChangeLogger is a trace-level logger whose lines are captured and not
// printed (a failover writes thousands).
func stateChangeLogger(t testing.TB) (*logrus.Logger, *logCapture) {
	l := logrus.New()
	l.SetOutput(discard{})
	if os.Getenv("ZKTEST_VERBOSE") != "" {
		l.SetOutput(testWriter{t})
	}
	l.SetLevel(logrus.TraceLevel)
	c := &logCapture{}
	l.AddHook(c)
	return l, c
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func newZk(t testing.TB, connect string, opts ...zkclient.Option) *zkutils.ZkUtils {
	t.Helper()
	z, err := zkutils.Connect(connect, testSessionTimeout, 20*time.Second, false,
		logrus.NewEntry(newLogger(t, logrus.WarnLevel)), common.SystemTime{}, opts...)
	if err != nil {
		t.Fatalf("connect %s: %v", connect, err)
	}
	t.Cleanup(z.Close)
	return z
}

func testConfig(t testing.TB, id int32, overrides map[string]string) *config.KafkaConfig {
	t.Helper()
	props := map[string]string{
		"broker.id":                    fmt.Sprint(id),
		"zookeeper.connect":            "127.0.0.1:2181",
		"listeners":                    "PLAINTEXT://127.0.0.1:9092",
		"auto.leader.rebalance.enable": "false",
		"controller.socket.timeout.ms": "5000",
	}
	for k, v := range overrides {
		props[k] = v
	}
	cfg, err := config.FromProps(props)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// testController is a controller on its own ZooKeeper session.
type testController struct {
	*KafkaController
	zk          *zkutils.ZkUtils
	stateChange *logCapture
	capture     interface{ Session() (int64, []byte) }
}

func startController(t testing.TB, connect string, id int32, overrides map[string]string, opts ...zkclient.Option) *testController {
	t.Helper()
	zk := newZk(t, connect, opts...)
	scl, capture := stateChangeLogger(t)
	log := logrus.NewEntry(newLogger(t, logrus.WarnLevel)).WithField("controller", id)
	c := NewKafkaController(testConfig(t, id, overrides), zk, nil, common.SystemTime{},
		utils.NewKafkaScheduler(1, log), log, logrus.NewEntry(scl))
	if err := c.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return &testController{KafkaController: c, zk: zk, stateChange: capture}
}

// recorded is one request a fake broker received.
type recorded struct {
	key ApiKey
	msg protocol.Message
}

// ApiKey aliases protocol.ApiKeys for brevity in tests.
type ApiKey = protocol.ApiKeys

// fakeBroker is a TCP server that speaks just enough of the protocol to be a
// controller's peer: it decodes LeaderAndIsr, UpdateMetadata and StopReplica,
// records them, and answers with no error.
type fakeBroker struct {
	id int32
	ln net.Listener
	wg sync.WaitGroup

	mu       sync.Mutex
	requests []recorded
	conns    []net.Conn
	// stopReplicaError, when set, is the error code answered to
	// StopReplica(delete=true).
	stopReplicaError int16
	// dropNext closes that many connections on their next request, without
	// answering.
	dropNext int
}

func newFakeBroker(t testing.TB, id int32) *fakeBroker {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &fakeBroker{id: id, ln: ln}
	b.wg.Add(1)
	go b.accept()
	t.Cleanup(b.close)
	return b
}

func (b *fakeBroker) port() int32 { return int32(b.ln.Addr().(*net.TCPAddr).Port) }

func (b *fakeBroker) info() zkutils.BrokerInfo {
	return zkutils.NewBrokerInfo(b.id, 4, []zkutils.RegisteredEndPoint{{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT,
		Host: "127.0.0.1", Port: b.port()}}, -1, "", time.Now().UnixMilli())
}

func (b *fakeBroker) close() {
	_ = b.ln.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *fakeBroker) accept() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns = append(b.conns, c)
		b.mu.Unlock()
		b.wg.Add(1)
		go b.serve(c)
	}
}

func (b *fakeBroker) serve(c net.Conn) {
	defer b.wg.Done()
	defer c.Close()
	for {
		rcv, err := network.ReadNetworkReceive(c, "", network.Unlimited)
		if err != nil {
			return
		}
		h, body, err := protocol.ReadRequestHeader(rcv.Payload())
		if err != nil {
			return
		}
		req, err := protocol.ParseRequest(h, body)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.requests = append(b.requests, recorded{key: h.ApiKey, msg: req})
		stopErr := b.stopReplicaError
		drop := b.dropNext > 0
		if drop {
			b.dropNext--
		}
		b.mu.Unlock()
		if drop {
			return
		}
		var resp protocol.Message
		switch r := req.(type) {
		case *protocol.LeaderAndIsrRequest:
			lr := &protocol.LeaderAndIsrResponse{Version: r.Version}
			for _, p := range r.PartitionStates {
				lr.Partitions = append(lr.Partitions, protocol.LeaderAndIsrResponsePartition{Topic: p.Topic, Partition: p.Partition})
			}
			resp = lr
		case *protocol.StopReplicaRequest:
			sr := &protocol.StopReplicaResponse{Version: r.Version}
			for _, p := range r.Partitions {
				code := int16(0)
				if r.DeletePartitions {
					code = stopErr
				}
				sr.Partitions = append(sr.Partitions, protocol.StopReplicaResponsePartition{Topic: p.Topic, Partition: p.Partition, ErrorCode: code})
			}
			resp = sr
		case *protocol.UpdateMetadataRequest:
			resp = &protocol.UpdateMetadataResponse{Version: r.Version}
		default:
			return
		}
		if _, err := protocol.WriteResponse(c, protocol.ResponseHeader{CorrelationID: h.CorrelationID}, resp); err != nil {
			return
		}
	}
}

func (b *fakeBroker) snapshot() []recorded {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requests)
}

func (b *fakeBroker) reset() {
	b.mu.Lock()
	b.requests = nil
	b.mu.Unlock()
}

// leaderAndIsrStates collects every partition state received in LeaderAndIsr
// requests, the latest per partition.
func (b *fakeBroker) leaderAndIsrStates() map[common.TopicPartition]protocol.LeaderAndIsrRequestPartitionState {
	out := map[common.TopicPartition]protocol.LeaderAndIsrRequestPartitionState{}
	for _, r := range b.snapshot() {
		if req, ok := r.msg.(*protocol.LeaderAndIsrRequest); ok {
			for _, p := range req.PartitionStates {
				out[common.TopicPartition{Topic: p.Topic, Partition: p.Partition}] = p
			}
		}
	}
	return out
}

// updateMetadataStates is the same for UpdateMetadata.
func (b *fakeBroker) updateMetadataStates() map[common.TopicPartition]protocol.UpdateMetadataRequestPartitionState {
	out := map[common.TopicPartition]protocol.UpdateMetadataRequestPartitionState{}
	for _, r := range b.snapshot() {
		if req, ok := r.msg.(*protocol.UpdateMetadataRequest); ok {
			for _, p := range req.PartitionStates {
				out[common.TopicPartition{Topic: p.Topic, Partition: p.Partition}] = p
			}
		}
	}
	return out
}

// stopReplicas lists the StopReplica partitions received with the given flag.
func (b *fakeBroker) stopReplicas(deletePartitions bool) []common.TopicPartition {
	var out []common.TopicPartition
	for _, r := range b.snapshot() {
		if req, ok := r.msg.(*protocol.StopReplicaRequest); ok && req.DeletePartitions == deletePartitions {
			for _, p := range req.Partitions {
				out = append(out, common.TopicPartition{Topic: p.Topic, Partition: p.Partition})
			}
		}
	}
	return out
}

// cluster is a chroot with fake brokers registered by an admin session.
type cluster struct {
	t       testing.TB
	connect string
	admin   *zkutils.ZkUtils
	brokers map[int32]*fakeBroker
}

func newCluster(t testing.TB, ids ...int32) *cluster {
	t.Helper()
	connect := zktest.Chroot(t)
	cl := &cluster{t: t, connect: connect, admin: newZk(t, connect), brokers: map[int32]*fakeBroker{}}
	if err := cl.admin.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		cl.brokers[id] = newFakeBroker(t, id)
		cl.register(id)
	}
	return cl
}

func (cl *cluster) register(id int32) {
	cl.t.Helper()
	if err := cl.admin.RegisterBrokerInZk(cl.brokers[id].info()); err != nil {
		cl.t.Fatal(err)
	}
}

func (cl *cluster) deregister(id int32) {
	cl.t.Helper()
	if _, err := cl.admin.DeletePath(zkutils.BrokerIdPath(id)); err != nil {
		cl.t.Fatal(err)
	}
}

// createTopic writes /brokers/topics/<topic> as the old AdminUtils does.
func (cl *cluster) createTopic(topic string, assignment map[int32][]int32) {
	cl.t.Helper()
	if err := cl.admin.CreatePersistentPath(zkutils.TopicPath(topic), zkutils.ReplicaAssignmentZkData(assignment)); err != nil {
		cl.t.Fatal(err)
	}
}

func (cl *cluster) state(topic string, p int32) (zkutils.LeaderIsrAndControllerEpoch, bool) {
	l, ok, err := cl.admin.GetLeaderIsrAndEpochForPartition(topic, p)
	if err != nil {
		return l, false
	}
	return l, ok
}

func (cl *cluster) rawState(topic string, p int32) string {
	data, _, ok, err := cl.admin.ReadDataMaybeNull(zkutils.TopicPartitionLeaderAndIsrPath(topic, p))
	if err != nil || !ok {
		return ""
	}
	return string(data)
}

func (cl *cluster) exists(path string) bool {
	ok, err := cl.admin.PathExists(path)
	return err == nil && ok
}

// waitActive waits until one of the controllers is active and returns it.
func waitActive(t testing.TB, cs ...*testController) *testController {
	t.Helper()
	var active *testController
	zktest.WaitUntilTrue(t, func() bool {
		n := 0
		for _, c := range cs {
			if c.IsActive() {
				n++
				active = c
			}
		}
		return n == 1
	}, "no single active controller", waitTimeout)
	return active
}

func rrAssignment(partitions int, brokers []int32, rf int) map[int32][]int32 {
	out := map[int32][]int32{}
	for p := 0; p < partitions; p++ {
		var rs []int32
		for i := 0; i < rf; i++ {
			rs = append(rs, brokers[(p+i)%len(brokers)])
		}
		out[int32(p)] = rs
	}
	return out
}
