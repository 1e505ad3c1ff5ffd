package consumer

import "github.com/zkafka/zkafka/clients/common"

// ConsumerRebalanceListener is told of the partitions a member gives up before a rebalance
// (commit their offsets there) and of those it receives after (seek there if offsets are kept
// outside Kafka). Both run on the goroutine calling poll.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.ConsumerRebalanceListener.
type ConsumerRebalanceListener interface {
	OnPartitionsRevoked(partitions []common.TopicPartition)
	OnPartitionsAssigned(partitions []common.TopicPartition)
}

// NoOpConsumerRebalanceListener does nothing.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.NoOpConsumerRebalanceListener.
type NoOpConsumerRebalanceListener struct{}

// OnPartitionsRevoked implements ConsumerRebalanceListener.
func (NoOpConsumerRebalanceListener) OnPartitionsRevoked([]common.TopicPartition) {}

// OnPartitionsAssigned implements ConsumerRebalanceListener.
func (NoOpConsumerRebalanceListener) OnPartitionsAssigned([]common.TopicPartition) {}
