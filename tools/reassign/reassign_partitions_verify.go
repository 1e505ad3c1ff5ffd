package reassign

import (
	"fmt"
	"strconv"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ReassignmentStatus is the state of one partition's move.
//
// Kafka 0.10.2: kafka.admin.ReassignmentStatus.
type ReassignmentStatus int

const (
	ReassignmentFailed     ReassignmentStatus = -1
	ReassignmentInProgress ReassignmentStatus = 0
	ReassignmentCompleted  ReassignmentStatus = 1
)

func (c *ReassignPartitionsCommand) verifyFile(path string) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	return c.VerifyAssignment(data)
}

// VerifyAssignment prints the status of every partition in the file and, when
// all are done, removes the throttles.
//
// Kafka 0.10.2: ReassignPartitionsCommand.verifyAssignment.
func (c *ReassignPartitionsCommand) VerifyAssignment(data []byte) error {
	fmt.Fprintln(c.Out, "Status of partition reassignment: ")
	list, err := zkutils.ParsePartitionReassignmentDataWithoutDedup(data)
	if err != nil {
		list = nil
	}
	list = dedup(list)
	inProgress, err := c.Admin.ZkUtils.GetPartitionsBeingReassigned()
	if err != nil {
		return err
	}
	statuses := make([]ReassignmentStatus, len(list))
	for i, p := range list {
		if statuses[i], err = c.checkIfPartitionReassignmentSucceeded(p, inProgress); err != nil {
			return err
		}
	}
	for i, p := range list {
		switch statuses[i] {
		case ReassignmentCompleted:
			fmt.Fprintf(c.Out, "Reassignment of partition %s completed successfully\n", tpString(p.TopicPartition))
		case ReassignmentFailed:
			fmt.Fprintf(c.Out, "Reassignment of partition %s failed\n", tpString(p.TopicPartition))
		case ReassignmentInProgress:
			fmt.Fprintf(c.Out, "Reassignment of partition %s is still in progress\n", tpString(p.TopicPartition))
		}
	}
	return c.removeThrottle(list, statuses)
}

// dedup keeps one entry per partition: the first position, the last value
// (Scala's toMap).
func dedup(list []zkutils.PartitionReplicas) []zkutils.PartitionReplicas {
	idx := map[common.TopicPartition]int{}
	var out []zkutils.PartitionReplicas
	for _, p := range list {
		if i, ok := idx[p.TopicPartition]; ok {
			out[i] = p
			continue
		}
		idx[p.TopicPartition] = len(out)
		out = append(out, p)
	}
	return out
}

func (c *ReassignPartitionsCommand) checkIfPartitionReassignmentSucceeded(p zkutils.PartitionReplicas, inProgress map[common.TopicPartition][]int32) (ReassignmentStatus, error) {
	if _, ok := inProgress[p.TopicPartition]; ok {
		return ReassignmentInProgress, nil
	}
	assigned, err := c.Admin.ZkUtils.GetReplicasForPartition(p.TopicPartition.Topic, p.TopicPartition.Partition)
	if err != nil {
		return 0, err
	}
	if equalInts(assigned, p.Replicas) {
		return ReassignmentCompleted, nil
	}
	fmt.Fprintf(c.Out, "ERROR: Assigned replicas (%s) don't match the list of replicas for reassignment (%s) for partition %s\n",
		joinInts(assigned, ","), joinInts(p.Replicas, ","), tpString(p.TopicPartition))
	return ReassignmentFailed, nil
}

func equalInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// removeThrottle clears the rate limits of every registered broker and the
// throttled replica lists of the involved topics once every move completed.
//
// Kafka 0.10.2: ReassignPartitionsCommand.removeThrottle.
func (c *ReassignPartitionsCommand) removeThrottle(list []zkutils.PartitionReplicas, statuses []ReassignmentStatus) error {
	for _, s := range statuses {
		if s != ReassignmentCompleted {
			return nil
		}
	}
	changed := false
	brokers, err := c.Admin.ZkUtils.GetSortedBrokerList()
	if err != nil {
		return err
	}
	for _, id := range brokers {
		cfg, err := c.Admin.FetchEntityConfig(zkutils.ConfigTypeBroker, strconv.Itoa(int(id)))
		if err != nil {
			return err
		}
		if removeKeys(cfg, admin.LeaderReplicationThrottledRateProp, admin.FollowerReplicationThrottledRateProp) {
			if err := c.Admin.ChangeBrokerConfig([]int32{id}, cfg); err != nil {
				return err
			}
			changed = true
		}
	}
	for _, topic := range topicsOf(list) {
		cfg, err := c.Admin.FetchEntityConfig(zkutils.ConfigTypeTopic, topic)
		if err != nil {
			return err
		}
		if removeKeys(cfg, admin.LeaderReplicationThrottledReplicasProp, admin.FollowerReplicationThrottledReplicasProp) {
			if err := c.Admin.ChangeTopicConfig(topic, cfg); err != nil {
				return err
			}
			changed = true
		}
	}
	if changed {
		fmt.Fprintln(c.Out, "Throttle was removed.")
	}
	return nil
}

// removeKeys deletes the keys and reports whether any was present.
func removeKeys(m map[string]string, keys ...string) bool {
	found := false
	for _, k := range keys {
		if _, ok := m[k]; ok {
			delete(m, k)
			found = true
		}
	}
	return found
}
