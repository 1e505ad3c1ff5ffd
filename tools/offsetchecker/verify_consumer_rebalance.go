package offsetchecker

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// VerifyConsumerRebalance is `kafka-run-class.sh kafka.tools.VerifyConsumerRebalance`: it prints
// "Rebalance operation successful !" when every partition of every topic the old-consumer group
// subscribes to has an owner znode naming a live member's thread, "Rebalance operation failed !"
// otherwise, the reasons logged at ERROR.
//
// Kafka 0.10.2: kafka.tools.VerifyConsumerRebalance.
func VerifyConsumerRebalance(_ context.Context, args []string, stdout, stderr io.Writer) int {
	log := commandline.ToolsLogger(stderr, "kafka.tools.VerifyConsumerRebalance$")
	p := commandline.NewOptionParser()
	zkConnectOpt := p.Accepts("zookeeper.connect", "ZooKeeper connect string.").WithRequiredArg().DefaultsTo("localhost:2181")
	groupOpt := p.Accepts("group", "Consumer group.").WithRequiredArg()
	helpOpt := p.Accepts("help", "Print this message.")
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "Validate that all partitions have a consumer for a given consumer group."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if opts.Has(helpOpt) {
		p.PrintHelpOn(stdout)
		return 0
	}
	if err := commandline.CheckRequiredArgs(p, opts, groupOpt); err != nil {
		return commandline.Fail(stderr, err)
	}
	zkConnect, group := opts.ValueOf(zkConnectOpt), opts.ValueOf(groupOpt)
	zk, err := commandline.ConnectZk(zkConnect, 30*time.Second, 30*time.Second, log.WithField("logger", "kafka.utils.ZkUtils"), common.SystemTime{})
	if err != nil {
		fmt.Fprintf(stderr, "Exception in thread \"main\" %v\n", err)
		return 1
	}
	defer zk.Close()
	log.Debugf("zkConnect = %s; group = %s", zkConnect, group)
	ok, err := validateRebalancingOperation(zk, group, log)
	switch {
	case err != nil:
		log.WithError(err).Error("Error while verifying current rebalancing operation")
	case ok:
		fmt.Fprintln(stdout, "Rebalance operation successful !")
	default:
		fmt.Fprintln(stdout, "Rebalance operation failed !")
	}
	return 0
}

// validateRebalancingOperation checks that each partition of each subscribed topic has an owner
// znode holding the id of a consumer thread registered for that topic.
func validateRebalancingOperation(zk *zkutils.ZkUtils, group string, log *logrus.Entry) (bool, error) {
	log.Info("Verifying rebalancing operation for consumer group " + group)
	succeeded := true
	consumersPerTopic, err := oldconsumer.GetConsumersPerTopic(zk, group, false)
	if err != nil {
		return false, err
	}
	topics := make([]string, 0, len(consumersPerTopic))
	for t := range consumersPerTopic {
		topics = append(topics, t)
	}
	partitionsPerTopic, err := zk.GetPartitionsForTopics(topics)
	if err != nil {
		return false, err
	}
	for _, topic := range topics {
		partitions := partitionsPerTopic[topic]
		ownerDir := zkutils.NewZKGroupTopicDirs(group, topic).ConsumerOwnerDir()
		log.Infof("Alive partitions for topic %s are %v ", topic, partitions)
		log.Infof("Alive consumers for topic %s => %v ", topic, consumersPerTopic[topic])
		withOwners, err := zk.GetChildrenParentMayNotExist(ownerDir)
		if err != nil {
			return false, err
		}
		if len(withOwners) == 0 {
			log.Error("No owners for any partitions for topic " + topic)
			succeeded = false
		}
		log.Debugf("Children of %s = %v", ownerDir, withOwners)
		owned := map[string]bool{}
		for _, c := range withOwners {
			owned[c] = true
		}
		valid := map[string]bool{}
		for _, id := range consumersPerTopic[topic] {
			valid[id.String()] = true
		}
		for _, partition := range partitions {
			if !owned[strconv.Itoa(int(partition))] {
				log.Errorf("No owner for partition [%s,%d]", topic, partition)
				succeeded = false
			}
			data, _, exists, err := zk.ReadDataMaybeNull(ownerDir + "/" + strconv.Itoa(int(partition)))
			if err != nil {
				return false, err
			}
			if !exists {
				log.Errorf("No owner for partition [%s,%d]", topic, partition)
				succeeded = false
				continue
			}
			if owner := string(data); !valid[owner] {
				log.Errorf("Owner %s for partition [%s,%d] is not a valid member of consumer group %s", owner, topic, partition, group)
				succeeded = false
			} else {
				log.Infof("Owner of partition [%s,%d] is %s", topic, partition, owner)
			}
		}
	}
	return succeeded, nil
}
