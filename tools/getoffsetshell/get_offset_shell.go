package getoffsetshell

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
)

const clientID = "GetOffsetShell"

// Run is kafka.tools.GetOffsetShell; it returns the exit code.
//
// Kafka 0.10.2: GetOffsetShell.main.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	p := commandline.NewOptionParser()
	brokerList := p.Accepts("broker-list", "REQUIRED: The list of hostname and port of the server to connect to.").
		WithRequiredArg().DescribedAs("hostname:port,...,hostname:port")
	topicOpt := p.Accepts("topic", "REQUIRED: The topic to get offset from.").WithRequiredArg().DescribedAs("topic")
	partitionsOpt := p.Accepts("partitions", "comma separated list of partition ids. If not specified, it will find offsets for all partitions").
		WithRequiredArg().DescribedAs("partition ids").DefaultsTo("")
	timeOpt := p.Accepts("time", "timestamp of the offsets before that").
		WithRequiredArg().DescribedAs("timestamp/-1(latest)/-2(earliest)").OfType("Long").DefaultsTo("-1")
	nOffsetsOpt := p.Accepts("offsets", "number of offsets returned").
		WithRequiredArg().DescribedAs("count").OfType("Integer").DefaultsTo("1")
	maxWaitOpt := p.Accepts("max-wait-ms", "The max amount of time each fetch request waits.").
		WithRequiredArg().DescribedAs("ms").OfType("Integer").DefaultsTo("1000")
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "An interactive shell for getting consumer offsets."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if err := commandline.CheckRequiredArgs(p, opts, brokerList, topicOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	if err := commandline.ValidatePortOrDie(p, opts.ValueOf(brokerList)); err != nil {
		return commandline.Fail(stderr, err)
	}
	ts, err := opts.LongValueOf(timeOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	nOffsets, err := opts.IntValueOf(nOffsetsOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	maxWait, err := opts.IntValueOf(maxWaitOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	topic := opts.ValueOf(topicOpt)
	brokers, err := oldclient.ParseBrokerList(opts.ValueOf(brokerList))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" kafka.common.KafkaException: %v\n", err)
		return 1
	}
	md, err := oldclient.FetchTopicMetadata(ctx, []string{topic}, brokers, clientID, time.Duration(maxWait)*time.Millisecond, 0, nil)
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" kafka.common.KafkaException: %v\n", err)
		return 1
	}
	if len(md.TopicMetadata) != 1 || md.TopicMetadata[0].Topic != topic {
		fmt.Fprintf(stderr, "Error: no valid topic metadata for topic: %s,  probably the topic does not exist, run kafka-list-topic.sh to verify\n", topic)
		return 1
	}
	tm := md.TopicMetadata[0]
	var partitions []int32
	if list := opts.ValueOf(partitionsOpt); list == "" {
		for _, pm := range tm.PartitionMetadata {
			partitions = append(partitions, pm.PartitionID)
		}
	} else {
		for _, s := range strings.Split(list, ",") {
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.NumberFormatException: For input string: \"%s\"\n", s)
				return 1
			}
			partitions = append(partitions, int32(n))
		}
	}
	brokersByID := map[int32]protocol.MetadataResponseBroker{}
	for _, b := range md.Brokers {
		brokersByID[b.NodeID] = b
	}
	for _, id := range partitions {
		var pm *protocol.MetadataResponseTopicPartition
		for i := range tm.PartitionMetadata {
			if tm.PartitionMetadata[i].PartitionID == id {
				pm = &tm.PartitionMetadata[i]
			}
		}
		if pm == nil {
			fmt.Fprintf(stderr, "Error: partition %d does not exist\n", id)
			continue
		}
		leader, ok := brokersByID[pm.Leader]
		if !ok {
			fmt.Fprintf(stderr, "Error: partition %d does not have a leader. Skip getting offsets\n", id)
			continue
		}
		consumer, err := oldconsumer.NewSimpleConsumer(leader.Host, leader.Port, 10*time.Second, clientID, nil, nil)
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
			return 1
		}
		tp := common.TopicPartition{Topic: topic, Partition: id}
		resp, err := consumer.GetOffsetsBefore(ctx, oldconsumer.OffsetRequest(tp, ts, nOffsets, oldconsumer.OrdinaryConsumerID))
		consumer.Close()
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.IOException: %v\n", err)
			return 1
		}
		offsets, _, _ := oldconsumer.PartitionOffsets(resp, tp)
		parts := make([]string, len(offsets))
		for i, o := range offsets {
			parts[i] = strconv.FormatInt(o, 10)
		}
		fmt.Fprintf(stdout, "%s:%d:%s\n", topic, id, strings.Join(parts, ","))
	}
	return 0
}
