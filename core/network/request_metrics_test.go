package network

import (
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zktest"
)

// metricsServer runs a SocketServer with a registry and one handler that answers every request
// with an ApiVersions body, except: client id "noop" gets NoOperation (acks=0 style), "slow"
// spends 30 ms in the handler before answering, "close" gets CloseConnection.
func metricsServer(t *testing.T) (*SocketServer, *metrics.Registry, string) {
	t.Helper()
	reg := metrics.NewRegistry(nil)
	cfg := SocketServerConfig{
		Listeners:         []config.EndPoint{{Host: "127.0.0.1", Port: 0, ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT}},
		NumNetworkThreads: 2, QueuedMaxRequests: 16, SocketRequestMaxBytes: 1 << 20,
		MaxConnectionsPerIP: 1 << 30, ConnectionsMaxIdle: time.Minute, Metrics: reg,
	}
	ss := NewSocketServer(cfg, quietLog())
	if err := ss.Startup(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case req := <-ss.RequestChannel.Requests():
				req.DequeueTime = time.Now()
				switch req.Header.ClientIDOrEmpty() {
				case "noop":
					ss.RequestChannel.NoOperation(req)
					continue
				case "close":
					ss.RequestChannel.CloseConnection(req)
					continue
				case "slow":
					time.Sleep(30 * time.Millisecond)
				}
				req.MarkAPILocalComplete()
				ss.RequestChannel.SendResponse(&Response{Request: req,
					Send: NewResponseSend(req.Header.CorrelationID, protocol.ApiVersionsResponseFor(0))})
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() {
		ss.Shutdown()
		close(stop)
		wg.Wait()
	})
	return ss, reg, net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ss.BoundPort("PLAINTEXT"))))
}

func histCount(reg *metrics.Registry, name, request string) int64 {
	h := reg.Histogram("kafka.network:type=RequestMetrics,name=" + name + ",request=" + request)
	if h == nil {
		return -1
	}
	return h.Count()
}

func requestsPerSec(reg *metrics.Registry, request string) int64 {
	m := reg.Meter("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=" + request)
	if m == nil {
		return -1
	}
	return m.Count()
}

func fetchBody(replicaID int32) []byte {
	return (&protocol.FetchRequest{Version: 0, ReplicaID: replicaID, MaxWaitTime: 0, MinBytes: 0}).AppendTo(nil)
}

