package network

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echoServer answers every frame with the same frame; a frame "close" makes it hang up, a
// frame "twice" is answered twice.
type echoServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func newEchoServer(t *testing.T) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &echoServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				for {
					r, err := ReadNetworkReceive(c, "", Unlimited)
					if err != nil {
						return
					}
					switch string(r.Payload()) {
					case "close":
						return
					case "twice":
						c.Write(frame("twice")) //nolint:errcheck
					}
					if _, err := c.Write(frame(string(r.Payload()))); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *echoServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func frame(payload string) []byte {
	b := AppendFrameHeader(nil)
	b = append(b, payload...)
	return NewNetworkSend("", b).Frame()
}

func send(dest, payload string) *NetworkSend {
	return NewNetworkSend(dest, append(AppendFrameHeader(nil), payload...))
}

// pollUntil polls until cond holds, failing after 10 s.
func pollUntil(t *testing.T, s *Selector, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := s.Poll(100); err != nil {
			t.Fatal(err)
		}
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 10 s")
}

func TestSelectorSendReceive(t *testing.T) {
	srv := newEchoServer(t)
	m := metrics.NewMetrics(nil, nil, nil, nil)
	s := NewSelector(SelectorConfig{Metrics: m, MetricGrpPrefix: "producer", MetricTags: map[string]string{"client-id": "c"}})
	defer s.Close()
	if err := s.Connect("0", srv.ln.Addr().String(), UseDefaultBufferSize, UseDefaultBufferSize); err != nil {
		t.Fatal(err)
	}
	if err := s.Connect("0", srv.ln.Addr().String(), -1, -1); err == nil {
		t.Fatal("a second connection with the same id must be refused")
	}
	pollUntil(t, s, func() bool { return len(s.Connected()) == 1 })
	if !s.IsChannelReady("0") {
		t.Fatal("channel not ready after connect")
	}
	var got []string
	sent := 0
	for i := 0; i < 100; i++ {
		sd := send("0", fmt.Sprintf("msg-%d", i))
		s.Send(sd)
		pollUntil(t, s, func() bool {
			sent += len(s.CompletedSends())
			for _, r := range s.CompletedReceives() {
				got = append(got, string(r.Payload()))
			}
			return len(got) == i+1 && sent == i+1
		})
		if !sd.Completed() {
			t.Fatal("send listed in CompletedSends but not Completed")
		}
	}
	if sent != 100 || got[99] != "msg-99" || got[0] != "msg-0" {
		t.Fatalf("sent %d, got %d (%q...)", sent, len(got), got[:2])
	}
	rate := m.Metric(m.MetricName("request-rate", "producer-metrics", "", map[string]string{"client-id": "c"}))
	if rate == nil || rate.Value() <= 0 {
		t.Fatalf("request-rate not recorded: %v", rate)
	}
	if km := m.Metric(m.MetricName("connection-count", "producer-metrics", "", map[string]string{"client-id": "c"})); km.Value() != 1 {
		t.Fatalf("connection-count %v", km.Value())
	}
	if s.Channel("0") == nil || m.GetSensor("node-0.latency") == nil {
		t.Fatal("per-node metrics not registered")
	}
}

// A muted channel delivers nothing more until unmuted; what the server sent meanwhile arrives
// in order afterwards.
func TestSelectorMute(t *testing.T) {
	srv := newEchoServer(t)
	s := NewSelector(SelectorConfig{})
	defer s.Close()
	s.Connect("a", srv.ln.Addr().String(), -1, -1) //nolint:errcheck
	pollUntil(t, s, func() bool { return len(s.Connected()) == 1 })
	// One round trip first, so that the channel's reader is back waiting in its read
	// when the channel is muted.
	s.Send(send("a", "once"))
	pollUntil(t, s, func() bool { return len(s.CompletedReceives()) == 1 })
	time.Sleep(20 * time.Millisecond)
	s.Mute("a")
	s.Send(send("a", "twice"))
	// The channel's reader was already waiting for bytes when it was muted: what it reads
	// is held back too, so nothing at all arrives while muted.
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		if err := s.Poll(50); err != nil {
			t.Fatal(err)
		}
		if n := len(s.CompletedReceives()); n > 0 {
			t.Fatalf("muted channel delivered %d receives", n)
		}
	}
	s.UnmuteAll()
	n := 0
	pollUntil(t, s, func() bool { n += len(s.CompletedReceives()); return n >= 2 })
	if n != 2 {
		t.Fatalf("%d receives after unmuting, want 2", n)
	}
}

