package reassign

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ParseAndValidate reads a reassignment file and rejects an empty list,
// duplicate partitions, duplicate replicas and partitions that do not exist.
// Broker ids are not checked, as in Kafka.
//
// Kafka 0.10.2: ReassignPartitionsCommand.parseAndValidate.
func (c *ReassignPartitionsCommand) ParseAndValidate(data []byte) ([]zkutils.PartitionReplicas, error) {
	list, err := zkutils.ParsePartitionReassignmentDataWithoutDedup(data)
	if err != nil {
		list = nil // Kafka's parser yields nothing for unreadable JSON
	}
	if len(list) == 0 {
		return nil, admin.NewAdminCommandFailedException("Partition reassignment data file is empty")
	}
	tps := make([]common.TopicPartition, len(list))
	for i, p := range list {
		tps[i] = p.TopicPartition
	}
	if d := duplicates(tps); len(d) > 0 {
		s := make([]string, len(d))
		for i, tp := range d {
			s[i] = tpString(tp)
		}
		return nil, admin.NewAdminCommandFailedException("Partition reassignment contains duplicate topic partitions: " + strings.Join(s, ","))
	}
	var dupMsgs []string
	for _, p := range list {
		if d := duplicates(p.Replicas); len(d) > 0 {
			dupMsgs = append(dupMsgs, tpString(p.TopicPartition)+" contains multiple entries for "+joinInts(d, ","))
		}
	}
	if len(dupMsgs) > 0 {
		return nil, admin.NewAdminCommandFailedException("Partition replica lists may not contain duplicate entries: " + strings.Join(dupMsgs, ". "))
	}
	existing, err := c.Admin.ZkUtils.GetReplicaAssignmentForTopics(topicsOf(list))
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, p := range list {
		if _, ok := existing[p.TopicPartition]; !ok {
			missing = append(missing, tpString(p.TopicPartition))
		}
	}
	if len(missing) > 0 {
		return nil, admin.NewAdminCommandFailedException("The proposed assignment contains non-existent partitions: List(" + strings.Join(missing, ", ") + ")")
	}
	return list, nil
}

func topicsOf(list []zkutils.PartitionReplicas) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range list {
		if !seen[p.TopicPartition.Topic] {
			seen[p.TopicPartition.Topic] = true
			out = append(out, p.TopicPartition.Topic)
		}
	}
	return out
}

// ExecuteAssignment starts the reassignment in the file, or, when one is
// already running, only adjusts its throttle. throttle < 0 means none.
//
// Kafka 0.10.2: ReassignPartitionsCommand.executeAssignment.
func (c *ReassignPartitionsCommand) ExecuteAssignment(data []byte, throttle int64) error {
	proposed, err := c.ParseAndValidate(data)
	if err != nil {
		return err
	}
	running, err := c.Admin.ZkUtils.PathExists(zkutils.ReassignPartitionsPath)
	if err != nil {
		return err
	}
	if running {
		fmt.Fprintln(c.Out, "There is an existing assignment running.")
		return c.maybeLimit(proposed, throttle)
	}
	current, err := c.Admin.ZkUtils.GetReplicaAssignmentForTopics(topicsOf(proposed))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Out, "Current partition replica assignment\n\n%s\n\nSave this to use as the --reassignment-json-file option during rollback\n",
		zkutils.FormatAsReassignmentJson(sortedAssignment(current)))
	if throttle >= 0 {
		fmt.Fprintln(c.Out, "Warning: You must run Verify periodically, until the reassignment completes, to ensure the throttle is removed. You can also alter the throttle by rerunning the Execute command passing a new value.")
	}
	ok, err := c.ReassignPartitions(proposed, throttle)
	if err != nil {
		return err
	}
	if ok {
		fmt.Fprintln(c.Out, "Successfully started reassignment of partitions.")
	} else {
		parts := make([]string, len(proposed))
		for i, p := range proposed {
			parts[i] = "(" + tpString(p.TopicPartition) + ",List(" + joinInts(p.Replicas, ", ") + "))"
		}
		fmt.Fprintf(c.Out, "Failed to reassign partitions List(%s)\n", strings.Join(parts, ", "))
	}
	return nil
}

