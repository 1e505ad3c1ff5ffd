package perf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/commandline"
)

// Deps are the consumer perf test's outside world.
type Deps struct {
	// NewConsumer runs the new consumer's benchmark (--broker-list without --zookeeper): it
	// consumes up to messages records with props and returns how many and their bytes. Nil:
	// not supported yet (exit 1).
	NewConsumer func(ctx context.Context, props map[string]string, topic string, messages int64) (msgs, bytes int64, err error)
	// OldConsumerDeps are given to the old consumer.
	OldConsumerDeps oldconsumer.Deps
}

// perfConfig is ConsumerPerfConfig (with PerfConfig's common options).
type perfConfig struct {
	useOldConsumer    bool
	props             map[string]string
	numThreads        int32
	topic             string
	numMessages       int64
	reportingInterval int32
	showDetailedStats bool
	dateFormat        *simpleDateFormat
	hideHeader        bool
}

// RunConsumerPerformance is kafka-consumer-perf-test.sh.
func RunConsumerPerformance(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunConsumerPerformanceWith(ctx, args, stdout, stderr, Deps{})
}

// RunConsumerPerformanceWith is RunConsumerPerformance with explicit dependencies.
//
// Kafka 0.10.2: ConsumerPerformance.main.
func RunConsumerPerformanceWith(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.ConsumerPerformance$")
	cfg, code, done := parseConsumerPerfConfig(args, stderr)
	if done {
		return code
	}
	log.Info("Starting consumer...")
	if !cfg.hideHeader {
		if !cfg.showDetailedStats {
			fmt.Fprintln(stdout, "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec")
		} else {
			fmt.Fprintln(stdout, "time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec")
		}
	}
	var totalMessages, totalBytes atomic.Int64
	var startMs, endMs int64
	if !cfg.useOldConsumer {
		if deps.NewConsumer == nil {
			fmt.Fprintln(stderr, "The new consumer (--broker-list, --new-consumer) is not supported by zkafka yet; use --zookeeper for the old consumer.")
			return 1
		}
		startMs = time.Now().UnixMilli()
		n, b, err := deps.NewConsumer(ctx, cfg.props, cfg.topic, cfg.numMessages)
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
			return 1
		}
		endMs = time.Now().UnixMilli()
		totalMessages.Store(n)
		totalBytes.Store(b)
	} else {
		consumerConfig, err := oldconsumer.NewConsumerConfig(cfg.props, nil)
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
			return 1
		}
		odeps := deps.OldConsumerDeps
		if odeps.Logger == nil {
			odeps.Logger = log.WithField("logger", "kafka.consumer")
		}
		connector, err := oldconsumer.Create(ctx, consumerConfig, odeps)
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
			return 1
		}
		streams, err := connector.CreateMessageStreams(map[string]int{cfg.topic: int(cfg.numThreads)})
		if err != nil {
			connector.Shutdown()
			fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
			return 1
		}
		log.Info("Sleeping for 1 second.")
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
		log.Info("starting threads")
		var consumerTimeout atomic.Bool
		var wg sync.WaitGroup
		startMs = time.Now().UnixMilli()
		for i, s := range streams[cfg.topic] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				consumerPerfThread(i, s, cfg, &totalMessages, &totalBytes, &consumerTimeout, stdout, stderr)
			}()
		}
		stop := context.AfterFunc(ctx, connector.Shutdown)
		wg.Wait()
		stop()
		endMs = time.Now().UnixMilli()
		if consumerTimeout.Load() {
			endMs -= int64(consumerConfig.ConsumerTimeoutMs)
		}
		connector.Shutdown()
	}
	elapsedSecs := float64(endMs-startMs) / 1000.0
	if !cfg.showDetailedStats {
		totalMB := float64(totalBytes.Load()) / (1024 * 1024)
		fmt.Fprintf(stdout, "%s, %s, %s, %s, %d, %s\n", cfg.dateFormat.format(time.UnixMilli(startMs)),
			cfg.dateFormat.format(time.UnixMilli(endMs)), f4(totalMB), f4(totalMB/elapsedSecs), totalMessages.Load(),
			f4(float64(totalMessages.Load())/elapsedSecs))
	}
	return 0
}

