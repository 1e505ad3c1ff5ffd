package producer

import (
	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
)

// ProducerInterceptor sees (and may change) every record before it is serialized, and every
// acknowledgement or failure before the record's callback.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.ProducerInterceptor.
type ProducerInterceptor[K, V any] interface {
	OnSend(record ProducerRecord[K, V]) ProducerRecord[K, V]
	OnAcknowledgement(metadata *RecordMetadata, err error)
	Close()
}

// ProducerInterceptors calls a chain of interceptors in order; a panicking interceptor is
// logged and skipped, never failing the send.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.ProducerInterceptors.
type ProducerInterceptors[K, V any] struct {
	interceptors []ProducerInterceptor[K, V]
	log          *logrus.Entry
}

// NewProducerInterceptors chains interceptors.
func NewProducerInterceptors[K, V any](interceptors []ProducerInterceptor[K, V], log *logrus.Entry) *ProducerInterceptors[K, V] {
	return &ProducerInterceptors[K, V]{interceptors: interceptors,
		log: log.WithField("logger", "org.apache.kafka.clients.producer.internals.ProducerInterceptors")}
}

// OnSend passes the record through every interceptor.
func (p *ProducerInterceptors[K, V]) OnSend(r ProducerRecord[K, V]) ProducerRecord[K, V] {
	out := r
	for _, i := range p.interceptors {
		func() {
			defer func() {
				if e := recover(); e != nil {
					p.log.Warnf("Error executing interceptor onSend callback for topic: %s, partition: %v: %v", r.Topic, r.Partition, e)
				}
			}()
			out = i.OnSend(out)
		}()
	}
	return out
}

// OnAcknowledgement tells every interceptor of an outcome.
func (p *ProducerInterceptors[K, V]) OnAcknowledgement(md *RecordMetadata, err error) {
	for _, i := range p.interceptors {
		func() {
			defer func() {
				if e := recover(); e != nil {
					p.log.Warnf("Error executing interceptor onAcknowledgement callback: %v", e)
				}
			}()
			i.OnAcknowledgement(md, err)
		}()
	}
}

// OnSendError tells every interceptor of a record that failed before it was queued.
func (p *ProducerInterceptors[K, V]) OnSendError(r ProducerRecord[K, V], tp *common.TopicPartition, err error) {
	if tp == nil {
		part := int32(UnknownPartition)
		if r.Partition != nil {
			part = *r.Partition
		}
		tp = &common.TopicPartition{Topic: r.Topic, Partition: part}
	}
	p.OnAcknowledgement(&RecordMetadata{Topic: tp.Topic, Partition: tp.Partition, Offset: -1, Timestamp: record.NoTimestamp,
		Checksum: -1, SerializedKeySize: -1, SerializedValueSize: -1}, err)
}

// Close closes every interceptor.
func (p *ProducerInterceptors[K, V]) Close() {
	for _, i := range p.interceptors {
		func() {
			defer func() {
				if e := recover(); e != nil {
					p.log.Errorf("Failed to close producer interceptor: %v", e)
				}
			}()
			i.Close()
		}()
	}
}
