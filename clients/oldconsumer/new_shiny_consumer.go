package oldconsumer

import (
	"errors"
	"regexp"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/consumer"
	"github.com/zkafka/zkafka/clients/serialization"
)

// ErrInvalidShinyArguments is NewShinyConsumer's IllegalArgumentException for a bad combination
// of topic, partition, offset and whitelist.
var ErrInvalidShinyArguments = errors.New("An invalid combination of arguments is provided. " +
	"Exactly one of 'topic' or 'whitelist' must be provided. " +
	"If 'topic' is provided, an optional 'partition' may also be provided. " +
	"If 'partition' is provided, an optional 'offset' may also be provided, otherwise, consumption starts from the end of the partition.")

// NewShinyConsumer is a BaseConsumer on the new consumer (clients/consumer.KafkaConsumer): a
// topic subscribed to with the group of group.id, a whitelist pattern, or one partition assigned
// by hand from an offset (EarliestTime, LatestTime or a number; the end when none is given).
// Records come as bytes; the formatter deserializes them.
//
// Kafka 0.10.2: kafka.consumer.NewShinyConsumer.
type NewShinyConsumer struct {
	consumer  *consumer.KafkaConsumer[[]byte, []byte]
	timeoutMs int64
	pending   []consumer.ConsumerRecord[[]byte, []byte]
}

// NewNewShinyConsumer builds the consumer from props and places it as the arguments say.
func NewNewShinyConsumer(topic string, partition *int32, offset *int64, whitelist string, props map[string]string, timeoutMs int64, log *logrus.Entry) (*NewShinyConsumer, error) {
	c, err := consumer.NewKafkaConsumerWith[[]byte, []byte](props, serialization.ByteArrayDeserializer{}, serialization.ByteArrayDeserializer{},
		consumer.ConsumerOptions[[]byte, []byte]{Log: log})
	if err != nil {
		return nil, err
	}
	s := &NewShinyConsumer{consumer: c, timeoutMs: timeoutMs}
	if err := s.consumerInit(topic, partition, offset, whitelist); err != nil {
		_ = c.Close(0)
		return nil, err
	}
	return s, nil
}

func (s *NewShinyConsumer) consumerInit(topic string, partition *int32, offset *int64, whitelist string) error {
	switch {
	case topic != "" && partition != nil && whitelist == "":
		tp := common.TopicPartition{Topic: topic, Partition: *partition}
		if err := s.consumer.Assign([]common.TopicPartition{tp}); err != nil {
			return err
		}
		o := LatestTime
		if offset != nil {
			o = *offset
		}
		switch o {
		case EarliestTime:
			return s.consumer.SeekToBeginning([]common.TopicPartition{tp})
		case LatestTime:
			return s.consumer.SeekToEnd([]common.TopicPartition{tp})
		}
		return s.consumer.Seek(tp, o)
	case topic != "" && partition == nil && offset == nil && whitelist == "":
		return s.consumer.Subscribe([]string{topic}, nil)
	case topic == "" && partition == nil && offset == nil && whitelist != "":
		p, err := regexp.Compile(whitelist)
		if err != nil {
			return err
		}
		return s.consumer.SubscribePattern(p, consumer.NoOpConsumerRebalanceListener{})
	}
	return ErrInvalidShinyArguments
}

// Receive returns the next record, polling for up to the timeout when none is buffered:
// ErrConsumerTimeout when none came, ErrStreamEnd after Stop.
func (s *NewShinyConsumer) Receive() (BaseConsumerRecord, error) {
	if len(s.pending) == 0 {
		recs, err := s.consumer.Poll(time.Duration(min(s.timeoutMs, int64(1<<62)/int64(time.Millisecond))) * time.Millisecond)
		if errors.Is(err, consumer.ErrWakeup) {
			return BaseConsumerRecord{}, ErrStreamEnd
		}
		if err != nil {
			return BaseConsumerRecord{}, err
		}
		s.pending = recs.All()
		if len(s.pending) == 0 {
			return BaseConsumerRecord{}, ErrConsumerTimeout
		}
	}
	r := s.pending[0]
	s.pending = s.pending[1:]
	return BaseConsumerRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp,
		TimestampType: r.TimestampType, Key: r.Key, Value: r.Value}, nil
}

// Stop makes Receive return ErrStreamEnd (KafkaConsumer.wakeup; any goroutine).
func (s *NewShinyConsumer) Stop() { s.consumer.Wakeup() }

// Cleanup closes the consumer (committing, with auto commit, and leaving the group).
func (s *NewShinyConsumer) Cleanup() { _ = s.consumer.Close(30 * time.Second) }

// Commit commits the positions.
func (s *NewShinyConsumer) Commit() error { return s.consumer.CommitSync(nil) }
