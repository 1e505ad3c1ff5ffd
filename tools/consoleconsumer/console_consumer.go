package consoleconsumer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// NewConsumerArgs is what the console consumer gives the new consumer: a topic (with an
// optional partition and offset) or a whitelist, the consumer properties (bootstrap.servers,
// group.id, auto.offset.reset, key/value deserializers) and the receive timeout.
//
// Kafka 0.10.2: the arguments of kafka.consumer.NewShinyConsumer.
type NewConsumerArgs struct {
	Topic     string
	Partition *int32
	Offset    *int64 // EarliestTime, LatestTime or an offset; nil: none given
	Whitelist string
	Props     map[string]string
	TimeoutMs int64 // math.MaxInt64: wait forever
}

// Deps are the console consumer's outside world.
type Deps struct {
	// NewShinyConsumer makes the new (Java) consumer for --bootstrap-server / --new-consumer.
	// Nil: that path answers that it is not supported yet and exits 1. The new consumer's
	// package plugs its BaseConsumer in here (tools/cmd/zkafka wires it).
	NewShinyConsumer func(ctx context.Context, args NewConsumerArgs) (oldconsumer.BaseConsumer, error)
	// OldConsumerDeps are passed to the old consumer (tests inject ZooKeeper options).
	OldConsumerDeps oldconsumer.Deps
}

// Run is kafka-console-consumer.sh: SIGINT and SIGTERM stop the consumer as Kafka's shutdown
// hook does (the exit code is then 128 + the signal, as the JVM's).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunWithSignals(Deps{})(ctx, args, stdout, stderr)
}

// RunWithSignals is Run with dependencies (tools/cmd/zkafka passes the new consumer).
func RunWithSignals(deps Deps) func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		return runWithSignals(ctx, args, stdout, stderr, deps)
	}
}

func runWithSignals(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	code := RunWith(ctx, args, stdout, stderr, deps)
	select {
	case s := <-sig:
		if n, ok := s.(syscall.Signal); ok && code == 0 {
			return 128 + int(n)
		}
	default:
	}
	return code
}

// config is ConsoleConsumer.ConsumerConfig: the parsed command line.
type config struct {
	useOldConsumer             bool
	enableSystestEventsLogging bool
	topicArg, whitelistArg     string
	filterSpec                 oldconsumer.TopicFilter
	extraConsumerProps         map[string]string
	consumerProps              map[string]string
	zkConnectionStr            string
	fromBeginning              bool
	partitionArg               *int32
	offsetArg                  int64
	offsetGiven                bool
	skipMessageOnError         bool
	formatter                  commandline.MessageFormatter
	maxMessages                int64
	timeoutMs                  int64
	bootstrapServer            string
	keyDeserializer            string
	valueDeserializer          string
	groupIDPassed              bool
	deleteConsumerOffsets      bool
}

// RunWith is Run with explicit dependencies; ctx ending is the shutdown hook.
//
// Kafka 0.10.2: kafka.tools.ConsoleConsumer.main and run.
func RunWith(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.ConsoleConsumer$")
	conf, code, done := parseArgs(args, stderr, log)
	if done {
		return code
	}
	var consumer oldconsumer.BaseConsumer
	var err error
	if conf.useOldConsumer {
		if code, ok := checkZk(conf, stderr); !ok {
			return code
		}
		props, code, ok := getOldConsumerProps(conf, stderr)
		if !ok {
			return code
		}
		oldDeps := deps.OldConsumerDeps
		if oldDeps.Logger == nil {
			oldDeps.Logger = log.WithField("logger", "kafka.consumer")
		}
		consumer, err = oldconsumer.NewOldConsumer(ctx, conf.filterSpec, props, oldDeps)
	} else {
		if deps.NewShinyConsumer == nil {
			fmt.Fprintln(stderr, "The new consumer (--bootstrap-server, --new-consumer) is not supported by zkafka yet; use --zookeeper for the old consumer.")
			return 1
		}
		consumer, err = deps.NewShinyConsumer(ctx, newConsumerArgs(conf))
	}
	if err != nil {
		log.WithError(err).Error("Unknown error when running consumer: ")
		return 1
	}
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			consumer.Stop()
		case <-stopped:
		}
	}()
	messageCount, perr := process(conf.maxMessages, conf.formatter, consumer, stdout, stderr, conf.skipMessageOnError, log)
	close(stopped)
	consumer.Cleanup()
	conf.formatter.Close()
	fmt.Fprintf(stderr, "Processed a total of %d messages\n", messageCount)
	// A random group id (none given) would leave its offsets behind in ZooKeeper: remove them.
	if conf.useOldConsumer && !conf.groupIDPassed {
		maybeDeletePath(conf.zkConnectionStr, "/consumers/"+conf.consumerProps["group.id"])
	}
	if ctx.Err() != nil && conf.enableSystestEventsLogging {
		fmt.Fprintln(stdout, "shutdown_complete")
	}
	if perr != nil {
		log.WithError(perr).Error("Unknown error when running consumer: ")
		return 1
	}
	return 0
}

