package zkutils

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 3)) }

const (
	testSessionTimeout = 6 * time.Second
	waitTimeout        = 30 * time.Second
)

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	defer func() { _ = recover() }() // t.Log after the test ended panics
	w.t.Log(string(p))
	return len(p), nil
}

func testLogger(t testing.TB) *logrus.Entry {
	l := logrus.New()
	l.SetOutput(testWriter{t})
	l.SetLevel(logrus.WarnLevel)
	if os.Getenv("ZKTEST_VERBOSE") != "" {
		l.SetLevel(logrus.DebugLevel)
	}
	return logrus.NewEntry(l).WithField("test", t.Name())
}

func newTestZkUtils(t testing.TB, connect string, opts ...zkclient.Option) *ZkUtils {
	t.Helper()
	z, err := Connect(connect, testSessionTimeout, 20*time.Second, false, testLogger(t), common.SystemTime{}, opts...)
	if err != nil {
		t.Fatalf("connect %s: %v", connect, err)
	}
	t.Cleanup(z.Close)
	return z
}

// TestZnodeJSONThroughZooKeeper writes every example znode at its real path and
// reads back the identical bytes.
func TestZnodeJSONThroughZooKeeper(t *testing.T) {
	z := newTestZkUtils(t, zktest.Chroot(t))
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	for _, p := range PersistentZkPaths {
		data, _, err := z.ReadData(p)
		if err != nil || data != nil {
			t.Fatalf("%s: data %q err %v, want null", p, data, err)
		}
	}
	for _, ex := range znodeExamples() {
		if err := z.UpdatePersistentPath(ex.path, ex.encode()); err != nil {
			t.Fatalf("%s: write %s: %v", ex.name, ex.path, err)
		}
		data, _, err := z.ReadData(ex.path)
		if err != nil {
			t.Fatalf("%s: read: %v", ex.name, err)
		}
		if string(data) != ex.want {
			t.Errorf("%s: read back %q, want %q", ex.name, data, ex.want)
		}
	}
	// A few typed reads over what was just written.
	if id, err := z.GetController(); err != nil || id != 1 {
		t.Errorf("GetController = %d, %v", id, err)
	}
	if e, v, ok, err := z.ReadControllerEpoch(); err != nil || !ok || e != 5 || v != 0 {
		t.Errorf("ReadControllerEpoch = %d %d %v %v", e, v, ok, err)
	}
	if l, ok, err := z.GetLeaderAndIsrForPartition("foo", 0); err != nil || !ok || l.Leader != 1 || len(l.Isr) != 3 {
		t.Errorf("GetLeaderAndIsrForPartition = %+v %v %v", l, ok, err)
	}
	if got, err := z.GetSortedBrokerList(); err != nil || len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("GetSortedBrokerList = %v %v", got, err)
	}
	brokers, err := z.GetAllBrokersInCluster()
	if err != nil || len(brokers) != 3 || brokers[1].Rack != "rack1" {
		t.Errorf("GetAllBrokersInCluster = %+v %v", brokers, err)
	}
	a, err := z.GetReplicaAssignmentForTopics([]string{"foo", "missing"})
	if err != nil || len(a) != 3 || a[tp("foo", 2)][0] != 2 {
		t.Errorf("GetReplicaAssignmentForTopics = %v %v", a, err)
	}
	r, err := z.GetPartitionsBeingReassigned()
	if err != nil || len(r) != 2 || r[tp("bar", 0)][2] != 4 {
		t.Errorf("GetPartitionsBeingReassigned = %v %v", r, err)
	}
	pre, err := z.GetPartitionsUndergoingPreferredReplicaElection()
	if _, ok := pre[tp("foo", 1)]; err != nil || !ok {
		t.Errorf("GetPartitionsUndergoingPreferredReplicaElection = %v %v", pre, err)
	}
	if cfg, err := z.FetchEntityConfig(ConfigTypeTopic, "foo"); err != nil || cfg["cleanup.policy"] != "compact" {
		t.Errorf("FetchEntityConfig = %v %v", cfg, err)
	}
	if off, ok, err := z.ReadConsumerOffset("g1", tp("foo", 0)); err != nil || !ok || off != 42 {
		t.Errorf("ReadConsumerOffset = %d %v %v", off, ok, err)
	}
}