// TestRequestMetricsRecorded: every request label's meter and seven histograms exist from the
// start; a completed request marks RequestsPerSec and each histogram once under its ApiKeys name
// (fetches also under FetchConsumer or FetchFollower); the handler's time shows in LocalTimeMs; a
// NoOperation, a CloseConnection and a response to a vanished connection all count; the queue and
// idle gauges are registered.
func TestRequestMetricsRecorded(t *testing.T) {
	_, reg, addr := metricsServer(t)

	names := reg.Names()
	perRequest := 0
	for _, n := range names {
		if strings.HasPrefix(n, "kafka.network:type=RequestMetrics,") {
			perRequest++
		}
	}
	if want := (int(protocol.MaxApiKey) + 1 + 2) * 8; perRequest != want {
		t.Fatalf("%d RequestMetrics registered, want %d (21 api keys + FetchConsumer + FetchFollower, 8 each)", perRequest, want)
	}
	for _, n := range []string{
		"kafka.network:type=RequestChannel,name=RequestQueueSize",
		"kafka.network:type=RequestChannel,name=ResponseQueueSize",
		"kafka.network:type=RequestChannel,name=ResponseQueueSize,processor=0",
		"kafka.network:type=RequestChannel,name=ResponseQueueSize,processor=1",
		"kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent",
		"kafka.network:type=Processor,name=IdlePercent,networkProcessor=1",
		"kafka.network:type=RequestMetrics,name=ThrottleTimeMs,request=Offsets",
	} {
		if reg.Get(n) == nil {
			t.Errorf("%s not registered", n)
		}
	}

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	roundTrip := func(f []byte) {
		t.Helper()
		if _, err := c.Write(f); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := readFrame(c); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 5; i++ {
		roundTrip(frame(18, 0, int32(i), "fast", nil))
	}
	roundTrip(frame(18, 0, 5, "slow", nil))
	roundTrip(frame(1, 0, 6, "consumer", fetchBody(-1)))
	roundTrip(frame(1, 0, 7, "replica", fetchBody(2)))
	// acks=0 style: no response, then the connection keeps serving.
	c.Write(frame(18, 0, 8, "noop", nil))
	roundTrip(frame(18, 0, 9, "fast", nil))

	zktest.WaitUntilTrue(t, func() bool { return histCount(reg, "TotalTimeMs", "ApiVersions") == 8 }, "ApiVersions metrics", 10*time.Second)
	if got := requestsPerSec(reg, "ApiVersions"); got != 8 {
		t.Fatalf("ApiVersions RequestsPerSec = %d, want 8", got)
	}
	for _, h := range []string{"RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ThrottleTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs"} {
		if got := histCount(reg, h, "ApiVersions"); got != 8 {
			t.Errorf("ApiVersions %s count = %d, want 8", h, got)
		}
	}
	local := reg.Histogram("kafka.network:type=RequestMetrics,name=LocalTimeMs,request=ApiVersions")
	total := reg.Histogram("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=ApiVersions")
	if local.Max() < 30 || total.Max() < 30 {
		t.Errorf("the slow request's 30 ms in the handler: LocalTimeMs max %d, TotalTimeMs max %d", local.Max(), total.Max())
	}
	if remote := reg.Histogram("kafka.network:type=RequestMetrics,name=RemoteTimeMs,request=ApiVersions"); remote.Max() >= 30 {
		t.Errorf("RemoteTimeMs max %d: the handler's time leaked into the remote time of requests that never wait in a purgatory", remote.Max())
	}
	zktest.WaitUntilTrue(t, func() bool { return requestsPerSec(reg, "Fetch") == 2 }, "Fetch metrics", 10*time.Second)
	if requestsPerSec(reg, "FetchConsumer") != 1 || requestsPerSec(reg, "FetchFollower") != 1 {
		t.Errorf("FetchConsumer %d, FetchFollower %d, want 1 each", requestsPerSec(reg, "FetchConsumer"), requestsPerSec(reg, "FetchFollower"))
	}
	if requestsPerSec(reg, "Produce") != 0 {
		t.Error("Produce counted without a produce request")
	}

	// CloseConnection counts, and so does a response whose client has gone.
	cc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	cc.Write(frame(3, 0, 1, "close", []byte{0, 0, 0, 0})) // Metadata v0, no topics
	expectClosed(t, cc, "CloseConnection")
	cc.Close()
	gone, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	gone.Write(frame(18, 0, 1, "slow", nil))
	time.Sleep(5 * time.Millisecond)
	gone.Close()
	zktest.WaitUntilTrue(t, func() bool {
		return requestsPerSec(reg, "ApiVersions") == 9 && requestsPerSec(reg, "Metadata") == 1
	}, "CloseConnection and vanished-client requests counted", 10*time.Second)

	if v, ok := reg.GaugeValue("kafka.network:type=RequestChannel,name=RequestQueueSize"); !ok || v != 0 {
		t.Errorf("RequestQueueSize = %v %v", v, ok)
	}
	// Every response handed to a connection was taken up (written, dropped with its closed
	// connection, or a CloseConnection): none is left counted as waiting.
	if v, ok := reg.GaugeValue("kafka.network:type=RequestChannel,name=ResponseQueueSize"); !ok || v != 0 {
		t.Errorf("ResponseQueueSize = %v %v", v, ok)
	}
	if v, ok := reg.GaugeValue("kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent"); !ok || v < 0 || v > 1 {
		t.Errorf("NetworkProcessorAvgIdlePercent = %v %v, want a fraction", v, ok)
	}
}

// TestIdleMeterCountsWaiting: a Processor that only waits is fully idle once the meter ticks.
func TestIdleMeterCountsWaiting(t *testing.T) {
	im := &idleMeter{m: metrics.NewKafkaMetricsGroup(nil, "kafka.network", "Processor").NewMeter("IdlePercent", "percent", time.Nanosecond)}
	start := im.begin()
	time.Sleep(20 * time.Millisecond)
	im.end(start)
	if im.m.Count() < int64(20*time.Millisecond) {
		t.Fatalf("idle ns = %d, want at least 20ms", im.m.Count())
	}
	var off *idleMeter
	off.end(off.begin()) // metrics off: no-ops
}
