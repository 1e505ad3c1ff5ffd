package zkutils

import (
	"github.com/zkafka/zkafka/clients/common"
)

// UpdateLeaderAndIsr conditionally writes a partition's state node with the
// expected znode version. It returns (true, newVersion) on success; after a bad
// version it re-reads the node and still reports success when the node holds
// exactly what we meant to write (our retried write had gone through);
// otherwise, and on any other error, (false, -1).
//
// Kafka 0.10.2: kafka.utils.ReplicationUtils.updateLeaderAndIsr. controllerEpoch
// is the epoch of the controller that made the leadership decision, not
// necessarily the current one.
func (z *ZkUtils) UpdateLeaderAndIsr(topic string, partition int32, newLeaderAndIsr LeaderAndIsr, controllerEpoch, zkVersion int32) (bool, int32) {
	path := TopicPartitionLeaderAndIsrPath(topic, partition)
	z.log.Debugf("Updated ISR for partition [%s,%d] to %v", topic, partition, newLeaderAndIsr.Isr)
	return z.ConditionalUpdatePersistentPath(path, LeaderAndIsrZkData(newLeaderAndIsr, controllerEpoch), zkVersion, checkLeaderAndIsrZkData)
}

// checkLeaderAndIsrZkData compares the stored state with the one we tried to
// write (leader, epoch, ISR and controller epoch; the zkVersion is taken from
// the stored node for both, so it cannot differ).
//
// Kafka 0.10.2: ReplicationUtils.checkLeaderAndIsrZkData.
func checkLeaderAndIsrZkData(z *ZkUtils, path string, expected []byte) (bool, int32) {
	written, st, ok, err := z.ReadDataMaybeNull(path)
	if err != nil || !ok {
		return false, -1
	}
	want, err := DecodeLeaderIsrAndControllerEpoch(expected, st.Version)
	if err != nil {
		return false, -1
	}
	got, err := DecodeLeaderIsrAndControllerEpoch(written, st.Version)
	if err != nil || !got.Equal(want) {
		return false, -1
	}
	return true, st.Version
}

// PropagateIsrChanges writes one /isr_change_notification/isr_change_<seq> node
// listing the partitions whose ISR this broker changed, and returns its path.
//
// Kafka 0.10.2: ReplicationUtils.propagateIsrChanges.
func (z *ZkUtils) PropagateIsrChanges(partitions []common.TopicPartition) (string, error) {
	p, err := z.CreateSequentialPersistentPath(IsrChangeNotificationPath+"/"+IsrChangeNotificationPrefix,
		IsrChangeNotificationZkData(partitions))
	if err == nil {
		z.log.Debugf("Added %s for %v", p, partitions)
	}
	return p, err
}