func TestZkUtilsWrites(t *testing.T) {
	z := newTestZkUtils(t, zktest.Chroot(t))
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	// Cluster id: the first proposal wins.
	if id, err := z.CreateOrGetClusterId("first"); err != nil || id != "first" {
		t.Fatalf("CreateOrGetClusterId = %q %v", id, err)
	}
	if id, err := z.CreateOrGetClusterId("second"); err != nil || id != "first" {
		t.Fatalf("CreateOrGetClusterId again = %q %v", id, err)
	}
	// Broker sequence ids count from 1 on top of the reserved range.
	for want := int32(1001); want <= 1002; want++ {
		if id, err := z.GetBrokerSequenceId(1000); err != nil || id != want {
			t.Fatalf("GetBrokerSequenceId = %d %v, want %d", id, err, want)
		}
	}
	// Conditional partition state updates.
	path := TopicPartitionLeaderAndIsrPath("t", 0)
	l0 := LeaderAndIsr{Leader: 1, Isr: []int32{1, 2}}
	if err := z.CreatePersistentPath(path, LeaderAndIsrZkData(l0, 1)); err != nil {
		t.Fatal(err)
	}
	l1 := LeaderAndIsr{Leader: 1, LeaderEpoch: 1, Isr: []int32{1}}
	ok, v := z.UpdateLeaderAndIsr("t", 0, l1, 1, 0)
	if !ok || v != 1 {
		t.Fatalf("update = %v %d", ok, v)
	}
	// The same write retried with the old version: the checker sees our data.
	if ok, v := z.UpdateLeaderAndIsr("t", 0, l1, 1, 0); !ok || v != 1 {
		t.Fatalf("retried update = %v %d, want true 1", ok, v)
	}
	// A different write with a stale version fails.
	if ok, v := z.UpdateLeaderAndIsr("t", 0, LeaderAndIsr{Leader: 2, LeaderEpoch: 2, Isr: []int32{2}}, 1, 0); ok || v != -1 {
		t.Fatalf("stale update = %v %d", ok, v)
	}
	got, _, err := z.GetLeaderIsrAndEpochForPartition("t", 0)
	if err != nil || got.LeaderAndIsr.LeaderEpoch != 1 || got.LeaderAndIsr.ZkVersion != 1 {
		t.Fatalf("state = %+v %v", got, err)
	}
	if ok, _ := z.UpdateLeaderAndIsr("t", 9, l1, 1, 0); ok {
		t.Fatal("update of a missing state node succeeded")
	}
	// Reassignment: rewrite, then delete when empty.
	if err := z.UpdatePartitionReassignmentData([]PartitionReplicas{{tp("t", 0), []int32{3}}}); err != nil {
		t.Fatal(err)
	}
	if r, _ := z.GetPartitionsBeingReassigned(); len(r) != 1 {
		t.Fatalf("reassignment = %v", r)
	}
	if err := z.UpdatePartitionReassignmentData(nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := z.PathExists(ReassignPartitionsPath); ok {
		t.Fatal("empty reassignment did not delete the node")
	}
	// Entity config change writes the config and a v2 notification.
	n, err := z.ChangeEntityConfig(ConfigTypeTopic, "t", map[string]string{"retention.ms": "1"})
	if err != nil || n != ConfigChangesPath+"/config_change_0000000000" {
		t.Fatalf("ChangeEntityConfig = %q %v", n, err)
	}
	if data, _, _ := z.ReadData(n); string(data) != `{"version":2,"entity_path":"topics/t"}` {
		t.Fatalf("notification = %s", data)
	}
	if all, err := z.FetchAllEntityConfigs(ConfigTypeTopic); err != nil || all["t"]["retention.ms"] != "1" {
		t.Fatalf("FetchAllEntityConfigs = %v %v", all, err)
	}
	if cfg, err := z.FetchEntityConfig(ConfigTypeClient, "nobody"); err != nil || len(cfg) != 0 {
		t.Fatalf("missing config = %v %v", cfg, err)
	}
	// ISR change notifications are sequential nodes.
	p, err := z.PropagateIsrChanges([]common.TopicPartition{tp("t", 0)})
	if err != nil || p != IsrChangeNotificationPath+"/isr_change_0000000000" {
		t.Fatalf("PropagateIsrChanges = %q %v", p, err)
	}
	// Consumer offsets.
	if err := z.UpdateConsumerOffset("g", tp("t", 0), 7); err != nil {
		t.Fatal(err)
	}
	if err := z.UpdateConsumerOffset("g", tp("t", 0), 8); err != nil {
		t.Fatal(err)
	}
	if off, ok, err := z.ReadConsumerOffset("g", tp("t", 0)); err != nil || !ok || off != 8 {
		t.Fatalf("offset = %d %v %v", off, ok, err)
	}
	if _, ok, err := z.ReadConsumerOffset("g", tp("t", 1)); ok || err != nil {
		t.Fatalf("missing offset = %v %v", ok, err)
	}
}

// TestRegisterBrokerConflict: a broker id held by another live session is an
// error; by the same session it is success (the retried-create case).
func TestRegisterBrokerConflict(t *testing.T) {
	connect := zktest.Chroot(t)
	a := newTestZkUtils(t, connect)
	b := newTestZkUtils(t, connect)
	b.EphemeralConflictTimeout = 0 // 0.10.2 behaviour: fail at once
	info := NewBrokerInfo(1, 4, []RegisteredEndPoint{plaintext("h", 9092)}, -1, "", 1)
	if err := a.RegisterBrokerInZk(info); err != nil {
		t.Fatal(err)
	}
	ce := &ZKCheckedEphemeral{Path: BrokerIdPath(1), Data: info.Encode(), ZkUtils: a}
	if err := ce.Create(); err != nil {
		t.Fatalf("re-create by the owner: %v", err)
	}
	if err := b.RegisterBrokerInZk(info); !errors.Is(err, ErrBrokerAlreadyRegistered) || !errors.Is(err, zkclient.ErrNodeExists) {
		t.Fatalf("second registration: %v", err)
	}
	// With a conflict timeout the second broker waits until the first is gone.
	b.EphemeralConflictTimeout = waitTimeout
	go func() { time.Sleep(300 * time.Millisecond); a.Close() }()
	if err := b.RegisterBrokerInZk(info); err != nil {
		t.Fatalf("registration after the owner left: %v", err)
	}
	_, st, err := b.ReadData(BrokerIdPath(1))
	if err != nil || st.EphemeralOwner != b.ZkClient.SessionID() {
		t.Fatalf("owner 0x%x, want 0x%x (%v)", st.EphemeralOwner, b.ZkClient.SessionID(), err)
	}
}

// TestEphemeralSurvivesLeaderKill: SIGKILL of the ZooKeeper leader does not
// lose the broker registration (the session moves to another server).
func TestEphemeralSurvivesLeaderKill(t *testing.T) {
	e := zktest.Ensemble()
	if e == nil {
		t.Skip("needs the zktest ensemble (not ZK_CONNECT)")
	}
	connect := zktest.Chroot(t)
	observer := newTestZkUtils(t, connect)
	leader, err := e.Leader()
	if err != nil {
		t.Fatal(err)
	}
	// Prefer a session held through the leader itself, so that killing it also
	// cuts the broker's connection (go-zookeeper picks a server at random).
	var z *ZkUtils
	for try := 0; try < 15; try++ {
		c, err := Connect(connect, testSessionTimeout, 20*time.Second, false, testLogger(t), common.SystemTime{})
		if err != nil {
			t.Fatal(err)
		}
		z = c
		if c.ZkClient.Server() == e.Addr(leader) {
			break
		}
		c.Close()
		z = nil
	}
	if z == nil {
		t.Log("could not attach to the leader; testing a session on a follower")
		z = newTestZkUtils(t, connect)
	} else {
		t.Cleanup(z.Close)
	}
	info := NewBrokerInfo(7, 4, []RegisteredEndPoint{plaintext("h", 9092)}, -1, "", 1)
	if err := z.RegisterBrokerInZk(info); err != nil {
		t.Fatal(err)
	}
	session := z.ZkClient.SessionID()
	server := z.ZkClient.Server()
	if err := e.Kill(leader); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if restarted {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := e.Restart(ctx, leader); err != nil {
			t.Errorf("restart server %d: %v", leader, err)
		}
	})
	// Through the outage and the new leader election, the node must stay ours.
	zktest.WaitUntilTrue(t, func() bool {
		_, st, ok, err := observer.ReadDataMaybeNull(BrokerIdPath(7))
		return err == nil && ok && st.EphemeralOwner == session
	}, "registration not visible after the leader was killed", waitTimeout)
	if z.ZkClient.SessionID() != session {
		t.Fatalf("session changed: 0x%x -> 0x%x", session, z.ZkClient.SessionID())
	}
	ids, err := z.GetSortedBrokerList()
	if err != nil || len(ids) != 1 || ids[0] != 7 {
		t.Fatalf("brokers = %v %v", ids, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Restart(ctx, leader); err != nil {
		t.Fatalf("restart server %d: %v", leader, err)
	}
	restarted = true
	t.Logf("session 0x%x survived the kill of leader %d (client was on %s, now on %s)", session, leader, server, z.ZkClient.Server())
	zktest.WaitUntilTrue(t, func() bool {
		_, st, ok, err := observer.ReadDataMaybeNull(BrokerIdPath(7))
		return err == nil && ok && st.EphemeralOwner == session
	}, "registration lost after restart", waitTimeout)
}

// healthcheck re-registers the broker on every new session, as
// KafkaHealthcheck.SessionExpireListener does.
type healthcheck struct {
	z    *ZkUtils
	info BrokerInfo
	mu   sync.Mutex
	news int
}

func (h *healthcheck) HandleStateChanged(zkclient.KeeperState) error { return nil }
func (h *healthcheck) HandleNewSession() error {
	h.mu.Lock()
	h.news++
	h.mu.Unlock()
	return h.z.RegisterBrokerInZk(h.info)
}

type brokerWatch struct {
	mu       sync.Mutex
	children [][]string
}

func (w *brokerWatch) HandleChildChange(_ string, c []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.children = append(w.children, c)
	return nil
}

func (w *brokerWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.children)
}

// TestBrokerReRegisteredAfterExpiry expires the broker's session for real: the
// ephemeral registration is re-created by the HandleNewSession listener and the
// child listener fires again on the new session.
func TestBrokerReRegisteredAfterExpiry(t *testing.T) {
	connect := zktest.Chroot(t)
	capture := zktest.NewSessionCapture()
	z := newTestZkUtils(t, connect, zkclient.WithDialer(capture.Dial))
	observer := newTestZkUtils(t, connect)
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	info := NewBrokerInfo(3, 4, []RegisteredEndPoint{plaintext("h", 9092)}, -1, "", 1)
	h := &healthcheck{z: z, info: info}
	z.ZkClient.SubscribeStateChanges(h)
	if err := z.RegisterBrokerInZk(info); err != nil {
		t.Fatal(err)
	}
	w := &brokerWatch{}
	if _, err := z.ZkClient.SubscribeChildChanges(BrokerIdsPath, w); err != nil {
		t.Fatal(err)
	}
	old := z.ZkClient.SessionID()
	fired := w.count()

	zktest.ExpireSession(t, capture)
	zktest.WaitUntilTrue(t, func() bool {
		_, st, ok, err := observer.ReadDataMaybeNull(BrokerIdPath(3))
		return err == nil && ok && st.EphemeralOwner != old && st.EphemeralOwner == z.ZkClient.SessionID()
	}, "broker not re-registered under the new session", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool { return w.count() > fired }, "child listener did not fire after the new session", waitTimeout)
	h.mu.Lock()
	news := h.news
	h.mu.Unlock()
	if news != 1 {
		t.Fatalf("HandleNewSession called %d times, want 1", news)
	}
	b, ok, err := observer.GetBrokerInfo(3)
	if err != nil || !ok || b.EndPoints[0].Port != 9092 {
		t.Fatalf("registration = %+v %v %v", b, ok, err)
	}
}

// candidate is one broker taking part in the election.
type candidate struct {
	id      int32
	z       *ZkUtils
	elector *ZookeeperLeaderElector
	mu      sync.Mutex
	became  int
	resigns int
}

// TestLeaderElection runs three candidates on three sessions: exactly one leads
// and /controller names it; when the leader's session expires it resigns and a
// leader is elected again within the session timeout. The new leader may be the
// old one on its new session (it races the others, as in Kafka: on a busy machine
// the others' deletion events can come after its new session): then it has
// become leader twice.
func TestLeaderElection(t *testing.T) {
	connect := zktest.Chroot(t)
	var cands []*candidate
	captures := map[int32]func(){}
	for id := int32(1); id <= 3; id++ {
		capture := zktest.NewSessionCapture()
		c := &candidate{id: id, z: newTestZkUtils(t, connect, zkclient.WithDialer(capture.Dial))}
		captures[id] = func() { zktest.ExpireSession(t, capture) }
		lock := &sync.Mutex{}
		c.elector = NewZookeeperLeaderElector(c.z, ControllerPath, id,
			func() error { c.mu.Lock(); c.became++; c.mu.Unlock(); return nil },
			func() { c.mu.Lock(); c.resigns++; c.mu.Unlock() }, lock)
		cands = append(cands, c)
	}
	var wg sync.WaitGroup
	for _, c := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.elector.Startup(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	observer := newTestZkUtils(t, connect)

	// leaders returns the candidates that believe they lead and /controller's id.
	leaders := func() ([]int32, int32) {
		var ls []int32
		for _, c := range cands {
			if c.elector.AmILeader() {
				ls = append(ls, c.id)
			}
		}
		id, err := observer.GetController()
		if err != nil {
			id = -1
		}
		return ls, id
	}
	stable := func() int32 {
		var leader int32
		deadline := time.Now().Add(waitTimeout)
		for {
			ls, id := leaders()
			if len(ls) == 1 && ls[0] == id {
				leader = id
				break
			}
			if time.Now().After(deadline) {
				for _, c := range cands {
					c.mu.Lock()
					t.Logf("candidate %d: leader %d, became %d, resigned %d", c.id, c.elector.LeaderID(), c.became, c.resigns)
					c.mu.Unlock()
				}
				t.Fatalf("no single leader after %v: candidates leading %v, /controller %d", waitTimeout, ls, id)
			}
			time.Sleep(20 * time.Millisecond)
		}
		for i := 0; i < 50; i++ {
			ls, id := leaders()
			if len(ls) != 1 || ls[0] != leader || id != leader {
				t.Fatalf("observation %d: leaders %v, /controller %d, want only %d", i, ls, id, leader)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return leader
	}
	first := stable()
	for _, c := range cands {
		c.mu.Lock()
		if want := map[bool]int{true: 1, false: 0}[c.id == first]; c.became != want {
			t.Errorf("candidate %d became leader %d times, want %d", c.id, c.became, want)
		}
		c.mu.Unlock()
	}

	start := time.Now()
	captures[first]()
	var old *candidate
	for _, c := range cands {
		if c.id == first {
			old = c
		}
	}
	// The expired leader learns of it on its new session and resigns; only then is the
	// leader that stable() sees the new election's.
	zktest.WaitUntilTrue(t, func() bool {
		old.mu.Lock()
		defer old.mu.Unlock()
		return old.resigns == 1
	}, "expired leader did not resign", waitTimeout)
	second := stable()
	took := time.Since(start)
	if took > testSessionTimeout {
		t.Fatalf("new leader after %v, more than the session timeout %v", took, testSessionTimeout)
	}
	t.Logf("leader %d -> %d after %v", first, second, took)
	old.mu.Lock()
	if want := map[bool]int{true: 2, false: 1}[second == first]; old.became != want {
		t.Errorf("the expired leader %d became leader %d times, want %d (new leader %d)", first, old.became, want, second)
	}
	old.mu.Unlock()

	// An explicit resignation deletes /controller and everyone elects again;
	// whoever wins, there is again exactly one leader.
	for _, c := range cands {
		if c.id == second {
			c.elector.Resign()
		}
	}
	stable()
	for _, c := range cands {
		c.elector.Close()
	}
}

// TestLeaderElectorResignsWhenFailoverFails: if onBecomingLeader fails the
// elector deletes its node at once, which triggers a new election (here won by
// the same, now healthy, candidate).
func TestLeaderElectorResignsWhenFailoverFails(t *testing.T) {
	z := newTestZkUtils(t, zktest.Chroot(t))
	var mu sync.Mutex
	calls := 0
	e := NewZookeeperLeaderElector(z, ControllerPath, 9, func() error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return errors.New("failover failed")
		}
		return nil
	}, func() {}, &sync.Mutex{})
	if err := e.Startup(); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	zktest.WaitUntilTrue(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return calls == 2 && e.AmILeader()
	}, "elector did not resign and win again", waitTimeout)
	if id, err := z.GetController(); err != nil || id != 9 {
		t.Fatalf("controller = %d %v", id, err)
	}
}
