package consumer

import (
	"sort"

	"github.com/zkafka/zkafka/clients/common"
)

// RoundRobinAssignor deals every partition of every subscribed topic (sorted by topic, then
// partition) to the members in turn (sorted by member id), skipping members not subscribed to
// the partition's topic.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.RoundRobinAssignor.
type RoundRobinAssignor struct{ AbstractPartitionAssignor }

// NewRoundRobinAssignor returns the "roundrobin" assignor.
func NewRoundRobinAssignor() *RoundRobinAssignor {
	return &RoundRobinAssignor{AbstractPartitionAssignor{assign: roundRobinAssign}}
}

// Name implements PartitionAssignor.
func (*RoundRobinAssignor) Name() string { return "roundrobin" }

func roundRobinAssign(partitionsPerTopic map[string]int, subscriptions map[string][]string) map[string][]common.TopicPartition {
	out := map[string][]common.TopicPartition{}
	members := make([]string, 0, len(subscriptions))
	topicSet := map[string]bool{}
	subscribed := map[string]map[string]bool{}
	for m, topics := range subscriptions {
		members = append(members, m)
		out[m] = nil
		subscribed[m] = map[string]bool{}
		for _, t := range topics {
			topicSet[t] = true
			subscribed[m][t] = true
		}
	}
	sort.Strings(members)
	topics := make([]string, 0, len(topicSet))
	for t := range topicSet {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	next := 0
	for _, t := range topics {
		n, ok := partitionsPerTopic[t]
		if !ok {
			continue
		}
		for p := 0; p < n; p++ {
			for !subscribed[members[next%len(members)]][t] {
				next++
			}
			m := members[next%len(members)]
			out[m] = append(out[m], common.TopicPartition{Topic: t, Partition: int32(p)})
			next++
		}
	}
	return out
}