// process writes up to maxMessages messages (-1: no limit) through the formatter.
//
// Kafka 0.10.2: ConsoleConsumer.process.
func process(maxMessages int64, formatter commandline.MessageFormatter, consumer oldconsumer.BaseConsumer, out, stderr io.Writer,
	skipMessageOnError bool, log *logrus.Entry) (int64, error) {
	var messageCount int64
	for messageCount < maxMessages || maxMessages == -1 {
		msg, err := consumer.Receive()
		switch {
		case errors.Is(err, oldconsumer.ErrStreamEnd):
			log.Trace("Caught StreamEndException because consumer is shutdown, ignore and terminate.")
			return messageCount, nil
		case err != nil:
			log.WithError(err).Error("Error processing message, terminating consumer process: ")
			return messageCount, nil
		}
		messageCount++
		rec := commandline.ConsumerRecord{Topic: msg.Topic, Partition: msg.Partition, Offset: msg.Offset, Timestamp: msg.Timestamp,
			TimestampType: msg.TimestampType, Key: msg.Key, Value: msg.Value}
		if err := formatter.WriteTo(rec, out); err != nil {
			if commandline.IsOutputError(err) {
				fmt.Fprintln(stderr, "Unable to write to standard out, closing consumer.")
				return messageCount, nil
			}
			if !skipMessageOnError {
				return messageCount, err
			}
			log.WithError(err).Error("Error processing message, skipping this message: ")
		}
	}
	return messageCount, nil
}

// checkZk refuses to start without brokers, or with --from-beginning over offsets the group
// already has (unless --delete-consumer-offsets).
func checkZk(conf *config, stderr io.Writer) (int, bool) {
	if !checkZkPathExists(conf.zkConnectionStr, zkutils.BrokerIdsPath) {
		fmt.Fprintln(stderr, "No brokers found in ZK.")
		return 1, false
	}
	group := conf.consumerProps["group.id"]
	if !conf.deleteConsumerOffsets && conf.fromBeginning && checkZkPathExists(conf.zkConnectionStr, "/consumers/"+group+"/offsets") {
		fmt.Fprintf(stderr, "Found previous offset information for this group %s. Please use --delete-consumer-offsets to delete previous offsets metadata\n", group)
		return 1, false
	}
	return 0, true
}

