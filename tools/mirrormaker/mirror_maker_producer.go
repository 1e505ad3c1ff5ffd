package mirrormaker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// MirrorMakerProducer is the producer every thread shares: asynchronous with a callback that
// counts (and, with abort.on.send.failure, stops on) a send that failed for good, or one record
// at a time with producer.type=sync.
//
// Kafka 0.10.2: MirrorMaker.MirrorMakerProducer.
type MirrorMakerProducer struct {
	mm       *MirrorMaker
	sync     bool
	producer *producer.KafkaProducer[[]byte, []byte]
	errLog   *logrus.Entry
	stderr   io.Writer
}

// NewMirrorMakerProducer makes the KafkaProducer of props.
func NewMirrorMakerProducer(mm *MirrorMaker, props map[string]string, stderr io.Writer) (*MirrorMakerProducer, error) {
	p, err := producer.NewKafkaProducerWith[[]byte, []byte](props, nil, nil, producer.ProducerOptions[[]byte, []byte]{
		Log: mm.log.WithField("logger", "org.apache.kafka.clients.producer.KafkaProducer")})
	if err != nil {
		var ce *config.ConfigException
		if errors.As(err, &ce) && err == error(ce) {
			return nil, &startError{"org.apache.kafka.common.config.ConfigException", err}
		}
		return nil, &startError{"org.apache.kafka.common.KafkaException", err}
	}
	return &MirrorMakerProducer{mm: mm, sync: props["producer.type"] == "sync", producer: p, stderr: stderr,
		errLog: mm.log.WithField("logger", "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback")}, nil
}

// Send sends rec: waiting for its acknowledgement in sync mode, with the
// MirrorMakerProducerCallback otherwise.
func (p *MirrorMakerProducer) Send(rec producer.ProducerRecord[[]byte, []byte]) error {
	if p.sync {
		f, err := p.producer.Send(rec, nil)
		if err == nil {
			_, err = f.Get(context.Background())
		}
		return err
	}
	_, err := p.producer.Send(rec, p.callback(rec))
	return err
}

// callback is MirrorMakerProducerCallback: an ErrorLoggingCallback that also counts the dropped
// record and, with abort.on.send.failure, stops the mirror maker at once (the producer is
// closed without waiting, so that no later record is acknowledged after the lost one).
func (p *MirrorMakerProducer) callback(rec producer.ProducerRecord[[]byte, []byte]) producer.Callback {
	keyString, valueString := "null", "null"
	if rec.Key != nil {
		keyString = fmt.Sprintf("%d bytes", len(rec.Key))
	}
	if rec.Value != nil {
		valueString = fmt.Sprintf("%d bytes", len(rec.Value))
	}
	topic := rec.Topic
	return func(_ *producer.RecordMetadata, err error) {
		if err == nil {
			return
		}
		p.errLog.Errorf("Error when sending message to topic %s with key: %s, value: %s with error:", topic, keyString, valueString)
		name := protocol.ExceptionName(err)
		if name == "" {
			name = "org.apache.kafka.common.KafkaException"
		}
		fmt.Fprintf(p.stderr, "%s: %s\n", name, protocol.ExceptionMessage(err))
		if p.mm.abortOnSendFailure {
			p.mm.log.Info("Closing producer due to send failure.")
			p.mm.exitingOnSendFailure.Store(true)
			_ = p.producer.Close(0)
		}
		p.mm.numDroppedMessages.Add(1)
	}
}

// Flush waits until every record sent so far is acknowledged or failed.
func (p *MirrorMakerProducer) Flush() { p.producer.Flush() }

// Close sends what is buffered and closes the producer.
func (p *MirrorMakerProducer) Close() { _ = p.producer.Close(math.MaxInt64) }

// MirrorMakerMessageHandler turns one consumed record into the records to produce (none, to
// drop it).
//
// Kafka 0.10.2: MirrorMaker.MirrorMakerMessageHandler.
type MirrorMakerMessageHandler interface {
	Handle(rec oldconsumer.BaseConsumerRecord) []producer.ProducerRecord[[]byte, []byte]
}

// MessageHandlerFunc adapts a function to MirrorMakerMessageHandler.
type MessageHandlerFunc func(rec oldconsumer.BaseConsumerRecord) []producer.ProducerRecord[[]byte, []byte]

// Handle implements MirrorMakerMessageHandler.
func (f MessageHandlerFunc) Handle(rec oldconsumer.BaseConsumerRecord) []producer.ProducerRecord[[]byte, []byte] {
	return f(rec)
}