// ReassignPartitions sets the throttles (if any) and creates
// /admin/reassign_partitions with the partitions that exist; false when none
// does.
//
// Kafka 0.10.2: ReassignPartitionsCommand.reassignPartitions.
func (c *ReassignPartitionsCommand) ReassignPartitions(proposed []zkutils.PartitionReplicas, throttle int64) (bool, error) {
	if throttle >= 0 {
		if err := c.maybeLimit(proposed, throttle); err != nil {
			return false, err
		}
		existing, err := c.Admin.ZkUtils.GetReplicaAssignmentForTopics(topicsOf(proposed))
		if err != nil {
			return false, err
		}
		if err := c.assignThrottledReplicas(existing, proposed); err != nil {
			return false, err
		}
	}
	partitions, err := c.Admin.ZkUtils.GetPartitionsForTopics(topicsOf(proposed))
	if err != nil {
		return false, err
	}
	var valid []zkutils.PartitionReplicas
	for _, p := range proposed {
		if containsInt(partitions[p.TopicPartition.Topic], p.TopicPartition.Partition) {
			valid = append(valid, p)
		} else {
			c.Log.Errorf("Skipping reassignment of partition %s since it doesn't exist", tpString(p.TopicPartition))
		}
	}
	if len(valid) == 0 {
		return false, nil
	}
	err = c.Admin.ZkUtils.CreatePersistentPath(zkutils.ReassignPartitionsPath, zkutils.FormatAsReassignmentJson(valid))
	if errors.Is(err, zkclient.ErrNodeExists) {
		inProgress, _ := c.Admin.ZkUtils.GetPartitionsBeingReassigned()
		return false, admin.NewAdminCommandFailedException("Partition reassignment currently in progress for " + scalaMapString(inProgress) + ". Aborting operation")
	}
	if err != nil {
		c.Log.Errorf("Admin command failed: %v", err)
		return false, nil
	}
	return true, nil
}

// maybeLimit sets the replication rate limit on every broker holding or
// receiving a replica of the involved topics.
//
// Kafka 0.10.2: ReassignPartitionsCommand.maybeLimit.
func (c *ReassignPartitionsCommand) maybeLimit(proposed []zkutils.PartitionReplicas, throttle int64) error {
	if throttle < 0 {
		return nil
	}
	existing, err := c.Admin.ZkUtils.GetReplicaAssignmentForTopics(topicsOf(proposed))
	if err != nil {
		return err
	}
	set := map[int32]bool{}
	for _, r := range existing {
		for _, b := range r {
			set[b] = true
		}
	}
	for _, p := range proposed {
		for _, b := range p.Replicas {
			set[b] = true
		}
	}
	brokers := make([]int32, 0, len(set))
	for b := range set {
		brokers = append(brokers, b)
	}
	sort.Slice(brokers, func(i, j int) bool { return brokers[i] < brokers[j] })
	rate := strconv.FormatInt(throttle, 10)
	for _, id := range brokers {
		cfg, err := c.Admin.FetchEntityConfig(zkutils.ConfigTypeBroker, strconv.Itoa(int(id)))
		if err != nil {
			return err
		}
		cfg[admin.LeaderReplicationThrottledRateProp] = rate
		cfg[admin.FollowerReplicationThrottledRateProp] = rate
		if err := c.Admin.ChangeBrokerConfig([]int32{id}, cfg); err != nil {
			return err
		}
	}
	fmt.Fprintf(c.Out, "The throttle limit was set to %d B/s\n", throttle)
	return nil
}

// assignThrottledReplicas throttles, per topic, the current replicas of every
// moving partition as leaders and the new replicas as followers.
//
// Kafka 0.10.2: ReassignPartitionsCommand.assignThrottledReplicas.
func (c *ReassignPartitionsCommand) assignThrottledReplicas(existing map[common.TopicPartition][]int32, proposed []zkutils.PartitionReplicas) error {
	for _, topic := range topicsOf(proposed) {
		var leader, follower []string
		ps := make([]zkutils.PartitionReplicas, 0)
		for _, p := range proposed {
			if p.TopicPartition.Topic == topic {
				ps = append(ps, p)
			}
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].TopicPartition.Partition < ps[j].TopicPartition.Partition })
		for _, p := range ps {
			before := existing[p.TopicPartition]
			moved := minus(p.Replicas, before)
			if len(moved) > 0 {
				for _, b := range before {
					leader = append(leader, fmt.Sprintf("%d:%d", p.TopicPartition.Partition, b))
				}
			}
			for _, b := range moved {
				follower = append(follower, fmt.Sprintf("%d:%d", p.TopicPartition.Partition, b))
			}
		}
		cfg, err := c.Admin.FetchEntityConfig(zkutils.ConfigTypeTopic, topic)
		if err != nil {
			return err
		}
		cfg[admin.LeaderReplicationThrottledReplicasProp] = strings.Join(leader, ",")
		cfg[admin.FollowerReplicationThrottledReplicasProp] = strings.Join(follower, ",")
		if err := c.Admin.ChangeTopicConfig(topic, cfg); err != nil {
			return err
		}
	}
	return nil
}

// minus returns the elements of a not in b, in a's order.
func minus(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if !containsInt(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func containsInt(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// scalaMapString renders a reassignment map as Scala prints it, sorted:
// Map([foo,0] -> List(1, 2)).
func scalaMapString(m map[common.TopicPartition][]int32) string {
	parts := make([]string, 0, len(m))
	for _, p := range sortedAssignment(m) {
		parts = append(parts, tpString(p.TopicPartition)+" -> List("+joinInts(p.Replicas, ", ")+")")
	}
	return "Map(" + strings.Join(parts, ", ") + ")"
}
