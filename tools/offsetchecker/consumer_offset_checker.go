package offsetchecker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

const clientID = "ConsumerOffsetChecker"

// Run is kafka-consumer-offset-checker.sh.
//
// Kafka 0.10.2: ConsumerOffsetChecker.main. As there, a failure after the options were read is
// printed as "Exiting due to: <message>." on standard output and the exit code is 0.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.ConsumerOffsetChecker$")
	log.Warn("WARNING: ConsumerOffsetChecker is deprecated and will be dropped in releases following 0.9.0. Use ConsumerGroupCommand instead.")
	p := commandline.NewOptionParser()
	zkConnectOpt := p.Accepts("zookeeper", "ZooKeeper connect string.").WithRequiredArg().DefaultsTo("localhost:2181")
	topicsOpt := p.Accepts("topic", "Comma-separated list of consumer topics (all topics if absent).").WithRequiredArg()
	groupOpt := p.Accepts("group", "Consumer group.").WithRequiredArg()
	socketTimeoutOpt := p.Accepts("socket.timeout.ms", "Socket timeout to use when querying for offsets.").WithRequiredArg().
		OfType("Integer").DefaultsTo("6000")
	retryBackoffOpt := p.Accepts("retry.backoff.ms", "Retry back-off to use for failed offset queries.").WithRequiredArg().
		OfType("Integer").DefaultsTo("3000")
	brokerInfoOpt := p.Accepts("broker-info", "Print broker info")
	helpOpt := p.Accepts("help", "Print this message.")
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "Check the offset of your consumers."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if opts.Has(helpOpt) {
		p.PrintHelpOn(stdout)
		return 0
	}
	if err := commandline.CheckRequiredArgs(p, opts, groupOpt, zkConnectOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	socketTimeout, err := opts.IntValueOf(socketTimeoutOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	retryBackoff, err := opts.IntValueOf(retryBackoffOpt)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	c := &checker{group: opts.ValueOf(groupOpt), out: stdout, log: log, consumers: map[int32]*oldconsumer.SimpleConsumer{}, offsets: map[common.TopicPartition]int64{}}
	defer c.closeConsumers()
	if err := c.run(ctx, opts.ValueOf(zkConnectOpt), opts.Has(topicsOpt), opts.ValueOf(topicsOpt),
		time.Duration(socketTimeout)*time.Millisecond, time.Duration(retryBackoff)*time.Millisecond, opts.Has(brokerInfoOpt)); err != nil {
		fmt.Fprintf(stdout, "Exiting due to: %v.\n", err)
	}
	return 0
}

type checker struct {
	group      string
	out        io.Writer
	log        *logrus.Entry
	zk         *zkutils.ZkUtils
	consumers  map[int32]*oldconsumer.SimpleConsumer // nil: broker info unreadable
	brokerSeen []int32
	offsets    map[common.TopicPartition]int64
	topicPids  map[string][]int32
}

func (c *checker) run(ctx context.Context, zkConnect string, hasTopics bool, topics string, socketTimeout, retryBackoff time.Duration,
	brokerInfo bool) error {
	zk, err := commandline.ConnectZk(zkConnect, 30*time.Second, 30*time.Second, c.log.WithField("logger", "kafka.utils.ZkUtils"), common.SystemTime{})
	if err != nil {
		return err
	}
	c.zk = zk
	defer zk.Close()
	var topicList []string
	if hasTopics {
		topicList = strings.Split(topics, ",")
	} else if topicList, err = zk.GetChildren(zkutils.ZKGroupDirs{Group: c.group}.ConsumerGroupDir() + "/owners"); err != nil {
		return err
	}
	if c.topicPids, err = zk.GetPartitionsForTopics(topicList); err != nil {
		return err
	}
	var tps []common.TopicPartition
	for _, t := range sortedKeys(c.topicPids) {
		for _, p := range c.topicPids[t] {
			tps = append(tps, common.TopicPartition{Topic: t, Partition: p})
		}
	}
	channel, err := oldclient.ChannelToOffsetManager(ctx, c.group, zk, clientID, socketTimeout, retryBackoff, nil)
	if err != nil {
		return err
	}
	req := &protocol.OffsetFetchRequest{Version: 2, GroupID: c.group}
	for _, tp := range tps {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, protocol.OffsetFetchRequestTopic{Topic: tp.Topic})
		}
		last := &req.Topics[len(req.Topics)-1]
		last.Partitions = append(last.Partitions, protocol.OffsetFetchRequestTopicPartition{Partition: tp.Partition})
	}
	resp := &protocol.OffsetFetchResponse{Version: 2}
	err = channel.SendContext(ctx, req, resp)
	channel.Disconnect()
	if err != nil {
		return err
	}
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			noOffset := p.Offset == -1 && p.ErrorCode == 0 && (p.Metadata == nil || *p.Metadata == "")
			switch {
			case noOffset:
				// This group may still keep its offsets in ZooKeeper.
				offset, ok, err := zk.ReadConsumerOffset(c.group, tp)
				switch {
				case err != nil:
					return err
				case ok:
					c.offsets[tp] = offset
				default:
					exists, err := zk.PathExists(zkutils.NewZKGroupTopicDirs(c.group, tp.Topic).ConsumerOffsetDir())
					if err != nil {
						return err
					}
					if !exists {
						return fmt.Errorf("%w: %s", zkclient.ErrNoNode, zkutils.ConsumerOffsetPath(c.group, tp))
					}
					c.offsets[tp] = -1
				}
			case p.ErrorCode == 0:
				c.offsets[tp] = p.Offset
			default:
				fmt.Fprintf(c.out, "Could not fetch offset for [%s,%d] due to %v.\n", tp.Topic, tp.Partition, protocol.ErrorForCode(p.ErrorCode))
			}
		}
	}
	fmt.Fprintf(c.out, "%-15s %-30s %-3s %-15s %-15s %-15s %s\n", "Group", "Topic", "Pid", "Offset", "logSize", "Lag", "Owner")
	sort.Strings(topicList)
	for _, t := range topicList {
		pids := append([]int32(nil), c.topicPids[t]...)
		sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
		for _, pid := range pids {
			if err := c.processPartition(ctx, t, pid); err != nil {
				return err
			}
		}
	}
	if brokerInfo {
		fmt.Fprintln(c.out, "BROKER INFO")
		for _, id := range c.brokerSeen {
			if sc := c.consumers[id]; sc != nil {
				fmt.Fprintf(c.out, "%d -> %s:%d\n", id, sc.Host(), sc.Port())
			}
		}
	}
	return nil
}