// DefaultMirrorMakerMessageHandler copies the record to the topic of the same name, with its key,
// value and timestamp (none when the source message has none); the producer's partitioner picks
// the partition, so keyed records land in the partition of the same number when both topics
// have as many partitions and the source was written with the Java producer's partitioner.
//
// Kafka 0.10.2: MirrorMaker.defaultMirrorMakerMessageHandler.
var DefaultMirrorMakerMessageHandler MirrorMakerMessageHandler = MessageHandlerFunc(
	func(rec oldconsumer.BaseConsumerRecord) []producer.ProducerRecord[[]byte, []byte] {
		r := producer.NewProducerRecord(rec.Topic, rec.Key, rec.Value)
		if rec.Timestamp != record.NoTimestamp {
			r = r.WithTimestamp(rec.Timestamp)
		}
		return []producer.ProducerRecord[[]byte, []byte]{r}
	})

// HandlerFactory makes a message handler; args is --message.handler.args (nil when absent: the
// no-argument constructor).
type HandlerFactory func(args *string) (MirrorMakerMessageHandler, error)

// ListenerFactory makes a consumer rebalance listener; args is --rebalance.listener.args.
type ListenerFactory func(args *string) (oldconsumer.ConsumerRebalanceListener, error)

var registry = struct {
	sync.Mutex
	handlers  map[string]HandlerFactory
	listeners map[string]ListenerFactory
}{handlers: map[string]HandlerFactory{}, listeners: map[string]ListenerFactory{}}

// RegisterMessageHandler makes --message.handler name available: zkafka's stand-in for the Java
// class Kafka loads by name (docs/deviations.md). Programs embedding the tool register theirs
// before calling Run.
func RegisterMessageHandler(name string, f HandlerFactory) {
	registry.Lock()
	defer registry.Unlock()
	registry.handlers[name] = f
}

// RegisterRebalanceListener makes --consumer.rebalance.listener name available.
func RegisterRebalanceListener(name string, f ListenerFactory) {
	registry.Lock()
	defer registry.Unlock()
	registry.listeners[name] = f
}

func classNotFound(name string, known []string) error {
	sort.Strings(known)
	return &startError{"java.lang.ClassNotFoundException", fmt.Errorf("%s (zkafka knows the registered names: %s)", name, strings.Join(known, ", "))}
}

func newMessageHandler(name string, args *string) (MirrorMakerMessageHandler, error) {
	if name == "" {
		return DefaultMirrorMakerMessageHandler, nil
	}
	registry.Lock()
	f, ok := registry.handlers[name]
	var known []string
	for k := range registry.handlers {
		known = append(known, k)
	}
	registry.Unlock()
	if !ok {
		return nil, classNotFound(name, known)
	}
	return f(args)
}

func newRebalanceListener(name string, args *string) (oldconsumer.ConsumerRebalanceListener, error) {
	registry.Lock()
	f, ok := registry.listeners[name]
	var known []string
	for k := range registry.listeners {
		known = append(known, k)
	}
	registry.Unlock()
	if !ok {
		return nil, classNotFound(name, known)
	}
	return f(args)
}

// TopicRenameMessageHandlerName is the registered name of TopicRenameMessageHandler.
const TopicRenameMessageHandlerName = "zkafka.tools.mirrormaker.TopicRenameMessageHandler"

// TopicRenameMessageHandler copies like DefaultMirrorMakerMessageHandler, renaming the topics of
// its --message.handler.args, "source:target[,source:target...]" (the example handler of
// KIP-3's message handler; Kafka ships none).
func TopicRenameMessageHandler(args *string) (MirrorMakerMessageHandler, error) {
	if args == nil || *args == "" {
		return nil, &startError{"java.lang.IllegalArgumentException", errors.New("TopicRenameMessageHandler needs --message.handler.args source:target[,source:target...]")}
	}
	renames := map[string]string{}
	for _, pair := range strings.Split(*args, ",") {
		from, to, ok := strings.Cut(strings.TrimSpace(pair), ":")
		if !ok || from == "" || to == "" {
			return nil, &startError{"java.lang.IllegalArgumentException", fmt.Errorf("bad topic rename %q: want source:target", pair)}
		}
		renames[from] = to
	}
	return MessageHandlerFunc(func(rec oldconsumer.BaseConsumerRecord) []producer.ProducerRecord[[]byte, []byte] {
		out := DefaultMirrorMakerMessageHandler.Handle(rec)
		if to, ok := renames[rec.Topic]; ok {
			out[0].Topic = to
		}
		return out
	}), nil
}

func init() {
	RegisterMessageHandler(TopicRenameMessageHandlerName, TopicRenameMessageHandler)
}
