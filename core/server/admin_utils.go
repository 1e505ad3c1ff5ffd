package server

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// AssignReplicasToBrokers spreads nPartitions × replicationFactor replicas over the brokers
// (sorted by id) without racks: partition p's first replica is broker (p+startIndex) mod n, and
// its followers are shifted by 1+shift, 2+shift, ... (mod n-1) so none equals the leader; the
// shift grows by one each time p wraps around the broker list. startIndex and shift are the two
// random draws of Kafka (taken as parameters so tests can reproduce Kafka's output).
//
// Kafka 0.10.2: kafka.admin.AdminUtils.assignReplicasToBrokersRackUnaware. A minimal copy for
// auto topic creation until core/admin exists (issue 6); rack-aware assignment is not here
// (auto creation uses RackAwareMode.Safe, which falls back to this when racks are incomplete).
func AssignReplicasToBrokers(brokers []int32, nPartitions, replicationFactor int32, startIndex, shift int) (map[int32][]int32, error) {
	n := len(brokers)
	switch {
	case nPartitions <= 0:
		return nil, protocol.Errorf(protocol.ErrInvalidPartitions, "number of partitions must be larger than 0")
	case replicationFactor <= 0:
		return nil, protocol.Errorf(protocol.ErrInvalidReplicationFactor, "replication factor must be larger than 0")
	case int(replicationFactor) > n:
		return nil, protocol.Errorf(protocol.ErrInvalidReplicationFactor, "replication factor: %d larger than available brokers: %d", replicationFactor, n)
	}
	sorted := append([]int32(nil), brokers...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	out := make(map[int32][]int32, nPartitions)
	for p := 0; p < int(nPartitions); p++ {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + startIndex) % n
		replicas := []int32{sorted[first]}
		for j := 0; j < int(replicationFactor)-1; j++ {
			replicas = append(replicas, sorted[replicaIndex(first, shift, j, n)])
		}
		out[int32(p)] = replicas
	}
	return out, nil
}

func replicaIndex(first, shift, j, n int) int {
	s := 1 + (shift+j)%(n-1)
	return (first + s) % n
}

// hasCollisionChars: '.' and '_' collide in metric names.
func hasCollisionChars(topic string) bool { return strings.ContainsAny(topic, "._") }

func unifyCollisionChars(topic string) string { return strings.ReplaceAll(topic, ".", "_") }

// CreateTopic validates the name, assigns replicas over the registered brokers, writes
// /config/topics/<topic> and then /brokers/topics/<topic> (TOPIC_ALREADY_EXISTS if it exists).
//
// Kafka 0.10.2: kafka.admin.AdminUtils.createTopic (+ createOrUpdateTopicPartitionAssignmentPathInZK).
func CreateTopic(z *zkutils.ZkUtils, topic string, partitions, replicationFactor int32, configs map[string]string) error {
	if err := ValidateTopic(topic); err != nil {
		return err
	}
	infos, err := z.GetAllBrokersInCluster()
	if err != nil {
		return err
	}
	ids := make([]int32, len(infos))
	for i, b := range infos {
		ids[i] = b.ID
	}
	if len(ids) == 0 {
		return protocol.Errorf(protocol.ErrInvalidReplicationFactor, "replication factor: %d larger than available brokers: 0", replicationFactor)
	}
	assignment, err := AssignReplicasToBrokers(ids, partitions, replicationFactor, rand.IntN(len(ids)), rand.IntN(len(ids)))
	if err != nil {
		return err
	}
	exists, err := z.PathExists(zkutils.TopicPath(topic))
	if err != nil {
		return err
	}
	if exists {
		return protocol.Errorf(protocol.ErrTopicAlreadyExists, "Topic \"%s\" already exists.", topic)
	}
	if hasCollisionChars(topic) {
		all, err := z.GetAllTopics()
		if err != nil {
			return err
		}
		var clash []string
		for _, t := range all {
			if t != topic && unifyCollisionChars(t) == unifyCollisionChars(topic) {
				clash = append(clash, t)
			}
		}
		if len(clash) > 0 {
			return protocol.Errorf(protocol.ErrInvalidTopicException, "Topic \"%s\" collides with existing topics: %s", topic, strings.Join(clash, ", "))
		}
	}
	if configs == nil {
		configs = map[string]string{}
	}
	if err := z.UpdatePersistentPath(zkutils.EntityConfigPath(zkutils.ConfigTypeTopic, topic), zkutils.EntityConfigZkData(configs)); err != nil {
		return fmt.Errorf("writing the config of topic %s: %w", topic, err)
	}
	if err := z.CreatePersistentPath(zkutils.TopicPath(topic), zkutils.ReplicaAssignmentZkData(assignment)); err != nil {
		if errors.Is(err, zkclient.ErrNodeExists) {
			return protocol.Errorf(protocol.ErrTopicAlreadyExists, "topic %s already exists", topic)
		}
		return err
	}
	return nil
}
