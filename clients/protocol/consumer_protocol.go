package protocol

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol/types"
)

// ConsumerProtocolType is the JoinGroup protocol_type of Kafka's consumers.
const ConsumerProtocolType = "consumer"

// ConsumerProtocolSubscription is a consumer's JoinGroup protocol_metadata: the topics it
// subscribes to. Layout (schema.ConsumerProtocolHeaderSchema + schema.SubscriptionV0):
// version INT16, topics ARRAY(STRING), user_data NULLABLE_BYTES.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.ConsumerProtocol (serializeSubscription,
// deserializeSubscription) and PartitionAssignor.Subscription.
type ConsumerProtocolSubscription struct {
	Version  int16
	Topics   []string
	UserData []byte // nil is null; the Java client sends an empty, non-null array
}

// ConsumerProtocolAssignment is the member_assignment a group leader hands a consumer in
// SyncGroup. Layout (schema.AssignmentV0): version INT16, topic_partitions ARRAY of (topic
// STRING, partitions ARRAY(INT32)), user_data NULLABLE_BYTES.
//
// Kafka 0.10.2: ConsumerProtocol (serializeAssignment, deserializeAssignment) and
// PartitionAssignor.Assignment. Partitions is the flat list Kafka's Assignment holds; encoding
// groups it by topic in order of first appearance, decoding flattens it in wire order.
type ConsumerProtocolAssignment struct {
	Version    int16
	Partitions []common.TopicPartition
	UserData   []byte
}

// AppendTo appends the encoded subscription.
func (s *ConsumerProtocolSubscription) AppendTo(dst []byte) []byte {
	dst = appendInt16(dst, s.Version)
	dst = appendArrayLen(dst, len(s.Topics))
	for _, t := range s.Topics {
		dst = appendString(dst, t)
	}
	return appendNullableBytes(dst, s.UserData)
}

// ReadFrom decodes a subscription. Any version >= 0 is read with the v0 layout (later versions
// may only append fields); a negative version is an error, as in Kafka's checkVersionCompatibility.
func (s *ConsumerProtocolSubscription) ReadFrom(src []byte) error {
	r := reader{buf: src}
	*s = ConsumerProtocolSubscription{Version: r.int16()}
	if r.err == nil && s.Version < 0 {
		return fmt.Errorf("%w: unsupported subscription version %d", types.ErrSchema, s.Version)
	}
	if n, ok := r.arrayLen(2, false); ok {
		s.Topics = make([]string, n)
		for i := range s.Topics {
			s.Topics[i] = r.string()
		}
	}
	s.UserData = r.nullableBytes()
	return r.done("consumer protocol subscription")
}

// AppendTo appends the encoded assignment.
func (a *ConsumerProtocolAssignment) AppendTo(dst []byte) []byte {
	dst = appendInt16(dst, a.Version)
	// Group by topic, keeping the order in which topics first appear.
	var order []string
	byTopic := map[string][]int32{}
	for _, tp := range a.Partitions {
		if _, seen := byTopic[tp.Topic]; !seen {
			order = append(order, tp.Topic)
		}
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
	}
	dst = appendArrayLen(dst, len(order))
	for _, t := range order {
		dst = appendString(dst, t)
		ps := byTopic[t]
		dst = appendArrayLen(dst, len(ps))
		for _, p := range ps {
			dst = appendInt32(dst, p)
		}
	}
	return appendNullableBytes(dst, a.UserData)
}

// ReadFrom decodes an assignment, with the same version rule as the subscription. A zero-length
// input (what the coordinator stores for members the leader left out) is an error, as it is for
// a Java consumer.
func (a *ConsumerProtocolAssignment) ReadFrom(src []byte) error {
	r := reader{buf: src}
	*a = ConsumerProtocolAssignment{Version: r.int16()}
	if r.err == nil && a.Version < 0 {
		return fmt.Errorf("%w: unsupported assignment version %d", types.ErrSchema, a.Version)
	}
	if n, ok := r.arrayLen(6, false); ok {
		for i := 0; i < n && r.err == nil; i++ {
			topic := r.string()
			if m, ok := r.arrayLen(4, false); ok {
				for j := 0; j < m; j++ {
					a.Partitions = append(a.Partitions, common.TopicPartition{Topic: topic, Partition: r.int32()})
				}
			}
		}
	}
	a.UserData = r.nullableBytes()
	return r.done("consumer protocol assignment")
}
