package server

import (
	"errors"
	"fmt"
	"sort"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/network"
)

// --- ListOffsets ---

func (a *KafkaApis) handleOffsetRequest(req *network.Request) error {
	lr, ok := req.Body.(*protocol.ListOffsetRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	resp := &protocol.ListOffsetResponse{Version: lr.Version}
	seen := map[common.TopicPartition]int{}
	for _, t := range lr.Topics {
		for _, p := range t.Partitions {
			seen[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}]++
		}
	}
	for _, t := range lr.Topics {
		rt := protocol.ListOffsetResponseResponses{Topic: t.Topic}
		for _, p := range t.Partitions {
			tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			var pr protocol.ListOffsetResponsePartitionResponses
			if lr.Version == 0 {
				pr = a.listOffsetV0(lr.ReplicaID, tp, p)
			} else if seen[tp] > 1 {
				pr = protocol.ListOffsetResponsePartitionResponses{Partition: tp.Partition, ErrorCode: protocol.ErrInvalidRequest.Code,
					Timestamp: -1, Offset: -1}
			} else {
				pr = a.listOffsetV1(lr.ReplicaID, tp, p)
			}
			rt.PartitionResponses = append(rt.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, rt)
	}
	a.sendResponse(req, resp)
	return nil
}

func (a *KafkaApis) localReplicaFor(replicaID int32, tp common.TopicPartition) (int64, error) {
	if replicaID != DebuggingReplicaID {
		r, err := a.replicaManager.getLeaderReplicaIfLocal(tp)
		if err != nil {
			return 0, err
		}
		return r.HighWatermark().MessageOffset, nil
	}
	r, err := a.replicaManager.getReplicaOrException(tp)
	if err != nil {
		return 0, err
	}
	return r.HighWatermark().MessageOffset, nil
}

func (a *KafkaApis) listOffsetV0(replicaID int32, tp common.TopicPartition, p protocol.ListOffsetRequestPartitions) protocol.ListOffsetResponsePartitionResponses {
	out := protocol.ListOffsetResponsePartitionResponses{Partition: tp.Partition, Offsets: []int64{}}
	if !a.metadataCache.Contains(tp.Topic) {
		out.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
		return out
	}
	hw, err := a.localReplicaFor(replicaID, tp)
	if err != nil {
		out.ErrorCode = protocol.CodeOf(err)
		return out
	}
	offsets := a.replicaManager.fetchOffsetsBefore(tp, p.Timestamp, int(p.MaxNumOffsets))
	if replicaID == ConsumerReplicaID {
		above := false
		for _, o := range offsets {
			if o > hw {
				above = true
			}
		}
		if above {
			i := 0
			for i < len(offsets) && offsets[i] > hw {
				i++
			}
			offsets = append([]int64{hw}, offsets[i:]...)
		}
	}
	if offsets == nil {
		offsets = []int64{}
	}
	out.Offsets = offsets
	return out
}

func (a *KafkaApis) listOffsetV1(replicaID int32, tp common.TopicPartition, p protocol.ListOffsetRequestPartitions) protocol.ListOffsetResponsePartitionResponses {
	out := protocol.ListOffsetResponsePartitionResponses{Partition: tp.Partition, Timestamp: -1, Offset: -1}
	if !a.metadataCache.Contains(tp.Topic) {
		out.ErrorCode = protocol.ErrUnknownTopicOrPartition.Code
		return out
	}
	hw, err := a.localReplicaFor(replicaID, tp)
	if err != nil {
		out.ErrorCode = protocol.CodeOf(err)
		return out
	}
	fromConsumer := replicaID == ConsumerReplicaID
	if fromConsumer && p.Timestamp == log.LatestTimestamp {
		out.Timestamp, out.Offset = record.NoTimestamp, hw
		return out
	}
	found, ok, err := a.replicaManager.FetchOffsetForTimestamp(tp, p.Timestamp)
	if err != nil {
		out.ErrorCode = protocol.CodeOf(err)
		return out
	}
	if ok && (!fromConsumer || found.Offset <= hw) {
		out.Timestamp, out.Offset = found.Timestamp, found.Offset
	}
	return out
}

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
	errorUnavailableEndpoints := version == 0
	var topicMetadata []protocol.MetadataResponseTopicMetadata
	if len(topics) > 0 {
		topicMetadata = a.getTopicMetadata(topics, req.ListenerName, errorUnavailableEndpoints)
	}
	resp := &protocol.MetadataResponse{Version: version, Brokers: a.metadataCache.aliveNodesFor(req.ListenerName),
		ControllerID: a.metadataCache.GetControllerID(), TopicMetadata: topicMetadata}
	if a.clusterID != "" {
		id := a.clusterID
		resp.ClusterID = &id
	}
	a.sendResponse(req, resp)
	return nil
}

// getTopicMetadata answers the cached topics and decides about the others: __consumer_offsets
// and (with auto.create.topics.enable) any valid name are created in ZooKeeper and answered
// LEADER_NOT_AVAILABLE; otherwise UNKNOWN_TOPIC_OR_PARTITION.
func (a *KafkaApis) getTopicMetadata(topics []string, listenerName string, errorUnavailableEndpoints bool) []protocol.MetadataResponseTopicMetadata {
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
			known = append(known, protocol.MetadataResponseTopicMetadata{TopicErrorCode: protocol.ErrUnknownTopicOrPartition.Code,
				Topic: t, IsInternal: IsInternalTopic(t), PartitionMetadata: []protocol.MetadataResponsePartitionMetadata{}})
		}
	}
	return known
}

func (a *KafkaApis) createTopic(topic string, numPartitions, replicationFactor int32, configs map[string]string) protocol.MetadataResponseTopicMetadata {
	md := protocol.MetadataResponseTopicMetadata{TopicErrorCode: protocol.ErrLeaderNotAvailable.Code, Topic: topic,
		IsInternal: IsInternalTopic(topic), PartitionMetadata: []protocol.MetadataResponsePartitionMetadata{}}
	if a.zkUtils == nil {
		md.TopicErrorCode = protocol.ErrUnknownTopicOrPartition.Code
		return md
	}
	err := CreateTopic(a.zkUtils, topic, numPartitions, replicationFactor, configs)
	switch {
	case err == nil:
		a.logger.Infof("Auto creation of topic %s with %d partitions and replication factor %d is successful", topic, numPartitions, replicationFactor)
	case errors.Is(err, protocol.ErrTopicAlreadyExists):
		// another broker created it meanwhile
	default:
		a.logger.WithError(err).Warnf("Auto creation of topic %s failed", topic)
		md.TopicErrorCode = protocol.CodeOf(err)
	}
	return md
}

func (a *KafkaApis) createGroupMetadataTopic() protocol.MetadataResponseTopicMetadata {
	rf := a.config.GetShort("offsets.topic.replication.factor")
	if alive := len(a.metadataCache.GetAliveBrokers()); alive > 0 && int(rf) > alive {
		rf = int16(alive)
	}
	configs := map[string]string{
		"cleanup.policy":   "compact",
		"segment.bytes":    fmt.Sprint(a.config.GetInt("offsets.topic.segment.bytes")),
		"compression.type": "producer",
	}
	return a.createTopic(GroupMetadataTopicName, a.config.GetInt("offsets.topic.num.partitions"), int32(rf), configs)
}
