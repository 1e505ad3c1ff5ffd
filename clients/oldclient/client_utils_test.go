package oldclient

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseBrokerList(t *testing.T) {
	bs, err := ParseBrokerList("h1:9092 , [::1]:9093,,h3:1")
	if err != nil {
		t.Fatal(err)
	}
	want := []BrokerEndPoint{{0, "h1", 9092}, {1, "::1", 9093}, {2, "h3", 1}}
	if len(bs) != len(want) {
		t.Fatalf("%v", bs)
	}
	for i := range want {
		if bs[i] != want[i] {
			t.Fatalf("%d: %v, want %v", i, bs[i], want[i])
		}
	}
	if bs[1].ConnectionString() != "[::1]:9093" || bs[0].String() != "BrokerEndPoint(0,h1,9092)" {
		t.Fatalf("%s %s", bs[1].ConnectionString(), bs[0])
	}
	if _, err := ParseBrokerList("nohost"); err == nil || err.Error() != "Unable to parse nohost to a broker endpoint" {
		t.Fatalf("%v", err)
	}
}

// TestBlockingChannelCancel: a send waiting for an answer that never comes ends with its
// context and leaves the channel disconnected; FetchTopicMetadata reports every broker failing.
func TestBlockingChannelCancel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c // read nothing, answer nothing
		}
	}()
	port := int32(ln.Addr().(*net.TCPAddr).Port)
	ch := NewBlockingChannel("127.0.0.1", port, "t", time.Minute)
	if err := ch.Connect(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = ch.SendContext(ctx, &protocol.MetadataRequest{Topics: []string{}}, &protocol.MetadataResponse{})
	if !errors.Is(err, context.DeadlineExceeded) || ch.IsConnected() {
		t.Fatalf("err %v, connected %v", err, ch.IsConnected())
	}
	if err := ch.Send(&protocol.MetadataRequest{}, &protocol.MetadataResponse{}); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("send on a disconnected channel: %v", err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	_, err = FetchTopicMetadata(ctx2, []string{"t"}, []BrokerEndPoint{{0, "127.0.0.1", port}}, "t", time.Minute, 7, nil)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("metadata: %v", err)
	}
	ln.Close()
	for c := range accepted {
		c.Close()
	}
}
