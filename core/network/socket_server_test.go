package network

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
)

// Kafka 0.10.2 test mirrored here: SocketServerTest (core/src/test/scala/unit/kafka/network):
//   simpleRequest                          -> TestPipelinedRequestsAnsweredInOrder
//   tooBigRequestIsRejected                -> TestBadAndGoodClientsConcurrently (oversized frames)
//   testMaxConnectionsPerIp                -> TestMaxConnectionsPerIP
//   testMaxConnectionsPerIPOverrides       -> TestMaxConnectionsPerIP (override case)
//   testIdleConnection (connections.max.idle.ms) -> TestIdleConnectionsAreReaped
//   closing on an invalid request          -> TestBadAndGoodClientsConcurrently

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func quietLog() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	if os.Getenv("ZKAFKA_TEST_LOG") != "" {
		l.SetOutput(os.Stderr)
		l.SetLevel(logrus.DebugLevel)
	}
	return logrus.NewEntry(l).WithField("logger", "kafka.network.SocketServer")
}

// testServer runs a SocketServer with a handler pool that answers ApiVersions with the real 0.10.2
// body and any other request with an ApiVersions-shaped body (the tests only check framing and
// correlation ids); a request whose client id is "slow" is delayed to exercise ordering.
type testServer struct {
	ss   *SocketServer
	addr string
	stop chan struct{}
	wg   sync.WaitGroup
	seen atomic.Int64
}

func startServer(t *testing.T, mutate func(*SocketServerConfig)) *testServer {
	t.Helper()
	cfg := SocketServerConfig{
		Listeners:         []config.EndPoint{{Host: "127.0.0.1", Port: 0, ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT}},
		NumNetworkThreads: 3, QueuedMaxRequests: 16, SocketRequestMaxBytes: 1 << 20,
		MaxConnectionsPerIP: 1 << 30, ConnectionsMaxIdle: time.Minute,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	ts := &testServer{ss: NewSocketServer(cfg, quietLog()), stop: make(chan struct{})}
	if err := ts.ss.Startup(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	ts.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ts.ss.BoundPort("PLAINTEXT"))))
	for i := 0; i < 4; i++ { // KafkaRequestHandlerPool stand-in
		ts.wg.Add(1)
		go func() {
			defer ts.wg.Done()
			for {
				select {
				case req := <-ts.ss.RequestChannel.Requests():
					ts.seen.Add(1)
					if req.Header.ClientIDOrEmpty() == "slow" {
						time.Sleep(time.Duration(rand.Intn(5)) * time.Millisecond)
					}
					resp := protocol.ApiVersionsResponseFor(0)
					if req.Header.ApiKey == protocol.ApiVersions {
						resp = protocol.ApiVersionsResponseFor(req.Header.ApiVersion)
					}
					ts.ss.RequestChannel.SendResponse(&Response{Request: req, Send: NewResponseSend(req.Header.CorrelationID, resp)})
				case <-ts.stop:
					return
				}
			}
		}()
	}
	t.Cleanup(func() {
		ts.ss.Shutdown()
		close(ts.stop)
		ts.wg.Wait()
	})
	return ts
}

