package oldconsumer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// PartitionOwnership is one consumer's share of an assignment: partition → the thread that
// owns it.
type PartitionOwnership map[common.TopicPartition]ConsumerThreadId

// PartitionAssignor decides which thread of which member owns which partition. Every member
// computes the whole assignment from the same ZooKeeper state and keeps its own part.
//
// Kafka 0.10.2: kafka.consumer.PartitionAssignor. The result maps every member of the group
// (also those left without partitions) to its ownership.
type PartitionAssignor interface {
	Assign(ctx *AssignmentContext) map[string]PartitionOwnership
}

// CreatePartitionAssignor picks the assignor of partition.assignment.strategy ("roundrobin", or
// range for anything else).
//
// Kafka 0.10.2: PartitionAssignor.createInstance.
func CreatePartitionAssignor(strategy string, log *logrus.Entry) PartitionAssignor {
	if log == nil {
		log = discardEntry()
	}
	if strategy == "roundrobin" {
		return &RoundRobinAssignor{log: log.WithField("logger", "kafka.consumer.RoundRobinAssignor")}
	}
	return &RangeAssignor{log: log.WithField("logger", "kafka.consumer.RangeAssignor")}
}

// AssignmentContext is what an assignor knows: this member's subscription, every member's
// thread ids per topic, the partitions of those topics, and the members.
//
// Kafka 0.10.2: kafka.consumer.AssignmentContext (read from ZooKeeper when it is made).
type AssignmentContext struct {
	ConsumerID         string
	MyTopicThreadIds   map[string][]ConsumerThreadId
	ConsumersForTopic  map[string][]ConsumerThreadId // sorted
	PartitionsForTopic map[string][]int32            // sorted
	Consumers          []string                      // sorted
}

// NewAssignmentContext reads the group's state from ZooKeeper.
func NewAssignmentContext(group, consumerID string, excludeInternalTopics bool, zk *zkutils.ZkUtils) (*AssignmentContext, error) {
	my, err := ConstructTopicCount(group, consumerID, zk, excludeInternalTopics)
	if err != nil {
		return nil, err
	}
	ctx := &AssignmentContext{ConsumerID: consumerID}
	if ctx.MyTopicThreadIds, err = my.GetConsumerThreadIdsPerTopic(); err != nil {
		return nil, err
	}
	if ctx.ConsumersForTopic, err = getConsumersPerTopic(zk, group, excludeInternalTopics); err != nil {
		return nil, err
	}
	parts, err := zk.GetPartitionsForTopics(sortedTopics(ctx.ConsumersForTopic))
	if err != nil {
		return nil, err
	}
	for _, ps := range parts {
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	}
	ctx.PartitionsForTopic = parts
	if ctx.Consumers, err = zk.GetConsumersInGroup(group); err != nil {
		return nil, err
	}
	sort.Strings(ctx.Consumers)
	return ctx, nil
}

// formatIntSeq prints partitions as the Scala Seq Kafka logs (an ArrayBuffer).
func formatIntSeq(ps []int32) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprint(p)
	}
	return "ArrayBuffer(" + strings.Join(parts, ", ") + ")"
}

func addOwnership(out map[string]PartitionOwnership, tp common.TopicPartition, id ConsumerThreadId) {
	m := out[id.Consumer]
	if m == nil {
		m = PartitionOwnership{}
		out[id.Consumer] = m
	}
	m[tp] = id
}

// withEveryConsumer gives the members without partitions an empty ownership.
func withEveryConsumer(out map[string]PartitionOwnership, consumers []string) map[string]PartitionOwnership {
	for _, c := range consumers {
		if out[c] == nil {
			out[c] = PartitionOwnership{}
		}
	}
	return out
}

// RangeAssignor lays out each topic's partitions in order and its threads in order, and gives
// each thread a contiguous range; the first threads get one more when it does not divide.
//
// Kafka 0.10.2: kafka.consumer.RangeAssignor (computed for the topics this member subscribes to).
type RangeAssignor struct{ log *logrus.Entry }

