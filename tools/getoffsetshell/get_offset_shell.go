package getoffsetshell

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
)

const clientID = "GetOffsetShell"

// Run is kafka.tools.GetOffsetShell; it returns the exit code.
//
// Kafka 0.10.2: GetOffsetShell.main.
func Run(_ context.Context, args []string, stdout, stderr io.Writer) int {
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
	md, err := FetchTopicMetadata(topic, strings.Split(opts.ValueOf(brokerList), ","), time.Duration(maxWait)*time.Millisecond)
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
	brokers := map[int32]protocol.MetadataResponseBroker{}
	for _, b := range md.Brokers {
		brokers[b.NodeID] = b
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
		leader, ok := brokers[pm.Leader]
		if !ok {
			fmt.Fprintf(stderr, "Error: partition %d does not have a leader. Skip getting offsets\n", id)
			continue
		}
		offsets, err := GetOffsetsBefore(leader, topic, id, ts, nOffsets)
		if err != nil {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.IOException: %v\n", err)
			return 1
		}
		parts := make([]string, len(offsets))
		for i, o := range offsets {
			parts[i] = strconv.FormatInt(o, 10)
		}
		fmt.Fprintf(stdout, "%s:%d:%s\n", topic, id, strings.Join(parts, ","))
	}
	return 0
}

// FetchTopicMetadata asks the brokers, in order, for one topic's metadata
// (Metadata v0, as the Scala clients send it).
//
// Kafka 0.10.2: kafka.client.ClientUtils.fetchTopicMetadata.
func FetchTopicMetadata(topic string, brokers []string, timeout time.Duration) (*protocol.MetadataResponse, error) {
	var last error
	for _, addr := range brokers {
		c, err := connect(strings.TrimSpace(addr), clientID, timeout)
		if err != nil {
			last = err
			continue
		}
		resp := &protocol.MetadataResponse{Version: 0}
		err = c.Send(&protocol.MetadataRequest{Version: 0, Topics: []string{topic}}, resp)
		c.Close()
		if err == nil {
			return resp, nil
		}
		last = err
	}
	return nil, fmt.Errorf("fetching topic metadata for topics [Set(%s)] from broker [%s] failed: %v", topic, strings.Join(brokers, ","), last)
}

// GetOffsetsBefore asks a partition's leader for up to max offsets before ts
// (-1 latest, -2 earliest) with ListOffsets v0, as an ordinary consumer
// (replica id -1).
//
// Kafka 0.10.2: kafka.consumer.SimpleConsumer.getOffsetsBefore.
func GetOffsetsBefore(leader protocol.MetadataResponseBroker, topic string, partition int32, ts int64, max int32) ([]int64, error) {
	c, err := connect(net.JoinHostPort(leader.Host, strconv.Itoa(int(leader.Port))), clientID, 10*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	req := &protocol.ListOffsetRequest{Version: 0, ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{
		Topic: topic, Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: partition, Timestamp: ts, MaxNumOffsets: max}},
	}}}
	resp := &protocol.ListOffsetResponse{Version: 0}
	if err := c.Send(req, resp); err != nil {
		return nil, err
	}
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			if t.Topic == topic && p.Partition == partition {
				return p.Offsets, nil
			}
		}
	}
	return nil, nil
}
