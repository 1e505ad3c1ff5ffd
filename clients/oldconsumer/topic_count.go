package oldconsumer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// ConsumerThreadId names one stream of one consumer: "<consumerId>-<n>". It is what an owner
// znode holds.
//
// Kafka 0.10.2: kafka.consumer.ConsumerThreadId (ordered by its string form).
type ConsumerThreadId struct {
	Consumer string
	ThreadID int
}

// String is "<consumer>-<threadId>".
func (c ConsumerThreadId) String() string { return c.Consumer + "-" + strconv.Itoa(c.ThreadID) }

// Less orders thread ids by their string form, as Kafka's compare does.
func (c ConsumerThreadId) Less(o ConsumerThreadId) bool { return c.String() < o.String() }

func sortThreadIds(ids []ConsumerThreadId) {
	sort.Slice(ids, func(i, j int) bool { return ids[i].Less(ids[j]) })
}

// formatThreadIdList prints thread ids as a Scala List does.
func formatThreadIdList(ids []ConsumerThreadId) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.String()
	}
	return "List(" + strings.Join(parts, ", ") + ")"
}

// TopicCount is a consumer's subscription: which topics, with how many streams each.
//
// Kafka 0.10.2: kafka.consumer.TopicCount.
type TopicCount interface {
	// GetConsumerThreadIdsPerTopic lists, per topic, the consumer's thread ids (sorted).
	GetConsumerThreadIdsPerTopic() (map[string][]ConsumerThreadId, error)
	// GetTopicCountMap is the subscription as the registration JSON records it.
	GetTopicCountMap() []zkutils.TopicStreams
	// Pattern is "static", "white_list" or "black_list".
	Pattern() string
}

// makeConsumerThreadIdsPerTopic gives each topic the thread ids 0..n-1 of consumerIDString.
//
// Kafka 0.10.2: TopicCount.makeConsumerThreadIdsPerTopic.
func makeConsumerThreadIdsPerTopic(consumerIDString string, topicCountMap []zkutils.TopicStreams) (map[string][]ConsumerThreadId, error) {
	out := make(map[string][]ConsumerThreadId, len(topicCountMap))
	for _, ts := range topicCountMap {
		if ts.Streams < 1 {
			return nil, fmt.Errorf("assertion failed: topic %s has %d streams, at least 1 is needed", ts.Topic, ts.Streams)
		}
		ids := make([]ConsumerThreadId, ts.Streams)
		for i := range ids {
			ids[i] = ConsumerThreadId{Consumer: consumerIDString, ThreadID: i}
		}
		sortThreadIds(ids)
		out[ts.Topic] = ids
	}
	return out, nil
}

// StaticTopicCount is a subscription to named topics.
//
// Kafka 0.10.2: kafka.consumer.StaticTopicCount.
type StaticTopicCount struct {
	ConsumerIDString string
	TopicCountMap    []zkutils.TopicStreams
}

// GetConsumerThreadIdsPerTopic implements TopicCount.
func (s *StaticTopicCount) GetConsumerThreadIdsPerTopic() (map[string][]ConsumerThreadId, error) {
	return makeConsumerThreadIdsPerTopic(s.ConsumerIDString, s.TopicCountMap)
}

// GetTopicCountMap implements TopicCount.
func (s *StaticTopicCount) GetTopicCountMap() []zkutils.TopicStreams { return s.TopicCountMap }

// Pattern implements TopicCount.
func (s *StaticTopicCount) Pattern() string { return zkutils.StaticPattern }

// WildcardTopicCount is a subscription to every topic a filter allows, with the same number of
// streams each; the topics are read from /brokers/topics each time they are asked for.
//
// Kafka 0.10.2: kafka.consumer.WildcardTopicCount.
type WildcardTopicCount struct {
	zk                    *zkutils.ZkUtils
	ConsumerIDString      string
	TopicFilter           TopicFilter
	NumStreams            int32
	ExcludeInternalTopics bool
}

// GetConsumerThreadIdsPerTopic implements TopicCount.
func (w *WildcardTopicCount) GetConsumerThreadIdsPerTopic() (map[string][]ConsumerThreadId, error) {
	topics, err := w.zk.GetChildrenParentMayNotExist(zkutils.BrokerTopicsPath)
	if err != nil {
		return nil, err
	}
	var m []zkutils.TopicStreams
	for _, t := range topics {
		if w.TopicFilter.IsTopicAllowed(t, w.ExcludeInternalTopics) {
			m = append(m, zkutils.TopicStreams{Topic: t, Streams: w.NumStreams})
		}
	}
	return makeConsumerThreadIdsPerTopic(w.ConsumerIDString, m)
}

