package server

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// NoNumPartitions and NoReplicationFactor are the "unset" values of a CreateTopics entry that
// gives a replica assignment instead of counts.
//
// Kafka 0.10.2: CreateTopicsRequest.NO_NUM_PARTITIONS, NO_REPLICATION_FACTOR.
const (
	NoNumPartitions     int32 = -1
	NoReplicationFactor int16 = -1
)

// TopicDetails is one topic of a CreateTopics request: counts, or an explicit assignment
// (partition -> replicas), and the topic's config overrides.
//
// Kafka 0.10.2: CreateTopicsRequest.TopicDetails.
type TopicDetails struct {
	NumPartitions       int32
	ReplicationFactor   int16
	ReplicasAssignments map[int32][]int32
	Configs             map[string]string
}

// CreateTopicRequest is one topic to create, in the order the request listed it.
type CreateTopicRequest struct {
	Topic string
	TopicDetails
}

// AdminManager carries out CreateTopics and DeleteTopics on the active controller: it writes
// the topic (or the deletion marker) to ZooKeeper as AdminUtils does, and keeps the request in
// its "topic" purgatory until this broker's MetadataCache shows the result (every new partition
// has a leader; the deleted topic is gone) or the request's timeout ends. KafkaApis tries to
// complete the waiting requests after each UpdateMetadata.
//
// Kafka 0.10.2: kafka.server.AdminManager.
type AdminManager struct {
	config            *config.KafkaConfig
	metadataCache     *MetadataCache
	zkUtils           *zkutils.ZkUtils
	topicPurgatory    *purgatory.DelayedOperationPurgatory[purgatory.Operation]
	createTopicPolicy CreateTopicPolicy
	logger            *logrus.Entry
}

// AdminManagerConfig gathers AdminManager's dependencies.
type AdminManagerConfig struct {
	Config        *config.KafkaConfig
	MetadataCache *MetadataCache
	ZkUtils       *zkutils.ZkUtils
	Time          common.Time
	Metrics       *metrics.Registry // the purgatory's gauges; nil registers none
	Logger        *logrus.Entry
}

// NewAdminManager builds the manager and the policy create.topic.policy.class.name names (an
// unknown name fails here, so the broker does not start, as Kafka's class lookup fails).
func NewAdminManager(c AdminManagerConfig) (*AdminManager, error) {
	if c.Logger == nil {
		c.Logger = discardEntry()
	}
	if c.Time == nil {
		c.Time = common.SystemTime{}
	}
	policyName := ""
	if c.Config.CreateTopicPolicyClassName != nil {
		policyName = *c.Config.CreateTopicPolicyClassName
	}
	policy, err := newCreateTopicPolicy(policyName, c.Config.Originals())
	if err != nil {
		return nil, err
	}
	id := c.Config.BrokerID
	m := &AdminManager{config: c.Config, metadataCache: c.MetadataCache, zkUtils: c.ZkUtils, createTopicPolicy: policy,
		logger: c.Logger.WithField("logger", "kafka.server.AdminManager").
			WithField("ident", fmt.Sprintf("[Admin Manager on Broker %d]: ", id))}
	m.topicPurgatory = purgatory.NewDelayedOperationPurgatory[purgatory.Operation]("topic", id, 1000, c.Time, c.Logger)
	m.topicPurgatory.RegisterMetrics(c.Metrics)
	return m, nil
}

// HasDelayedTopicOperations reports whether a CreateTopics or DeleteTopics request is waiting.
func (m *AdminManager) HasDelayedTopicOperations() bool { return m.topicPurgatory.Delayed() != 0 }

// TryCompleteDelayedTopicOperations checks the requests waiting on topic.
func (m *AdminManager) TryCompleteDelayedTopicOperations(topic string) {
	key := purgatory.TopicKey{Topic: topic}
	completed := m.topicPurgatory.CheckAndComplete(key)
	m.logger.Debugf("Request key %s unblocked %d topic requests.", key.KeyLabel(), completed)
}

// CreateTopicMetadata is a topic of a CreateTopics request after validation: its assignment
// and its error (nil: created, or valid under validate_only).
//
// Kafka 0.10.2: kafka.server.CreateTopicMetadata.
type CreateTopicMetadata struct {
	Topic              string
	ReplicaAssignments map[int32][]int32
	Err                error
}

