package zkutils

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
)

// ErrNoController is KafkaException("Controller doesn't exist").
var ErrNoController = errors.New("controller doesn't exist")

// GetController returns the broker id in /controller.
func (z *ZkUtils) GetController() (int32, error) {
	data, _, ok, err := z.ReadDataMaybeNull(ControllerPath)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, ErrNoController
	}
	return ParseControllerId(data)
}

// ReadControllerEpoch reads /controller_epoch: the epoch and the znode version
// (KafkaController.readControllerEpochFromZookeeper); exists is false when the
// node is missing (no controller was ever elected).
func (z *ZkUtils) ReadControllerEpoch() (epoch, zkVersion int32, exists bool, err error) {
	data, st, ok, err := z.ReadDataMaybeNull(ControllerEpochPath)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	epoch, err = ParseControllerEpoch(data)
	if err != nil {
		return 0, 0, true, err
	}
	return epoch, st.Version, true, nil
}

// GetClusterId reads /cluster/id; ok is false when it does not exist.
func (z *ZkUtils) GetClusterId() (id string, ok bool, err error) {
	data, _, ok, err := z.ReadDataMaybeNull(ClusterIdPath)
	if err != nil || !ok {
		return "", false, err
	}
	id, err = ParseClusterId(data)
	return id, err == nil, err
}

// CreateOrGetClusterId creates /cluster/id with proposed, or returns the id
// another broker stored first.
func (z *ZkUtils) CreateOrGetClusterId(proposed string) (string, error) {
	err := z.CreatePersistentPath(ClusterIdPath, ClusterIdZkData(proposed))
	if err == nil {
		return proposed, nil
	}
	if !errors.Is(err, zkclient.ErrNodeExists) {
		return "", err
	}
	id, ok, err := z.GetClusterId()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("failed to get cluster id from Zookeeper. This can only happen if /cluster/id is deleted from Zookeeper")
	}
	return id, nil
}

// GetSortedBrokerList returns the registered broker ids, ascending.
func (z *ZkUtils) GetSortedBrokerList() ([]int32, error) {
	children, err := z.GetChildren(BrokerIdsPath)
	if err != nil {
		return nil, err
	}
	ids := make([]int32, 0, len(children))
	for _, c := range children {
		id, err := strconv.ParseInt(c, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("invalid broker id znode %s/%s", BrokerIdsPath, c)
		}
		ids = append(ids, int32(id))
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// GetAllBrokersInCluster reads every registration, ordered by id; brokers that
// vanish while being read are skipped.
func (z *ZkUtils) GetAllBrokersInCluster() ([]BrokerInfo, error) {
	children, err := z.GetChildrenParentMayNotExist(BrokerIdsPath)
	if err != nil {
		return nil, err
	}
	sort.Strings(children) // Kafka sorts the names as strings, then reads each
	out := make([]BrokerInfo, 0, len(children))
	for _, c := range children {
		id, err := strconv.ParseInt(c, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("invalid broker id znode %s/%s", BrokerIdsPath, c)
		}
		b, ok, err := z.GetBrokerInfo(int32(id))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, b)
		}
	}
	return out, nil
}

// GetBrokerInfo reads /brokers/ids/<id>; ok is false when it is not registered.
func (z *ZkUtils) GetBrokerInfo(brokerID int32) (BrokerInfo, bool, error) {
	b, _, ok, err := z.GetBrokerInfoAndEpoch(brokerID)
	return b, ok, err
}

// GetBrokerInfoAndEpoch is GetBrokerInfo plus the registration's epoch: the zxid that created
// the znode (czxid). A broker that registered again on a new session has a larger epoch even
// when the controller never saw the id go, which is how the controller tells a restart from no
// change.
//
// Kafka 0.10.2 has no broker epoch; later Kafka (KIP-380) reads the same czxid in
// KafkaZkClient.getAllBrokerAndEpochsInCluster.
func (z *ZkUtils) GetBrokerInfoAndEpoch(brokerID int32) (BrokerInfo, int64, bool, error) {
	data, st, ok, err := z.ReadDataMaybeNull(BrokerIdPath(brokerID))
	if err != nil || !ok {
		return BrokerInfo{}, 0, false, err
	}
	b, err := DecodeBrokerInfo(brokerID, data)
	var epoch int64
	if st != nil {
		epoch = st.Czxid
	}
	return b, epoch, err == nil, err
}

