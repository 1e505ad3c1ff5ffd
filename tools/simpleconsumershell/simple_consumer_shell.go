package simpleconsumershell

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
)

// UseLeaderReplica is --replica's default: fetch from the leader.
const UseLeaderReplica = -1

// Run is kafka-simple-consumer-shell.sh; SIGINT or SIGTERM ends it (exit 128 + signal).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	code := RunWith(ctx, args, stdout, stderr)
	select {
	case s := <-sig:
		if n, ok := s.(syscall.Signal); ok {
			return 128 + int(n)
		}
	default:
	}
	return code
}

// RunWith runs the shell until it has printed --max-messages, reached the end with
// --no-wait-at-logend, failed, or ctx ended.
//
// Kafka 0.10.2: SimpleConsumerShell.main.
func RunWith(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.SimpleConsumerShell$")
	p := commandline.NewOptionParser()
	brokerListOpt := p.Accepts("broker-list", "REQUIRED: The list of hostname and port of the server to connect to.").
		WithRequiredArg().DescribedAs("hostname:port,...,hostname:port")
	topicOpt := p.Accepts("topic", "REQUIRED: The topic to consume from.").WithRequiredArg().DescribedAs("topic")
	partitionIDOpt := p.Accepts("partition", "The partition to consume from.").WithRequiredArg().DescribedAs("partition").
		OfType("Integer").DefaultsTo("0")
	replicaIDOpt := p.Accepts("replica", "The replica id to consume from, default -1 means leader broker.").WithRequiredArg().
		DescribedAs("replica id").OfType("Integer").DefaultsTo(strconv.Itoa(UseLeaderReplica))
	offsetOpt := p.Accepts("offset", "The offset id to consume from, default to -2 which means from beginning; while value -1 means from end").
		WithRequiredArg().DescribedAs("consume offset").OfType("Long").DefaultsTo(strconv.FormatInt(oldconsumer.EarliestTime, 10))
	clientIDOpt := p.Accepts("clientId", "The ID of this client.").WithRequiredArg().DescribedAs("clientId").DefaultsTo("SimpleConsumerShell")
	fetchSizeOpt := p.Accepts("fetchsize", "The fetch size of each request.").WithRequiredArg().DescribedAs("fetchsize").
		OfType("Integer").DefaultsTo(strconv.Itoa(1024 * 1024))
	formatterOpt := p.Accepts("formatter", "The name of a class to use for formatting kafka messages for display.").
		WithRequiredArg().DescribedAs("class").DefaultsTo(commandline.DefaultMessageFormatterClass)
	formatterArgOpt := p.Accepts("property", "").WithRequiredArg().DescribedAs("prop")
	printOffsetOpt := p.Accepts("print-offsets", "Print the offsets returned by the iterator")
	maxWaitMsOpt := p.Accepts("max-wait-ms", "The max amount of time each fetch request waits.").WithRequiredArg().
		DescribedAs("ms").OfType("Integer").DefaultsTo("1000")
	maxMessagesOpt := p.Accepts("max-messages", "The number of messages to consume").WithRequiredArg().
		DescribedAs("max-messages").OfType("Integer").DefaultsTo(strconv.Itoa(1<<31 - 1))
	skipMessageOnErrorOpt := p.Accepts("skip-message-on-error", "If there is an error when processing a message, skip it instead of halt.")
	noWaitAtEndOfLogOpt := p.Accepts("no-wait-at-logend",
		"If set, when the simple consumer reaches the end of the Log, it will stop, not waiting for new produced messages")

	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "A low-level tool for fetching data directly from a particular replica."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if err := commandline.CheckRequiredArgs(p, opts, brokerListOpt, topicOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	var ints [5]int32
	for i, o := range []*commandline.OptionSpec{partitionIDOpt, replicaIDOpt, fetchSizeOpt, maxWaitMsOpt, maxMessagesOpt} {
		if ints[i], err = opts.IntValueOf(o); err != nil {
			return commandline.Fail(stderr, err)
		}
	}
	partitionID, replicaID, fetchSize, maxWaitMs, maxMessages := ints[0], ints[1], ints[2], ints[3], ints[4]
	startingOffset, err := opts.LongValueOf(offsetOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	topic, clientID := opts.ValueOf(topicOpt), opts.ValueOf(clientIDOpt)
	skipMessageOnError, printOffsets, noWaitAtEndOfLog := opts.Has(skipMessageOnErrorOpt), opts.Has(printOffsetOpt), opts.Has(noWaitAtEndOfLogOpt)
	formatterArgs, _, err := commandline.ParseKeyValueArgs(opts.ValuesOf(formatterArgOpt), true)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	formatter, err := commandline.NewMessageFormatter(opts.ValueOf(formatterOpt), log)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}

	log.Info("Getting topic metatdata...")
	brokerList := opts.ValueOf(brokerListOpt)
	if err := commandline.ValidatePortOrDie(p, brokerList); err != nil {
		return commandline.Fail(stderr, err)
	}
	targets, err := oldclient.ParseBrokerList(brokerList)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" kafka.common.KafkaException: %v\n", err)
		return 1
	}
	md, err := oldclient.FetchTopicMetadata(ctx, []string{topic}, targets, clientID, time.Duration(maxWaitMs)*time.Millisecond, 0,
		log.WithField("logger", "kafka.client.ClientUtils$"))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" kafka.common.KafkaException: %v\n", err)
		return 1
	}
	if len(md.TopicMetadata) != 1 || md.TopicMetadata[0].Topic != topic {
		fmt.Fprintf(stderr, "Error: no valid topic metadata for topic: %s, what we get from server is only: %v\n", topic, md.TopicMetadata)
		return 1
	}
	var pm *protocol.MetadataResponseTopicPartition
	for i := range md.TopicMetadata[0].PartitionMetadata {
		if md.TopicMetadata[0].PartitionMetadata[i].PartitionID == partitionID {
			pm = &md.TopicMetadata[0].PartitionMetadata[i]
		}
	}
	if pm == nil {
		fmt.Fprintf(stderr, "Error: partition %d does not exist for topic %s\n", partitionID, topic)
		return 1
	}
	brokers := map[int32]protocol.MetadataResponseBroker{}
	for _, b := range md.Brokers {
		brokers[b.NodeID] = b
	}
	var target protocol.MetadataResponseBroker
	if replicaID == UseLeaderReplica {
		leader, ok := brokers[pm.Leader]
		if !ok {
			fmt.Fprintf(stderr, "Error: user specifies to fetch from leader for partition (%s, %d) which has not been elected yet\n", topic, partitionID)
			return 1
		}
		target = leader
	} else {
		found := false
		for _, r := range pm.Replicas {
			if b, ok := brokers[r]; ok && r == replicaID {
				target, found = b, true
			}
		}
		if !found {
			fmt.Fprintf(stderr, "Error: replica %d does not exist for partition (%s, %d)\n", replicaID, topic, partitionID)
			return 1
		}
	}
	tp := common.TopicPartition{Topic: topic, Partition: partitionID}
	if startingOffset < oldconsumer.EarliestTime {
		fmt.Fprintf(stderr, "Invalid starting offset: %d\n", startingOffset)
		return 1
	}
	if startingOffset < 0 {
		sc, err := oldconsumer.NewSimpleConsumer(target.Host, target.Port, oldconsumer.SocketTimeout*time.Millisecond, clientID, nil, log)
		if err == nil {
			startingOffset, err = sc.EarliestOrLatestOffset(ctx, tp, startingOffset, oldconsumer.DebuggingConsumerID)
			sc.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "Error in getting earliest or latest offset due to: %v\n", err)
			return 1
		}
	}
	if err := formatter.Init(formatterArgs); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	replicaString := "replica"
	if replicaID > 0 {
		replicaString = "leader"
	}
	log.Infof("Starting simple consumer shell to partition [%s, %d], %s [%d], host and port: [%s, %d], from offset [%d]",
		topic, partitionID, replicaString, replicaID, target.Host, target.Port, startingOffset)
	sc, err := oldconsumer.NewSimpleConsumer(target.Host, target.Port, 10*time.Second, clientID, nil, log)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	defer sc.Close()
	defer formatter.Close()
	builder := oldconsumer.NewFetchRequestBuilder().ReplicaID(oldconsumer.DebuggingConsumerID).MaxWait(maxWaitMs).MinBytes(oldconsumer.MinFetchBytes)
	shell := &shell{sc: sc, builder: builder, topic: topic, partition: partitionID, fetchSize: fetchSize, maxMessages: maxMessages,
		printOffsets: printOffsets, skipMessageOnError: skipMessageOnError, noWaitAtEndOfLog: noWaitAtEndOfLog,
		formatter: formatter, log: log, stdout: stdout, stderr: stderr}
	numMessages, offset, err := shell.run(ctx, startingOffset)
	switch {
	case err == errOutputClosed:
		return 1
	case err != nil && ctx.Err() == nil:
		log.WithError(err).Errorf("Error consuming topic, partition, replica (%s, %d, %d) with offset [%d]", topic, partitionID, replicaID, offset)
	}
	log.Infof("Consumed %d messages", numMessages)
	return 0
}