// The server hanging up shows the connection in Disconnected; a send to it afterwards, and a
// send to an unknown id, show up there too. A failed connect as well.
func TestSelectorDisconnects(t *testing.T) {
	srv := newEchoServer(t)
	s := NewSelector(SelectorConfig{})
	defer s.Close()
	s.Connect("a", srv.ln.Addr().String(), -1, -1) //nolint:errcheck
	pollUntil(t, s, func() bool { return len(s.Connected()) == 1 })
	s.Send(send("a", "close"))
	pollUntil(t, s, func() bool { return len(s.Disconnected()) == 1 && s.Disconnected()[0] == "a" })
	if s.IsChannelReady("a") {
		t.Fatal("disconnected channel still ready")
	}
	s.Send(send("nowhere", "x"))
	if err := s.Poll(0); err != nil || len(s.Disconnected()) != 1 || s.Disconnected()[0] != "nowhere" {
		t.Fatalf("send to an unknown connection: %v %v", err, s.Disconnected())
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	s.Connect("dead", dead, -1, -1) //nolint:errcheck
	pollUntil(t, s, func() bool { return len(s.Disconnected()) == 1 && s.Disconnected()[0] == "dead" })
	// CloseConnection is not reported.
	s.Connect("b", srv.ln.Addr().String(), -1, -1) //nolint:errcheck
	pollUntil(t, s, func() bool { return len(s.Connected()) == 1 })
	s.CloseConnection("b")
	for i := 0; i < 3; i++ {
		s.Poll(50) //nolint:errcheck
		if len(s.Disconnected()) != 0 {
			t.Fatalf("CloseConnection reported: %v", s.Disconnected())
		}
	}
}

// A bad size prefix closes the connection (InvalidReceiveException), without allocating it.
func TestSelectorInvalidReceive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte{0xff, 0xff, 0xff, 0xf0}) //nolint:errcheck
		io.Copy(io.Discard, c)                  //nolint:errcheck
	}()
	s := NewSelector(SelectorConfig{MaxReceiveSize: 1000})
	s.Connect("x", ln.Addr().String(), -1, -1) //nolint:errcheck
	pollUntil(t, s, func() bool { return len(s.Disconnected()) == 1 })
	s.Close()
	<-done
}

func TestCheckReceiveSizeAndReads(t *testing.T) {
	if err := CheckReceiveSize(-1, Unlimited); !errors.Is(err, ErrInvalidReceive) || !strings.Contains(err.Error(), "Invalid receive (size = -1)") {
		t.Fatal(err)
	}
	if err := CheckReceiveSize(11, 10); err == nil || !strings.Contains(err.Error(), "Invalid receive (size = 11 larger than 10)") {
		t.Fatal(err)
	}
	if CheckReceiveSize(10, 10) != nil || CheckReceiveSize(1<<30, Unlimited) != nil {
		t.Fatal("valid sizes refused")
	}
	// A large frame arriving in full is read whole; one cut short is ErrUnexpectedEOF, after
	// allocating no more than what arrived (plus a chunk).
	big := bytes.Repeat([]byte{7}, 3*receiveChunk+5)
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, int32(len(big))) //nolint:errcheck
	b.Write(big)
	r, err := ReadNetworkReceive(&b, "s", Unlimited)
	if err != nil || !bytes.Equal(r.Payload(), big) || r.Source() != "s" {
		t.Fatalf("big frame: %v", err)
	}
	b.Reset()
	binary.Write(&b, binary.BigEndian, int32(1<<30)) //nolint:errcheck
	b.WriteString("short")
	if _, err := ReadNetworkReceive(&b, "s", Unlimited); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated frame: %v", err)
	}
	if _, err := ReadNetworkReceive(&bytes.Buffer{}, "s", Unlimited); err != io.EOF {
		t.Fatalf("empty stream: %v", err)
	}
}

// Wakeup from another goroutine ends a long Poll; idle connections are closed and reported.
func TestSelectorWakeupAndIdle(t *testing.T) {
	srv := newEchoServer(t)
	s := NewSelector(SelectorConfig{ConnectionsMaxIdleMs: 200})
	defer s.Close()
	go func() { time.Sleep(50 * time.Millisecond); s.Wakeup() }()
	start := time.Now()
	if err := s.Poll(60_000); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatal("Wakeup did not end Poll")
	}
	s.Connect("a", srv.ln.Addr().String(), -1, -1) //nolint:errcheck
	pollUntil(t, s, func() bool { return len(s.Connected()) == 1 })
	pollUntil(t, s, func() bool { return len(s.Disconnected()) == 1 })
	if s.IsChannelReady("a") {
		t.Fatal("idle connection not closed")
	}
	if err := s.Poll(-1); err == nil {
		t.Fatal("negative timeout accepted")
	}
}

func TestSelectorCloseWhileConnecting(t *testing.T) {
	// A dial that blocks until cancelled: Close must not wait for it forever.
	s := NewSelector(SelectorConfig{Dial: func(ctx context.Context, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	s.Connect("a", "ignored:1", -1, -1) //nolint:errcheck
	s.CloseConnection("a")
	s.Connect("a", "ignored:1", -1, -1) //nolint:errcheck
	s.Poll(0)                           //nolint:errcheck
	s.Close()
}