// GetLeaderIsrAndEpochForPartition reads a partition's state node; ok is false
// when it does not exist (ReplicationUtils.getLeaderIsrAndEpochForPartition).
func (z *ZkUtils) GetLeaderIsrAndEpochForPartition(topic string, partition int32) (LeaderIsrAndControllerEpoch, bool, error) {
	data, st, ok, err := z.ReadDataMaybeNull(TopicPartitionLeaderAndIsrPath(topic, partition))
	if err != nil || !ok {
		return LeaderIsrAndControllerEpoch{}, false, err
	}
	l, err := DecodeLeaderIsrAndControllerEpoch(data, st.Version)
	return l, err == nil, err
}

// GetLeaderAndIsrForPartition is the LeaderAndIsr part of the state node.
func (z *ZkUtils) GetLeaderAndIsrForPartition(topic string, partition int32) (LeaderAndIsr, bool, error) {
	l, ok, err := z.GetLeaderIsrAndEpochForPartition(topic, partition)
	return l.LeaderAndIsr, ok, err
}

// PipelineDepth bounds the requests Pipelined keeps in flight on one session.
const PipelineDepth = 64

// Pipelined runs fn(0..n-1), at most PipelineDepth calls at a time, and returns
// when all have returned. It is for calls that only talk to ZooKeeper: their
// requests share the session's connection and ZooKeeper's transaction-log fsyncs
// instead of waiting one round trip each; whatever state the results feed is the
// caller's to touch, before and after.
func Pipelined(n int, fn func(i int)) {
	if n == 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, PipelineDepth)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn(i)
		}()
	}
	wg.Wait()
}

// GetPartitionLeaderAndIsrForTopics reads the state of each partition; partitions
// without a state node are left out. The reads are pipelined (0.10.2 reads them
// one after the other; a new controller of 10,000 partitions waits for all of
// them before it acts).
func (z *ZkUtils) GetPartitionLeaderAndIsrForTopics(partitions []common.TopicPartition) (map[common.TopicPartition]LeaderIsrAndControllerEpoch, error) {
	type result struct {
		l   LeaderIsrAndControllerEpoch
		ok  bool
		err error
	}
	results := make([]result, len(partitions))
	Pipelined(len(partitions), func(i int) {
		r, tp := &results[i], partitions[i]
		r.l, r.ok, r.err = z.GetLeaderIsrAndEpochForPartition(tp.Topic, tp.Partition)
	})
	out := make(map[common.TopicPartition]LeaderIsrAndControllerEpoch, len(partitions))
	for i, tp := range partitions {
		r := results[i]
		if r.err != nil {
			return nil, r.err
		}
		if r.ok {
			out[tp] = r.l
		}
	}
	return out, nil
}

// GetLeaderForPartition returns the leader in the state node, if any.
func (z *ZkUtils) GetLeaderForPartition(topic string, partition int32) (int32, bool, error) {
	l, ok, err := z.GetLeaderAndIsrForPartition(topic, partition)
	return l.Leader, ok, err
}

// GetEpochForPartition returns the leader epoch (NoEpochForPartitionException
// when there is no state node).
func (z *ZkUtils) GetEpochForPartition(topic string, partition int32) (int32, error) {
	l, ok, err := z.GetLeaderAndIsrForPartition(topic, partition)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("no epoch, ISR path for partition [%s,%d] is empty", topic, partition)
	}
	return l.LeaderEpoch, nil
}

// GetInSyncReplicasForPartition returns the ISR (empty without a state node).
func (z *ZkUtils) GetInSyncReplicasForPartition(topic string, partition int32) ([]int32, error) {
	l, _, err := z.GetLeaderAndIsrForPartition(topic, partition)
	return l.Isr, err
}

// GetReplicasForPartition returns the assigned replicas (empty if unknown).
func (z *ZkUtils) GetReplicasForPartition(topic string, partition int32) ([]int32, error) {
	a, err := z.GetPartitionAssignmentForTopics([]string{topic})
	if err != nil {
		return nil, err
	}
	return a[topic][partition], nil
}

