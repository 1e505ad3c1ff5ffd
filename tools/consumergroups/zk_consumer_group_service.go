package consumergroups

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ZkBrokerOps is what the ZooKeeper view asks brokers.
type ZkBrokerOps interface {
	// FetchOffsets asks the group's coordinator (OffsetFetch v1) for its committed offsets;
	// a partition without a Kafka-stored offset is absent (the caller then reads ZooKeeper).
	FetchOffsets(group string, tps []common.TopicPartition) (map[common.TopicPartition]int64, error)
	// LogEndOffset asks the partition's leader (ListOffsets v0, latest).
	LogEndOffset(leader zkutils.BrokerInfo, tp common.TopicPartition) (int64, error)
}

// zkConsumerGroupService is the old consumer's view.
//
// Kafka 0.10.2: ConsumerGroupCommand.ZkConsumerGroupService.
type zkConsumerGroupService struct {
	zk     *zkutils.ZkUtils
	ops    ZkBrokerOps
	stdout io.Writer
}

func (s *zkConsumerGroupService) close() { s.zk.Close() }

func (s *zkConsumerGroupService) listGroups() ([]string, error) {
	gs, err := s.zk.GetConsumerGroups()
	sort.Strings(gs)
	return gs, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// describeGroup: one row per partition of every topic the group owns, in topic then
// partition order (ZooKeeper children come sorted here; Kafka prints them in the server's
// order), then one row per subscribed topic of each member that owns nothing.
func (s *zkConsumerGroupService) describeGroup(group string) (string, []row, bool, error) {
	groups, err := s.zk.GetConsumerGroups()
	if err != nil {
		return "", nil, false, err
	}
	if !contains(groups, group) {
		return "", nil, false, nil
	}
	topics, err := s.zk.GetTopicsByConsumerGroup(group)
	if err != nil {
		return "", nil, false, err
	}
	sort.Strings(topics)
	parts, err := s.zk.GetPartitionsForTopics(topics)
	if err != nil {
		return "", nil, false, err
	}
	var tps []common.TopicPartition
	for _, t := range topics {
		ps := append([]int32(nil), parts[t]...)
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		for _, p := range ps {
			tps = append(tps, common.TopicPartition{Topic: t, Partition: p})
		}
	}
	memberIDs, err := s.zk.GetConsumersInGroup(group)
	if err != nil && !errors.Is(err, zkclient.ErrNoNode) {
		return "", nil, false, err
	}
	sort.Strings(memberIDs)
	owning := map[string]bool{}
	var rows []row
	for _, tp := range tps {
		consumerID := missing
		data, _, ok, err := s.zk.ReadDataMaybeNull(zkutils.GetConsumerPartitionOwnerPath(group, tp.Topic, tp.Partition))
		if err != nil {
			return "", nil, false, err
		}
		if ok {
			owner := string(data)
			if i := strings.LastIndex(owner, "-"); i >= 0 {
				owner = owner[:i] // drop the consumer thread index
			}
			consumerID = owner
			owning[owner] = true
		}
		offset, hasOffset := s.partitionOffset(group, tp)
		if r, ok := describePartition(tp.Topic, tp.Partition, offset, hasOffset, s.logEndOffset(tp), consumerID, "", ""); ok {
			rows = append(rows, r)
		}
	}
	for _, id := range memberIDs {
		if owning[id] {
			continue
		}
		data, _, ok, err := s.zk.ReadDataMaybeNull(zkutils.ZKGroupDirs{Group: group}.ConsumerRegistryDir() + "/" + id)
		if err != nil || !ok {
			continue
		}
		reg, err := zkutils.DecodeConsumerRegistration(data)
		if err != nil {
			return "", nil, false, err
		}
		for range reg.Subscription {
			rows = append(rows, memberRow(id, "", ""))
		}
	}
	return "", rows, true, nil
}

// partitionOffset asks Kafka first, then ZooKeeper, as getPartitionOffsets does. If the
// coordinator cannot be reached at all, ZooKeeper is read (Kafka keeps retrying instead).
func (s *zkConsumerGroupService) partitionOffset(group string, tp common.TopicPartition) (int64, bool) {
	offsets, err := s.ops.FetchOffsets(group, []common.TopicPartition{tp})
	if err == nil {
		if o, ok := offsets[tp]; ok {
			return o, true
		}
	}
	o, ok, err := s.zk.ReadConsumerOffset(group, tp)
	if err != nil || !ok {
		printError(s.stdout, fmt.Sprintf("Could not fetch offset from zookeeper for group '%s' partition '[%s,%d]' due to missing offset data in zookeeper.",
			group, tp.Topic, tp.Partition))
		return 0, false
	}
	return o, true
}

func (s *zkConsumerGroupService) logEndOffset(tp common.TopicPartition) logEndOffsetResult {
	leader, ok, err := s.zk.GetLeaderForPartition(tp.Topic, tp.Partition)
	switch {
	case err != nil || !ok:
		printError(s.stdout, fmt.Sprintf("No broker for partition '%s'", tp))
		return logEndOffsetResult{ignore: true}
	case leader == -1:
		return logEndOffsetResult{}
	}
	b, ok, err := s.zk.GetBrokerInfo(leader)
	if err != nil || !ok {
		printError(s.stdout, fmt.Sprintf("Could not parse broker info due to Broker id %d does not exist", leader))
		return logEndOffsetResult{ignore: true}
	}
	leo, err := s.ops.LogEndOffset(b, tp)
	if err != nil {
		printError(s.stdout, fmt.Sprintf("Could not fetch the log end offset of %s due to %v", tp, err))
		return logEndOffsetResult{ignore: true}
	}
	return logEndOffsetResult{value: leo, known: true}
}

// deleteGroups is --delete: whole groups, one topic of some groups, or one topic of every
// inactive group.
func (s *zkConsumerGroupService) deleteGroups(groups []string, hasTopic bool, topic string) error {
	switch {
	case len(groups) > 0 && hasTopic:
		if err := admin.ValidateTopic(topic); err != nil {
			return err
		}
		for _, g := range groups {
			ok, err := s.deleteConsumerGroupInfoForTopic(g, topic)
			switch {
			case errors.Is(err, zkclient.ErrNoNode):
				printError(s.stdout, fmt.Sprintf("Delete for group '%s' topic '%s' failed because group does not exist.", g, topic))
			case err != nil:
				return err
			case ok:
				fmt.Fprintf(s.stdout, "Deleted consumer group information for group '%s' topic '%s' in zookeeper.\n", g, topic)
			default:
				printError(s.stdout, fmt.Sprintf("Delete for group '%s' topic '%s' failed because its consumers are still active.", g, topic))
			}
		}
	case len(groups) > 0:
		for _, g := range groups {
			ok, err := s.deleteConsumerGroup(g)
			switch {
			case errors.Is(err, zkclient.ErrNoNode):
				printError(s.stdout, fmt.Sprintf("Delete for group '%s' failed because group does not exist.", g))
			case err != nil:
				return err
			case ok:
				fmt.Fprintf(s.stdout, "Deleted all consumer group information for group '%s' in zookeeper.\n", g)
			default:
				printError(s.stdout, fmt.Sprintf("Delete for group '%s' failed because its consumers are still active.", g))
			}
		}
	default:
		if err := admin.ValidateTopic(topic); err != nil {
			return err
		}
		all, err := s.zk.GetChildrenParentMayNotExist(zkutils.ConsumersPath)
		if err != nil {
			return err
		}
		for _, g := range all {
			ts, err := s.zk.GetChildren(zkutils.ZKGroupDirs{Group: g}.ConsumerGroupOffsetsDir())
			if err != nil || !contains(ts, topic) {
				continue
			}
			if _, err := s.deleteConsumerGroupInfoForTopic(g, topic); err != nil && !errors.Is(err, zkclient.ErrNoNode) {
				return err
			}
		}
		fmt.Fprintf(s.stdout, "Deleted consumer group information for all inactive consumer groups for topic '%s' in zookeeper.\n", topic)
	}
	return nil
}

// isConsumerGroupActive: a group with registered members is active (ErrNoNode: no group).
func (s *zkConsumerGroupService) isConsumerGroupActive(group string) (bool, error) {
	ids, err := s.zk.GetConsumersInGroup(group)
	return len(ids) > 0, err
}

// deleteConsumerGroup is AdminUtils.deleteConsumerGroupInZK.
func (s *zkConsumerGroupService) deleteConsumerGroup(group string) (bool, error) {
	active, err := s.isConsumerGroupActive(group)
	if err != nil || active {
		return false, err
	}
	return true, s.zk.DeletePathRecursive(zkutils.ZKGroupDirs{Group: group}.ConsumerGroupDir())
}

// deleteConsumerGroupInfoForTopic is AdminUtils.deleteConsumerGroupInfoForTopicInZK: the whole
// group goes if it only owns that topic.
func (s *zkConsumerGroupService) deleteConsumerGroupInfoForTopic(group, topic string) (bool, error) {
	topics, err := s.zk.GetTopicsByConsumerGroup(group)
	if err != nil {
		return false, err
	}
	if len(topics) == 1 && topics[0] == topic {
		return s.deleteConsumerGroup(group)
	}
	active, err := s.isConsumerGroupActive(group)
	if err != nil || active {
		return false, err
	}
	dirs := zkutils.NewZKGroupTopicDirs(group, topic)
	if err := s.zk.DeletePathRecursive(dirs.ConsumerOwnerDir()); err != nil {
		return false, err
	}
	return true, s.zk.DeletePathRecursive(dirs.ConsumerOffsetDir())
}

// realZkBrokerOps talks to the brokers registered in ZooKeeper.
type realZkBrokerOps struct {
	zk      *zkutils.ZkUtils
	timeout time.Duration
}

func plaintext(b zkutils.BrokerInfo) (zkutils.RegisteredEndPoint, error) {
	ep, ok := b.EndPoint("PLAINTEXT")
	if !ok {
		return ep, fmt.Errorf("broker %d has no PLAINTEXT endpoint", b.ID)
	}
	return ep, nil
}

// FetchOffsets is ClientUtils.channelToOffsetManager + OffsetFetch.
func (o *realZkBrokerOps) FetchOffsets(group string, tps []common.TopicPartition) (map[common.TopicPartition]int64, error) {
	brokers, err := o.zk.GetAllBrokersInCluster()
	if err != nil {
		return nil, err
	}
	if len(brokers) == 0 {
		return nil, errors.New("no brokers")
	}
	ep, err := plaintext(brokers[0])
	if err != nil {
		return nil, err
	}
	gcr := &protocol.GroupCoordinatorResponse{Version: 0}
	if err := roundTrip(ep.Host, ep.Port, o.timeout, &protocol.GroupCoordinatorRequest{Version: 0, GroupID: group}, gcr); err != nil {
		return nil, err
	}
	if gcr.ErrorCode != 0 {
		return nil, protocol.ErrorForCode(gcr.ErrorCode)
	}
	req := &protocol.OffsetFetchRequest{Version: 1, GroupID: group}
	for _, tp := range tps {
		req.Topics = append(req.Topics, protocol.OffsetFetchRequestTopic{Topic: tp.Topic,
			Partitions: []protocol.OffsetFetchRequestTopicPartition{{Partition: tp.Partition}}})
	}
	resp := &protocol.OffsetFetchResponse{Version: 1}
	if err := roundTrip(gcr.Coordinator.Host, gcr.Coordinator.Port, o.timeout, req, resp); err != nil {
		return nil, err
	}
	out := map[common.TopicPartition]int64{}
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			if p.ErrorCode == 0 && p.Offset >= 0 {
				out[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.Offset
			}
		}
	}
	return out, nil
}

// LogEndOffset is a SimpleConsumer.getOffsetsBefore(latest, 1) on the leader.
func (o *realZkBrokerOps) LogEndOffset(leader zkutils.BrokerInfo, tp common.TopicPartition) (int64, error) {
	ep, err := plaintext(leader)
	if err != nil {
		return 0, err
	}
	return listOffsetLatest(ep.Host, ep.Port, o.timeout, tp)
}

// listOffsetLatest asks a leader for a partition's log end offset (ListOffsets v0).
func listOffsetLatest(host string, port int32, timeout time.Duration, tp common.TopicPartition) (int64, error) {
	req := &protocol.ListOffsetRequest{Version: 0, ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{Topic: tp.Topic,
		Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: tp.Partition, Timestamp: -1, MaxNumOffsets: 1}}}}}
	resp := &protocol.ListOffsetResponse{Version: 0}
	if err := roundTrip(host, port, timeout, req, resp); err != nil {
		return 0, err
	}
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			if p.ErrorCode != 0 {
				return 0, protocol.ErrorForCode(p.ErrorCode)
			}
			if len(p.Offsets) > 0 {
				return p.Offsets[0], nil
			}
		}
	}
	return 0, fmt.Errorf("no offset for %s in the ListOffsets response", tp)
}
