package ensemble

import (
	"bytes"
	"encoding/hex"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
)

func TestEncodeConnectRequestGolden(t *testing.T) {
	got := EncodeConnectRequest(0, 6000, 0x0102030405060708, []byte{0xaa, 0xbb})
	want := "0000001e" + // frame length 30
		"00000000" + // protocolVersion 0
		"0000000000000000" + // lastZxidSeen
		"00001770" + // timeOut 6000 ms
		"0102030405060708" + // sessionId
		"00000002" + "aabb" // passwd: int32 length + bytes
	if hex.EncodeToString(got) != want {
		t.Fatalf("ConnectRequest\n got %x\nwant %s", got, want)
	}
}

func TestEncodeCloseSessionGolden(t *testing.T) {
	got := EncodeCloseSession(7)
	want := "00000008" + "00000007" + "fffffff5" // length 8, xid 7, type -11
	if hex.EncodeToString(got) != want {
		t.Fatalf("closeSession got %x want %s", got, want)
	}
}

func TestDecodeConnectResponse(t *testing.T) {
	body, _ := hex.DecodeString("00000000" + "00001770" + "0102030405060708" + "00000002" + "aabb" + "01")
	r, err := DecodeConnectResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	if r.ProtocolVersion != 0 || r.TimeOut != 6000 || r.SessionID != 0x0102030405060708 ||
		!bytes.Equal(r.Passwd, []byte{0xaa, 0xbb}) || !r.ReadOnly {
		t.Fatalf("decoded %+v", r)
	}
	// Without the optional readOnly byte.
	if r, err := DecodeConnectResponse(body[:len(body)-1]); err != nil || r.ReadOnly {
		t.Fatalf("without readOnly: %+v, %v", r, err)
	}
	for _, bad := range [][]byte{nil, body[:19], append(append([]byte{}, body[:16]...), 0x7f, 0, 0, 0)} {
		if _, err := DecodeConnectResponse(bad); err == nil {
			t.Errorf("DecodeConnectResponse(%x) accepted bad input", bad)
		}
	}
}

func FuzzDecodeConnectResponse(f *testing.F) {
	body, _ := hex.DecodeString("00000000000017700102030405060708" + "00000002aabb01")
	f.Add(body)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeConnectResponse(b)
		if err == nil && len(r.Passwd) > len(b) {
			t.Fatalf("passwd longer than input")
		}
	})
}

// TestSessionCaptureSplitReads feeds a ConnectResponse through the capture
// one byte at a time, as a slow socket would.
func TestSessionCaptureSplitReads(t *testing.T) {
	s := NewSessionCapture()
	frame, _ := hex.DecodeString("00000025" + "00000000" + "00000fa0" + "00000000deadbeef" + "00000010" +
		"000102030405060708090a0b0c0d0e0f" + "00" + "ffff") // trailing bytes: the next frame
	c := &captureConn{s: s}
	for i := range frame {
		if c.done {
			break
		}
		c.observe(frame[i : i+1])
	}
	id, pw := s.Session()
	if id != 0xdeadbeef || len(pw) != 16 || pw[15] != 0x0f || s.SessionTimeout() != 4*time.Second {
		t.Fatalf("captured id %x passwd %x timeout %v", id, pw, s.SessionTimeout())
	}
	if n, exp := s.Counts(); n != 1 || exp != 0 {
		t.Fatalf("Counts = %d, %d", n, exp)
	}
}

