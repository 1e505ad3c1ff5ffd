package consoleproducer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/producer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
)

// lineReaderClass is the one MessageReader zkafka offers.
const lineReaderClass = "kafka.tools.ConsoleProducer$LineMessageReader"

// ProducerConfig is the console producer's command line.
//
// Kafka 0.10.2: ConsoleProducer.ProducerConfig.
type ProducerConfig struct {
	Topic                   string
	BrokerList              string
	Sync                    bool
	CompressionCodec        string
	RequestRequiredAcks     string
	RequestTimeoutMs        int32
	MessageSendMaxRetries   int32
	RetryBackoffMs          int32
	SendTimeout             int32
	SocketBuffer            int32
	MaxMemoryBytes          int64
	MaxPartitionMemoryBytes int64
	MetadataExpiryMs        int64
	MaxBlockMs              int64
	ReaderClass             string
	UseOldProducer          bool
	BatchSize               int32
	QueueSize               int32
	QueueEnqueueTimeoutMs   int32
	KeyEncoderClass         string
	ValueEncoderClass       string
	CmdLineProps            map[string]string
	ExtraProducerProps      map[string]string
	ProducerConfigFile      string
}

func parser() (*commandline.OptionParser, map[string]*commandline.OptionSpec) {
	p := commandline.NewOptionParser()
	o := map[string]*commandline.OptionSpec{}
	o["topic"] = p.Accepts("topic", "REQUIRED: The topic id to produce messages to.").WithRequiredArg().DescribedAs("topic")
	o["broker-list"] = p.Accepts("broker-list", "REQUIRED: The broker list string in the form HOST1:PORT1,HOST2:PORT2.").WithRequiredArg().DescribedAs("broker-list")
	o["sync"] = p.Accepts("sync", "If set message send requests to the brokers are synchronously, one at a time as they arrive.")
	o["compression-codec"] = p.Accepts("compression-codec", "The compression codec: either 'none', 'gzip', 'snappy', or 'lz4'.If specified without value, then it defaults to 'gzip'").
		WithOptionalArg().DescribedAs("compression-codec")
	o["batch-size"] = p.Accepts("batch-size", "Number of messages to send in a single batch if they are not being sent synchronously.").
		WithRequiredArg().DescribedAs("size").OfType("Integer").DefaultsTo("200")
	o["message-send-max-retries"] = p.Accepts("message-send-max-retries", "Brokers can fail receiving the message for multiple reasons, and being unavailable transiently is just one of them. This property specifies the number of retires before the producer give up and drop this message.").
		WithRequiredArg().OfType("Integer").DefaultsTo("3")
	o["retry-backoff-ms"] = p.Accepts("retry-backoff-ms", "Before each retry, the producer refreshes the metadata of relevant topics. Since leader election takes a bit of time, this property specifies the amount of time that the producer waits before refreshing the metadata.").
		WithRequiredArg().OfType("Integer").DefaultsTo("100")
	o["timeout"] = p.Accepts("timeout", "If set and the producer is running in asynchronous mode, this gives the maximum amount of time a message will queue awaiting sufficient batch size. The value is given in ms.").
		WithRequiredArg().DescribedAs("timeout_ms").OfType("Integer").DefaultsTo("1000")
	o["queue-size"] = p.Accepts("queue-size", "If set and the producer is running in asynchronous mode, this gives the maximum amount of  messages will queue awaiting sufficient batch size.").
		WithRequiredArg().DescribedAs("queue_size").OfType("Integer").DefaultsTo("10000")
	o["queue-enqueuetimeout-ms"] = p.Accepts("queue-enqueuetimeout-ms", "Timeout for event enqueue").
		WithRequiredArg().DescribedAs("queue enqueuetimeout ms").OfType("Integer").DefaultsTo("2147483647")
	o["request-required-acks"] = p.Accepts("request-required-acks", "The required acks of the producer requests").
		WithRequiredArg().DescribedAs("request required acks").DefaultsTo("1")
	o["request-timeout-ms"] = p.Accepts("request-timeout-ms", "The ack timeout of the producer requests. Value must be non-negative and non-zero").
		WithRequiredArg().DescribedAs("request timeout ms").OfType("Integer").DefaultsTo("1500")
	o["metadata-expiry-ms"] = p.Accepts("metadata-expiry-ms", "The period of time in milliseconds after which we force a refresh of metadata even if we haven't seen any leadership changes.").
		WithRequiredArg().DescribedAs("metadata expiration interval").OfType("Long").DefaultsTo("300000")
	o["max-block-ms"] = p.Accepts("max-block-ms", "The max time that the producer will block for during a send request").
		WithRequiredArg().DescribedAs("max block on send").OfType("Long").DefaultsTo("60000")
	o["max-memory-bytes"] = p.Accepts("max-memory-bytes", "The total memory used by the producer to buffer records waiting to be sent to the server.").
		WithRequiredArg().DescribedAs("total memory in bytes").OfType("Long").DefaultsTo("33554432")
	o["max-partition-memory-bytes"] = p.Accepts("max-partition-memory-bytes", "The buffer size allocated for a partition. When records are received which are smaller than this size the producer will attempt to optimistically group them together until this size is reached.").
		WithRequiredArg().DescribedAs("memory in bytes per partition").OfType("Long").DefaultsTo("16384")
	o["value-serializer"] = p.Accepts("value-serializer", "The class name of the message encoder implementation to use for serializing values.").
		WithRequiredArg().DescribedAs("encoder_class").DefaultsTo("kafka.serializer.DefaultEncoder")
	o["key-serializer"] = p.Accepts("key-serializer", "The class name of the message encoder implementation to use for serializing keys.").
		WithRequiredArg().DescribedAs("encoder_class").DefaultsTo("kafka.serializer.DefaultEncoder")
	o["line-reader"] = p.Accepts("line-reader", "The class name of the class to use for reading lines from standard in. By default each line is read as a separate message.").
		WithRequiredArg().DescribedAs("reader_class").DefaultsTo(lineReaderClass)
	o["socket-buffer-size"] = p.Accepts("socket-buffer-size", "The size of the tcp RECV size.").
		WithRequiredArg().DescribedAs("size").OfType("Integer").DefaultsTo("102400")
	o["property"] = p.Accepts("property", "A mechanism to pass user-defined properties in the form key=value to the message reader. This allows custom configuration for a user-defined message reader.").
		WithRequiredArg().DescribedAs("prop")
	o["producer-property"] = p.Accepts("producer-property", "A mechanism to pass user-defined properties in the form key=value to the producer. ").
		WithRequiredArg().DescribedAs("producer_prop")
	o["producer.config"] = p.Accepts("producer.config", "Producer config properties file. Note that [producer-property] takes precedence over this config.").
		WithRequiredArg().DescribedAs("config file")
	o["old-producer"] = p.Accepts("old-producer", "Use the old producer implementation.")
	return p, o
}

