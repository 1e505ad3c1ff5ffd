package network

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/server/config"
)

// startHandlerServer runs a SocketServer whose handlers answer each request with answer(req).
func startHandlerServer(t testing.TB, mutate func(*SocketServerConfig), answer func(*Request) Send) *SocketServer {
	t.Helper()
	cfg := SocketServerConfig{
		Listeners:         []config.EndPoint{{Host: "127.0.0.1", Port: 0, ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT}},
		NumNetworkThreads: 2, QueuedMaxRequests: 16, SocketRequestMaxBytes: 1 << 20,
		MaxConnectionsPerIP: 1 << 30, ConnectionsMaxIdle: time.Minute,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	ss := NewSocketServer(cfg, quietLog())
	if err := ss.Startup(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case req := <-ss.RequestChannel.Requests():
					ss.RequestChannel.SendResponse(&Response{Request: req, Send: answer(req)})
				case <-stop:
					return
				}
			}
		}()
	}
	t.Cleanup(func() {
		ss.Shutdown()
		close(stop)
		wg.Wait()
	})
	return ss
}

func addrOf(ss *SocketServer) string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ss.BoundPort("PLAINTEXT"))))
}

// echoCorrelation answers with a frame carrying the correlation id and then body.
func echoCorrelation(req *Request, body []byte) ByteBufferSend {
	b := make([]byte, 8, 8+len(body))
	binary.BigEndian.PutUint32(b, uint32(4+len(body)))
	binary.BigEndian.PutUint32(b[4:], uint32(req.Header.CorrelationID))
	return append(b, body...)
}

// A client pipelining requests has one in flight at a time: the next reaches the handlers only
// after the previous one's response went out, as muting promises.
func TestPipelinedRequestsAreHandledOneAtATime(t *testing.T) {
	var inFlight sync.Map // connection id -> *atomic.Int32
	var overlaps atomic.Int32
	ss := startHandlerServer(t, nil, func(req *Request) Send {
		v, _ := inFlight.LoadOrStore(req.ConnectionID, new(atomic.Int32))
		n := v.(*atomic.Int32)
		if n.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(time.Millisecond)
		n.Add(-1) // the response is not queued yet: the next request must not be here before it
		return echoCorrelation(req, nil)
	})
	c, err := net.Dial("tcp", addrOf(ss))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 50
	var all []byte
	for i := 0; i < n; i++ {
		all = append(all, frame(18, 0, int32(i), "pipelined", nil)...)
	}
	go c.Write(all) // every request at once
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := 0; i < n; i++ {
		b, err := readFrame(c)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if got := int32(binary.BigEndian.Uint32(b)); got != int32(i) {
			t.Fatalf("response %d has correlation id %d", i, got)
		}
	}
	if o := overlaps.Load(); o != 0 {
		t.Fatalf("%d requests of one connection were handled while another was in flight", o)
	}
}

// A client that sends requests and then shuts its write side still gets every response before
// the broker closes: a muted channel is not read, so the end of stream is met only after the
// requests before it are answered.
func TestHalfClosedClientGetsItsResponses(t *testing.T) {
	ss := startHandlerServer(t, nil, func(req *Request) Send {
		time.Sleep(5 * time.Millisecond)
		return echoCorrelation(req, []byte("ok"))
	})
	c, err := net.Dial("tcp", addrOf(ss))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(append(frame(18, 0, 1, "h", nil), frame(18, 0, 2, "h", nil)...))
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := int32(1); i <= 2; i++ {
		b, err := readFrame(c)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if got := int32(binary.BigEndian.Uint32(b)); got != i || string(b[4:]) != "ok" {
			t.Fatalf("response %d: got correlation id %d body %q", i, got, b[4:])
		}
	}
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("after the responses: want EOF, got %v", err)
	}
}

// A good request followed by an oversized frame: the good one is answered, then the connection
// is closed without a response to the bad frame.
func TestGoodRequestBeforeABadFrameIsAnswered(t *testing.T) {
	ss := startHandlerServer(t, func(c *SocketServerConfig) { c.SocketRequestMaxBytes = 1024 }, func(req *Request) Send {
		time.Sleep(5 * time.Millisecond)
		return echoCorrelation(req, nil)
	})
	c, err := net.Dial("tcp", addrOf(ss))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(append(frame(18, 0, 9, "b", nil), 0x00, 0x10, 0x00, 0x01))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := readFrame(c)
	if err != nil || int32(binary.BigEndian.Uint32(b)) != 9 {
		t.Fatalf("the request before the bad frame: %x, %v", b, err)
	}
	expectClosed(t, c, "after the oversized frame")
}

// A response larger than the socket buffer, to a client that reads it late, goes out partly from
// the Processor and the rest from the writer goroutine, intact and in order with the next one.
func TestLargeResponseThroughAFullSocketBuffer(t *testing.T) {
	body := make([]byte, 1<<20)
	for i := range body {
		body[i] = byte(i * 7)
	}
	ss := startHandlerServer(t, func(c *SocketServerConfig) { c.SocketSendBufferBytes = 8 << 10 }, func(req *Request) Send {
		return echoCorrelation(req, body)
	})
	c, err := net.Dial("tcp", addrOf(ss))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(append(frame(18, 0, 1, "big", nil), frame(18, 0, 2, "big", nil)...))
	time.Sleep(100 * time.Millisecond) // let the broker fill the socket buffers
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for i := int32(1); i <= 2; i++ {
		b, err := readFrame(c)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		if got := int32(binary.BigEndian.Uint32(b)); got != i || !bytes.Equal(b[4:], body) {
			t.Fatalf("response %d: correlation id %d, body intact %v", i, got, bytes.Equal(b[4:], body))
		}
	}
}
