package oldconsumer

import (
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ZKSessionExpireListener re-registers the member after its ZooKeeper session expired (its
// ephemeral registration and owner znodes are gone then) and rebalances.
//
// Kafka 0.10.2: ZookeeperConsumerConnector.ZKSessionExpireListener. It runs on the ZooKeeper
// event goroutine, as in Kafka; the child and data watches come back by themselves (zkclient
// re-reads every subscribed path after a new session).
type ZKSessionExpireListener struct {
	c                    *ZookeeperConsumerConnector
	dirs                 zkutils.ZKGroupDirs
	consumerIDString     string
	topicCount           TopicCount
	loadBalancerListener *ZKRebalancerListener
}

// HandleStateChanged implements zkclient.StateListener: the ZooKeeper client reconnects by
// itself.
func (l *ZKSessionExpireListener) HandleStateChanged(zkclient.KeeperState) error { return nil }

// HandleNewSession implements zkclient.StateListener.
func (l *ZKSessionExpireListener) HandleNewSession() error {
	if l.c.isShuttingDown.Load() {
		return nil
	}
	l.c.log.Infof("ZK expired; release old broker parition ownership; re-register consumer %s", l.consumerIDString)
	l.loadBalancerListener.resetState()
	if err := l.c.registerConsumerInZK(l.consumerIDString, l.topicCount); err != nil {
		return err
	}
	return l.loadBalancerListener.syncedRebalance()
}

// ZKTopicPartitionChangeListener triggers a rebalance when a subscribed topic's partition
// assignment changes (partitions were added).
//
// Kafka 0.10.2: ZookeeperConsumerConnector.ZKTopicPartitionChangeListener.
type ZKTopicPartitionChangeListener struct {
	c                    *ZookeeperConsumerConnector
	loadBalancerListener *ZKRebalancerListener
}

// HandleDataChange implements zkclient.DataListener.
func (l *ZKTopicPartitionChangeListener) HandleDataChange(dataPath string, data []byte) error {
	l.c.log.Infof("Topic info for path %s changed to %s, triggering rebalance", dataPath, data)
	l.loadBalancerListener.rebalanceEventTriggered()
	return nil
}

// HandleDataDeleted implements zkclient.DataListener: the old consumer does not handle topic
// deletion (as in 0.10.2).
func (l *ZKTopicPartitionChangeListener) HandleDataDeleted(dataPath string) error {
	l.c.log.Warnf("Topic for path %s gets deleted, which should not happen at this time", dataPath)
	return nil
}
