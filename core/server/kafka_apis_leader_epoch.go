package server

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
)

// The leader's side of OffsetsForLeaderEpoch (API key 23), the broker-to-broker exchange of
// zkafka.leader.epoch.truncation.enable (Kafka 0.11's KIP-101). Clients never see it: ApiVersions
// answers 0.10.2's table, and a request with key 23 from anything but a replica fetcher of this
// broker is parsed by 0.10.2's rules, which close the connection on an unknown key.

// replicaFetcherClientID is the client id of a replica fetcher: ReplicaFetcherThread-<fetcher
// id>-<id of the broker it fetches from>.
var replicaFetcherClientID = regexp.MustCompile(`^ReplicaFetcherThread-\d+-(\d+)$`)

// isReplicaFetcherOf reports whether clientID names a replica fetcher fetching from broker id.
// It tells zkafka's fetchers from clients (which have no reason to send key 23); it is not
// authentication, which 0.10.2 leaves to SASL/SSL and the authorizer.
func isReplicaFetcherOf(clientID *string, id int32) bool {
	if clientID == nil {
		return false
	}
	m := replicaFetcherClientID.FindStringSubmatch(*clientID)
	return m != nil && m[1] == strconv.Itoa(int(id))
}

// interBrokerRequestParser is the request parser of a broker with the mode on: key 23 v0 from a
// replica fetcher of this broker is decoded; everything else is parsed exactly as 0.10.2 does
// (protocol.ParseRequest).
func interBrokerRequestParser(brokerID int32) func(protocol.RequestHeader, []byte) (protocol.Message, error) {
	return func(h protocol.RequestHeader, body []byte) (protocol.Message, error) {
		if h.ApiKey == protocol.OffsetForLeaderEpoch && isReplicaFetcherOf(h.ClientID, brokerID) {
			return protocol.ParseInterBrokerRequest(h, body)
		}
		return protocol.ParseRequest(h, body)
	}
}

// handleOffsetForLeaderEpochRequest answers, per partition, where the requested leader epoch
// ends in this broker's log (Partition.LastOffsetForLeaderEpoch).
//
// Kafka 0.11.0: KafkaApis.handleOffsetForLeaderEpochRequest (its ClusterAction check has no
// counterpart: zkafka has no authorizer yet, as for LeaderAndIsr).
func (a *KafkaApis) handleOffsetForLeaderEpochRequest(req *network.Request) error {
	r, ok := req.Body.(*protocol.OffsetsForLeaderEpochRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if err := a.authorizeClusterAction(req); err != nil { // as 0.11 checks it
		return err
	}
	resp := &protocol.OffsetsForLeaderEpochResponse{Version: r.Version}
	for _, t := range r.Topics {
		rt := protocol.OffsetsForLeaderEpochResponseTopic{Topic: t.Topic}
		for _, p := range t.Partitions {
			eo := a.replicaManager.LastOffsetForLeaderEpoch(common.TopicPartition{Topic: t.Topic, Partition: p.PartitionID}, p.LeaderEpoch)
			rt.Partitions = append(rt.Partitions, protocol.OffsetsForLeaderEpochResponseTopicPartition{
				ErrorCode: eo.ErrorCode, PartitionID: p.PartitionID, EndOffset: eo.EndOffset})
		}
		resp.Topics = append(resp.Topics, rt)
	}
	a.sendResponse(req, resp)
	return nil
}

// offsetsForLeaderEpochErrorResponse answers every partition of r with code (GetErrorResponse).
func offsetsForLeaderEpochErrorResponse(r *protocol.OffsetsForLeaderEpochRequest, code int16) *protocol.OffsetsForLeaderEpochResponse {
	resp := &protocol.OffsetsForLeaderEpochResponse{Version: r.Version}
	for _, t := range r.Topics {
		rt := protocol.OffsetsForLeaderEpochResponseTopic{Topic: t.Topic}
		for _, p := range t.Partitions {
			rt.Partitions = append(rt.Partitions, protocol.OffsetsForLeaderEpochResponseTopicPartition{
				ErrorCode: code, PartitionID: p.PartitionID, EndOffset: protocol.UndefinedEpochOffset})
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// LastOffsetForLeaderEpoch is where leaderEpoch ends in this broker's log of tp, when it leads tp.
//
// Kafka 0.11.0: ReplicaManager.lastOffsetForLeaderEpoch.
func (rm *ReplicaManager) LastOffsetForLeaderEpoch(tp common.TopicPartition, leaderEpoch int32) protocol.EpochEndOffset {
	p := rm.GetPartition(tp)
	if p == nil {
		return protocol.EpochEndOffset{ErrorCode: protocol.ErrUnknownTopicOrPartition.Code, EndOffset: protocol.UndefinedEpochOffset}
	}
	return p.LastOffsetForLeaderEpoch(leaderEpoch)
}