// CreateTopics validates and creates each topic, then answers through responseCallback (a nil
// error is NONE): at once when timeoutMs <= 0, for validate_only, or when no topic could be
// created (created topics then report REQUEST_TIMED_OUT, as 0.10.2 does); otherwise once every
// partition of the created topics has a leader in the MetadataCache, or at the timeout.
//
// Kafka 0.10.2: AdminManager.createTopics.
func (m *AdminManager) CreateTopics(timeoutMs int32, validateOnly bool, createInfo []CreateTopicRequest,
	responseCallback func(map[string]error)) {
	alive := m.metadataCache.GetAliveBrokers()
	brokers := make([]admin.BrokerMetadata, 0, len(alive))
	for _, b := range alive {
		bm := admin.BrokerMetadata{ID: b.ID}
		if b.Rack != nil {
			bm.Rack = *b.Rack
		}
		brokers = append(brokers, bm)
	}
	metadata := make([]CreateTopicMetadata, 0, len(createInfo))
	anyOK := false
	for _, r := range createInfo {
		assignment, err := m.createTopic(r, brokers, validateOnly)
		if err != nil {
			l := m.logger.WithError(err)
			if protocol.CodeOf(err) == protocol.ErrUnknown.Code {
				l.Errorf("Error processing create topic request for topic %s with arguments %s", r.Topic, r.TopicDetails)
			} else {
				// client errors are logged below unexpected ones
				l.Infof("Error processing create topic request for topic %s with arguments %s", r.Topic, r.TopicDetails)
			}
			assignment = nil
		} else {
			anyOK = true
		}
		metadata = append(metadata, CreateTopicMetadata{Topic: r.Topic, ReplicaAssignments: assignment, Err: err})
	}
	if timeoutMs <= 0 || validateOnly || !anyOK {
		results := make(map[string]error, len(metadata))
		for _, md := range metadata {
			if md.Err == nil && !validateOnly {
				results[md.Topic] = protocol.ErrRequestTimedOut
			} else {
				results[md.Topic] = md.Err
			}
		}
		responseCallback(results)
		return
	}
	keys := make([]purgatory.DelayedOperationKey, 0, len(createInfo))
	for _, r := range createInfo {
		keys = append(keys, purgatory.TopicKey{Topic: r.Topic})
	}
	m.topicPurgatory.TryCompleteElseWatch(NewDelayedCreateTopics(int64(timeoutMs), metadata, m, responseCallback), keys)
}

// createTopic is the per-topic body of createTopics: configs, then the assignment, then the
// policy (when one is configured), then ZooKeeper unless validateOnly. Every check runs in
// 0.10.2's order, so a request wrong in two ways gets the code of the first check.
func (m *AdminManager) createTopic(r CreateTopicRequest, brokers []admin.BrokerMetadata, validateOnly bool) (map[int32][]int32, error) {
	// LogConfig.validate: an unknown name is InvalidConfigurationException (INVALID_CONFIG); a
	// bad value is a ConfigException, which is no ApiException, so 0.10.2 answers UNKNOWN.
	if err := admin.ValidateTopicConfigNames(r.Configs); err != nil {
		return nil, err
	}
	if err := admin.ValidateTopicConfig(r.Configs); err != nil {
		return nil, &kafkaException{code: protocol.ErrUnknown, msg: err.Error()}
	}
	// A fresh AdminUtils per topic: its random source is not safe for concurrent handlers.
	au := admin.NewAdminUtils(m.zkUtils, nil, m.logger)
	var assignment map[int32][]int32
	switch {
	case (r.NumPartitions != NoNumPartitions || r.ReplicationFactor != NoReplicationFactor) && len(r.ReplicasAssignments) > 0:
		return nil, &kafkaException{code: protocol.ErrInvalidRequest,
			msg: "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time."}
	case len(r.ReplicasAssignments) > 0:
		// As TopicCommand, the brokers named are not checked against the live ones.
		assignment = r.ReplicasAssignments
	default:
		var err error
		assignment, err = admin.AssignReplicasToBrokers(brokers, r.NumPartitions, int32(r.ReplicationFactor), -1, -1, au.Rand)
		if err != nil {
			return nil, err
		}
	}
	m.logger.Tracef("Assignments for topic %s are %v ", r.Topic, assignment)
	if m.createTopicPolicy != nil {
		if err := au.ValidateCreateOrUpdateTopic(r.Topic, assignment, r.Configs, false); err != nil {
			return nil, err
		}
		md := RequestMetadata{Topic: r.Topic, Configs: r.Configs}
		if r.NumPartitions != NoNumPartitions {
			n := r.NumPartitions
			md.NumPartitions = &n
		}
		if r.ReplicationFactor != NoReplicationFactor {
			rf := r.ReplicationFactor
			md.ReplicationFactor = &rf
		}
		if len(r.ReplicasAssignments) > 0 {
			md.ReplicasAssignments = r.ReplicasAssignments
		}
		if err := m.createTopicPolicy.Validate(md); err != nil {
			return nil, err
		}
		if validateOnly {
			return assignment, nil
		}
		return assignment, au.CreateOrUpdateTopicPartitionAssignmentPathInZK(r.Topic, assignment, r.Configs, false)
	}
	if validateOnly {
		return assignment, au.ValidateCreateOrUpdateTopic(r.Topic, assignment, r.Configs, false)
	}
	return assignment, au.CreateOrUpdateTopicPartitionAssignmentPathInZK(r.Topic, assignment, r.Configs, false)
}

