package producer

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/zkafka/zkafka/clients/common"
)

// DefaultPartitioner places a keyed record by the murmur2 hash of its key bytes
// (ToPositive(Murmur2(key)) % number of partitions, the same partition the Java client,
// kafka-python and librdkafka's murmur2 partitioner pick), and spreads records without a key
// round robin over the topic's partitions that have a leader (over all of them when none has),
// with one counter per topic starting at a random value.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.DefaultPartitioner.
type DefaultPartitioner struct {
	counters sync.Map // topic -> *atomic.Int32
}

// Partition implements Partitioner.
func (p *DefaultPartitioner) Partition(topic string, _ any, keyBytes []byte, _ any, _ []byte, cluster *common.Cluster) int32 {
	partitions := cluster.PartitionsForTopic(topic)
	n := int32(len(partitions))
	if n == 0 {
		return 0
	}
	if keyBytes == nil {
		next := p.nextValue(topic)
		if available := cluster.AvailablePartitionsForTopic(topic); len(available) > 0 {
			return available[common.ToPositive(next)%int32(len(available))].Partition
		}
		return common.ToPositive(next) % n
	}
	return common.ToPositive(common.Murmur2(keyBytes)) % n
}

func (p *DefaultPartitioner) nextValue(topic string) int32 {
	c, ok := p.counters.Load(topic)
	if !ok {
		fresh := &atomic.Int32{}
		fresh.Store(rand.Int32())
		c, _ = p.counters.LoadOrStore(topic, fresh)
	}
	return c.(*atomic.Int32).Add(1) - 1
}

// Close implements Partitioner.
func (p *DefaultPartitioner) Close() {}
