package zkclient

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/zk/zktest"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 3)) }

const (
	testSessionTimeout    = 6 * time.Second
	testConnectionTimeout = 20 * time.Second
	waitTimeout           = 30 * time.Second
)

func testLogger(t testing.TB) *logrus.Entry {
	l := logrus.New()
	l.SetOutput(testWriter{t})
	l.SetLevel(logrus.InfoLevel)
	if os.Getenv("ZKTEST_VERBOSE") != "" {
		l.SetLevel(logrus.DebugLevel)
	}
	return logrus.NewEntry(l).WithField("test", t.Name())
}

// testWriter sends log lines to t.Log while the test runs and drops them after.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	defer func() { _ = recover() }() // t.Log after the test ended panics
	w.t.Log(string(p))
	return len(p), nil
}

func newTestClient(t testing.TB, connect string, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithLogger(testLogger(t))}, opts...)
	c, err := New(connect, testSessionTimeout, testConnectionTimeout, opts...)
	if err != nil {
		t.Fatalf("New(%s): %v", connect, err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestParseConnectString(t *testing.T) {
	for _, tc := range []struct {
		in      string
		servers []string
		chroot  string
		bad     bool
	}{
		{in: "a:1", servers: []string{"a:1"}},
		{in: "a:1,b:2/kafka", servers: []string{"a:1", "b:2"}, chroot: "/kafka"},
		{in: "a:1/kafka/x/", servers: []string{"a:1"}, chroot: "/kafka/x"},
		{in: "a:1/", servers: []string{"a:1"}},
		{in: "/kafka", bad: true},
		{in: "a:1/x//y", bad: true},
	} {
		s, c, err := ParseConnectString(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(s, tc.servers) || c != tc.chroot {
			t.Errorf("%q: got %v %q %v", tc.in, s, c, err)
		}
	}
}

func TestOperationsAndErrors(t *testing.T) {
	c := newTestClient(t, zktest.Chroot(t))

	if err := c.CreatePersistent("/a/b/c", []byte("x"), false); !errors.Is(err, ErrNoNode) || !errors.Is(err, gozk.ErrNoNode) {
		t.Fatalf("create without parent: %v", err)
	}
	if err := c.CreatePersistent("/a/b/c", []byte("x"), true); err != nil {
		t.Fatal(err)
	}
	if data, _, err := c.ReadData("/a/b"); err != nil || data != nil {
		t.Fatalf("parent data = %q, %v; want null", data, err)
	}
	if err := c.CreatePersistent("/a/b/c", nil, false); !errors.Is(err, ErrNodeExists) {
		t.Fatalf("create existing: %v", err)
	}
	data, st, err := c.ReadData("/a/b/c")
	if err != nil || string(data) != "x" || st.Version != 0 {
		t.Fatalf("read = %q %+v %v", data, st, err)
	}
	v, err := c.WriteDataConditional("/a/b/c", []byte("y"), 0)
	if err != nil || v != 1 {
		t.Fatalf("conditional write = %d %v", v, err)
	}
	if _, err := c.WriteDataConditional("/a/b/c", []byte("z"), 0); !errors.Is(err, ErrBadVersion) {
		t.Fatalf("stale conditional write: %v", err)
	}
	if _, _, ok, err := c.ReadDataMaybeNull("/nope"); ok || err != nil {
		t.Fatalf("maybe null on missing: %v %v", ok, err)
	}
	seq, err := c.CreatePersistentSequential("/a/s_", nil)
	if err != nil || seq != "/a/s_0000000001" {
		t.Fatalf("sequential = %q %v", seq, err)
	}
	if err := c.CreateEphemeral("/a/e", []byte("e")); err != nil {
		t.Fatal(err)
	}
	_, st, _ = c.ReadData("/a/e")
	if st.EphemeralOwner != c.SessionID() {
		t.Fatalf("ephemeral owner 0x%x, session 0x%x", st.EphemeralOwner, c.SessionID())
	}
	children, err := c.GetChildren("/a")
	sort.Strings(children)
	if err != nil || !slices.Equal(children, []string{"b", "e", "s_0000000001"}) {
		t.Fatalf("children = %v %v", children, err)
	}
	if _, err := c.Delete("/a"); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("delete non-empty: %v", err)
	}
	if ok, err := c.DeleteRecursive("/a"); !ok || err != nil {
		t.Fatalf("delete recursive: %v %v", ok, err)
	}
	if ok, err := c.Exists("/a"); ok || err != nil {
		t.Fatalf("exists after delete: %v %v", ok, err)
	}
	if ok, err := c.Delete("/a"); ok || err != nil {
		t.Fatalf("delete missing = %v %v, want false, nil", ok, err)
	}
	// The root of the client is the chroot.
	if ok, err := c.Exists("/"); !ok || err != nil {
		t.Fatalf("chroot root: %v %v", ok, err)
	}
}

// recorder is a child, data and state listener that records what it is told
// and checks that no two callbacks ever overlap (one event goroutine).
type recorder struct {
	mu       sync.Mutex
	children [][]string // one entry per child callback; nil entry = parent deleted
	data     []string   // "<data>" or "deleted"
	states   []KeeperState
	sessions int
	inFlight atomic.Int32
	overlap  atomic.Bool
	onNew    func() error
}

func (r *recorder) enter() func() {
	if r.inFlight.Add(1) > 1 {
		r.overlap.Store(true)
	}
	time.Sleep(time.Millisecond) // widen the window an overlap would need
	return func() { r.inFlight.Add(-1) }
}

func (r *recorder) HandleChildChange(_ string, children []string) error {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.children = append(r.children, children)
	return nil
}

func (r *recorder) HandleDataChange(_ string, data []byte) error {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.data = append(r.data, string(data))
	return nil
}

func (r *recorder) HandleDataDeleted(string) error {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.data = append(r.data, "deleted")
	return nil
}

func (r *recorder) HandleStateChanged(s KeeperState) error {
	defer r.enter()()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, s)
	return nil
}

func (r *recorder) HandleNewSession() error {
	defer r.enter()()
	r.mu.Lock()
	r.sessions++
	r.mu.Unlock()
	if r.onNew != nil {
		return r.onNew()
	}
	return nil
}

func (r *recorder) snapshot() (children [][]string, data []string, states []KeeperState, sessions int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.children...), append([]string(nil), r.data...),
		append([]KeeperState(nil), r.states...), r.sessions
}