// DeleteTopicMetadata is a topic of a DeleteTopics request after its marker was written (nil
// error) or refused.
//
// Kafka 0.10.2: kafka.server.DeleteTopicMetadata.
type DeleteTopicMetadata struct {
	Topic string
	Err   error
}

// DeleteTopics writes /admin/delete_topics/<topic> for each topic (one already marked counts as
// marked now) and answers once every marked topic has left the MetadataCache, or at the
// timeout with REQUEST_TIMED_OUT for those still there; with timeoutMs <= 0, or when no topic
// could be marked, at once. With delete.topic.enable=false the controller removes the marker
// without deleting, so the request times out, as in 0.10.2.
//
// Kafka 0.10.2: AdminManager.deleteTopics.
func (m *AdminManager) DeleteTopics(timeoutMs int32, topics []string, responseCallback func(map[string]error)) {
	au := admin.NewAdminUtils(m.zkUtils, nil, m.logger)
	metadata := make([]DeleteTopicMetadata, 0, len(topics))
	anyOK := false
	for _, topic := range topics {
		err := au.DeleteTopic(topic)
		switch {
		case err == nil:
		case errors.Is(err, admin.ErrTopicAlreadyMarkedForDeletion):
			// still tracked, so that repeated calls all wait for the deletion
			err = nil
		default:
			m.logger.WithError(err).Errorf("Error processing delete topic request for topic %s", topic)
		}
		anyOK = anyOK || err == nil
		metadata = append(metadata, DeleteTopicMetadata{Topic: topic, Err: err})
	}
	if timeoutMs <= 0 || !anyOK {
		results := make(map[string]error, len(metadata))
		for _, md := range metadata {
			if md.Err == nil {
				results[md.Topic] = protocol.ErrRequestTimedOut
			} else {
				results[md.Topic] = md.Err
			}
		}
		responseCallback(results)
		return
	}
	keys := make([]purgatory.DelayedOperationKey, 0, len(topics))
	for _, t := range topics {
		keys = append(keys, purgatory.TopicKey{Topic: t})
	}
	m.topicPurgatory.TryCompleteElseWatch(NewDelayedDeleteTopics(int64(timeoutMs), metadata, m, responseCallback), keys)
}

// Shutdown stops the purgatory (waiting requests get no answer; their connections close with
// the broker) and closes the policy.
func (m *AdminManager) Shutdown() {
	if err := m.topicPurgatory.Shutdown(context.Background()); err != nil {
		m.logger.WithError(err).Warn("error shutting down the topic purgatory")
	}
	if m.createTopicPolicy != nil {
		if err := m.createTopicPolicy.Close(); err != nil {
			m.logger.WithError(err).Warn("error closing the create topic policy")
		}
	}
}

// topicErrorOf is a topic's code and, for v1, its error_message: the exception's message, or
// null for NONE and for the bare codes the broker itself sets (REQUEST_TIMED_OUT,
// NOT_CONTROLLER).
func topicErrorOf(err error) (int16, *string) {
	if err == nil {
		return 0, nil
	}
	code := protocol.CodeOf(err)
	var pe *protocol.Error
	if errors.As(err, &pe) && error(pe) == err {
		return code, nil
	}
	msg := err.Error()
	return code, &msg
}

// String renders the arguments as Kafka's TopicDetails.toString does in the error log line.
func (d TopicDetails) String() string {
	parts := make([]int32, 0, len(d.ReplicasAssignments))
	for p := range d.ReplicasAssignments {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	assignment := "{"
	for i, p := range parts {
		if i > 0 {
			assignment += ", "
		}
		assignment += fmt.Sprintf("%d=%v", p, d.ReplicasAssignments[p])
	}
	assignment += "}"
	return fmt.Sprintf("(numPartitions=%d, replicationFactor=%d, replicasAssignments=%s, configs=%v)",
		d.NumPartitions, d.ReplicationFactor, assignment, d.Configs)
}