// consumerPerfThread reads one stream until numMessages, the consumer timeout, or the end.
//
// Kafka 0.10.2: ConsumerPerformance.ConsumerPerfThread.
func consumerPerfThread(id int, s *oldconsumer.KafkaStream[[]byte, []byte], cfg *perfConfig, totalMessages, totalBytes *atomic.Int64,
	consumerTimeout *atomic.Bool, stdout, stderr io.Writer) {
	var bytesRead, messagesRead, lastBytesRead, lastMessagesRead int64
	startMs := time.Now().UnixMilli()
	lastReportTime := startMs
	it := s.Iterator()
	for messagesRead < cfg.numMessages {
		ok, err := it.HasNext()
		if err != nil {
			if errors.Is(err, oldconsumer.ErrConsumerTimeout) {
				consumerTimeout.Store(true)
			} else {
				fmt.Fprintln(stderr, err)
			}
			break
		}
		if !ok {
			break
		}
		m, err := it.Next()
		if err != nil {
			fmt.Fprintln(stderr, err)
			break
		}
		messagesRead++
		bytesRead += int64(len(m.Message()))
		now := time.Now().UnixMilli()
		if now-lastReportTime >= int64(cfg.reportingInterval) {
			if cfg.showDetailedStats {
				printProgressMessage(stdout, id, bytesRead, lastBytesRead, messagesRead, lastMessagesRead, lastReportTime, now, cfg.dateFormat)
			}
			lastReportTime, lastMessagesRead, lastBytesRead = now, messagesRead, bytesRead
		}
	}
	totalMessages.Add(messagesRead)
	totalBytes.Add(bytesRead)
	if cfg.showDetailedStats {
		printProgressMessage(stdout, id, bytesRead, lastBytesRead, messagesRead, lastMessagesRead, startMs, time.Now().UnixMilli(), cfg.dateFormat)
	}
}

func printProgressMessage(w io.Writer, id int, bytesRead, lastBytesRead, messagesRead, lastMessagesRead, startMs, endMs int64,
	df *simpleDateFormat) {
	elapsedMs := float64(endMs - startMs)
	totalMB := float64(bytesRead) / (1024 * 1024)
	mbRead := float64(bytesRead-lastBytesRead) / (1024 * 1024)
	fmt.Fprintf(w, "%s, %d, %s, %s, %d, %s\n", df.format(time.UnixMilli(endMs)), id, f4(totalMB), f4(1000.0*(mbRead/elapsedMs)),
		messagesRead, f4((float64(messagesRead-lastMessagesRead)/elapsedMs)*1000.0))
}

// f4 is Java's "%.4f" (javaFloat).
func f4(v float64) string { return javaFloat(v, 4) }