func (r *recorder) lastData() string {
	_, d, _, _ := r.snapshot()
	if len(d) == 0 {
		return ""
	}
	return d[len(d)-1]
}

func (r *recorder) lastChildren() ([]string, bool) {
	c, _, _, _ := r.snapshot()
	if len(c) == 0 {
		return nil, false
	}
	out := append([]string(nil), c[len(c)-1]...)
	sort.Strings(out)
	return out, true
}

// TestWatchesRearmed makes 100 successive data writes and 100 child creations
// through a second client and checks that the persistent listeners followed
// every step: values seen only move forward and the last state is exact.
func TestWatchesRearmed(t *testing.T) {
	connect := zktest.Chroot(t)
	watcher := newTestClient(t, connect)
	writer := newTestClient(t, connect)

	const n = 100
	rec := &recorder{}
	// The data node does not exist yet: its creation must fire.
	if err := watcher.SubscribeDataChanges("/data", rec); err != nil {
		t.Fatal(err)
	}
	if err := writer.CreatePersistent("/parent", nil, false); err != nil {
		t.Fatal(err)
	}
	initial, err := watcher.SubscribeChildChanges("/parent", rec)
	if err != nil || len(initial) != 0 {
		t.Fatalf("initial children %v %v", initial, err)
	}
	if err := writer.CreatePersistent("/data", []byte("0"), false); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 1; i <= n; i++ {
		if err := writer.WriteData("/data", []byte(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("c%03d", i)
		want = append(want, name)
		if err := writer.CreatePersistent("/parent/"+name, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	zktest.WaitUntilTrue(t, func() bool { return rec.lastData() == strconv.Itoa(n) }, "data listener never saw the last write", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool {
		c, ok := rec.lastChildren()
		return ok && slices.Equal(c, want)
	}, "child listener never saw the final children", waitTimeout)

	children, data, _, _ := rec.snapshot()
	prev := -1
	for _, d := range data {
		v, err := strconv.Atoi(d)
		if err != nil {
			t.Fatalf("unexpected data event %q", d)
		}
		if v < prev {
			t.Fatalf("data went backwards: %d after %d (%v)", v, prev, data)
		}
		prev = v
	}
	prevLen := -1
	for _, c := range children {
		if len(c) < prevLen {
			t.Fatalf("children shrank: %d after %d", len(c), prevLen)
		}
		prevLen = len(c)
	}
	t.Logf("%d data callbacks and %d child callbacks for %d changes each", len(data), len(children), n)

	// Deletion: data listener hears HandleDataDeleted, child listener nil.
	if _, err := writer.DeleteRecursive("/parent"); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Delete("/data"); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return rec.lastData() == "deleted" }, "no HandleDataDeleted", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool {
		c, _, _, _ := rec.snapshot()
		return c[len(c)-1] == nil
	}, "no nil children after the parent was deleted", waitTimeout)
	// And the watch still stands after the deletion: re-creation fires again.
	if err := writer.CreatePersistent("/data", []byte("again"), false); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return rec.lastData() == "again" }, "re-created node not seen", waitTimeout)

	// After unsubscribing, nothing more arrives.
	watcher.UnsubscribeDataChanges("/data", rec)
	_, seen, _, _ := rec.snapshot()
	before := len(seen)
	if err := writer.WriteData("/data", []byte("unseen")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, d, _, _ := rec.snapshot(); len(d) != before {
		t.Fatalf("unsubscribed listener still called: %v", d[before:])
	}
	if rec.overlap.Load() {
		t.Fatal("two callbacks ran at the same time")
	}
}

// TestChrootIsolation runs two parallel tests under different chroots writing
// the same relative paths: neither sees the other's nodes or events.
func TestChrootIsolation(t *testing.T) {
	for _, name := range []string{"left", "right"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, zktest.Chroot(t))
			rec := &recorder{}
			if _, err := c.SubscribeChildChanges("/shared", rec); err != nil {
				t.Fatal(err)
			}
			var mine []string
			for i := 0; i < 20; i++ {
				node := fmt.Sprintf("%s-%02d", name, i)
				mine = append(mine, node)
				if err := c.CreatePersistent("/shared/"+node, []byte(name), true); err != nil {
					t.Fatal(err)
				}
			}
			zktest.WaitUntilTrue(t, func() bool {
				got, ok := rec.lastChildren()
				return ok && slices.Equal(got, mine)
			}, "own children not seen", waitTimeout)
			got, err := c.GetChildren("/shared")
			sort.Strings(got)
			if err != nil || !slices.Equal(got, mine) {
				t.Fatalf("children %v %v, want only %v", got, err, mine)
			}
			all, _, _, _ := rec.snapshot()
			for _, cs := range all {
				for _, ch := range cs {
					if ch[:len(name)] != name {
						t.Fatalf("saw foreign child %s", ch)
					}
				}
			}
		})
	}
}

