package clients

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/network"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestLeastLoadedNodeAndConnectionStates(t *testing.T) {
	s := NewClusterConnectionStates(100)
	if !s.CanConnect("1", 0) || s.IsBlackedOut("1", 0) || s.ConnectionDelay("1", 0) != 0 {
		t.Fatal("unknown node")
	}
	s.Connecting("1", 0)
	if s.CanConnect("1", 10) || !s.IsConnecting("1") || s.ConnectionDelay("1", 10) != 1<<63-1 {
		t.Fatal("connecting")
	}
	s.Disconnected("1", 20)
	if s.CanConnect("1", 50) || !s.IsBlackedOut("1", 50) || s.ConnectionDelay("1", 50) != 70 || !s.CanConnect("1", 120) {
		t.Fatal("backoff")
	}
	md := NewMetadata(100, 300000, false, nil)
	nodes := []common.Node{{ID: 1, Host: "127.0.0.1", Port: 1}, {ID: 2, Host: "127.0.0.1", Port: 2}}
	md.Update(common.NewCluster("", nodes, nil, nil, nil), nil, 0)
	c := NewNetworkClient(network.NewSelector(network.SelectorConfig{}), md, NetworkClientConfig{MaxInFlightRequestsPerConnection: 5,
		ReconnectBackoffMs: 50, RequestTimeoutMs: 30000})
	defer c.Close()
	c.connectionStates.Connecting("1", 0)
	c.connectionStates.Disconnected("1", common.SystemTime{}.Milliseconds())
	for i := 0; i < 20; i++ {
		if n := c.LeastLoadedNode(common.SystemTime{}.Milliseconds()); n == nil || n.ID != 2 {
			t.Fatalf("least loaded with node 1 blacked out: %v", n)
		}
	}
	c.connectionStates.Disconnected("2", common.SystemTime{}.Milliseconds())
	if n := c.LeastLoadedNode(common.SystemTime{}.Milliseconds()); n != nil {
		t.Fatalf("every node blacked out: %v", n)
	}
	if _, err := ParseAndValidateAddresses([]string{"nohostport"}); err == nil || err.Error() != "Invalid url in bootstrap.servers: nohostport" {
		t.Fatal(err)
	}
	if _, err := ParseAndValidateAddresses([]string{"", " "}); err == nil || err.Error() != "No resolvable bootstrap urls given in bootstrap.servers" {
		t.Fatal(err)
	}
	if a, err := ParseAndValidateAddresses([]string{"[::1]:9092", "localhost:1"}); err != nil || a[0] != "[::1]:9092" {
		t.Fatal(a, err)
	}
}
