package common

import (
	"fmt"
	"strings"
)

// PartitionInfo is what the metadata says about one partition: its leader (nil while it has
// none), its replicas and its in-sync replicas.
//
// Kafka 0.10.2: org.apache.kafka.common.PartitionInfo.
type PartitionInfo struct {
	Topic          string
	Partition      int32
	Leader         *Node
	Replicas       []Node
	InSyncReplicas []Node
}

// String renders the partition as Kafka's PartitionInfo.toString does.
func (p PartitionInfo) String() string {
	leader := "none"
	if p.Leader != nil {
		leader = p.Leader.IDString()
	}
	return fmt.Sprintf("Partition(topic = %s, partition = %d, leader = %s, replicas = %s, isr = %s)",
		p.Topic, p.Partition, leader, nodeIDs(p.Replicas), nodeIDs(p.InSyncReplicas))
}

func nodeIDs(nodes []Node) string {
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.IDString()
	}
	return "[" + strings.Join(ids, ",") + "]"
}