// TestSessionExpiryRefiresListeners expires the session for real and checks
// I0Itec's contract: Expired, then a new session, HandleNewSession (which
// re-creates an ephemeral node, as KafkaHealthcheck does), and every child and
// data listener fires once more with fresh data.
func TestSessionExpiryRefiresListeners(t *testing.T) {
	connect := zktest.Chroot(t)
	capture := zktest.NewSessionCapture()
	c := newTestClient(t, connect, WithDialer(capture.Dial))
	other := newTestClient(t, connect)

	if err := c.CreatePersistent("/ids", nil, false); err != nil {
		t.Fatal(err)
	}
	register := func() error { return c.CreateEphemeral("/ids/1", []byte("me")) }
	if err := register(); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{onNew: register}
	c.SubscribeStateChanges(rec)
	if _, err := c.SubscribeChildChanges("/ids", rec); err != nil {
		t.Fatal(err)
	}
	if err := other.CreatePersistent("/d", []byte("v1"), false); err != nil {
		t.Fatal(err)
	}
	if err := c.SubscribeDataChanges("/d", rec); err != nil {
		t.Fatal(err)
	}
	oldSession := c.SessionID()

	zktest.ExpireSession(t, capture)
	zktest.WaitUntilTrue(t, func() bool {
		_, _, _, s := rec.snapshot()
		return s == 1
	}, "HandleNewSession not called", waitTimeout)
	if c.SessionID() == oldSession {
		t.Fatal("session id unchanged after expiry")
	}
	zktest.WaitUntilTrue(t, func() bool {
		_, st, err := other.ReadData("/ids/1")
		return err == nil && st.EphemeralOwner == c.SessionID()
	}, "ephemeral node not re-created by the new session", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool {
		ch, data, _, _ := rec.snapshot()
		return len(data) >= 1 && data[len(data)-1] == "v1" && len(ch) >= 1
	}, "listeners not re-fired after the new session", waitTimeout)
	_, _, states, _ := rec.snapshot()
	if i := slices.Index(states, Expired); i < 0 || !slices.Contains(states[i:], SyncConnected) {
		t.Fatalf("states = %v, want Expired then SyncConnected", states)
	}
	// Watches are armed again on the new session.
	if err := other.WriteData("/d", []byte("v2")); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return rec.lastData() == "v2" }, "data watch not re-armed", waitTimeout)
	if err := other.CreatePersistent("/ids/2", nil, false); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		got, _ := rec.lastChildren()
		return slices.Equal(got, []string{"1", "2"})
	}, "child watch not re-armed", waitTimeout)
	if rec.overlap.Load() {
		t.Fatal("two callbacks ran at the same time")
	}
}

