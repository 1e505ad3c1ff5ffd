package oldconsumer

import (
	"strings"
	"testing"
)

func TestConsumerConfigDefaultsAndValidation(t *testing.T) {
	c, err := NewConsumerConfig(map[string]string{"zookeeper.connect": "zk:2181", "group.id": "g"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.ClientID != "g" || c.ZkSessionTimeoutMs != 6000 || c.ZkConnectionTimeoutMs != 6000 || c.RebalanceBackoffMs != 2000 ||
		c.RebalanceMaxRetries != 4 || c.AutoOffsetReset != "largest" || c.OffsetsStorage != "zookeeper" || c.DualCommitEnabled ||
		!c.AutoCommitEnable || c.AutoCommitIntervalMs != 60000 || c.QueuedMaxMessages != 2 || c.ConsumerTimeoutMs != -1 ||
		c.FetchMessageMaxBytes != 1<<20 || c.PartitionAssignmentStrategy != "range" || !c.ExcludeInternalTopics {
		t.Fatalf("defaults: %+v", c)
	}
	k, err := NewConsumerConfig(map[string]string{"zookeeper.connect": "zk", "group.id": "g", "offsets.storage": "Kafka"}, nil)
	if err != nil || k.OffsetsStorage != "kafka" || !k.DualCommitEnabled {
		t.Fatalf("kafka storage turns dual commit on by default: %+v %v", k, err)
	}
	for _, tc := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{"zookeeper.connect": "zk"}, "requirement failed: Missing required property 'group.id'"},
		{map[string]string{"zookeeper.connect": "zk", "group.id": "g h"}, "client.id g h is illegal"}, // client.id defaults to group.id and is checked first,
		{map[string]string{"zookeeper.connect": "zk", "group.id": "g", "auto.offset.reset": "earliest"}, "Wrong value earliest of auto.offset.reset"},
		{map[string]string{"zookeeper.connect": "zk", "group.id": "g", "offsets.storage": "x"}, "Wrong value x of offsets.storage"},
		{map[string]string{"zookeeper.connect": "zk", "group.id": "g", "partition.assignment.strategy": "sticky"}, "Wrong value sticky of partition.assignment.strategy"},
		{map[string]string{"zookeeper.connect": "zk", "group.id": "g", "fetch.wait.max.ms": "40000"}, "socket.timeout.ms should always be at least fetch.wait.max.ms"},
		{map[string]string{"zookeeper.connect": "zk", "group.id": "g", "auto.commit.enable": "yes"}, "boolean values must be either 'true' or 'false"},
		{map[string]string{"zookeeper.connect": "zk", "group.id": "g", "socket.timeout.ms": "x"}, `For input string: "x"`},
	} {
		_, err := NewConsumerConfig(tc.props, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.props, err, tc.want)
		}
	}
}
