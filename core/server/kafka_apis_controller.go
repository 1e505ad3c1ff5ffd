package server

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// --- requests from the controller ---

func (a *KafkaApis) handleLeaderAndIsrRequest(req *network.Request) error {
	lr, ok := req.Body.(*protocol.LeaderAndIsrRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if !a.authorize(req.Session, auth.ClusterAction, auth.ClusterResource) {
		resp := &protocol.LeaderAndIsrResponse{Version: lr.Version, ErrorCode: protocol.ErrClusterAuthorizationFailed.Code}
		for _, s := range lr.PartitionStates {
			resp.Partitions = append(resp.Partitions, protocol.LeaderAndIsrResponsePartition{Topic: s.Topic, Partition: s.Partition, ErrorCode: protocol.ErrClusterAuthorizationFailed.Code})
		}
		a.sendResponse(req, resp)
		return nil
	}
	result, err := a.replicaManager.BecomeLeaderOrFollower(req.Header.CorrelationID, lr, a.onLeadershipChange)
	if err != nil {
		return err
	}
	resp := &protocol.LeaderAndIsrResponse{Version: lr.Version, ErrorCode: result.ErrorCode}
	for _, s := range lr.PartitionStates {
		tp := common.TopicPartition{Topic: s.Topic, Partition: s.Partition}
		if code, ok := result.ResponseMap[tp]; ok {
			resp.Partitions = append(resp.Partitions, protocol.LeaderAndIsrResponsePartition{Topic: s.Topic, Partition: s.Partition, ErrorCode: code})
		}
	}
	a.sendResponse(req, resp)
	return nil
}

func (a *KafkaApis) handleStopReplicaRequest(req *network.Request) error {
	sr, ok := req.Body.(*protocol.StopReplicaRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if !a.authorize(req.Session, auth.ClusterAction, auth.ClusterResource) {
		resp := &protocol.StopReplicaResponse{Version: sr.Version, ErrorCode: protocol.ErrClusterAuthorizationFailed.Code}
		for _, p := range sr.Partitions {
			resp.Partitions = append(resp.Partitions, protocol.StopReplicaResponsePartition{Topic: p.Topic, Partition: p.Partition, ErrorCode: protocol.ErrClusterAuthorizationFailed.Code})
		}
		a.sendResponse(req, resp)
		return nil
	}
	result, code := a.replicaManager.StopReplicas(sr)
	a.onStopReplicas(sr, result)
	resp := &protocol.StopReplicaResponse{Version: sr.Version, ErrorCode: code}
	for _, p := range sr.Partitions {
		tp := common.TopicPartition{Topic: p.Topic, Partition: p.Partition}
		if c, ok := result[tp]; ok {
			resp.Partitions = append(resp.Partitions, protocol.StopReplicaResponsePartition{Topic: p.Topic, Partition: p.Partition, ErrorCode: c})
		}
	}
	a.sendResponse(req, resp)
	// A fetcher thread whose partitions were all stopped has nothing left to do.
	a.replicaManager.ShutdownIdleFetcherThreads()
	return nil
}

func (a *KafkaApis) handleUpdateMetadataRequest(req *network.Request) error {
	ur, ok := req.Body.(*protocol.UpdateMetadataRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if !a.authorize(req.Session, auth.ClusterAction, auth.ClusterResource) {
		a.sendResponse(req, &protocol.UpdateMetadataResponse{Version: ur.Version, ErrorCode: protocol.ErrClusterAuthorizationFailed.Code})
		return nil
	}
	deleted, err := a.replicaManager.MaybeUpdateMetadataCache(req.Header.CorrelationID, ur, a.metadataCache)
	if err != nil {
		return err
	}
	if len(deleted) > 0 && a.coordinator != nil {
		a.coordinator.HandleDeletedPartitions(deleted)
	}
	// CreateTopics and DeleteTopics requests waiting for this metadata (AdminManager).
	if a.adminManager != nil && a.adminManager.HasDelayedTopicOperations() {
		done := map[string]bool{}
		for _, s := range ur.PartitionStates {
			if !done[s.Topic] {
				done[s.Topic] = true
				a.adminManager.TryCompleteDelayedTopicOperations(s.Topic)
			}
		}
	}
	a.sendResponse(req, &protocol.UpdateMetadataResponse{Version: ur.Version})
	return nil
}

// handleControlledShutdownRequest: only the active controller can move leaders away; any other
// broker fails the request the way KafkaController.shutdownBroker does when it is not active
// (ControllerMovedException, which is STALE_CONTROLLER_EPOCH on the wire).
func (a *KafkaApis) handleControlledShutdownRequest(req *network.Request) error {
	cr, ok := req.Body.(*protocol.ControlledShutdownRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if err := a.authorizeClusterAction(req); err != nil {
		return err
	}
	h, ok := a.controller.(ControlledShutdownHandler)
	if a.controller == nil || !ok || !a.controller.IsActive() {
		return protocol.Errorf(protocol.ErrStaleControllerEpoch, "Controller moved to another broker. Aborting controlled shutdown")
	}
	remaining, err := h.ShutdownBroker(cr.BrokerID)
	if err != nil {
		return err
	}
	resp := &protocol.ControlledShutdownResponse{Version: cr.Version, PartitionsRemaining: []protocol.ControlledShutdownResponsePartition{}}
	for _, tp := range remaining {
		resp.PartitionsRemaining = append(resp.PartitionsRemaining, protocol.ControlledShutdownResponsePartition{Topic: tp.Topic, Partition: tp.Partition})
	}
	a.sendResponse(req, resp)
	return nil
}
