package zkoffsets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// UpdateOffsetsInZK is `kafka-run-class.sh kafka.tools.UpdateOffsetsInZK [earliest | latest]
// consumer.properties topic`: it sets the ZooKeeper offset of every partition of topic, for the
// group.id of consumer.properties, to the partition leader's earliest or latest offset.
//
// Kafka 0.10.2: kafka.tools.UpdateOffsetsInZK.
func UpdateOffsetsInZK(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	usage := func() int {
		fmt.Fprintln(stdout, "USAGE: kafka.tools.UpdateOffsetsInZK$ [earliest | latest] consumer.properties topic")
		return 1
	}
	if len(args) < 3 {
		return usage()
	}
	log := commandline.ToolsLogger(stderr, "kafka.tools.UpdateOffsetsInZK$")
	props, err := kconfig.LoadProps(args[1])
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.io.FileNotFoundException: %v\n", err)
		return 1
	}
	config, err := oldconsumer.NewConsumerConfig(props, log.WithField("logger", "kafka.utils.VerifiableProperties"))
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.IllegalArgumentException: %v\n", err)
		return 1
	}
	zk, err := commandline.ConnectZk(config.ZkConnect, time.Duration(config.ZkSessionTimeoutMs)*time.Millisecond,
		time.Duration(config.ZkConnectionTimeoutMs)*time.Millisecond, log.WithField("logger", "kafka.utils.ZkUtils"), common.SystemTime{})
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	defer zk.Close()
	var ts int64
	switch args[0] {
	case "earliest":
		ts = oldconsumer.EarliestTime
	case "latest":
		ts = oldconsumer.LatestTime
	default:
		return usage()
	}
	if err := getAndSetOffsets(ctx, zk, ts, config.GroupID, args[2], stdout); err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	return 0
}

func getAndSetOffsets(ctx context.Context, zk *zkutils.ZkUtils, ts int64, group, topic string, stdout io.Writer) error {
	perTopic, err := zk.GetPartitionsForTopics([]string{topic})
	if err != nil {
		return err
	}
	partitions, ok := perTopic[topic]
	if !ok {
		return errors.New("java.lang.RuntimeException: Can't find topic " + topic)
	}
	numParts := 0
	for _, partition := range partitions {
		leader, ok, err := zk.GetLeaderForPartition(topic, partition)
		if err != nil {
			return err
		}
		if !ok {
			return errors.New("kafka.common.KafkaException: Broker None is unavailable. Cannot issue getOffsetsBefore request")
		}
		info, ok, err := zk.GetBrokerInfo(leader)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("kafka.common.KafkaException: Broker information for broker id %d does not exist in ZK", leader)
		}
		ep, ok := info.EndPoint("PLAINTEXT")
		if !ok {
			return fmt.Errorf("kafka.common.BrokerEndPointNotAvailableException: End point with listener name PLAINTEXT not found for broker %d", leader)
		}
		consumer, err := oldconsumer.NewSimpleConsumer(ep.Host, ep.Port, 10*time.Second, "UpdateOffsetsInZk", nil, nil)
		if err != nil {
			return err
		}
		tp := common.TopicPartition{Topic: topic, Partition: partition}
		resp, err := consumer.GetOffsetsBefore(ctx, oldconsumer.OffsetRequest(tp, ts, 1, oldconsumer.OrdinaryConsumerID))
		consumer.Close()
		if err != nil {
			return err
		}
		offsets, _, _ := oldconsumer.PartitionOffsets(resp, tp)
		if len(offsets) == 0 {
			return errors.New("java.util.NoSuchElementException: head of empty list")
		}
		fmt.Fprintf(stdout, "updating partition %d with new offset: %d\n", partition, offsets[0])
		path := zkutils.NewZKGroupTopicDirs(group, topic).ConsumerOffsetDir() + "/" + strconv.Itoa(int(partition))
		if err := zk.UpdatePersistentPath(path, []byte(strconv.FormatInt(offsets[0], 10))); err != nil {
			return err
		}
		numParts++
	}
	fmt.Fprintf(stdout, "updated the offset for %d partitions\n", numParts)
	return nil
}
