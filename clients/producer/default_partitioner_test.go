package producer

import (
	"testing"

	"github.com/zkafka/zkafka/clients/common"
)

var (
	node0 = common.Node{ID: 0, Host: "localhost", Port: 99}
	node1 = common.Node{ID: 1, Host: "localhost", Port: 100}
	node2 = common.Node{ID: 2, Host: "localhost", Port: 101}
	nodes = []common.Node{node0, node1, node2}
)

// Kafka's DefaultPartitionerTest: a key always maps to one partition, records without a key go
// round robin over the partitions with a leader, per topic.
func TestDefaultPartitioner(t *testing.T) {
	parts := []common.PartitionInfo{
		{Topic: "test", Partition: 1, Leader: nil, Replicas: nodes, InSyncReplicas: nodes},
		{Topic: "test", Partition: 2, Leader: &node1, Replicas: nodes, InSyncReplicas: nodes},
		{Topic: "test", Partition: 0, Leader: &node0, Replicas: nodes, InSyncReplicas: nodes},
	}
	cluster := common.NewCluster("clusterId", nodes, parts, nil, nil)
	p := &DefaultPartitioner{}
	key := []byte("key")
	first := p.Partition("test", nil, key, nil, nil, cluster)
	if p.Partition("test", nil, key, nil, nil, cluster) != first || first != common.ToPositive(common.Murmur2(key))%3 {
		t.Fatal("key partition not stable")
	}
	counts := map[int32]int{}
	for i := 0; i < 100; i++ {
		counts[p.Partition("test", nil, nil, nil, nil, cluster)]++
	}
	if counts[1] != 0 || counts[0] != 50 || counts[2] != 50 {
		t.Fatalf("round robin over available partitions: %v", counts)
	}
	all := []common.PartitionInfo{
		{Topic: "topicA", Partition: 0, Leader: &node0}, {Topic: "topicA", Partition: 1, Leader: &node1},
		{Topic: "topicA", Partition: 2, Leader: &node2}, {Topic: "topicB", Partition: 0, Leader: &node0},
	}
	tc := common.NewCluster("clusterId", nodes, all, nil, nil)
	counts = map[int32]int{}
	for i := 0; i < 30; i++ {
		counts[p.Partition("topicA", nil, nil, nil, nil, tc)]++
		if i%5 == 0 {
			p.Partition("topicB", nil, nil, nil, nil, tc)
		}
	}
	if counts[0] != 10 || counts[1] != 10 || counts[2] != 10 {
		t.Fatalf("per-topic round robin: %v", counts)
	}
	// No partition has a leader: round robin over all of them.
	none := common.NewCluster("", nodes, []common.PartitionInfo{{Topic: "x", Partition: 0}, {Topic: "x", Partition: 1}}, nil, nil)
	seen := map[int32]bool{}
	for i := 0; i < 4; i++ {
		seen[p.Partition("x", nil, nil, nil, nil, none)] = true
	}
	if !seen[0] || !seen[1] {
		t.Fatalf("no leaders: %v", seen)
	}
}
