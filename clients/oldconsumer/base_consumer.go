package oldconsumer

import (
	"context"
	"errors"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/record"
)

// BaseConsumerRecord is a consumed message as the tools see it, whichever consumer read it.
//
// Kafka 0.10.2: kafka.consumer.BaseConsumerRecord.
type BaseConsumerRecord struct {
	Topic         string
	Partition     int32
	Offset        int64
	Timestamp     int64
	TimestampType record.TimestampType
	Key           []byte // nil: no key
	Value         []byte // nil: null value
}

// BaseConsumer is what the console consumer and MirrorMaker need of a consumer, so that the old
// consumer (OldConsumer) and the new one (NewShinyConsumer, on clients/consumer) can stand in
// for each other.
//
// Kafka 0.10.2: kafka.consumer.BaseConsumer.
type BaseConsumer interface {
	// Receive waits for the next record. ErrStreamEnd: the consumer was stopped;
	// ErrConsumerTimeout: consumer.timeout.ms (or the new consumer's timeout) passed.
	Receive() (BaseConsumerRecord, error)
	// Stop makes a Receive in progress (or the next one) return ErrStreamEnd; any goroutine.
	Stop()
	// Cleanup releases the consumer (after Stop or at the end).
	Cleanup()
	// Commit commits what was received.
	Commit() error
}

// ErrStreamEnd is Receive after the consumer was stopped.
//
// Kafka 0.10.2: kafka.common.StreamEndException.
var ErrStreamEnd = errors.New("kafka.common.StreamEndException")

// OldConsumer is a BaseConsumer on a ZookeeperConsumerConnector with one wildcard stream.
//
// Kafka 0.10.2: kafka.consumer.OldConsumer.
type OldConsumer struct {
	connector *ZookeeperConsumerConnector
	stream    *KafkaStream[[]byte, []byte]
	iter      *ConsumerIterator[[]byte, []byte]
}

// NewOldConsumer joins the group of consumerProps with one stream over the topics filter allows.
func NewOldConsumer(ctx context.Context, filter TopicFilter, consumerProps map[string]string, deps Deps) (*OldConsumer, error) {
	config, err := NewConsumerConfig(consumerProps, verifyLogger(deps))
	if err != nil {
		return nil, err
	}
	c, err := Create(ctx, config, deps)
	if err != nil {
		return nil, err
	}
	streams, err := c.CreateMessageStreamsByFilter(filter, 1)
	if err != nil {
		c.Shutdown()
		return nil, err
	}
	return &OldConsumer{connector: c, stream: streams[0], iter: streams[0].Iterator()}, nil
}

func verifyLogger(deps Deps) *logrus.Entry {
	if deps.Logger == nil {
		return nil
	}
	return deps.Logger.WithField("logger", "kafka.utils.VerifiableProperties")
}

// Connector is the consumer's connector.
func (o *OldConsumer) Connector() *ZookeeperConsumerConnector { return o.connector }

// Receive implements BaseConsumer.
func (o *OldConsumer) Receive() (BaseConsumerRecord, error) {
	ok, err := o.iter.HasNext()
	if err != nil {
		return BaseConsumerRecord{}, err
	}
	if !ok {
		return BaseConsumerRecord{}, ErrStreamEnd
	}
	m, err := o.iter.Next()
	if err != nil {
		return BaseConsumerRecord{}, err
	}
	return BaseConsumerRecord{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Timestamp: m.Timestamp,
		TimestampType: m.TimestampType, Key: m.Key(), Value: m.Message()}, nil
}

// Stop implements BaseConsumer: the connector shuts down.
func (o *OldConsumer) Stop() { o.connector.Shutdown() }

// Cleanup implements BaseConsumer.
func (o *OldConsumer) Cleanup() { o.connector.Shutdown() }

// Commit implements BaseConsumer.
func (o *OldConsumer) Commit() error { return o.connector.CommitOffsets() }
