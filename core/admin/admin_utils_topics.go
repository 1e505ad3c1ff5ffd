package admin

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// CreateTopic assigns replicas over the live brokers and creates the topic.
//
// Kafka 0.10.2: AdminUtils.createTopic.
func (a *AdminUtils) CreateTopic(topic string, partitions, replicationFactor int32, config map[string]string, mode RackAwareMode) error {
	brokers, err := a.GetBrokerMetadatas(mode, nil)
	if err != nil {
		return err
	}
	assignment, err := AssignReplicasToBrokers(brokers, partitions, replicationFactor, -1, -1, a.Rand)
	if err != nil {
		return err
	}
	return a.CreateOrUpdateTopicPartitionAssignmentPathInZK(topic, assignment, config, false)
}

// ValidateCreateOrUpdateTopic checks the name, existence and collisions (on
// create), the replica lists, and the topic config (on create).
//
// Kafka 0.10.2: AdminUtils.validateCreateOrUpdateTopic.
func (a *AdminUtils) ValidateCreateOrUpdateTopic(topic string, assignment map[int32][]int32, config map[string]string, update bool) error {
	if err := ValidateTopic(topic); err != nil {
		return err
	}
	if !update {
		exists, err := a.TopicExists(topic)
		if err != nil {
			return err
		}
		if exists {
			return newError(ErrTopicExists, "Topic '"+topic+"' already exists.")
		}
		if TopicHasCollisionChars(topic) {
			all, err := a.ZkUtils.GetAllTopics()
			if err != nil {
				return err
			}
			var colliding []string
			for _, t := range all {
				if t == topic {
					return newError(ErrTopicExists, "Topic '"+topic+"' already exists.")
				}
				if TopicHasCollision(topic, t) {
					colliding = append(colliding, t)
				}
			}
			if len(colliding) > 0 {
				return newError(ErrInvalidTopic, "Topic '"+topic+"' collides with existing topics: "+strings.Join(colliding, ", "))
			}
		}
	}
	sizes := map[int]bool{}
	for _, r := range assignment {
		sizes[len(r)] = true
	}
	if len(sizes) != 1 {
		return newError(ErrInvalidReplicaAssignment, "All partitions should have the same number of replicas")
	}
	for _, r := range assignment {
		if len(duplicates(r)) > 0 {
			return newError(ErrInvalidReplicaAssignment, "Duplicate replica assignment found: "+scalaMapString(assignment))
		}
	}
	if !update {
		return ValidateTopicConfig(config)
	}
	return nil
}

// CreateOrUpdateTopicPartitionAssignmentPathInZK validates, then on create
// writes /config/topics/<topic> (always, possibly an empty config) and
// creates /brokers/topics/<topic>; on update it rewrites the assignment,
// which the controller picks up as new partitions.
//
// Kafka 0.10.2: AdminUtils.createOrUpdateTopicPartitionAssignmentPathInZK.
func (a *AdminUtils) CreateOrUpdateTopicPartitionAssignmentPathInZK(topic string, assignment map[int32][]int32, config map[string]string, update bool) error {
	if err := a.ValidateCreateOrUpdateTopic(topic, assignment, config, update); err != nil {
		return err
	}
	if !update {
		if config == nil {
			config = map[string]string{}
		}
		if err := a.ZkUtils.UpdatePersistentPath(zkutils.EntityConfigPath(zkutils.ConfigTypeTopic, topic), zkutils.EntityConfigZkData(config)); err != nil {
			return NewAdminOperationException(err.Error())
		}
	}
	return a.writeTopicPartitionAssignment(topic, assignment, update)
}

func (a *AdminUtils) writeTopicPartitionAssignment(topic string, assignment map[int32][]int32, update bool) error {
	path := zkutils.TopicPath(topic)
	data := zkutils.ReplicaAssignmentZkData(assignment)
	var err error
	if update {
		a.Log.Infof("Topic update %s", data)
		err = a.ZkUtils.UpdatePersistentPath(path, data)
	} else {
		a.Log.Infof("Topic creation %s", data)
		err = a.ZkUtils.CreatePersistentPath(path, data)
	}
	switch {
	case errors.Is(err, zkclient.ErrNodeExists):
		return newError(ErrTopicExists, "Topic '"+topic+"' already exists.")
	case err != nil:
		return NewAdminOperationException(err.Error())
	}
	return nil
}

