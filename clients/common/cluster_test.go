package common

import "testing"

// Kafka's UtilsTest.testMurmur2 golden values (added to Kafka's tests after 0.10.2; the
// function itself is unchanged since 0.8.2).
func TestMurmur2Golden(t *testing.T) {
	cases := []struct {
		in   []byte
		want int32
	}{
		{[]byte("21"), -973932308},
		{[]byte("foobar"), -790332482},
		{[]byte("a-little-bit-long-string"), -985981536},
		{[]byte("a-little-bit-longer-string"), -1486304829},
		{[]byte("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971},
		{[]byte{'a', 'b', 'c'}, 479470107},
	}
	for _, c := range cases {
		if got := Murmur2(c.in); got != c.want {
			t.Errorf("Murmur2(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	if Murmur2(nil) != Murmur2([]byte{}) {
		t.Error("nil and empty differ")
	}
}

func TestClusterIndexes(t *testing.T) {
	n0 := Node{ID: 0, Host: "h0", Port: 9092}
	n1 := Node{ID: 1, Host: "h1", Port: 9092}
	c := NewCluster("cid", []Node{n0, n1}, []PartitionInfo{
		{Topic: "t", Partition: 1, Leader: nil, Replicas: []Node{n0, n1}},
		{Topic: "t", Partition: 0, Leader: &n1, Replicas: []Node{n0, n1}},
		{Topic: "u", Partition: 0, Leader: &n0},
	}, []string{"secret"}, []string{"__consumer_offsets"})
	if n, ok := c.PartitionCountForTopic("t"); !ok || n != 2 {
		t.Fatalf("count t: %d %v", n, ok)
	}
	if _, ok := c.PartitionCountForTopic("none"); ok {
		t.Fatal("unknown topic counted")
	}
	if l := c.LeaderFor(TopicPartition{"t", 0}); l == nil || l.ID != 1 {
		t.Fatalf("leader t-0: %v", l)
	}
	if l := c.LeaderFor(TopicPartition{"t", 1}); l != nil {
		t.Fatalf("leader t-1: %v", l)
	}
	if av := c.AvailablePartitionsForTopic("t"); len(av) != 1 || av[0].Partition != 0 {
		t.Fatalf("available: %v", av)
	}
	if len(c.PartitionsForNode(0)) != 1 || len(c.PartitionsForNode(1)) != 1 {
		t.Fatal("by node")
	}
	if !c.IsUnauthorized("secret") || c.ClusterID() != "cid" || c.IsBootstrapConfigured() {
		t.Fatal("flags")
	}
	b := BootstrapCluster([]string{"a:1", "b:2"})
	if !b.IsBootstrapConfigured() || len(b.Nodes()) != 2 {
		t.Fatal("bootstrap")
	}
	if n, ok := b.NodeByID(-2); !ok || n.Host != "b" || n.Port != 2 {
		t.Fatalf("bootstrap node -2: %v", n)
	}
	w := c.WithPartitions([]PartitionInfo{{Topic: "t", Partition: 1, Leader: &n0}})
	if l := w.LeaderFor(TopicPartition{"t", 1}); l == nil || l.ID != 0 {
		t.Fatal("WithPartitions")
	}
	if n0.String() != "h0:9092 (id: 0 rack: null)" {
		t.Fatal(n0.String())
	}
}