func frame(apiKey, version int16, corr int32, clientID string, body []byte) []byte {
	h := protocol.RequestHeader{ApiKey: protocol.ApiKeys(apiKey), ApiVersion: version, CorrelationID: corr, ClientID: &clientID}
	b := h.AppendTo(make([]byte, 4))
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func readFrame(c net.Conn) ([]byte, error) {
	var sz [4]byte
	if _, err := io.ReadFull(c, sz[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(sz[:]))
	_, err := io.ReadFull(c, b)
	return b, err
}

// expectClosed asserts the server closes c without sending a response.
func expectClosed(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, err := c.Read(make([]byte, 1))
	if n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("%s: want the connection closed without a response, got n=%d err=%v", what, n, err)
	}
}

// goodClient pipelines n requests and checks every response arrives, in order, with its
// correlation id, and that an ApiVersions v0 answer is the exact 0.10.2 table.
func goodClient(addr string, n int, clientID string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	want := protocol.ApiVersionsResponseDefault().AppendTo(nil)
	go func() {
		for i := 0; i < n; i++ {
			c.Write(frame(18, 0, int32(i), clientID, nil))
		}
	}()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for i := 0; i < n; i++ {
		b, err := readFrame(c)
		if err != nil {
			return fmt.Errorf("response %d: %w", i, err)
		}
		if got := int32(binary.BigEndian.Uint32(b)); got != int32(i) {
			return fmt.Errorf("response %d carries correlation id %d: out of order", i, got)
		}
		if string(b[4:]) != string(want) {
			return fmt.Errorf("response %d body differs from the ApiVersions table", i)
		}
	}
	return nil
}

func TestPipelinedRequestsAnsweredInOrder(t *testing.T) {
	ts := startServer(t, nil)
	if err := goodClient(ts.addr, 200, "slow"); err != nil {
		t.Fatal(err)
	}
}

func TestApiVersionsOfUnsupportedVersionGetsError35InV0Layout(t *testing.T) {
	ts := startServer(t, nil)
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(frame(18, 3, 7, "librdkafka", []byte{1, 2, 3})) // a v3 body this broker cannot read
	b, err := readFrame(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0, 0, 0, 7, 0x00, 0x23, 0, 0, 0, 0}; string(b) != string(want) {
		t.Fatalf("got % x, want % x", b, want)
	}
}

// TestBadAndGoodClientsConcurrently: garbage, negative and oversized sizes, truncated frames,
// unknown api keys, unsupported versions, undecodable bodies and slow-loris writers, all at once,
// while good clients pipeline requests; the bad ones are closed, the good ones are unaffected.
func TestBadAndGoodClientsConcurrently(t *testing.T) {
	ts := startServer(t, func(c *SocketServerConfig) { c.SocketRequestMaxBytes = 64 * 1024 })
	bad := map[string][]byte{
		"negative size":       {0xff, 0xff, 0xff, 0xf0},
		"oversized frame":     {0x00, 0x10, 0x00, 0x01},
		"unknown api key":     frame(99, 0, 1, "x", nil),
		"negative api key":    frame(-3, 0, 1, "x", nil),
		"unsupported version": frame(3, 9, 1, "x", []byte{0, 0, 0, 0}),
		"undecodable body":    frame(3, 0, 1, "x", []byte{0x7f, 0xff, 0xff, 0xff}),
		"short header":        {0, 0, 0, 3, 0, 18, 0},
		"bad client id len":   {0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 0x7f, 0xff},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for round := 0; round < 3; round++ {
		for name, b := range bad {
			wg.Add(1)
			go func(name string, b []byte) {
				defer wg.Done()
				c, err := net.Dial("tcp", ts.addr)
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				c.Write(b)
				expectClosed(t, c, name)
			}(name, b)
		}
		for i := 0; i < 8; i++ { // random garbage
			wg.Add(1)
			go func(seed int64) {
				defer wg.Done()
				c, err := net.Dial("tcp", ts.addr)
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				g := make([]byte, 300)
				rand.New(rand.NewSource(seed)).Read(g)
				g[0] = 0x80 | g[0] // negative size: always invalid, so the close is deterministic
				c.Write(g)
				expectClosed(t, c, "garbage")
			}(int64(round*100 + i))
		}
		for i := 0; i < 4; i++ { // truncated frame, then the client goes away
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("tcp", ts.addr)
				if err != nil {
					errs <- err
					return
				}
				f := frame(18, 0, 1, "t", nil)
				c.Write(f[:len(f)-3])
				c.Close()
			}()
		}
		for i := 0; i < 6; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				if err := goodClient(ts.addr, 100, "good-"+strconv.Itoa(i)); err != nil {
					errs <- err
				}
			}(i)
		}
	}
	// Slow loris: dribbles a valid frame a byte at a time; it must be served in the end and must
	// not hold up anyone else meanwhile (the good clients above finish first).
	loris, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer loris.Close()
	lorisDone := make(chan error, 1)
	go func() {
		for _, by := range frame(18, 0, 42, "loris", nil) {
			if _, err := loris.Write([]byte{by}); err != nil {
				lorisDone <- err
				return
			}
			time.Sleep(15 * time.Millisecond)
		}
		b, err := readFrame(loris)
		if err == nil && binary.BigEndian.Uint32(b) != 42 {
			err = fmt.Errorf("loris got correlation id %d", binary.BigEndian.Uint32(b))
		}
		lorisDone <- err
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := <-lorisDone; err != nil {
		t.Fatalf("slow loris: %v", err)
	}
	// The broker is still healthy after all of it.
	if err := goodClient(ts.addr, 10, "after"); err != nil {
		t.Fatal(err)
	}
	loris.Close()
	zktest.WaitUntilTrue(t, func() bool { return ts.ss.ConnectionCount() == 0 }, "connections to drain", 10*time.Second)
}

func TestIdleConnectionsAreReaped(t *testing.T) {
	ts := startServer(t, func(c *SocketServerConfig) { c.ConnectionsMaxIdle = 200 * time.Millisecond })
	idle, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	start := time.Now()
	expectClosed(t, idle, "idle connection")
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Fatalf("closed after %v, before connections.max.idle.ms", el)
	}
	// A connection that keeps talking is not reaped: it talks every quarter of the idle time,
	// for two and a half idle times. (A server of its own with a longer idle time, so that a
	// slow round trip on a loaded machine, under the race detector, is not taken for silence.)
	const maxIdle = time.Second
	ts2 := startServer(t, func(c *SocketServerConfig) { c.ConnectionsMaxIdle = maxIdle })
	busy, err := net.Dial("tcp", ts2.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for i := 0; i < 10; i++ {
		busy.Write(frame(18, 0, int32(i), "busy", nil))
		if _, err := readFrame(busy); err != nil {
			t.Fatalf("busy connection reaped at %d: %v", i, err)
		}
		time.Sleep(maxIdle / 4)
	}
}

func TestMaxConnectionsPerIP(t *testing.T) {
	for _, tc := range []struct {
		name      string
		max       int32
		overrides map[string]int32
		want      int
	}{
		{"default", 2, nil, 2},
		{"override", 2, map[string]int32{"127.0.0.1": 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, func(c *SocketServerConfig) {
				c.MaxConnectionsPerIP, c.MaxConnectionsPerIPOverrides = tc.max, tc.overrides
			})
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for i := 0; i < tc.want; i++ {
				c, err := net.Dial("tcp", ts.addr)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
				c.Write(frame(18, 0, 1, "q", nil))
				if _, err := readFrame(c); err != nil {
					t.Fatalf("connection %d within the quota refused: %v", i, err)
				}
			}
			extra, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer extra.Close()
			expectClosed(t, extra, "connection over max.connections.per.ip")
			conns[0].Close()
			conns = conns[1:]
			zktest.WaitUntilTrue(t, func() bool { return ts.ss.ConnectionCount() == tc.want-1 }, "quota released", 10*time.Second)
			again, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, again)
			again.Write(frame(18, 0, 1, "q", nil))
			if _, err := readFrame(again); err != nil {
				t.Fatalf("connection after a slot freed up refused: %v", err)
			}
		})
	}
}
