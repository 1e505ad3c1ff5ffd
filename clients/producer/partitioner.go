package producer

import "github.com/zkafka/zkafka/clients/common"

// Partitioner picks the partition of a record that names none.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.Partitioner.
type Partitioner interface {
	Partition(topic string, key any, keyBytes []byte, value any, valueBytes []byte, cluster *common.Cluster) int32
	Close()
}