// TestCloseLeavesNoGoroutines checks that New+Close returns to the goroutine
// count from before (goleak in TestMain checks the whole package as well).
func TestCloseLeavesNoGoroutines(t *testing.T) {
	connect := zktest.Chroot(t)
	// A first client creates the chroot, so the measured one opens one session.
	newTestClient(t, connect).Close()
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	c, err := New(connect, testSessionTimeout, testConnectionTimeout, WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	if _, err := c.SubscribeChildChanges("/", rec); err != nil {
		t.Fatal(err)
	}
	c.SubscribeStateChanges(rec)
	c.Close()
	c.Close() // idempotent
	if _, err := c.Exists("/"); !errors.Is(err, ErrClosed) {
		t.Fatalf("operation after Close: %v", err)
	}
	zktest.WaitUntilTrue(t, func() bool { return runtime.NumGoroutine() <= before }, fmt.Sprintf("goroutines leaked: %d before", before), 10*time.Second)
}

func TestConnectTimeout(t *testing.T) {
	start := time.Now()
	_, err := New("127.0.0.1:1", time.Second, 500*time.Millisecond, WithLogger(testLogger(t)))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

// TestPartitionExpiresSession cuts the client off (zktest's blackhole) for longer
// than the session timeout: the client reports Disconnected, then, once it can
// reach ZooKeeper again, Expired and a new session whose listeners fire again.
// It takes about ten seconds, so it runs only with ZKAFKA_LONG=1.
func TestPartitionExpiresSession(t *testing.T) {
	if os.Getenv("ZKAFKA_LONG") == "" {
		t.Skip("set ZKAFKA_LONG=1 to run (about 10 s)")
	}
	connect := zktest.Chroot(t)
	capture := zktest.NewSessionCapture()
	c := newTestClient(t, connect, WithDialer(capture.Dial))
	other := newTestClient(t, connect)
	rec := &recorder{onNew: func() error { return c.CreateEphemeral("/e", nil) }}
	c.SubscribeStateChanges(rec)
	if err := c.CreateEphemeral("/e", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.SubscribeDataChanges("/e", rec); err != nil {
		t.Fatal(err)
	}
	old := c.SessionID()
	capture.SetBlackhole(true)
	zktest.WaitUntilTrue(t, func() bool {
		_, _, states, _ := rec.snapshot()
		return slices.Contains(states, Disconnected)
	}, "no Disconnected while partitioned", waitTimeout)
	// The server expires the session after its timeout; the ephemeral goes.
	zktest.WaitUntilTrue(t, func() bool {
		ok, err := other.Exists("/e")
		return err == nil && !ok
	}, "session not expired by the server", waitTimeout)
	capture.SetBlackhole(false)
	zktest.WaitUntilTrue(t, func() bool {
		_, _, _, s := rec.snapshot()
		return s == 1
	}, "no new session after the partition healed", waitTimeout)
	zktest.WaitUntilTrue(t, func() bool {
		_, st, err := other.ReadData("/e")
		return err == nil && st.EphemeralOwner == c.SessionID() && c.SessionID() != old
	}, "ephemeral not re-created on the new session", waitTimeout)
	_, _, states, _ := rec.snapshot()
	if i := slices.Index(states, Expired); i < 0 || !slices.Contains(states[i:], SyncConnected) {
		t.Fatalf("states = %v", states)
	}
}