// parseConsumerPerfConfig reads the options (ConsumerPerfConfig).
func parseConsumerPerfConfig(args []string, stderr io.Writer) (*perfConfig, int, bool) {
	p := commandline.NewOptionParser()
	numMessagesOpt := p.Accepts("messages", "REQUIRED: The number of messages to send or consume").WithRequiredArg().DescribedAs("count").OfType("Long")
	reportingIntervalOpt := p.Accepts("reporting-interval", "Interval in milliseconds at which to print progress info.").
		WithRequiredArg().DescribedAs("interval_ms").OfType("Integer").DefaultsTo("5000")
	dateFormatOpt := p.Accepts("date-format", "The date format to use for formatting the time field. See java.text.SimpleDateFormat for options.").
		WithRequiredArg().DescribedAs("date format").DefaultsTo("yyyy-MM-dd HH:mm:ss:SSS")
	showDetailedStatsOpt := p.Accepts("show-detailed-stats", "If set, stats are reported for each reporting interval as configured by reporting-interval")
	hideHeaderOpt := p.Accepts("hide-header", "If set, skips printing the header for the stats ")
	p.Accepts("message-size", "The size of each message.").WithRequiredArg().DescribedAs("size").OfType("Integer").DefaultsTo("100")
	p.Accepts("batch-size", "Number of messages to write in a single batch.").WithRequiredArg().DescribedAs("size").OfType("Integer").DefaultsTo("200")
	p.Accepts("compression-codec", "If set, messages are sent compressed").WithRequiredArg().
		DescribedAs("supported codec: NoCompressionCodec as 0, GZIPCompressionCodec as 1, SnappyCompressionCodec as 2, LZ4CompressionCodec as 3").
		OfType("Integer").DefaultsTo("0")
	p.Accepts("help", "Print usage.")
	zkConnectOpt := p.Accepts("zookeeper", "REQUIRED (only when using old consumer): The connection string for the zookeeper connection in the form host:port. "+
		"Multiple URLS can be given to allow fail-over. This option is only used with the old consumer.").WithRequiredArg().DescribedAs("urls")
	bootstrapServersOpt := p.Accepts("broker-list", "REQUIRED (unless old consumer is used): A broker list to use for connecting if using the new consumer.").
		WithRequiredArg().DescribedAs("host")
	topicOpt := p.Accepts("topic", "REQUIRED: The topic to consume from.").WithRequiredArg().DescribedAs("topic")
	groupIDOpt := p.Accepts("group", "The group id to consume on.").WithRequiredArg().DescribedAs("gid").
		DefaultsTo("perf-consumer-" + strconv.Itoa(rand.IntN(100000)))
	fetchSizeOpt := p.Accepts("fetch-size", "The amount of data to fetch in a single request.").WithRequiredArg().DescribedAs("size").
		OfType("Integer").DefaultsTo(strconv.Itoa(1024 * 1024))
	resetBeginningOffsetOpt := p.Accepts("from-latest", "If the consumer does not already have an established offset to consume from, "+
		"start with the latest message present in the log rather than the earliest message.")
	socketBufferSizeOpt := p.Accepts("socket-buffer-size", "The size of the tcp RECV size.").WithRequiredArg().DescribedAs("size").
		OfType("Integer").DefaultsTo(strconv.Itoa(2 * 1024 * 1024))
	numThreadsOpt := p.Accepts("threads", "Number of processing threads.").WithRequiredArg().DescribedAs("count").OfType("Integer").DefaultsTo("10")
	numFetchersOpt := p.Accepts("num-fetch-threads", "Number of fetcher threads.").WithRequiredArg().DescribedAs("count").
		OfType("Integer").DefaultsTo("1")
	newConsumerOpt := p.Accepts("new-consumer", "Use the new consumer implementation. This is the default.")
	consumerConfigOpt := p.Accepts("consumer.config", "Consumer config properties file.").WithRequiredArg().DescribedAs("config file")

	fail := func(err error) (*perfConfig, int, bool) { return nil, commandline.Fail(stderr, err), true }
	opts, err := p.Parse(args...)
	if err != nil {
		return fail(err)
	}
	if err := commandline.CheckRequiredArgs(p, opts, topicOpt, numMessagesOpt); err != nil {
		return fail(err)
	}
	cfg := &perfConfig{useOldConsumer: opts.Has(zkConnectOpt), topic: opts.ValueOf(topicOpt), showDetailedStats: opts.Has(showDetailedStatsOpt),
		hideHeader: opts.Has(hideHeaderOpt), props: map[string]string{}}
	if opts.Has(consumerConfigOpt) {
		if cfg.props, err = kconfig.LoadProps(opts.ValueOf(consumerConfigOpt)); err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.FileNotFoundException: %v\n", err)
			return nil, 1, true
		}
	}
	if !cfg.useOldConsumer {
		if err := commandline.CheckRequiredArgs(p, opts, bootstrapServersOpt); err != nil {
			return fail(err)
		}
		cfg.props["bootstrap.servers"] = opts.ValueOf(bootstrapServersOpt)
		cfg.props["group.id"] = opts.ValueOf(groupIDOpt)
		cfg.props["receive.buffer.bytes"] = opts.ValueOf(socketBufferSizeOpt)
		cfg.props["max.partition.fetch.bytes"] = opts.ValueOf(fetchSizeOpt)
		cfg.props["auto.offset.reset"] = "earliest"
		if opts.Has(resetBeginningOffsetOpt) {
			cfg.props["auto.offset.reset"] = "latest"
		}
		cfg.props["key.deserializer"] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
		cfg.props["value.deserializer"] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
		cfg.props["check.crcs"] = "false"
	} else {
		switch {
		case opts.Has(bootstrapServersOpt):
			return fail(commandline.PrintUsageAndDie(p, fmt.Sprintf("Option %s is not valid with %s.", bootstrapServersOpt, zkConnectOpt)))
		case opts.Has(newConsumerOpt):
			return fail(commandline.PrintUsageAndDie(p, fmt.Sprintf("Option %s is not valid with %s.", newConsumerOpt, zkConnectOpt)))
		}
		cfg.props["group.id"] = opts.ValueOf(groupIDOpt)
		cfg.props["socket.receive.buffer.bytes"] = opts.ValueOf(socketBufferSizeOpt)
		cfg.props["fetch.message.max.bytes"] = opts.ValueOf(fetchSizeOpt)
		cfg.props["auto.offset.reset"] = oldconsumer.SmallestTimeString
		if opts.Has(resetBeginningOffsetOpt) {
			cfg.props["auto.offset.reset"] = oldconsumer.LargestTimeString
		}
		cfg.props["zookeeper.connect"] = opts.ValueOf(zkConnectOpt)
		cfg.props["consumer.timeout.ms"] = "1000"
		cfg.props["num.consumer.fetchers"] = opts.ValueOf(numFetchersOpt)
	}
	if cfg.numThreads, err = opts.IntValueOf(numThreadsOpt); err != nil {
		return fail(err)
	}
	if cfg.numMessages, err = opts.LongValueOf(numMessagesOpt); err != nil {
		return fail(err)
	}
	if cfg.reportingInterval, err = opts.IntValueOf(reportingIntervalOpt); err != nil {
		return fail(err)
	}
	if cfg.reportingInterval <= 0 {
		fmt.Fprintln(stderr, "Exception in thread \"main\" java.lang.IllegalArgumentException: Reporting interval must be greater than 0.")
		return nil, 1, true
	}
	if cfg.dateFormat, err = newSimpleDateFormat(opts.ValueOf(dateFormatOpt)); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.IllegalArgumentException: %v\n", err)
		return nil, 1, true
	}
	return cfg, 0, false
}
