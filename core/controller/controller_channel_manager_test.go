package controller

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestRequestSendThreadReconnects: a request whose connection breaks before
// the response is sent again on a new connection after the backoff, and its
// callback runs once; requests keep their order.
func TestRequestSendThreadReconnects(t *testing.T) {
	b := newFakeBroker(t, 7)
	b.mu.Lock()
	b.dropNext = 2
	b.mu.Unlock()
	scl, _ := stateChangeLogger(t)
	m := newControllerChannelManager(1, func() int32 { return 3 }, "PLAINTEXT", time.Second, time.Second,
		[]zkutils.BrokerInfo{b.info()}, logrus.NewEntry(newLogger(t, logrus.ErrorLevel)), logrus.NewEntry(scl), nil)
	m.Startup()
	defer m.Shutdown()
	got := make(chan protocol.Message, 4)
	start := time.Now()
	m.SendRequest(7, &protocol.UpdateMetadataRequest{Version: 3, ControllerID: 1, ControllerEpoch: 3}, func(r protocol.Message) { got <- r })
	m.SendRequest(7, &protocol.StopReplicaRequest{ControllerID: 1, ControllerEpoch: 3, Partitions: []protocol.StopReplicaRequestPartition{{Topic: "t"}}},
		func(r protocol.Message) { got <- r })
	for i, want := range []protocol.ApiKeys{protocol.UpdateMetadata, protocol.StopReplica} {
		select {
		case r := <-got:
			if r.Key() != want {
				t.Fatalf("response %d is %v, want %v", i, r.Key(), want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no response")
		}
	}
	if took := time.Since(start); took < 2*reconnectBackoff {
		t.Errorf("two reconnects took only %v", took)
	}
	if n := len(b.snapshot()); n != 4 {
		t.Errorf("broker saw %d requests, want 4 (two dropped, two answered)", n)
	}
	// A broker without a channel: the request is dropped.
	m.SendRequest(8, &protocol.UpdateMetadataRequest{Version: 3}, func(protocol.Message) { t.Error("callback for an unknown broker") })
	// Removing the broker stops its goroutine; adding it back reconnects.
	m.RemoveBroker(7)
	m.AddBroker(b.info())
	m.SendRequest(7, &protocol.UpdateMetadataRequest{Version: 3}, func(r protocol.Message) { got <- r })
	zktest.WaitUntilTrue(t, func() bool { return len(got) == 1 }, "no response after re-adding the broker", 10*time.Second)
}

// rawBroker accepts connections and hands each request frame to answer, which writes what it
// likes (or nothing) on the connection.
type rawBroker struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
	seen  int
}

func newRawBroker(t *testing.T, answer func(c net.Conn, n int, h protocol.RequestHeader, req protocol.Message)) *rawBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &rawBroker{ln: ln}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
			b.wg.Add(1)
			go func() {
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
					b.seen++
					n := b.seen
					b.mu.Unlock()
					answer(c, n, h, req)
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		b.mu.Lock()
		for _, c := range b.conns {
			_ = c.Close()
		}
		b.mu.Unlock()
		b.wg.Wait()
	})
	return b
}

func (b *rawBroker) info(id int32) zkutils.BrokerInfo {
	return zkutils.NewBrokerInfo(id, 4, []zkutils.RegisteredEndPoint{{ListenerName: "PLAINTEXT", SecurityProtocol: common.PLAINTEXT,
		Host: "127.0.0.1", Port: int32(b.ln.Addr().(*net.TCPAddr).Port)}}, -1, "", time.Now().UnixMilli())
}

// A response whose correlation id is not the request's closes the connection (NetworkClient's
// one rule for every client); the request is sent again on a new connection and its callback
// gets the good answer once.
func TestRequestSendThreadCorrelationMismatchReconnects(t *testing.T) {
	b := newRawBroker(t, func(c net.Conn, n int, h protocol.RequestHeader, req protocol.Message) {
		corr := h.CorrelationID
		if n == 1 {
			corr += 1000
		}
		_, _ = protocol.WriteResponse(c, protocol.ResponseHeader{CorrelationID: corr}, &protocol.UpdateMetadataResponse{Version: req.GetVersion()})
	})
	scl, _ := stateChangeLogger(t)
	m := newControllerChannelManager(1, func() int32 { return 3 }, "PLAINTEXT", time.Second, 30*time.Second,
		[]zkutils.BrokerInfo{b.info(7)}, logrus.NewEntry(newLogger(t, logrus.ErrorLevel)), logrus.NewEntry(scl), nil)
	m.Startup()
	defer m.Shutdown()
	got := make(chan protocol.Message, 2)
	m.SendRequest(7, &protocol.UpdateMetadataRequest{Version: 3, ControllerID: 1, ControllerEpoch: 3}, func(r protocol.Message) { got <- r })
	zktest.WaitUntilTrue(t, func() bool { return len(got) == 1 }, "no response after the mismatched one", 10*time.Second)
	b.mu.Lock()
	seen, conns := b.seen, len(b.conns)
	b.mu.Unlock()
	if seen != 2 || conns != 2 {
		t.Errorf("broker saw %d requests on %d connections, want 2 on 2", seen, conns)
	}
}

// Shutdown does not wait for request.timeout.ms when the broker never answers: the blocked
// exchange ends with the thread's context.
func TestRequestSendThreadShutdownWhileWaiting(t *testing.T) {
	b := newRawBroker(t, func(net.Conn, int, protocol.RequestHeader, protocol.Message) {})
	scl, _ := stateChangeLogger(t)
	m := newControllerChannelManager(1, func() int32 { return 3 }, "PLAINTEXT", time.Second, time.Hour,
		[]zkutils.BrokerInfo{b.info(7)}, logrus.NewEntry(newLogger(t, logrus.ErrorLevel)), logrus.NewEntry(scl), nil)
	m.Startup()
	m.SendRequest(7, &protocol.UpdateMetadataRequest{Version: 3}, func(protocol.Message) { t.Error("callback without a response") })
	zktest.WaitUntilTrue(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.seen == 1 }, "the request never arrived", 10*time.Second)
	done := make(chan struct{})
	go func() { m.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown waited for the unanswered request")
	}
}