// Assign implements PartitionAssignor.
func (a *RangeAssignor) Assign(ctx *AssignmentContext) map[string]PartitionOwnership {
	out := map[string]PartitionOwnership{}
	for _, topic := range sortedTopics(ctx.MyTopicThreadIds) {
		curConsumers := ctx.ConsumersForTopic[topic]
		curPartitions := ctx.PartitionsForTopic[topic]
		if len(curConsumers) == 0 {
			continue // cannot happen: this member subscribes to the topic
		}
		nPartsPerConsumer := len(curPartitions) / len(curConsumers)
		nConsumersWithExtraPart := len(curPartitions) % len(curConsumers)
		a.log.Infof("Consumer %s rebalancing the following partitions: %s for topic %s with consumers: %s",
			ctx.ConsumerID, formatIntSeq(curPartitions), topic, formatThreadIdList(curConsumers))
		for pos, id := range curConsumers {
			startPart := nPartsPerConsumer*pos + min(pos, nConsumersWithExtraPart)
			nParts := nPartsPerConsumer
			if pos+1 <= nConsumersWithExtraPart {
				nParts++
			}
			if nParts <= 0 {
				a.log.Warnf("No broker partitions consumed by consumer thread %s for topic %s", id, topic)
				continue
			}
			for i := startPart; i < startPart+nParts; i++ {
				p := curPartitions[i]
				a.log.Infof("%s attempting to claim partition %d", id, p)
				addOwnership(out, common.TopicPartition{Topic: topic, Partition: p}, id)
			}
		}
	}
	return withEveryConsumer(out, ctx.Consumers)
}

// RoundRobinAssignor deals every partition of every subscribed topic, in the order of the hash of
// "[topic,partition]", to the threads in turn, skipping threads not subscribed to the partition's
// topic. With identical subscriptions the counts differ by at most one.
//
// Kafka 0.10.2: kafka.consumer.RoundRobinAssignor.
type RoundRobinAssignor struct{ log *logrus.Entry }

// Assign implements PartitionAssignor.
func (a *RoundRobinAssignor) Assign(ctx *AssignmentContext) map[string]PartitionOwnership {
	out := map[string]PartitionOwnership{}
	if len(ctx.ConsumersForTopic) == 0 {
		return withEveryConsumer(out, ctx.Consumers)
	}
	seen := map[ConsumerThreadId]bool{}
	var allThreadIds []ConsumerThreadId
	for _, topic := range sortedTopics(ctx.ConsumersForTopic) {
		for _, id := range ctx.ConsumersForTopic[topic] {
			if !seen[id] {
				seen[id] = true
				allThreadIds = append(allThreadIds, id)
			}
		}
	}
	sortThreadIds(allThreadIds)
	a.log.Infof("Starting round-robin assignment with consumers %s", formatStringSeq(ctx.Consumers))
	var all []common.TopicPartition
	for _, topic := range sortedTopics(ctx.PartitionsForTopic) {
		ps := ctx.PartitionsForTopic[topic]
		a.log.Infof("Consumer %s rebalancing the following partitions for topic %s: %s", ctx.ConsumerID, topic, formatIntSeq(ps))
		for _, p := range ps {
			all = append(all, common.TopicPartition{Topic: topic, Partition: p})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return topicAndPartitionHash(all[i]) < topicAndPartitionHash(all[j]) })
	next := 0 // the circular iterator's position
	for _, tp := range all {
		subscribed := ctx.ConsumersForTopic[tp.Topic]
		for !containsThreadID(subscribed, allThreadIds[next%len(allThreadIds)]) {
			next++
		}
		id := allThreadIds[next%len(allThreadIds)]
		next++
		addOwnership(out, tp, id)
	}
	return withEveryConsumer(out, ctx.Consumers)
}

// topicAndPartitionHash is Java's hashCode of TopicAndPartition.toString, "[topic,partition]".
func topicAndPartitionHash(tp common.TopicPartition) int32 {
	return common.JavaStringHashCode(fmt.Sprintf("[%s,%d]", tp.Topic, tp.Partition))
}

func containsThreadID(ids []ConsumerThreadId, id ConsumerThreadId) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// formatStringSeq prints strings as the Scala Seq Kafka logs.
func formatStringSeq(s []string) string { return "ArrayBuffer(" + strings.Join(s, ", ") + ")" }
