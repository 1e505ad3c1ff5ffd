package oldconsumer

import (
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/serialization"
)

// KafkaStream is one stream of messages of a consumer: a queue of fetched chunks and the one
// iterator over it. Each stream is meant for one goroutine.
//
// Kafka 0.10.2: kafka.consumer.KafkaStream.
type KafkaStream[K, V any] struct {
	queue    *chunkQueue
	iter     *ConsumerIterator[K, V]
	clientID string
}

func newKafkaStream[K, V any](queue *chunkQueue, consumerTimeoutMs int32, kd serialization.Decoder[K], vd serialization.Decoder[V],
	clientID string, stats *ConsumerTopicStats, log *logrus.Entry) *KafkaStream[K, V] {
	return &KafkaStream[K, V]{queue: queue, clientID: clientID,
		iter: newConsumerIterator(queue, consumerTimeoutMs, kd, vd, clientID, stats, log)}
}

// Iterator is the stream's iterator (always the same one).
func (s *KafkaStream[K, V]) Iterator() *ConsumerIterator[K, V] { return s.iter }

// Clear drops the chunk being iterated (during a rebalance, to reduce duplicates).
func (s *KafkaStream[K, V]) Clear() { s.iter.ClearCurrentChunk() }

// String is "<clientId> kafka stream".
func (s *KafkaStream[K, V]) String() string { return s.clientID + " kafka stream" }

// clearable is what the rebalance needs of a stream of any type.
type clearable interface{ Clear() }
