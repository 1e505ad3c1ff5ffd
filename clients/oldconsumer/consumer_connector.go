package oldconsumer

import (
	"context"
	"errors"

	"github.com/zkafka/zkafka/clients/common"
)

// ConsumerConnector is the old high-level consumer: streams of messages of a group's share of
// some topics, offsets committed for the group.
//
// Kafka 0.10.2: kafka.consumer.ConsumerConnector. Streams with decoders other than the byte
// pass-through are made by the package functions CreateMessageStreamsWithDecoders and
// CreateMessageStreamsByFilterWithDecoders (Go methods cannot take type parameters).
type ConsumerConnector interface {
	// CreateMessageStreams subscribes to the topics with the given number of streams each.
	CreateMessageStreams(topicCountMap map[string]int) (map[string][]*KafkaStream[[]byte, []byte], error)
	// CreateMessageStreamsByFilter subscribes to every topic the filter allows, now and later,
	// with numStreams streams shared by all of them.
	CreateMessageStreamsByFilter(filter TopicFilter, numStreams int) ([]*KafkaStream[[]byte, []byte], error)
	// CommitOffsets commits the consumed offsets of every owned partition, retrying up to
	// offsets.commit.max.retries times when the offsets go to Kafka.
	CommitOffsets() error
	// CommitOffsetsMap commits the given offsets; retryOnFailure as Kafka's isAutoCommit.
	CommitOffsetsMap(offsets map[common.TopicPartition]int64, retryOnFailure bool) error
	// SetConsumerRebalanceListener sets the rebalance callbacks (before creating streams).
	SetConsumerRebalanceListener(l ConsumerRebalanceListener) error
	// Shutdown stops fetching, ends every stream, commits (with auto commit on) and leaves the
	// group.
	Shutdown()
}

// ConsumerRebalanceListener is called around a rebalance.
//
// Kafka 0.10.2: kafka.javaapi.consumer.ConsumerRebalanceListener.
type ConsumerRebalanceListener interface {
	// BeforeReleasingPartitions runs after the fetchers stopped, before the ownership of the
	// partitions (topic → partitions) is released.
	BeforeReleasingPartitions(partitionOwnership map[string]map[int32]struct{})
	// BeforeStartingFetchers runs after the new assignment is owned, before fetching starts;
	// it gets the whole group's assignment (topic → partition → thread).
	BeforeStartingFetchers(consumerID string, globalPartitionAssignment map[string]map[int32]ConsumerThreadId)
}

// ErrMessageStreamsExist is a second CreateMessageStreams (or a listener set afterwards).
//
// Kafka 0.10.2: kafka.common.MessageStreamsExistException.
var ErrMessageStreamsExist = errors.New("kafka.common.MessageStreamsExistException")

// ErrConsumerRebalanceFailed is a rebalance that failed rebalance.max.retries times.
//
// Kafka 0.10.2: kafka.common.ConsumerRebalanceFailedException.
var ErrConsumerRebalanceFailed = errors.New("kafka.common.ConsumerRebalanceFailedException")

// Create makes a ZookeeperConsumerConnector: it connects to ZooKeeper (and, with
// offsets.storage=kafka, to the group's offset manager) and starts the auto committer.
//
// Kafka 0.10.2: kafka.consumer.Consumer.create.
func Create(ctx context.Context, config *ConsumerConfig, deps Deps) (*ZookeeperConsumerConnector, error) {
	return NewZookeeperConsumerConnector(ctx, config, deps)
}
