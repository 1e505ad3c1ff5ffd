package server

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/cluster"
)

// leaderStub answers ListOffsets requests on a local port; answer decides, per request (from 1),
// whether to answer and with which correlation id.
func leaderStub(t *testing.T, answer func(n int, corr int32) (int32, bool)) (cluster.BrokerEndPoint, *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	var seen atomic.Int32
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				for {
					rcv, err := network.ReadNetworkReceive(c, "", network.Unlimited)
					if err != nil {
						return
					}
					h, _, err := protocol.ReadRequestHeader(rcv.Payload())
					if err != nil {
						return
					}
					corr, ok := answer(int(seen.Add(1)), h.CorrelationID)
					if !ok {
						continue
					}
					resp := &protocol.ListOffsetResponse{Version: h.ApiVersion, Responses: []protocol.ListOffsetResponseTopic{{Topic: "t",
						PartitionResponses: []protocol.ListOffsetResponseTopicPartition{{Partition: 0, Offset: 42, Timestamp: -1}}}}}
					if _, err := protocol.WriteResponse(c, protocol.ResponseHeader{CorrelationID: corr}, resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range open {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return cluster.BrokerEndPoint{ID: 2, Host: "127.0.0.1", Port: int32(ln.Addr().(*net.TCPAddr).Port)}, &conns
}

func listOffsetsRequest() *protocol.ListOffsetRequest {
	return &protocol.ListOffsetRequest{Version: 1, ReplicaID: 1, Topics: []protocol.ListOffsetRequestTopic{{Topic: "t",
		Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: 0, Timestamp: -1}}}}}
}

// The follower's exchanges go through its NetworkClient: a response with another correlation
// id fails the exchange as a disconnection and closes the connection, and the next request
// reconnects; a cancelled ctx ends an unanswered exchange without waiting for
// request.timeout.ms; a closed fetcher refuses requests.
func TestReplicaFetcherBlockingSend(t *testing.T) {
	leader, conns := leaderStub(t, func(n int, corr int32) (int32, bool) {
		switch n {
		case 1:
			return corr + 1000, true
		case 3:
			return 0, false // never answered
		}
		return corr, true
	})
	b := newReplicaFetcherBlockingSend(leader, "ReplicaFetcherThread-0-2", 10*time.Second, time.Hour, -1, 0, nil, discardEntry())
	ctx := context.Background()
	if _, err := b.sendRequest(ctx, listOffsetsRequest()); !errors.Is(err, clients.ErrDisconnected) {
		t.Fatalf("mismatched correlation id: %v", err)
	}
	m, err := b.sendRequest(ctx, listOffsetsRequest())
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*protocol.ListOffsetResponse); !ok || r.Responses[0].PartitionResponses[0].Offset != 42 {
		t.Fatalf("response %+v", m)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (a new one after the mismatch)", n)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := b.sendRequest(cctx, listOffsetsRequest()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled exchange: %v", err)
	}
	b.close()
	if _, err := b.sendRequest(ctx, listOffsetsRequest()); !errors.Is(err, errFetcherClosed) {
		t.Fatalf("after close: %v", err)
	}
}