// optionError is a joptsimple.OptionException, which ConsoleProducer catches and prints as its
// bare message before exiting 1.
type optionError struct{ msg string }

func (e *optionError) Error() string { return e.msg }

// ParseArgs reads the command line.
//
// Kafka 0.10.2: new ConsoleProducer.ProducerConfig(args).
func ParseArgs(args []string) (*ProducerConfig, error) {
	p, o := parser()
	opts, err := p.Parse(args...)
	if err != nil {
		var pe *commandline.ParseError
		if errors.As(err, &pe) {
			return nil, &optionError{pe.Message}
		}
		return nil, err
	}
	if len(args) == 0 {
		return nil, commandline.PrintUsageAndDie(p, "Read data from standard input and publish it to Kafka.")
	}
	if err := commandline.CheckRequiredArgs(p, opts, o["topic"], o["broker-list"]); err != nil {
		return nil, err
	}
	c := &ProducerConfig{Topic: opts.ValueOf(o["topic"]), BrokerList: opts.ValueOf(o["broker-list"]),
		UseOldProducer: opts.Has(o["old-producer"]), Sync: opts.Has(o["sync"])}
	if err := commandline.ValidatePortOrDie(p, c.BrokerList); err != nil {
		return nil, err
	}
	c.CompressionCodec = "none"
	if opts.Has(o["compression-codec"]) {
		c.CompressionCodec = opts.ValueOf(o["compression-codec"])
		if c.CompressionCodec == "" {
			c.CompressionCodec = "gzip"
		}
	}
	ints := []struct {
		dst  *int32
		name string
	}{{&c.SendTimeout, "timeout"}, {&c.RequestTimeoutMs, "request-timeout-ms"}, {&c.MessageSendMaxRetries, "message-send-max-retries"},
		{&c.RetryBackoffMs, "retry-backoff-ms"}, {&c.SocketBuffer, "socket-buffer-size"}}
	for _, i := range append(ints, []struct {
		dst  *int32
		name string
	}{{&c.BatchSize, "batch-size"}, {&c.QueueSize, "queue-size"}, {&c.QueueEnqueueTimeoutMs, "queue-enqueuetimeout-ms"}}...) {
		v, err := opts.IntValueOf(o[i.name])
		if err != nil {
			return nil, &optionError{err.Error()}
		}
		*i.dst = v
	}
	longs := []struct {
		dst  *int64
		name string
	}{{&c.MaxMemoryBytes, "max-memory-bytes"}, {&c.MaxPartitionMemoryBytes, "max-partition-memory-bytes"},
		{&c.MetadataExpiryMs, "metadata-expiry-ms"}, {&c.MaxBlockMs, "max-block-ms"}}
	for _, l := range longs {
		v, err := opts.LongValueOf(o[l.name])
		if err != nil {
			return nil, &optionError{err.Error()}
		}
		*l.dst = v
	}
	c.RequestRequiredAcks = opts.ValueOf(o["request-required-acks"])
	c.ReaderClass = opts.ValueOf(o["line-reader"])
	c.KeyEncoderClass = opts.ValueOf(o["key-serializer"])
	c.ValueEncoderClass = opts.ValueOf(o["value-serializer"])
	c.ProducerConfigFile = opts.ValueOf(o["producer.config"])
	if c.CmdLineProps, _, err = commandline.ParseKeyValueArgs(opts.ValuesOf(o["property"]), true); err != nil {
		return nil, err
	}
	if c.ExtraProducerProps, _, err = commandline.ParseKeyValueArgs(opts.ValuesOf(o["producer-property"]), true); err != nil {
		return nil, err
	}
	return c, nil
}

