package consumer

import (
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
)

// ConsumerInterceptor sees records before poll returns them (and may change or filter them) and
// offsets once they are committed. Errors it reports are logged and otherwise ignored.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.ConsumerInterceptor.
type ConsumerInterceptor[K, V any] interface {
	OnConsume(records *ConsumerRecords[K, V]) (*ConsumerRecords[K, V], error)
	OnCommit(offsets map[common.TopicPartition]OffsetAndMetadata) error
	Close()
}

// ConsumerInterceptors chains interceptors in order: each OnConsume sees what the previous
// returned; one failing is logged and skipped.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.ConsumerInterceptors.
type ConsumerInterceptors[K, V any] struct {
	interceptors []ConsumerInterceptor[K, V]
	log          *logrus.Entry
}

// NewConsumerInterceptors wraps interceptors.
func NewConsumerInterceptors[K, V any](interceptors []ConsumerInterceptor[K, V], log *logrus.Entry) *ConsumerInterceptors[K, V] {
	return &ConsumerInterceptors[K, V]{interceptors: interceptors,
		log: log.WithField("logger", "org.apache.kafka.clients.consumer.internals.ConsumerInterceptors")}
}

// OnConsume runs every interceptor's OnConsume.
func (c *ConsumerInterceptors[K, V]) OnConsume(records *ConsumerRecords[K, V]) *ConsumerRecords[K, V] {
	if c == nil {
		return records
	}
	for _, i := range c.interceptors {
		r, err := i.OnConsume(records)
		if err != nil {
			c.log.Warnf("Error executing interceptor onConsume callback: %v", err)
			continue
		}
		records = r
	}
	return records
}

// OnCommit runs every interceptor's OnCommit.
func (c *ConsumerInterceptors[K, V]) OnCommit(offsets map[common.TopicPartition]OffsetAndMetadata) {
	if c == nil {
		return
	}
	for _, i := range c.interceptors {
		if err := i.OnCommit(offsets); err != nil {
			c.log.Warnf("Error executing interceptor onCommit callback: %v", err)
		}
	}
}

// Close closes every interceptor.
func (c *ConsumerInterceptors[K, V]) Close() {
	if c == nil {
		return
	}
	for _, i := range c.interceptors {
		i.Close()
	}
}
