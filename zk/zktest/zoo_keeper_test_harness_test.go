package zktest

import (
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
)

func TestMain(m *testing.M) { os.Exit(Main(m, 1)) }

func TestSplitConnect(t *testing.T) {
	for _, tc := range []struct {
		in      string
		servers []string
		chroot  string
	}{
		{"127.0.0.1:2181", []string{"127.0.0.1:2181"}, ""},
		{"a:1,b:2/kafka", []string{"a:1", "b:2"}, "/kafka"},
		{"a:1/x/y/", []string{"a:1"}, "/x/y"},
		{"a:1/", []string{"a:1"}, ""},
	} {
		s, c := SplitConnect(tc.in)
		if !reflect.DeepEqual(s, tc.servers) || c != tc.chroot {
			t.Errorf("SplitConnect(%q) = %v, %q; want %v, %q", tc.in, s, c, tc.servers, tc.chroot)
		}
	}
}

// createUnder creates chroot+path (with the chroot itself), the way a
// chroot-aware client would.
func createUnder(t *testing.T, c *gozk.Conn, connect, path string) {
	t.Helper()
	_, chroot := SplitConnect(connect)
	for _, p := range []string{chroot, chroot + path} {
		if _, err := c.Create(p, nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil && err != gozk.ErrNodeExists {
			t.Fatalf("create %s: %v", p, err)
		}
	}
}

func TestChrootsAreIsolated(t *testing.T) {
	a, b := Chroot(t), Chroot(t)
	if a == b {
		t.Fatalf("two chroots share a connect string %q", a)
	}
	servers, ca := SplitConnect(a)
	_, cb := SplitConnect(b)
	if strings.Join(servers, ",") != ConnectString() {
		t.Fatalf("chroot %q is not on the shared ensemble %q", a, ConnectString())
	}
	if !strings.HasPrefix(ca, "/t-TestChrootsAreIsolated-") {
		t.Fatalf("chroot %q does not carry the test name", ca)
	}
	c := Conn(t, a)
	for _, ch := range []string{ca, cb} {
		if ok, _, err := c.Exists(ch); err != nil || ok {
			t.Fatalf("chroot %s exists before use (%v, %v)", ch, ok, err)
		}
	}
	createUnder(t, c, a, "/only-in-a")
	createUnder(t, c, b, "/only-in-b")
	for _, tc := range []struct{ chroot, want string }{{ca, "only-in-a"}, {cb, "only-in-b"}} {
		kids, _, err := c.Children(tc.chroot)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(kids, []string{tc.want}) {
			t.Errorf("children of %s = %v, want [%s]", tc.chroot, kids, tc.want)
		}
	}
}

func TestChrootCleanupDeletesTree(t *testing.T) {
	var chroot string
	t.Run("inner", func(t *testing.T) {
		connect := Chroot(t)
		_, chroot = SplitConnect(connect)
		c := Conn(t, connect)
		createUnder(t, c, connect, "/x")
		if _, err := c.Create(chroot+"/x/y", []byte("v"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
			t.Fatal(err)
		}
	})
	c := Conn(t, ConnectString())
	if ok, _, err := c.Exists(chroot); err != nil || ok {
		t.Fatalf("chroot %s still exists after its test ended (%v, %v)", chroot, ok, err)
	}
}

func TestEnsembleShared(t *testing.T) {
	if os.Getenv("ZK_CONNECT") != "" {
		if Ensemble() != nil {
			t.Fatal("Ensemble() != nil with ZK_CONNECT")
		}
		return
	}
	e := Ensemble()
	if e == nil {
		t.Fatal("Ensemble() = nil under Main")
	}
	if e.ConnectString() != ConnectString() {
		t.Fatalf("ConnectString %q != ensemble's %q", ConnectString(), e.ConnectString())
	}
	if _, err := e.Mode(0); err != nil {
		t.Fatal(err)
	}
}

func TestExpireSession(t *testing.T) {
	connect := Chroot(t)
	servers, chroot := SplitConnect(connect)
	capture := NewSessionCapture()
	c, events, err := gozk.Connect(servers, SessionTimeout, gozk.WithDialer(capture.Dial), gozk.WithLogger(logger()))
	if err != nil {
		t.Fatal(err)
	}
	var expired atomic.Bool
	sawSession := make(chan struct{}, 4)
	done := make(chan struct{})
	defer func() { c.Close(); <-done }()
	go func() {
		defer close(done)
		for ev := range events {
			switch ev.State {
			case gozk.StateExpired:
				expired.Store(true)
			case gozk.StateHasSession:
				select {
				case sawSession <- struct{}{}:
				default:
				}
			}
		}
	}()
	<-sawSession
	createUnder(t, c, connect, "")
	if _, err := c.Create(chroot+"/eph", nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ExpireSession(t, capture)
	WaitUntilTrue(t, expired.Load, "client never saw StateExpired", 20*time.Second)
	<-sawSession
	if ok, _, err := c.Exists(chroot + "/eph"); err != nil || ok {
		t.Fatalf("ephemeral node survived expiry (exists=%v, err=%v)", ok, err)
	}
}
