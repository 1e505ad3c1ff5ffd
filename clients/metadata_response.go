package clients

import (
	"sort"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// ClusterFromMetadataResponse is the snapshot a Metadata response describes: its brokers, the
// partitions of every topic without an error (a leader the broker list lacks is no leader; a
// replica it lacks is a node with only an id), topics denied as unauthorized, internal topics.
//
// Kafka 0.10.2: MetadataResponse.cluster().
func ClusterFromMetadataResponse(r *protocol.MetadataResponse) *common.Cluster {
	nodes := make([]common.Node, 0, len(r.Brokers))
	byID := make(map[int32]common.Node, len(r.Brokers))
	for _, b := range r.Brokers {
		n := common.Node{ID: b.NodeID, Host: b.Host, Port: b.Port}
		if b.Rack != nil {
			n.Rack = *b.Rack
		}
		nodes = append(nodes, n)
		byID[b.NodeID] = n
	}
	toNodes := func(ids []int32) []common.Node {
		out := make([]common.Node, len(ids))
		for i, id := range ids {
			if n, ok := byID[id]; ok {
				out[i] = n
			} else {
				out[i] = common.Node{ID: id, Port: -1}
			}
		}
		return out
	}
	var parts []common.PartitionInfo
	var unauthorized, internal []string
	for _, tm := range r.TopicMetadata {
		switch tm.TopicErrorCode {
		case 0:
		case protocol.ErrTopicAuthorizationFailed.Code:
			unauthorized = append(unauthorized, tm.Topic)
			continue
		default:
			continue
		}
		if tm.IsInternal {
			internal = append(internal, tm.Topic)
		}
		for _, pm := range tm.PartitionMetadata {
			p := common.PartitionInfo{Topic: tm.Topic, Partition: pm.PartitionID,
				Replicas: toNodes(pm.Replicas), InSyncReplicas: toNodes(pm.Isr)}
			if l, ok := byID[pm.Leader]; ok && pm.Leader >= 0 {
				p.Leader = &l
			}
			parts = append(parts, p)
		}
	}
	clusterID := ""
	if r.ClusterID != nil {
		clusterID = *r.ClusterID
	}
	return common.NewCluster(clusterID, nodes, parts, unauthorized, internal)
}

// MetadataErrors maps each topic with an error to it.
//
// Kafka 0.10.2: MetadataResponse.errors().
func MetadataErrors(r *protocol.MetadataResponse) map[string]error {
	out := map[string]error{}
	for _, tm := range r.TopicMetadata {
		if tm.TopicErrorCode != 0 {
			out[tm.Topic] = protocol.ErrorForCode(tm.TopicErrorCode)
		}
	}
	return out
}

// isInvalidMetadata reports the codes whose exceptions extend InvalidMetadataException.
func isInvalidMetadata(code int16) bool {
	switch code {
	case protocol.ErrLeaderNotAvailable.Code, protocol.ErrNetworkException.Code,
		protocol.ErrNotLeaderForPartition.Code, protocol.ErrUnknownTopicOrPartition.Code:
		return true
	}
	return false
}

// IsInvalidMetadataError reports an error whose Kafka exception extends InvalidMetadataException
// (the metadata should be refreshed): LEADER_NOT_AVAILABLE, NETWORK_EXCEPTION,
// NOT_LEADER_FOR_PARTITION, UNKNOWN_TOPIC_OR_PARTITION.
func IsInvalidMetadataError(err error) bool {
	return err != nil && isInvalidMetadata(protocol.CodeOf(err))
}

// UnavailableTopics are the topics whose metadata is invalid for now (a topic error, or a
// partition error, of the InvalidMetadataException kind), sorted.
//
// Kafka 0.10.2: MetadataResponse.unavailableTopics().
func UnavailableTopics(r *protocol.MetadataResponse) []string {
	var out []string
	for _, tm := range r.TopicMetadata {
		bad := isInvalidMetadata(tm.TopicErrorCode)
		for _, pm := range tm.PartitionMetadata {
			bad = bad || isInvalidMetadata(pm.PartitionErrorCode)
		}
		if bad {
			out = append(out, tm.Topic)
		}
	}
	sort.Strings(out)
	return out
}
