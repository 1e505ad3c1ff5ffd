package server

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

// --- controller requests ---

// BecomeLeaderOrFollowerResult is the outcome of a LeaderAndIsr request: the per-partition codes
// and the request-level code.
//
// Kafka 0.10.2: kafka.server.BecomeLeaderOrFollowerResult.
type BecomeLeaderOrFollowerResult struct {
	ResponseMap map[common.TopicPartition]int16
	ErrorCode   int16
}

// BecomeLeaderOrFollower applies a LeaderAndIsr request: a stale controller epoch rejects it all;
// a partition whose leader epoch is not newer is STALE_CONTROLLER_EPOCH; one that does not list
// this broker is UNKNOWN_TOPIC_OR_PARTITION; the others become leader or follower. The first
// request starts the HW checkpoint task. onLeadershipChange (the coordinator's hook) gets the
// partitions that became leader and follower.
func (rm *ReplicaManager) BecomeLeaderOrFollower(correlationID int32, req *protocol.LeaderAndIsrRequest,
	onLeadershipChange func(leaders, followers []*cluster.Partition)) (BecomeLeaderOrFollowerResult, error) {
	for _, s := range req.PartitionStates {
		rm.stateChange.Tracef("Broker %d received LeaderAndIsr request %+v correlation id %d from controller %d epoch %d for partition [%s,%d]",
			rm.localBrokerID, s, correlationID, req.ControllerID, req.ControllerEpoch, s.Topic, s.Partition)
	}
	rm.replicaStateChangeLock.Lock()
	defer rm.replicaStateChangeLock.Unlock()
	responseMap := map[common.TopicPartition]int16{}
	if req.ControllerEpoch < rm.controllerEpoch {
		rm.stateChange.Warnf("Broker %d ignoring LeaderAndIsr request from controller %d with correlation id %d since its controller epoch %d is old. Latest known controller epoch is %d",
			rm.localBrokerID, req.ControllerID, correlationID, req.ControllerEpoch, rm.controllerEpoch)
		return BecomeLeaderOrFollowerResult{ResponseMap: responseMap, ErrorCode: protocol.ErrStaleControllerEpoch.Code}, nil
	}
	rm.controllerEpoch = req.ControllerEpoch
	type pstate struct {
		p *cluster.Partition
		s protocol.LeaderAndIsrRequestPartitionState
	}
	var toLead, toFollow []pstate
	for _, s := range req.PartitionStates {
		tp := common.TopicPartition{Topic: s.Topic, Partition: s.Partition}
		p := rm.GetOrCreatePartition(tp)
		epoch := p.LeaderEpoch()
		switch {
		case epoch >= s.LeaderEpoch:
			rm.stateChange.Warnf("Broker %d ignoring LeaderAndIsr request from controller %d with correlation id %d epoch %d for partition [%s,%d] since its associated leader epoch %d is not higher than the current leader epoch %d",
				rm.localBrokerID, req.ControllerID, correlationID, req.ControllerEpoch, s.Topic, s.Partition, s.LeaderEpoch, epoch)
			responseMap[tp] = protocol.ErrStaleControllerEpoch.Code
		case !containsID(s.Replicas, rm.localBrokerID):
			rm.stateChange.Warnf("Broker %d ignoring LeaderAndIsr request from controller %d with correlation id %d epoch %d as broker is not in assigned replica list %v for partition %s",
				rm.localBrokerID, req.ControllerID, correlationID, req.ControllerEpoch, s.Replicas, tp)
			responseMap[tp] = protocol.ErrUnknownTopicOrPartition.Code
		case s.Leader == rm.localBrokerID:
			toLead = append(toLead, pstate{p, s})
		default:
			toFollow = append(toFollow, pstate{p, s})
		}
	}
	var leaders, followers []*cluster.Partition
	// Stop fetching what we are about to lead (ReplicaManager.makeLeaders).
	leadTPs := make([]common.TopicPartition, 0, len(toLead))
	for _, ps := range toLead {
		leadTPs = append(leadTPs, ps.p.TopicPartition())
		rm.stateChange.Tracef("Broker %d handling LeaderAndIsr request correlationId %d from controller %d epoch %d starting the become-leader transition for partition %s",
			rm.localBrokerID, correlationID, req.ControllerID, req.ControllerEpoch, ps.p.TopicPartition())
	}
	rm.replication.removeFetchers(leadTPs)
	for _, tp := range leadTPs {
		rm.stateChange.Tracef("Broker %d stopped fetchers as part of LeaderAndIsr request correlationId %d from controller %d epoch %d for partition %s",
			rm.localBrokerID, correlationID, req.ControllerID, req.ControllerEpoch, tp)
	}
	for _, ps := range toLead {
		tp := ps.p.TopicPartition()
		isNew, err := ps.p.MakeLeader(req.ControllerID, ps.s, correlationID)
		if err != nil {
			rm.stateChange.WithError(err).Errorf("Error on broker %d while processing LeaderAndIsr request correlationId %d received from controller %d epoch %d for partition %s",
				rm.localBrokerID, correlationID, req.ControllerID, req.ControllerEpoch, tp)
			return BecomeLeaderOrFollowerResult{}, err
		}
		if isNew {
			leaders = append(leaders, ps.p)
		} else {
			rm.stateChange.Infof("Broker %d skipped the become-leader state change after marking its partition as leader with correlation id %d from controller %d epoch %d for partition %s since it is already the leader for the partition.",
				rm.localBrokerID, correlationID, req.ControllerID, req.ControllerEpoch, tp)
		}
		responseMap[tp] = 0
		rm.stateChange.Tracef("Broker %d completed LeaderAndIsr request correlationId %d from controller %d epoch %d for the become-leader transition for partition %s",
			rm.localBrokerID, correlationID, req.ControllerID, req.ControllerEpoch, tp)
	}
	if len(toFollow) > 0 {
		transitions := make([]followerTransition, len(toFollow))
		for i, ps := range toFollow {
			transitions[i] = followerTransition{partition: ps.p, state: ps.s}
		}
		var err error
		followers, err = rm.replication.makeFollowers(req.ControllerID, req.ControllerEpoch, transitions, correlationID, responseMap)
		if err != nil {
			return BecomeLeaderOrFollowerResult{}, err
		}
	}
	if !rm.hwThreadInitialized {
		rm.startHighWaterMarksCheckPointThread()
		rm.hwThreadInitialized = true
	}
	rm.replication.replicaFetcherManager.ShutdownIdleFetcherThreads()
	if onLeadershipChange != nil {
		onLeadershipChange(leaders, followers)
	}
	return BecomeLeaderOrFollowerResult{ResponseMap: responseMap, ErrorCode: 0}, nil
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// StopReplicas applies a StopReplica request: with delete the partition and its log go.
func (rm *ReplicaManager) StopReplicas(req *protocol.StopReplicaRequest) (map[common.TopicPartition]int16, int16) {
	rm.replicaStateChangeLock.Lock()
	defer rm.replicaStateChangeLock.Unlock()
	responseMap := map[common.TopicPartition]int16{}
	if req.ControllerEpoch < rm.controllerEpoch {
		rm.stateChange.Warnf("Broker %d received stop replica request from an old controller epoch %d. Latest known controller epoch is %d",
			rm.localBrokerID, req.ControllerEpoch, rm.controllerEpoch)
		return responseMap, protocol.ErrStaleControllerEpoch.Code
	}
	rm.controllerEpoch = req.ControllerEpoch
	stopped := make([]common.TopicPartition, 0, len(req.Partitions))
	for _, x := range req.Partitions {
		stopped = append(stopped, common.TopicPartition{Topic: x.Topic, Partition: x.Partition})
	}
	rm.replication.removeFetchers(stopped)
	for _, x := range req.Partitions {
		tp := common.TopicPartition{Topic: x.Topic, Partition: x.Partition}
		responseMap[tp] = protocol.CodeOf(rm.stopReplica(tp, req.DeletePartitions))
	}
	return responseMap, 0
}

func (rm *ReplicaManager) stopReplica(tp common.TopicPartition, deletePartition bool) error {
	rm.stateChange.Tracef("Broker %d handling stop replica (delete=%t) for partition %s", rm.localBrokerID, deletePartition, tp)
	if !deletePartition {
		return nil
	}
	rm.partitionsMu.Lock()
	p := rm.allPartitions[tp]
	delete(rm.allPartitions, tp)
	rm.partitionsMu.Unlock()
	var err error
	if p != nil {
		err = p.Delete()
		rm.removePartitionMetrics(tp)
	} else if rm.logManager.GetLog(tp) != nil {
		err = rm.logManager.AsyncDelete(tp)
	}
	key := purgatory.NewTopicPartitionOperationKey(tp)
	rm.TryCompleteDelayedProduce(key)
	rm.TryCompleteDelayedFetch(key)
	rm.stateChange.Tracef("Broker %d finished handling stop replica (delete=%t) for partition %s", rm.localBrokerID, deletePartition, tp)
	return err
}

// MaybeUpdateMetadataCache applies an UpdateMetadata request unless its controller epoch is
// stale (STALE_CONTROLLER_EPOCH); it returns the partitions the request deleted.
func (rm *ReplicaManager) MaybeUpdateMetadataCache(correlationID int32, req *protocol.UpdateMetadataRequest, cache *MetadataCache) ([]common.TopicPartition, error) {
	rm.replicaStateChangeLock.Lock()
	defer rm.replicaStateChangeLock.Unlock()
	if req.ControllerEpoch < rm.controllerEpoch {
		msg := fmt.Sprintf("Broker %d received update metadata request with correlation id %d from an old controller %d with epoch %d. Latest known controller epoch is %d",
			rm.localBrokerID, correlationID, req.ControllerID, req.ControllerEpoch, rm.controllerEpoch)
		rm.stateChange.Warn(msg)
		return nil, protocol.Errorf(protocol.ErrStaleControllerEpoch, "%s", msg)
	}
	deleted := cache.UpdateCache(correlationID, req)
	rm.controllerEpoch = req.ControllerEpoch
	return deleted, nil
}
