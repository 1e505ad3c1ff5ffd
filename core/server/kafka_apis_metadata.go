package server

import (
	"errors"
	"fmt"
	"sort"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// --- Metadata ---

func (a *KafkaApis) handleTopicMetadataRequest(req *network.Request) error {
	mr, ok := req.Body.(*protocol.MetadataRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	version := mr.Version
	allTopics := (version == 0 && len(mr.Topics) == 0) || (version > 0 && mr.Topics == nil)
	var topics []string
	if allTopics {
		topics = a.metadataCache.GetAllTopics()
	} else {
		seen := map[string]bool{}
		for _, t := range mr.Topics {
			if !seen[t] {
				seen[t] = true
				topics = append(topics, t)
			}
		}
	}
	var denied []protocol.MetadataResponseTopic
	if a.authorizer != nil {
		topics, denied = a.authorizeMetadataTopics(req, topics, allTopics)
	}
	errorUnavailableEndpoints := version == 0
	var topicMetadata []protocol.MetadataResponseTopic
	if len(topics) > 0 {
		topicMetadata = a.getTopicMetadata(topics, req.ListenerName, errorUnavailableEndpoints)
	}
	topicMetadata = append(topicMetadata, denied...)
	resp := &protocol.MetadataResponse{Version: version, Brokers: a.metadataCache.aliveNodesFor(req.ListenerName),
		ControllerID: a.metadataCache.GetControllerID(), TopicMetadata: topicMetadata}
	if a.clusterID != "" {
		id := a.clusterID
		resp.ClusterID = &id
	}
	a.sendResponse(req, resp)
	return nil
}

// authorizeMetadataTopics keeps the topics the principal may Describe; a requested topic it may
// not is answered UNKNOWN_TOPIC_OR_PARTITION (left out of an all-topics request), and a topic
// auto-creation would create without Create on the cluster TOPIC_AUTHORIZATION_FAILED.
//
// Kafka 0.10.2: the authorization half of KafkaApis.handleTopicMetadataRequest.
func (a *KafkaApis) authorizeMetadataTopics(req *network.Request, topics []string, allTopics bool) ([]string, []protocol.MetadataResponseTopic) {
	var ok []string
	var denied []protocol.MetadataResponseTopic
	for _, t := range topics {
		if a.authorize(req.Session, auth.Describe, topicResource(t)) {
			ok = append(ok, t)
		} else if !allTopics {
			denied = append(denied, protocol.MetadataResponseTopic{TopicErrorCode: protocol.ErrUnknownTopicOrPartition.Code,
				Topic: t, PartitionMetadata: []protocol.MetadataResponseTopicPartition{}})
		}
	}
	if a.config.AutoCreateTopicsEnable && len(ok) > 0 && !a.authorize(req.Session, auth.Create, auth.ClusterResource) {
		kept := ok[:0:0]
		for _, t := range ok {
			if a.metadataCache.Contains(t) {
				kept = append(kept, t)
				continue
			}
			denied = append(denied, protocol.MetadataResponseTopic{TopicErrorCode: protocol.ErrTopicAuthorizationFailed.Code,
				Topic: t, IsInternal: IsInternalTopic(t), PartitionMetadata: []protocol.MetadataResponseTopicPartition{}})
		}
		ok = kept
	}
	return ok, denied
}

// getTopicMetadata answers the cached topics and decides about the others: __consumer_offsets
// and (with auto.create.topics.enable) any valid name are created in ZooKeeper and answered
// LEADER_NOT_AVAILABLE; otherwise UNKNOWN_TOPIC_OR_PARTITION.
func (a *KafkaApis) getTopicMetadata(topics []string, listenerName string, errorUnavailableEndpoints bool) []protocol.MetadataResponseTopic {
	known := a.metadataCache.GetTopicMetadata(topics, listenerName, errorUnavailableEndpoints)
	if len(known) == len(topics) {
		return known
	}
	have := map[string]bool{}
	for _, t := range known {
		have[t.Topic] = true
	}
	var missing []string
	for _, t := range topics {
		if !have[t] {
			missing = append(missing, t)
		}
	}
	sort.Strings(missing)
	for _, t := range missing {
		switch {
		case t == GroupMetadataTopicName:
			known = append(known, a.createGroupMetadataTopic())
		case a.config.AutoCreateTopicsEnable:
			known = append(known, a.createTopic(t, a.config.NumPartitions, a.config.DefaultReplicationFactor, nil))
		default:
			known = append(known, protocol.MetadataResponseTopic{TopicErrorCode: protocol.ErrUnknownTopicOrPartition.Code,
				Topic: t, IsInternal: IsInternalTopic(t), PartitionMetadata: []protocol.MetadataResponseTopicPartition{}})
		}
	}
	return known
}

func (a *KafkaApis) createTopic(topic string, numPartitions, replicationFactor int32, configs map[string]string) protocol.MetadataResponseTopic {
	md := protocol.MetadataResponseTopic{TopicErrorCode: protocol.ErrLeaderNotAvailable.Code, Topic: topic,
		IsInternal: IsInternalTopic(topic), PartitionMetadata: []protocol.MetadataResponseTopicPartition{}}
	if a.zkUtils == nil {
		md.TopicErrorCode = protocol.ErrUnknownTopicOrPartition.Code
		return md
	}
	// A fresh AdminUtils per call: its random source is not safe for concurrent handlers.
	err := admin.NewAdminUtils(a.zkUtils, nil, a.logger).CreateTopic(topic, numPartitions, replicationFactor, configs, admin.RackAwareSafe)
	switch {
	case err == nil:
		a.logger.Infof("Auto creation of topic %s with %d partitions and replication factor %d is successful", topic, numPartitions, replicationFactor)
	case errors.Is(err, admin.ErrTopicExists):
		// another broker created it meanwhile
	default:
		a.logger.WithError(err).Warnf("Auto creation of topic %s failed", topic)
		md.TopicErrorCode = protocol.CodeOf(err)
	}
	return md
}

func (a *KafkaApis) createGroupMetadataTopic() protocol.MetadataResponseTopic {
	rf := a.config.OffsetsTopicReplicationFactor
	if alive := len(a.metadataCache.GetAliveBrokers()); alive > 0 && int(rf) > alive {
		rf = int16(alive)
	}
	configs := map[string]string{
		"cleanup.policy":   "compact",
		"segment.bytes":    fmt.Sprint(a.config.OffsetsTopicSegmentBytes),
		"compression.type": "producer",
	}
	return a.createTopic(GroupMetadataTopicName, a.config.OffsetsTopicPartitions, int32(rf), configs)
}
