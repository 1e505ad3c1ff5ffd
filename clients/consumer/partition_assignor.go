package consumer

import "github.com/zkafka/zkafka/clients/common"

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