// getOldConsumerProps is the old consumer's properties: the config file, then
// --consumer-property, then the options that set auto.offset.reset, zookeeper.connect and
// consumer.timeout.ms.
func getOldConsumerProps(conf *config, stderr io.Writer) (map[string]string, int, bool) {
	props := map[string]string{}
	for k, v := range conf.consumerProps {
		props[k] = v
	}
	for k, v := range conf.extraConsumerProps {
		props[k] = v
	}
	props["auto.offset.reset"] = oldconsumer.LargestTimeString
	if conf.fromBeginning {
		props["auto.offset.reset"] = oldconsumer.SmallestTimeString
	}
	props["zookeeper.connect"] = conf.zkConnectionStr
	// Checked again with the group of the merged properties (--consumer-property may set it).
	if !conf.deleteConsumerOffsets && conf.fromBeginning && checkZkPathExists(conf.zkConnectionStr, "/consumers/"+props["group.id"]+"/offsets") {
		fmt.Fprintf(stderr, "Found previous offset information for this group %s. Please use --delete-consumer-offsets to delete previous offsets metadata\n", props["group.id"])
		return nil, 1, false
	}
	// As in 0.10.2 this deletes the group of --consumer.config (or the random one), not one set
	// with --consumer-property.
	if conf.deleteConsumerOffsets {
		maybeDeletePath(conf.zkConnectionStr, "/consumers/"+conf.consumerProps["group.id"])
	}
	if conf.timeoutMs >= 0 {
		props["consumer.timeout.ms"] = strconv.FormatInt(conf.timeoutMs, 10)
	}
	return props, 0, true
}

func newConsumerArgs(conf *config) NewConsumerArgs {
	props := map[string]string{}
	for k, v := range conf.consumerProps {
		props[k] = v
	}
	for k, v := range conf.extraConsumerProps {
		props[k] = v
	}
	props["auto.offset.reset"] = "latest"
	if conf.fromBeginning {
		props["auto.offset.reset"] = "earliest"
	}
	props["bootstrap.servers"] = conf.bootstrapServer
	props["key.deserializer"] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
	if conf.keyDeserializer != "" {
		props["key.deserializer"] = conf.keyDeserializer
	}
	props["value.deserializer"] = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
	if conf.valueDeserializer != "" {
		props["value.deserializer"] = conf.valueDeserializer
	}
	a := NewConsumerArgs{Props: props, TimeoutMs: 1<<63 - 1}
	if conf.timeoutMs >= 0 {
		a.TimeoutMs = conf.timeoutMs
	}
	if conf.partitionArg != nil {
		offset := conf.offsetArg
		a.Topic, a.Partition, a.Offset = conf.topicArg, conf.partitionArg, &offset
	} else {
		a.Topic, a.Whitelist = conf.topicArg, conf.whitelistArg
	}
	return a
}

// checkZkPathExists reports whether path exists; any failure counts as "no".
func checkZkPathExists(zkURL, path string) bool {
	z, err := commandline.ConnectZk(zkURL, 30*time.Second, 30*time.Second, quiet(), common.SystemTime{})
	if err != nil {
		return false
	}
	defer z.Close()
	ok, err := z.PathExists(path)
	return err == nil && ok
}

// maybeDeletePath removes a subtree, swallowing every error.
//
// Kafka 0.10.2: ZkUtils.maybeDeletePath.
func maybeDeletePath(zkURL, dir string) {
	z, err := commandline.ConnectZk(zkURL, 30*time.Second, 30*time.Second, quiet(), common.SystemTime{})
	if err != nil {
		return
	}
	defer z.Close()
	_ = z.DeletePathRecursive(dir)
}

// quiet is the logger of the short ZooKeeper sessions of the checks: the tools' level (WARN)
// on standard error.
func quiet() *logrus.Entry { return commandline.ToolsLogger(os.Stderr, "kafka.utils.ZkUtils") }

// loadConsumerConfigFile reads --consumer.config.
func loadConsumerConfigFile(path string) (map[string]string, error) {
	if path == "" {
		return map[string]string{}, nil
	}
	return kconfig.LoadProps(path)
}

// randomGroupID is "console-consumer-<0..99999>".
func randomGroupID() string { return fmt.Sprintf("console-consumer-%d", rand.IntN(100000)) }

// describeOffsetError is printUsageAndDie's message for a bad --offset.
func describeOffsetError(offset string) string {
	return fmt.Sprintf("The provided offset value '%s' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.", offset)
}

// parseOffset reads --offset (earliest, latest or a non-negative number).
func parseOffset(s string) (int64, bool) {
	switch strings.ToLower(s) {
	case "earliest":
		return oldconsumer.EarliestTime, true
	case "latest":
		return oldconsumer.LatestTime, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