func (c *checker) processPartition(ctx context.Context, topic string, pid int32) error {
	tp := common.TopicPartition{Topic: topic, Partition: pid}
	offset, hasOffset := c.offsets[tp]
	ownerData, _, hasOwner, err := c.zk.ReadDataMaybeNull(zkutils.GetConsumerPartitionOwnerPath(c.group, topic, pid))
	if err != nil {
		return err
	}
	leader, ok, err := c.zk.GetLeaderForPartition(topic, pid)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(c.out, "No broker for partition %s - %d\n", topic, pid)
		return nil
	}
	sc, seen := c.consumers[leader]
	if !seen {
		sc = c.getConsumer(leader)
		c.consumers[leader] = sc
		c.brokerSeen = append(c.brokerSeen, leader)
	}
	if sc == nil {
		return nil
	}
	resp, err := sc.GetOffsetsBefore(ctx, oldconsumer.OffsetRequest(tp, oldconsumer.LatestTime, 1, oldconsumer.OrdinaryConsumerID))
	if err != nil {
		return err
	}
	offsets, _, _ := oldconsumer.PartitionOffsets(resp, tp)
	if len(offsets) == 0 {
		return errors.New("next on empty iterator")
	}
	logSize := offsets[0]
	offsetStr, lag := "unknown", "unknown"
	if hasOffset {
		offsetStr = strconv.FormatInt(offset, 10)
		if offset != -1 {
			lag = strconv.FormatInt(logSize-offset, 10)
		}
	}
	owner := "none"
	if hasOwner {
		owner = string(ownerData)
	}
	fmt.Fprintf(c.out, "%-15s %-30s %-3s %-15s %-15s %-15s %s\n", c.group, topic, strconv.Itoa(int(pid)), offsetStr,
		strconv.FormatInt(logSize, 10), lag, owner)
	return nil
}

// getConsumer makes a SimpleConsumer of a broker's PLAINTEXT endpoint (nil, and a line, when
// the broker's registration cannot be read).
func (c *checker) getConsumer(id int32) *oldconsumer.SimpleConsumer {
	b, ok, err := c.zk.GetBrokerInfo(id)
	if err == nil && ok {
		for _, e := range b.EndPoints {
			if e.SecurityProtocol == common.PLAINTEXT {
				sc, err := oldconsumer.NewSimpleConsumer(e.Host, e.Port, 10*time.Second, clientID, nil, nil)
				if err == nil {
					return sc
				}
			}
		}
	}
	// Kafka prints the cause of a BrokerNotAvailableException, which has none.
	fmt.Fprintln(c.out, "Could not parse broker info due to null")
	return nil
}

func (c *checker) closeConsumers() {
	for _, sc := range c.consumers {
		if sc != nil {
			sc.Close()
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