// TestExpireSession connects go-zookeeper through a SessionCapture, creates
// an ephemeral node, expires the session from outside and checks that the
// client saw StateExpired, got a new session, and the node is gone.
func TestExpireSession(t *testing.T) {
	e, err := Start(testContext(t, 90*time.Second), Config{Servers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checkExpireSession(t, e, "/eph")
}

// checkExpireSession is TestExpireSession's body, shared with TestQuorum.
func checkExpireSession(t *testing.T, e *Ensemble, eph string) {
	capture := NewSessionCapture()
	conn, events, err := gozk.Connect(strings.Split(e.ConnectString(), ","), 6*time.Second,
		gozk.WithDialer(capture.Dial), gozk.WithLogger(log.New(io.Discard, "", 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitState := func(want gozk.State, d time.Duration) {
		t.Helper()
		timer := time.NewTimer(d)
		defer timer.Stop()
		for {
			select {
			case ev := <-events:
				if ev.Type == gozk.EventSession && ev.State == want {
					return
				}
			case <-timer.C:
				t.Fatalf("no %v event within %v", want, d)
			}
		}
	}
	waitState(gozk.StateHasSession, 20*time.Second)
	first, _ := capture.Session()
	if first == 0 || first != conn.SessionID() {
		t.Fatalf("captured session 0x%x, client has 0x%x", first, conn.SessionID())
	}
	if _, err := conn.Create(eph, []byte("x"), gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if err := e.ExpireCaptured(testContext(t, 30*time.Second), capture); err != nil {
		t.Fatal(err)
	}
	waitState(gozk.StateExpired, 20*time.Second)
	waitState(gozk.StateHasSession, 20*time.Second)
	second, _ := capture.Session()
	if second == 0 || second == first || second != conn.SessionID() {
		t.Fatalf("after expiry: captured 0x%x (first 0x%x), client 0x%x", second, first, conn.SessionID())
	}
	if _, exp := capture.Counts(); exp < 1 {
		t.Fatalf("capture saw no expired ConnectResponse")
	}
	ok, _, err := conn.Exists(eph)
	if err != nil || ok {
		t.Fatalf("ephemeral node after expiry: exists=%v err=%v", ok, err)
	}
	// The old session cannot be expired twice.
	if err := ExpireSessionAt(testContext(t, 10*time.Second), e.Addr(0), first, nil); err == nil {
		t.Fatal("expiring a dead session with a wrong password succeeded")
	}
}

// TestBlackholeExpiresSession partitions a client with SetBlackhole for
// longer than its session timeout: the server expires the session on its
// own (the ephemeral node disappears for other clients) and the client,
// once traffic flows again, is told its session expired.
func TestBlackholeExpiresSession(t *testing.T) {
	e, err := Start(testContext(t, 90*time.Second), Config{Servers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	quiet := gozk.WithLogger(log.New(io.Discard, "", 0))
	capture := NewSessionCapture()
	conn, events, err := gozk.Connect([]string{e.ConnectString()}, 2*time.Second, gozk.WithDialer(capture.Dial), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	observer, _, err := gozk.Connect([]string{e.ConnectString()}, 6*time.Second, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer observer.Close()
	waitState := func(want gozk.State, d time.Duration) {
		t.Helper()
		timer := time.NewTimer(d)
		defer timer.Stop()
		for {
			select {
			case ev := <-events:
				if ev.Type == gozk.EventSession && ev.State == want {
					return
				}
			case <-timer.C:
				t.Fatalf("no %v event within %v", want, d)
			}
		}
	}
	waitState(gozk.StateHasSession, 20*time.Second)
	if _, err := conn.Create("/eph", nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	first, _ := capture.Session()
	capture.SetBlackhole(true)
	waitState(gozk.StateDisconnected, 10*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, _, err := observer.Exists("/eph")
		if err == nil && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ephemeral node of the partitioned session still there (err %v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	capture.SetBlackhole(false)
	waitState(gozk.StateExpired, 20*time.Second)
	waitState(gozk.StateHasSession, 20*time.Second)
	if second, _ := capture.Session(); second == first || second != conn.SessionID() {
		t.Fatalf("session after partition 0x%x (before 0x%x, client 0x%x)", second, first, conn.SessionID())
	}
}

// TestBlackholeBreaksTouchedConns: while the blackhole is on, writes vanish
// and dials fail; afterwards a connection that lost bytes fails instead of
// delivering an out-of-step stream, and one that lost nothing still works.
func TestBlackholeBreaksTouchedConns(t *testing.T) {
	s := NewSessionCapture()
	a1, b1 := net.Pipe()
	a2, b2 := net.Pipe()
	defer a1.Close()
	defer b1.Close()
	defer a2.Close()
	defer b2.Close()
	touched, untouched := &captureConn{Conn: a1, s: s}, &captureConn{Conn: a2, s: s}
	s.SetBlackhole(true)
	if _, err := s.Dial("tcp", "127.0.0.1:1", time.Second); err == nil {
		t.Fatal("Dial succeeded through the blackhole")
	}
	if n, err := touched.Write([]byte("lost")); n != 4 || err != nil {
		t.Fatalf("blackholed Write = %d, %v", n, err)
	}
	s.SetBlackhole(false)
	if _, err := touched.Write([]byte("x")); err == nil {
		t.Fatal("Write on a conn that lost bytes succeeded")
	}
	if _, err := touched.Read(make([]byte, 1)); err == nil {
		t.Fatal("Read on a conn that lost bytes succeeded")
	}
	go func() { _, _ = b2.Write([]byte("ok")) }()
	buf := make([]byte, 2)
	if n, err := untouched.Read(buf); err != nil || string(buf[:n]) != "ok" {
		t.Fatalf("untouched Read = %q, %v", buf[:n], err)
	}
}
