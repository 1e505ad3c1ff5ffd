package consumer

import (
	"sort"

	"github.com/zkafka/zkafka/clients/common"
)

// RangeAssignor gives each member, topic by topic, a contiguous range of partitions: the
// members subscribed to the topic sorted by member id, the partitions split into equal ranges,
// the first members taking one extra while they last.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.RangeAssignor.
type RangeAssignor struct{ AbstractPartitionAssignor }

// NewRangeAssignor returns the "range" assignor.
func NewRangeAssignor() *RangeAssignor {
	return &RangeAssignor{AbstractPartitionAssignor{assign: rangeAssign}}
}

// Name implements PartitionAssignor.
func (*RangeAssignor) Name() string { return "range" }

func rangeAssign(partitionsPerTopic map[string]int, subscriptions map[string][]string) map[string][]common.TopicPartition {
	consumersPerTopic := map[string][]string{}
	out := map[string][]common.TopicPartition{}
	for member, topics := range subscriptions {
		out[member] = nil
		for _, t := range topics {
			consumersPerTopic[t] = append(consumersPerTopic[t], member)
		}
	}
	topics := make([]string, 0, len(consumersPerTopic))
	for t := range consumersPerTopic {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for _, t := range topics {
		n, ok := partitionsPerTopic[t]
		if !ok {
			continue
		}
		members := consumersPerTopic[t]
		sort.Strings(members)
		per, extra := n/len(members), n%len(members)
		for i, m := range members {
			start := per*i + min(i, extra)
			length := per
			if i+1 <= extra {
				length++
			}
			for p := start; p < start+length; p++ {
				out[m] = append(out[m], common.TopicPartition{Topic: t, Partition: int32(p)})
			}
		}
	}
	return out
}