// producerProps are --producer.config's properties overridden by --producer-property.
//
// Kafka 0.10.2: ConsoleProducer.producerProps.
func (c *ProducerConfig) producerProps() (map[string]string, error) {
	props := map[string]string{}
	if c.ProducerConfigFile != "" {
		loaded, err := config.LoadProps(c.ProducerConfigFile)
		if err != nil {
			return nil, err
		}
		props = loaded
	}
	for k, v := range c.ExtraProducerProps {
		props[k] = v
	}
	return props, nil
}

// NewProducerProps are the KafkaProducer's properties: the config file, then
// --producer-property, then the options (which win), then producer.type for --sync.
//
// Kafka 0.10.2: ConsoleProducer.getNewProducerProps.
func (c *ProducerConfig) NewProducerProps() (map[string]string, error) {
	props, err := c.producerProps()
	if err != nil {
		return nil, err
	}
	props[producer.BootstrapServersConfig] = c.BrokerList
	props[producer.CompressionTypeConfig] = c.CompressionCodec
	props[producer.SendBufferConfig] = fmt.Sprint(c.SocketBuffer)
	props[producer.RetryBackoffMsConfig] = fmt.Sprint(c.RetryBackoffMs)
	props[producer.MetadataMaxAgeConfig] = fmt.Sprint(c.MetadataExpiryMs)
	props[producer.MaxBlockMsConfig] = fmt.Sprint(c.MaxBlockMs)
	props[producer.AcksConfig] = c.RequestRequiredAcks
	props[producer.RequestTimeoutMsConfig] = fmt.Sprint(c.RequestTimeoutMs)
	props[producer.RetriesConfig] = fmt.Sprint(c.MessageSendMaxRetries)
	props[producer.LingerMsConfig] = fmt.Sprint(c.SendTimeout)
	props[producer.BufferMemoryConfig] = fmt.Sprint(c.MaxMemoryBytes)
	props[producer.BatchSizeConfig] = fmt.Sprint(c.MaxPartitionMemoryBytes)
	props[producer.ClientIDConfig] = "console-producer"
	props[producer.KeySerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	props[producer.ValueSerializerClassConfig] = "org.apache.kafka.common.serialization.ByteArraySerializer"
	if c.Sync {
		props["producer.type"] = "sync"
	}
	return props, nil
}

// Run is kafka-console-producer reading os.Stdin.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunWithInput(ctx, args, os.Stdin, stdout, stderr)
}

// printStackTrace prints an exception the way ConsoleProducer's catch-all does.
func printStackTrace(w io.Writer, class string, err error) int {
	fmt.Fprintf(w, "%s: %v\n", class, err)
	return 1
}