// GetReplicaAssignmentForTopics reads the assignment of every partition of the
// given topics; missing topics contribute nothing.
func (z *ZkUtils) GetReplicaAssignmentForTopics(topics []string) (map[common.TopicPartition][]int32, error) {
	out := map[common.TopicPartition][]int32{}
	for _, t := range topics {
		data, _, ok, err := z.ReadDataMaybeNull(TopicPath(t))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		a, err := ParseReplicaAssignment(data)
		if err != nil {
			return nil, err
		}
		for p, r := range a {
			out[common.TopicPartition{Topic: t, Partition: p}] = r
		}
	}
	return out, nil
}

// GetPartitionAssignmentForTopics returns topic → partition → replicas; a missing
// topic maps to an empty assignment.
func (z *ZkUtils) GetPartitionAssignmentForTopics(topics []string) (map[string]map[int32][]int32, error) {
	out := make(map[string]map[int32][]int32, len(topics))
	for _, t := range topics {
		data, _, ok, err := z.ReadDataMaybeNull(TopicPath(t))
		if err != nil {
			return nil, err
		}
		a := map[int32][]int32{}
		if ok {
			if a, err = ParseReplicaAssignment(data); err != nil {
				return nil, err
			}
		}
		out[t] = a
	}
	return out, nil
}

// GetPartitionsForTopics returns each topic's partition ids, ascending.
func (z *ZkUtils) GetPartitionsForTopics(topics []string) (map[string][]int32, error) {
	a, err := z.GetPartitionAssignmentForTopics(topics)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]int32, len(a))
	for t, m := range a {
		ps := make([]int32, 0, len(m))
		for p := range m {
			ps = append(ps, p)
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		out[t] = ps
	}
	return out, nil
}

// GetAllTopics lists /brokers/topics.
func (z *ZkUtils) GetAllTopics() ([]string, error) {
	return z.GetChildrenParentMayNotExist(BrokerTopicsPath)
}

// GetAllEntitiesWithConfig lists the entities of a type that have a config node.
func (z *ZkUtils) GetAllEntitiesWithConfig(entityType string) ([]string, error) {
	return z.GetChildrenParentMayNotExist(EntityConfigRootPath(entityType))
}

// GetAllPartitions lists every partition of every topic (from the partitions
// subtree, i.e. those with state).
func (z *ZkUtils) GetAllPartitions() ([]common.TopicPartition, error) {
	topics, err := z.GetAllTopics()
	if err != nil {
		return nil, err
	}
	var out []common.TopicPartition
	for _, t := range topics {
		ps, err := z.GetChildren(TopicPartitionsPath(t))
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			id, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("invalid partition znode %s/%s", TopicPartitionsPath(t), p)
			}
			out = append(out, common.TopicPartition{Topic: t, Partition: int32(id)})
		}
	}
	return out, nil
}

// GetPartitionsBeingReassigned parses /admin/reassign_partitions (empty if
// absent): partition → target replicas.
func (z *ZkUtils) GetPartitionsBeingReassigned() (map[common.TopicPartition][]int32, error) {
	data, _, ok, err := z.ReadDataMaybeNull(ReassignPartitionsPath)
	if err != nil || !ok {
		return map[common.TopicPartition][]int32{}, err
	}
	return ParsePartitionReassignmentData(data)
}

// UpdatePartitionReassignmentData rewrites /admin/reassign_partitions with the
// remaining partitions, or deletes it when none remain.
func (z *ZkUtils) UpdatePartitionReassignmentData(partitions []PartitionReplicas) error {
	if len(partitions) == 0 {
		if _, err := z.DeletePath(ReassignPartitionsPath); err != nil {
			return err
		}
		z.log.Infof("No more partitions need to be reassigned. Deleting zk path %s", ReassignPartitionsPath)
		return nil
	}
	data := FormatAsReassignmentJson(partitions)
	if err := z.UpdatePersistentPath(ReassignPartitionsPath, data); err != nil {
		return fmt.Errorf("update partition reassignment: %w", err)
	}
	z.log.Debugf("Updated partition reassignment path with %s", data)
	return nil
}