// AddPartitions grows a topic to numPartitions. Without a manual assignment
// the new partitions continue the round-robin from the broker of partition
// 0's first replica (start index and shift both fixed to its position).
// replicaAssignment, when given, lists every partition ("b1:b2,b3:b4,...");
// the entries of existing partitions are skipped.
//
// Kafka 0.10.2: AdminUtils.addPartitions.
func (a *AdminUtils) AddPartitions(topic string, numPartitions int32, replicaAssignment string, checkBrokerAvailable bool, mode RackAwareMode) error {
	existing, err := a.ZkUtils.GetPartitionAssignmentForTopics([]string{topic})
	if err != nil {
		return err
	}
	current := existing[topic]
	if len(current) == 0 {
		return NewAdminOperationException("The topic " + topic + " does not exist")
	}
	zero, ok := current[0]
	if !ok {
		return NewAdminOperationException("the topic does not have partition with id 0, it should never happen")
	}
	if numPartitions-int32(len(current)) <= 0 {
		return NewAdminOperationException("The number of partitions for a topic can only be increased")
	}
	brokers, err := a.GetBrokerMetadatas(mode, nil)
	if err != nil {
		return err
	}
	var added map[int32][]int32
	if replicaAssignment == "" {
		start := int32(0)
		for i, b := range brokers {
			if len(zero) > 0 && b.ID >= zero[0] {
				start = int32(i)
				break
			}
		}
		added, err = AssignReplicasToBrokers(brokers, numPartitions-int32(len(current)), int32(len(zero)), start, int32(len(current)), a.Rand)
	} else {
		ids := make([]int32, len(brokers))
		for i, b := range brokers {
			ids[i] = b.ID
		}
		added, err = GetManualReplicaAssignment(replicaAssignment, ids, int32(len(current)), checkBrokerAvailable)
	}
	if err != nil {
		return err
	}
	for _, r := range added {
		if len(r) != len(zero) {
			// Kafka's message has two spaces after "assignment" and is kept.
			return NewAdminOperationException("The replication factor in manual replication assignment  is not equal to the existing replication factor for the topic " + strconv.Itoa(len(zero)))
		}
	}
	a.Log.Infof("Add partition list for %s is %s", topic, scalaMapString(added))
	all := make(map[int32][]int32, len(current)+len(added))
	for p, r := range current {
		all[p] = r
	}
	for p, r := range added {
		all[p] = r
	}
	return a.CreateOrUpdateTopicPartitionAssignmentPathInZK(topic, all, nil, true)
}

// GetManualReplicaAssignment parses "b1:b2,b3:b4,..." for partitions from
// startPartitionID on (earlier entries are skipped).
//
// Kafka 0.10.2: AdminUtils.getManualReplicaAssignment. Kafka renders the
// broker array in two messages as a JVM identity string ("[I@6d06d69c"); the
// same shape is kept with a content hash for the hex digits.
func GetManualReplicaAssignment(list string, available []int32, startPartitionID int32, checkBrokerAvailable bool) (map[int32][]int32, error) {
	entries := javaSplit(list, ",")
	if int(startPartitionID) < len(entries) {
		entries = entries[startPartitionID:]
	} else {
		entries = nil
	}
	avail := map[int32]bool{}
	for _, id := range available {
		avail[id] = true
	}
	out := map[int32][]int32{}
	p := startPartitionID
	for i, e := range entries {
		brokers, err := parseBrokerList(e)
		if err != nil {
			return nil, err
		}
		if len(brokers) == 0 {
			return nil, NewAdminOperationException("replication factor must be larger than 0")
		}
		if len(duplicates(brokers)) > 0 {
			return nil, NewAdminOperationException("duplicate brokers in replica assignment: " + javaIntArrayString(brokers))
		}
		if checkBrokerAvailable {
			for _, b := range brokers {
				if !avail[b] {
					return nil, NewAdminOperationException("some specified brokers not available. specified brokers: " +
						javaIntArrayString(brokers) + "available broker:" + scalaSetString(available))
				}
			}
		}
		out[p] = brokers
		if len(out[p]) != len(out[startPartitionID]) {
			return nil, NewAdminOperationException("partition " + strconv.Itoa(i) + " has different replication factor: " + javaIntArrayString(brokers))
		}
		p++
	}
	return out, nil
}

// ParseReplicaAssignment is kafka-topics' --replica-assignment on create:
// entry i is partition i.
//
// Kafka 0.10.2: TopicCommand.parseReplicaAssignment.
func ParseReplicaAssignment(list string) (map[int32][]int32, error) {
	out := map[int32][]int32{}
	for i, e := range javaSplit(list, ",") {
		brokers, err := parseBrokerList(e)
		if err != nil {
			return nil, err
		}
		if d := duplicates(brokers); len(d) > 0 {
			return nil, NewAdminCommandFailedException("Partition replica lists may not contain duplicate entries: " + joinInts(d, ","))
		}
		out[int32(i)] = brokers
		if len(out[int32(i)]) != len(out[0]) {
			return nil, NewAdminOperationException("Partition " + strconv.Itoa(i) + " has different replication factor: " + javaIntArrayString(brokers))
		}
	}
	return out, nil
}

func parseBrokerList(entry string) ([]int32, error) {
	var out []int32
	for _, s := range javaSplit(entry, ":") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return nil, NewAdminOperationException(fmt.Sprintf("For input string: \"%s\"", strings.TrimSpace(s)))
		}
		out = append(out, int32(n))
	}
	return out, nil
}

// DeleteTopic marks a topic for deletion by creating /admin/delete_topics/<topic>.
//
// Kafka 0.10.2: AdminUtils.deleteTopic.
func (a *AdminUtils) DeleteTopic(topic string) error {
	exists, err := a.TopicExists(topic)
	if err != nil {
		return err
	}
	if !exists {
		return newError(ErrUnknownTopicOrPartition, "Topic `"+topic+"` to delete does not exist")
	}
	err = a.ZkUtils.CreatePersistentPath(zkutils.DeleteTopicPath(topic), nil)
	switch {
	case errors.Is(err, zkclient.ErrNodeExists):
		return newError(ErrTopicAlreadyMarkedForDeletion, "topic "+topic+" is already marked for deletion")
	case err != nil:
		return NewAdminOperationException(err.Error())
	}
	return nil
}