// RunWithInput is kafka-console-producer reading stdin; ctx ending (SIGINT) closes the producer
// and returns 130.
//
// Kafka 0.10.2: ConsoleProducer.main.
func RunWithInput(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := ParseArgs(args)
	if err != nil {
		var oe *optionError
		if errors.As(err, &oe) {
			fmt.Fprintln(stderr, oe.msg)
			return 1
		}
		return commandline.Fail(stderr, err)
	}
	if cfg.ReaderClass != lineReaderClass {
		return printStackTrace(stderr, "java.lang.ClassNotFoundException", errors.New(cfg.ReaderClass))
	}
	if cfg.UseOldProducer {
		return runOldProducer(ctx, cfg, stdin, stderr)
	}
	props, err := cfg.NewProducerProps()
	if err != nil {
		return printStackTrace(stderr, "java.io.FileNotFoundException", err)
	}
	reader := NewLineMessageReader(stdin, cfg.Topic, cfg.CmdLineProps)
	prod, err := producer.NewKafkaProducerWith[[]byte, []byte](props, nil, nil, producer.ProducerOptions[[]byte, []byte]{
		Log: commandline.ToolsLogger(stderr, "org.apache.kafka.clients.producer.KafkaProducer")})
	if err != nil {
		var ce *config.ConfigException
		if errors.As(err, &ce) && err == error(ce) {
			return printStackTrace(stderr, "org.apache.kafka.common.config.ConfigException", err)
		}
		return printStackTrace(stderr, "org.apache.kafka.common.KafkaException", err)
	}
	defer prod.Close(math.MaxInt64) //nolint:errcheck // the shutdown hook: send what is buffered
	errLog := commandline.ToolsLogger(stderr, "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback")

	records, stop := readRecords(reader)
	defer stop()
	for {
		var n next
		select {
		case <-ctx.Done():
			return 130
		case n = <-records:
		}
		switch {
		case errors.Is(n.err, io.EOF):
			return 0
		case n.err != nil:
			return printStackTrace(stderr, "org.apache.kafka.common.KafkaException", n.err)
		}
		if cfg.Sync {
			f, err := prod.Send(n.rec, nil)
			if err == nil {
				_, err = f.Get(ctx)
			}
			if err != nil {
				return printStackTrace(stderr, exceptionName(err), errors.New(protocol.ExceptionMessage(err)))
			}
			continue
		}
		if _, err := prod.Send(n.rec, errorLoggingCallback(errLog, stderr, cfg.Topic, n.rec.Key, n.rec.Value)); err != nil {
			return printStackTrace(stderr, exceptionName(err), err)
		}
	}
}

// next is one ReadMessage result.
type next struct {
	rec producer.ProducerRecord[[]byte, []byte]
	err error
}

// readRecords reads reader on a goroutine until an error (io.EOF at the end), so that the
// tool's loop can also watch its context; stop ends the goroutine.
func readRecords(reader *LineMessageReader) (<-chan next, func()) {
	records := make(chan next)
	done := make(chan struct{})
	go func() {
		for {
			rec, err := reader.ReadMessage()
			select {
			case records <- next{rec, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return records, func() { close(done) }
}

func exceptionName(err error) string {
	if n := protocol.ExceptionName(err); n != "" {
		return n
	}
	if errors.Is(err, producer.ErrProducerClosed) {
		return "java.lang.IllegalStateException"
	}
	return "org.apache.kafka.common.KafkaException"
}

// errorLoggingCallback logs a failed record at ERROR with its key and value sizes, the
// exception on the line after, as log4j prints a throwable.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer.internals.ErrorLoggingCallback (logAsString false).
func errorLoggingCallback(log *logrus.Entry, stderr io.Writer, topic string, key, value []byte) producer.Callback {
	keyString := "null"
	if key != nil {
		keyString = fmt.Sprintf("%d bytes", len(key))
	}
	valueString := "null"
	if value != nil {
		valueString = fmt.Sprintf("%d bytes", len(value))
	}
	return func(_ *producer.RecordMetadata, err error) {
		if err != nil {
			log.Errorf("Error when sending message to topic %s with key: %s, value: %s with error:", topic, keyString, valueString)
			fmt.Fprintf(stderr, "%s: %s\n", exceptionName(err), protocol.ExceptionMessage(err))
		}
	}
}
