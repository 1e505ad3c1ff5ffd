package consumer

import (
	"sort"

	"github.com/zkafka/zkafka/clients/common"
)

// Subscription is one member's subscription as the assignor sees it.
//
// Kafka 0.10.2: PartitionAssignor.Subscription.
type Subscription struct {
	Topics   []string
	UserData []byte
}

// Assignment is one member's share.
//
// Kafka 0.10.2: PartitionAssignor.Assignment.
type Assignment struct {
	Partitions []common.TopicPartition
	UserData   []byte
}

// PartitionAssignor is how the group leader splits partitions among members: Name is the
// protocol name offered in JoinGroup (every member must offer the one chosen), Subscription what
// this member sends, Assign the leader's split from the partition counts and every member's
// subscription.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.PartitionAssignor.
type PartitionAssignor interface {
	Name() string
	Subscription(topics []string) Subscription
	Assign(partitionsPerTopic map[string]int, subscriptions map[string]Subscription) map[string]Assignment
	OnAssignment(assignment Assignment)
}

// AbstractPartitionAssignor is the part of an assignor that only needs topics: it drops topics
// without metadata and leaves the split to assign.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor.
type AbstractPartitionAssignor struct {
	assign func(partitionsPerTopic map[string]int, subscriptions map[string][]string) map[string][]common.TopicPartition
}

// Subscription implements PartitionAssignor.
func (AbstractPartitionAssignor) Subscription(topics []string) Subscription {
	return Subscription{Topics: append([]string(nil), topics...)}
}

// Assign implements PartitionAssignor.
func (a AbstractPartitionAssignor) Assign(partitionsPerTopic map[string]int, subscriptions map[string]Subscription) map[string]Assignment {
	all := map[string]int{}
	subs := map[string][]string{}
	for member, s := range subscriptions {
		subs[member] = s.Topics
		for _, t := range s.Topics {
			if n, ok := partitionsPerTopic[t]; ok {
				all[t] = n
			}
		}
	}
	raw := a.assign(all, subs)
	out := make(map[string]Assignment, len(subscriptions))
	for member := range subscriptions {
		out[member] = Assignment{Partitions: raw[member]}
	}
	return out
}

// OnAssignment implements PartitionAssignor.
func (AbstractPartitionAssignor) OnAssignment(Assignment) {}

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
