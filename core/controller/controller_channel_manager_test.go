package controller

import (
	"testing"
	"time"

	"github.com/sirupsen/logrus"

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
