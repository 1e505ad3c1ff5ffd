package oldproducer

import (
	"context"
	"fmt"

	"github.com/zkafka/zkafka/clients/serialization"
)

// BaseProducer is what the console producer and MirrorMaker need of a producer, so that the old
// producer (OldProducer) and the new one can stand in for each other.
//
// Kafka 0.10.2: kafka.producer.BaseProducer.
type BaseProducer interface {
	Send(ctx context.Context, topic string, key, value []byte) error
	Close()
}

// OldProducer is a BaseProducer on a byte-array Producer: the partitioner defaults to
// kafka.producer.ByteArrayPartitioner, and the encoders must be kafka.serializer.DefaultEncoder
// (the only ones a byte-array producer can use in Kafka too).
//
// Kafka 0.10.2: kafka.producer.OldProducer. This is the entry point of
// kafka-console-producer.sh --old-producer.
type OldProducer struct {
	producer *Producer[[]byte, []byte]
}

// NewOldProducer makes the producer of producerProps (not modified).
func NewOldProducer(producerProps map[string]string, deps Deps) (*OldProducer, error) {
	props := make(map[string]string, len(producerProps)+1)
	for k, v := range producerProps {
		props[k] = v
	}
	if _, ok := props["partitioner.class"]; !ok {
		props["partitioner.class"] = ByteArrayPartitionerClass
	}
	var log = deps.Logger
	if log != nil {
		log = log.WithField("logger", "kafka.utils.VerifiableProperties")
	}
	config, err := NewProducerConfig(props, log)
	if err != nil {
		return nil, err
	}
	for _, c := range []string{config.SerializerClass, config.KeySerializerClass} {
		if c != DefaultEncoderClass {
			return nil, fmt.Errorf("%s cannot encode byte arrays: the old producer of the tools takes %s only", c, DefaultEncoderClass)
		}
	}
	p, err := NewProducer[[]byte, []byte](config, serialization.DefaultEncoder{}, serialization.DefaultEncoder{}, nil, deps)
	if err != nil {
		return nil, err
	}
	return &OldProducer{producer: p}, nil
}

// Send implements BaseProducer: a keyed message (a nil key means none).
func (o *OldProducer) Send(ctx context.Context, topic string, key, value []byte) error {
	if key == nil {
		return o.producer.Send(ctx, NewKeyedMessage[[]byte, []byte](topic, value))
	}
	return o.producer.Send(ctx, NewKeyedMessageWithKey(topic, key, value))
}

// Close implements BaseProducer.
func (o *OldProducer) Close() { o.producer.Close() }
