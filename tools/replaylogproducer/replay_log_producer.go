package replaylogproducer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/tools/commandline"
)

// GroupID is the consumer group the tool reads with.
const GroupID = "replay-log-producer"

// Config is the tool's command line.
//
// Kafka 0.10.2: ReplayLogProducer.Config.
type Config struct {
	ZkConnect         string
	BrokerList        string
	InputTopic        string
	OutputTopic       string
	NumMessages       int32
	NumThreads        int32
	ReportingInterval int32
	IsSync            bool
	ProducerProps     map[string]string
}

// ParseConfig reads the command line.
func ParseConfig(args []string) (*Config, error) {
	p := commandline.NewOptionParser()
	zkConnectOpt := p.Accepts("zookeeper", "REQUIRED: The connection string for the zookeeper connection in the form host:port. "+
		"Multiple URLS can be given to allow fail-over.").WithRequiredArg().DescribedAs("zookeeper url").DefaultsTo("127.0.0.1:2181")
	brokerListOpt := p.Accepts("broker-list", "REQUIRED: the broker list must be specified.").WithRequiredArg().DescribedAs("hostname:port")
	inputTopicOpt := p.Accepts("inputtopic", "REQUIRED: The topic to consume from.").WithRequiredArg().DescribedAs("input-topic")
	outputTopicOpt := p.Accepts("outputtopic", "REQUIRED: The topic to produce to").WithRequiredArg().DescribedAs("output-topic")
	numMessagesOpt := p.Accepts("messages", "The number of messages to send.").WithRequiredArg().DescribedAs("count").OfType("Integer").DefaultsTo("-1")
	numThreadsOpt := p.Accepts("threads", "Number of sending threads.").WithRequiredArg().DescribedAs("threads").OfType("Integer").DefaultsTo("1")
	reportingIntervalOpt := p.Accepts("reporting-interval", "Interval at which to print progress info.").
		WithRequiredArg().DescribedAs("size").OfType("Integer").DefaultsTo("5000")
	propertyOpt := p.Accepts("property", "A mechanism to pass properties in the form key=value to the producer. "+
		"This allows the user to override producer properties that are not exposed by the existing command line arguments").
		WithRequiredArg().DescribedAs("producer properties")
	syncOpt := p.Accepts("sync", "If set message send requests to the brokers are synchronously, one at a time as they arrive.")
	opts, err := p.Parse(args...)
	if err != nil {
		return nil, err
	}
	if err := commandline.CheckRequiredArgs(p, opts, brokerListOpt, inputTopicOpt); err != nil {
		return nil, err
	}
	c := &Config{ZkConnect: opts.ValueOf(zkConnectOpt), BrokerList: opts.ValueOf(brokerListOpt), InputTopic: opts.ValueOf(inputTopicOpt),
		OutputTopic: opts.ValueOf(outputTopicOpt), IsSync: opts.Has(syncOpt)}
	if err := commandline.ValidatePortOrDie(p, c.BrokerList); err != nil {
		return nil, err
	}
	for _, i := range []struct {
		dst  *int32
		spec *commandline.OptionSpec
	}{{&c.NumMessages, numMessagesOpt}, {&c.NumThreads, numThreadsOpt}, {&c.ReportingInterval, reportingIntervalOpt}} {
		if *i.dst, err = opts.IntValueOf(i.spec); err != nil {
			return nil, err
		}
	}
	if c.ProducerProps, _, err = commandline.ParseKeyValueArgs(opts.ValuesOf(propertyOpt), true); err != nil {
		return nil, err
	}
	c.ProducerProps[producer.BootstrapServersConfig] = c.BrokerList
	c.ProducerProps[producer.KeySerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	c.ProducerProps[producer.ValueSerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	return c, nil
}

// Run is kafka-replay-log-producer.sh.
//
// Kafka 0.10.2: ReplayLogProducer.main.
func Run(ctx context.Context, args []string, _, stderr io.Writer) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.ReplayLogProducer$")
	cfg, err := ParseConfig(args)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	// Without a group of its own, the tool starts over each time: the group's znodes go first.
	if err := maybeDeletePath(cfg.ZkConnect, "/consumers/"+GroupID, log); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	time.Sleep(500 * time.Millisecond)
	consumerProps := map[string]string{"group.id": GroupID, "zookeeper.connect": cfg.ZkConnect, "consumer.timeout.ms": "10000",
		"auto.offset.reset": "smallest", "fetch.message.max.bytes": fmt.Sprint(1024 * 1024),
		"socket.receive.buffer.bytes": fmt.Sprint(2 * 1024 * 1024)}
	consumerConfig, err := oldconsumer.NewConsumerConfig(consumerProps, log.WithField("logger", "kafka.utils.VerifiableProperties"))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	connector, err := oldconsumer.NewZookeeperConsumerConnector(ctx, consumerConfig, oldconsumer.Deps{Logger: log.WithField("logger", "kafka.consumer")})
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	defer connector.Shutdown()
	streams, err := connector.CreateMessageStreams(map[string]int{cfg.InputTopic: int(cfg.NumThreads)})
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	var threads []*ZKConsumerThread
	for _, list := range streams {
		for _, s := range list {
			t, err := NewZKConsumerThread(cfg, s, log)
			if err != nil {
				for _, t := range threads {
					t.producer.Close(0) //nolint:errcheck
				}
				fmt.Fprintf(stderr, "Exception in thread \"main\" org.apache.kafka.common.KafkaException: %v\n", err)
				return 1
			}
			threads = append(threads, t)
		}
	}
	for _, t := range threads {
		go t.run(ctx)
	}
	for _, t := range threads {
		t.shutdown()
	}
	return 0
}

// maybeDeletePath deletes path and what is under it, if it exists.
//
// Kafka 0.10.2: ZkUtils.maybeDeletePath.
func maybeDeletePath(zkConnect, path string, log *logrus.Entry) error {
	zk, err := commandline.ConnectZk(zkConnect, 30*time.Second, 30*time.Second, log.WithField("logger", "kafka.utils.ZkUtils"), common.SystemTime{})
	if err != nil {
		return err
	}
	defer zk.Close()
	return zk.DeletePathRecursive(path)
}

// ZKConsumerThread sends what one stream reads to the output topic with a producer of its own.
//
// Kafka 0.10.2: ReplayLogProducer.ZKConsumerThread.
type ZKConsumerThread struct {
	config        *Config
	stream        *oldconsumer.KafkaStream[[]byte, []byte]
	producer      *producer.KafkaProducer[[]byte, []byte]
	log           *logrus.Entry
	shutdownLatch chan struct{}
	// MessageCount is how many messages the thread sent (read after shutdown).
	MessageCount int
}

// NewZKConsumerThread makes the thread's producer.
func NewZKConsumerThread(cfg *Config, stream *oldconsumer.KafkaStream[[]byte, []byte], log *logrus.Entry) (*ZKConsumerThread, error) {
	tlog := log.WithField("logger", "kafka.tools.ReplayLogProducer$ZKConsumerThread")
	p, err := producer.NewKafkaProducerWith[[]byte, []byte](cfg.ProducerProps, nil, nil, producer.ProducerOptions[[]byte, []byte]{
		Log: log.WithField("logger", "org.apache.kafka.clients.producer.KafkaProducer")})
	if err != nil {
		return nil, err
	}
	return &ZKConsumerThread{config: cfg, stream: stream, producer: p, log: tlog, shutdownLatch: make(chan struct{})}, nil
}

// errNullTopic is the ProducerRecord constructor's refusal of a null topic (no --outputtopic).
var errNullTopic = errors.New("java.lang.IllegalArgumentException: Topic cannot be null")

func (t *ZKConsumerThread) run(ctx context.Context) {
	defer close(t.shutdownLatch)
	t.log.Info("Starting consumer thread..")
	limit := int64(math.MaxInt64)
	if t.config.NumMessages >= 0 {
		limit = int64(t.config.NumMessages)
	}
	it := t.stream.Iterator()
	for read := int64(0); read < limit && ctx.Err() == nil; read++ {
		m, err := it.Next()
		if errors.Is(err, oldconsumer.ErrConsumerTimeout) {
			t.log.WithError(err).Error("consumer thread timing out")
			break
		}
		if errors.Is(err, oldconsumer.ErrNoSuchElement) {
			break // the stream ended (the connector shut down)
		}
		if err != nil {
			t.log.WithError(err).Error("Skipping this message")
			continue
		}
		if err := t.send(m); err != nil {
			t.log.WithError(err).Error("Skipping this message")
			continue
		}
		t.MessageCount++
	}
	t.log.Infof("Sent %d messages", t.MessageCount)
	t.log.Info("thread finished execution !")
}

func (t *ZKConsumerThread) send(m oldconsumer.MessageAndMetadata[[]byte, []byte]) error {
	if t.config.OutputTopic == "" {
		return errNullTopic
	}
	rec := producer.NewProducerRecord(t.config.OutputTopic, m.Key(), m.Message()).WithTimestamp(m.Timestamp)
	f, err := t.producer.Send(rec, nil)
	if err != nil {
		return err
	}
	if t.config.IsSync {
		_, err = f.Get(context.Background())
	}
	return err
}

// shutdown waits for the thread to finish and closes its producer (which sends what is
// buffered first).
func (t *ZKConsumerThread) shutdown() {
	<-t.shutdownLatch
	_ = t.producer.Close(math.MaxInt64)
}