// GetPartitionsUndergoingPreferredReplicaElection parses
// /admin/preferred_replica_election (empty if absent).
func (z *ZkUtils) GetPartitionsUndergoingPreferredReplicaElection() (map[common.TopicPartition]struct{}, error) {
	data, _, ok, err := z.ReadDataMaybeNull(PreferredReplicaLeaderElectionPath)
	if err != nil || !ok {
		return map[common.TopicPartition]struct{}{}, err
	}
	return ParsePreferredReplicaElectionData(data)
}

// FetchEntityConfig reads /config/<type>/<name>; missing or null gives an empty
// config (AdminUtils.fetchEntityConfig).
func (z *ZkUtils) FetchEntityConfig(entityType, sanitizedName string) (map[string]string, error) {
	data, _, ok, err := z.ReadDataMaybeNull(EntityConfigPath(entityType, sanitizedName))
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[string]string{}, nil
	}
	return ParseEntityConfig(data)
}

// FetchAllEntityConfigs reads the config of every entity of a type.
func (z *ZkUtils) FetchAllEntityConfigs(entityType string) (map[string]map[string]string, error) {
	names, err := z.GetAllEntitiesWithConfig(entityType)
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]string, len(names))
	for _, n := range names {
		if out[n], err = z.FetchEntityConfig(entityType, n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ChangeEntityConfig overwrites /config/<rootType>/<fullSanitizedName> and then
// creates the /config/changes/config_change_<seq> notification (v2) brokers
// watch. It returns the notification's path.
//
// Kafka 0.10.2: AdminUtils.changeEntityConfig (with writeEntityConfig).
func (z *ZkUtils) ChangeEntityConfig(rootEntityType, fullSanitizedName string, config map[string]string) (string, error) {
	entityPath := rootEntityType + "/" + fullSanitizedName
	if err := z.UpdatePersistentPath(EntityConfigPath(rootEntityType, fullSanitizedName), EntityConfigZkData(config)); err != nil {
		return "", err
	}
	return z.ZkClient.CreatePersistentSequential(ConfigChangesPath+"/"+EntityConfigChangeZnodePrefix, ConfigChangeZkData(entityPath))
}

// GetConsumersInGroup lists /consumers/<group>/ids.
func (z *ZkUtils) GetConsumersInGroup(group string) ([]string, error) {
	return z.GetChildren(ZKGroupDirs{Group: group}.ConsumerRegistryDir())
}

// GetConsumerGroups lists /consumers.
func (z *ZkUtils) GetConsumerGroups() ([]string, error) { return z.GetChildren(ConsumersPath) }

// GetTopicsByConsumerGroup lists /consumers/<group>/owners.
func (z *ZkUtils) GetTopicsByConsumerGroup(group string) ([]string, error) {
	return z.GetChildrenParentMayNotExist(ZKGroupDirs{Group: group}.ConsumerGroupOwnersDir())
}

// GetConsumerPartitionOwnerPath is /consumers/<group>/owners/<topic>/<partition>.
func GetConsumerPartitionOwnerPath(group, topic string, partition int32) string {
	return NewZKGroupTopicDirs(group, topic).ConsumerOwnerDir() + "/" + strconv.FormatInt(int64(partition), 10)
}

// ConsumerOffsetPath is /consumers/<group>/offsets/<topic>/<partition>.
func ConsumerOffsetPath(group string, tp common.TopicPartition) string {
	return NewZKGroupTopicDirs(group, tp.Topic).ConsumerOffsetDir() + "/" + strconv.FormatInt(int64(tp.Partition), 10)
}

// ReadConsumerOffset reads a committed offset; ok is false when none was committed.
func (z *ZkUtils) ReadConsumerOffset(group string, tp common.TopicPartition) (int64, bool, error) {
	data, _, ok, err := z.ReadDataMaybeNull(ConsumerOffsetPath(group, tp))
	if err != nil || !ok {
		return 0, false, err
	}
	off, err := ParseConsumerOffset(data)
	return off, err == nil, err
}

// UpdateConsumerOffset writes a committed offset unconditionally, creating the
// node with its parents if needed.
func (z *ZkUtils) UpdateConsumerOffset(group string, tp common.TopicPartition, offset int64) error {
	return z.UpdatePersistentPath(ConsumerOffsetPath(group, tp), ConsumerOffsetZkData(offset))
}