// GetTopicCountMap implements TopicCount: the JSON-escaped expression with the stream count.
func (w *WildcardTopicCount) GetTopicCountMap() []zkutils.TopicStreams {
	return []zkutils.TopicStreams{{Topic: zkutils.JSONEscapeString(w.TopicFilter.Regex()), Streams: w.NumStreams}}
}

// Pattern implements TopicCount.
func (w *WildcardTopicCount) Pattern() string {
	if _, ok := w.TopicFilter.(*Blacklist); ok {
		return zkutils.BlackListPattern
	}
	return zkutils.WhiteListPattern
}

// NewStaticTopicCount is TopicCount.constructTopicCount(consumerIdString, topicCount).
func NewStaticTopicCount(consumerIDString string, topicCountMap []zkutils.TopicStreams) *StaticTopicCount {
	return &StaticTopicCount{ConsumerIDString: consumerIDString, TopicCountMap: topicCountMap}
}

// NewWildcardTopicCount is TopicCount.constructTopicCount(consumerIdString, filter, numStreams, ...).
func NewWildcardTopicCount(zk *zkutils.ZkUtils, consumerIDString string, filter TopicFilter, numStreams int32,
	excludeInternalTopics bool) *WildcardTopicCount {
	return &WildcardTopicCount{zk: zk, ConsumerIDString: consumerIDString, TopicFilter: filter, NumStreams: numStreams,
		ExcludeInternalTopics: excludeInternalTopics}
}

// ConstructTopicCount reads a member's registration from /consumers/<group>/ids/<consumerId>
// and rebuilds its TopicCount.
//
// Kafka 0.10.2: TopicCount.constructTopicCount(group, consumerId, zkUtils, excludeInternalTopics).
func ConstructTopicCount(group, consumerID string, zk *zkutils.ZkUtils, excludeInternalTopics bool) (TopicCount, error) {
	data, _, err := zk.ReadData(zkutils.ZKGroupDirs{Group: group}.ConsumerRegistryDir() + "/" + consumerID)
	if err != nil {
		return nil, err
	}
	reg, err := zkutils.DecodeConsumerRegistration(data)
	if err != nil {
		return nil, err
	}
	wildcard := reg.Pattern == zkutils.WhiteListPattern || reg.Pattern == zkutils.BlackListPattern
	if len(reg.Subscription) == 0 || !wildcard {
		return NewStaticTopicCount(consumerID, reg.Subscription), nil
	}
	head := reg.Subscription[0]
	var filter TopicFilter
	if reg.Pattern == zkutils.WhiteListPattern {
		filter, err = NewWhitelist(head.Topic)
	} else {
		filter, err = NewBlacklist(head.Topic)
	}
	if err != nil {
		return nil, err
	}
	return NewWildcardTopicCount(zk, consumerID, filter, head.Streams, excludeInternalTopics), nil
}

// getConsumersPerTopic lists, per topic, the thread ids of every member of the group
// subscribed to it, sorted.
//
// Kafka 0.10.2: ZkUtils.getConsumersPerTopic (here beside TopicCount, which it needs and which
// zk/zkutils may not import).
func getConsumersPerTopic(zk *zkutils.ZkUtils, group string, excludeInternalTopics bool) (map[string][]ConsumerThreadId, error) {
	consumers, err := zk.GetChildrenParentMayNotExist(zkutils.ZKGroupDirs{Group: group}.ConsumerRegistryDir())
	if err != nil {
		return nil, err
	}
	out := map[string][]ConsumerThreadId{}
	for _, consumer := range consumers {
		tc, err := ConstructTopicCount(group, consumer, zk, excludeInternalTopics)
		if err != nil {
			return nil, err
		}
		perTopic, err := tc.GetConsumerThreadIdsPerTopic()
		if err != nil {
			return nil, err
		}
		for topic, ids := range perTopic {
			out[topic] = append(out[topic], ids...)
		}
	}
	for _, ids := range out {
		sortThreadIds(ids)
	}
	return out, nil
}

// sortedTopics returns the keys of a per-topic map in order.
func sortedTopics[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// GetConsumersPerTopic lists, per topic, the thread ids of every member of the group subscribed
// to it, sorted (for tools such as VerifyConsumerRebalance).
//
// Kafka 0.10.2: ZkUtils.getConsumersPerTopic.
func GetConsumersPerTopic(zk *zkutils.ZkUtils, group string, excludeInternalTopics bool) (map[string][]ConsumerThreadId, error) {
	return getConsumersPerTopic(zk, group, excludeInternalTopics)
}
