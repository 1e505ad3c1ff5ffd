package controller

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// PartitionStateInfo is what the controller tells a broker about a partition:
// the leadership decision and the assigned replicas.
//
// Kafka 0.10.2: kafka.controller.PartitionStateInfo.
type PartitionStateInfo struct {
	LeaderIsrAndControllerEpoch zkutils.LeaderIsrAndControllerEpoch
	AllReplicas                 []int32
}

// StopReplicaRequestInfo is one replica to stop, with the callback for the
// response (deletion only).
//
// Kafka 0.10.2: kafka.controller.StopReplicaRequestInfo.
type StopReplicaRequestInfo struct {
	Replica         PartitionAndReplica
	DeletePartition bool
	Callback        func(protocol.Message, int32)
}

// ControllerBrokerRequestBatch collects the requests a state change produces
// and sends them per broker at the end: one LeaderAndIsr and one UpdateMetadata
// per broker, one StopReplica for the replicas to stop without deletion and one
// per replica to delete.
//
// Kafka 0.10.2: kafka.controller.ControllerBrokerRequestBatch. Caller holds
// controllerLock for every method.
type ControllerBrokerRequestBatch struct {
	controller *KafkaController

	leaderAndIsrRequestMap                map[int32]map[common.TopicPartition]PartitionStateInfo
	stopReplicaRequestMap                 map[int32][]StopReplicaRequestInfo
	updateMetadataRequestBrokerSet        map[int32]struct{}
	updateMetadataRequestPartitionInfoMap map[common.TopicPartition]PartitionStateInfo
}

func newControllerBrokerRequestBatch(c *KafkaController) *ControllerBrokerRequestBatch {
	b := &ControllerBrokerRequestBatch{controller: c}
	b.clear()
	return b
}

func (b *ControllerBrokerRequestBatch) clear() {
	b.leaderAndIsrRequestMap = map[int32]map[common.TopicPartition]PartitionStateInfo{}
	b.stopReplicaRequestMap = map[int32][]StopReplicaRequestInfo{}
	b.updateMetadataRequestBrokerSet = map[int32]struct{}{}
	b.updateMetadataRequestPartitionInfoMap = map[common.TopicPartition]PartitionStateInfo{}
}

// NewBatch starts a batch; a batch left unsent is an illegal state (its
// requests would be lost), reported and discarded.
func (b *ControllerBrokerRequestBatch) NewBatch() error {
	if len(b.leaderAndIsrRequestMap) > 0 || len(b.stopReplicaRequestMap) > 0 || len(b.updateMetadataRequestBrokerSet) > 0 {
		err := fmt.Errorf("%w: Controller to broker state change requests batch is not empty while creating a new one. "+
			"Some LeaderAndIsr, StopReplica or UpdateMetadata state changes might be lost", ErrIllegalState)
		b.clear()
		return err
	}
	return nil
}

// AddLeaderAndIsrRequestForBrokers queues a LeaderAndIsr for the partition to
// each broker, and an UpdateMetadata of it to every registered broker.
func (b *ControllerBrokerRequestBatch) AddLeaderAndIsrRequestForBrokers(brokerIDs []int32, tp common.TopicPartition,
	l zkutils.LeaderIsrAndControllerEpoch, replicas []int32) {
	for _, id := range brokerIDs {
		if id < 0 {
			continue
		}
		m, ok := b.leaderAndIsrRequestMap[id]
		if !ok {
			m = map[common.TopicPartition]PartitionStateInfo{}
			b.leaderAndIsrRequestMap[id] = m
		}
		// Kafka keeps the replicas as a Scala Set: its iteration order is
		// the wire order.
		m[tp] = PartitionStateInfo{LeaderIsrAndControllerEpoch: l, AllReplicas: scalaSetOrder(replicas)}
	}
	b.AddUpdateMetadataRequestForBrokers(b.controller.ctx.LiveOrShuttingDownBrokerIds(), []common.TopicPartition{tp})
}

// AddStopReplicaRequestForBrokers queues a StopReplica of the partition to
// each broker.
func (b *ControllerBrokerRequestBatch) AddStopReplicaRequestForBrokers(brokerIDs []int32, tp common.TopicPartition,
	deletePartition bool, callback func(protocol.Message, int32)) {
	for _, id := range brokerIDs {
		if id < 0 {
			continue
		}
		b.stopReplicaRequestMap[id] = append(b.stopReplicaRequestMap[id], StopReplicaRequestInfo{
			Replica: PartitionAndReplica{tp.Topic, tp.Partition, id}, DeletePartition: deletePartition, Callback: callback})
	}
}

// AddUpdateMetadataRequestForBrokers queues UpdateMetadata of the partitions
// (every partition with a leader when partitions is empty) to the brokers.
// Partitions of topics being deleted are always included, with leader -2.
func (b *ControllerBrokerRequestBatch) AddUpdateMetadataRequestForBrokers(brokerIDs []int32, partitions []common.TopicPartition) {
	ctx := b.controller.ctx
	given := partitions
	if len(given) == 0 {
		for tp := range ctx.PartitionLeadershipInfo {
			given = append(given, tp)
		}
	}
	toBeDeleted := b.controller.deleteTopicManager.PartitionsToBeDeleted()
	for _, id := range brokerIDs {
		if id >= 0 {
			b.updateMetadataRequestBrokerSet[id] = struct{}{}
		}
	}
	add := func(tp common.TopicPartition, beingDeleted bool) {
		l, ok := ctx.PartitionLeadershipInfo[tp]
		if !ok {
			b.controller.log.Infof("Leader not yet assigned for partition %s. Skip sending UpdateMetadataRequest.", tpString(tp))
			return
		}
		if beingDeleted {
			// Kafka builds a fresh LeaderAndIsr here: epoch and zkVersion are 0.
			l = zkutils.LeaderIsrAndControllerEpoch{LeaderAndIsr: zkutils.NewLeaderAndIsr(zkutils.LeaderDuringDelete, l.LeaderAndIsr.Isr), ControllerEpoch: l.ControllerEpoch}
		}
		b.updateMetadataRequestPartitionInfoMap[tp] = PartitionStateInfo{LeaderIsrAndControllerEpoch: l, AllReplicas: scalaSetOrder(ctx.PartitionReplicaAssignment[tp])}
	}
	for _, tp := range given {
		if _, del := toBeDeleted[tp]; !del {
			add(tp, false)
		}
	}
	for tp := range toBeDeleted {
		add(tp, true)
	}
}

// updateMetadataRequestVersion follows inter.broker.protocol.version.
func updateMetadataRequestVersion(v config.ApiVersion) int16 {
	switch {
	case v.ID >= 9: // 0.10.2-IV0
		return 3
	case v.ID >= 5: // 0.10.0-IV1
		return 2
	case v.ID >= 3: // 0.9.0
		return 1
	}
	return 0
}

func sortedBrokerIDs[V any](m map[int32]V) []int32 {
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// SendRequestsToBrokers sends what was collected and empties the batch.
func (b *ControllerBrokerRequestBatch) SendRequestsToBrokers(controllerEpoch int32) {
	c := b.controller
	defer b.clear()
	for _, broker := range sortedBrokerIDs(b.leaderAndIsrRequestMap) {
		states := b.leaderAndIsrRequestMap[broker]
		tps := make([]common.TopicPartition, 0, len(states))
		for tp := range states {
			tps = append(tps, tp)
		}
		sortTPs(tps)
		req := &protocol.LeaderAndIsrRequest{Version: 0, ControllerID: c.config.BrokerID, ControllerEpoch: controllerEpoch}
		leaderIDs := map[int32]struct{}{}
		for _, tp := range tps {
			s := states[tp]
			l := s.LeaderIsrAndControllerEpoch
			kind := "become-follower"
			if broker == l.LeaderAndIsr.Leader {
				kind = "become-leader"
			}
			c.stateChangeLog.Tracef("Controller %d epoch %d sending %s LeaderAndIsr request %s to broker %d for partition %s",
				c.config.BrokerID, controllerEpoch, kind, l, broker, tpString(tp))
			leaderIDs[l.LeaderAndIsr.Leader] = struct{}{}
			req.PartitionStates = append(req.PartitionStates, protocol.LeaderAndIsrRequestPartitionState{
				Topic: tp.Topic, Partition: tp.Partition, ControllerEpoch: l.ControllerEpoch, Leader: l.LeaderAndIsr.Leader,
				LeaderEpoch: l.LeaderAndIsr.LeaderEpoch, Isr: nonNil(l.LeaderAndIsr.Isr), ZkVersion: l.LeaderAndIsr.ZkVersion,
				Replicas: nonNil(s.AllReplicas)})
		}
		for _, lb := range c.ctx.LiveOrShuttingDownBrokers() {
			if _, ok := leaderIDs[lb.ID]; !ok {
				continue
			}
			if ep, ok := lb.EndPoint(c.config.InterBrokerListenerName); ok {
				req.LiveLeaders = append(req.LiveLeaders, protocol.LeaderAndIsrRequestLiveLeader{ID: lb.ID, Host: ep.Host, Port: ep.Port})
			}
		}
		c.channelManager.SendRequest(broker, req, nil)
	}

	if len(b.updateMetadataRequestBrokerSet) > 0 {
		b.sendUpdateMetadata(controllerEpoch)
	}

	for _, broker := range sortedBrokerIDs(b.stopReplicaRequestMap) {
		infos := b.stopReplicaRequestMap[broker]
		noDelete := &protocol.StopReplicaRequest{Version: 0, ControllerID: c.config.BrokerID, ControllerEpoch: controllerEpoch}
		for _, r := range infos {
			if !r.DeletePartition {
				noDelete.Partitions = append(noDelete.Partitions, protocol.StopReplicaRequestPartition{Topic: r.Replica.Topic, Partition: r.Replica.Partition})
			}
		}
		// As in 0.10.2 the grouped request goes out even when empty (a batch
		// holding only deletions still sends StopReplica(delete=false, [])).
		c.log.Debugf("The stop replica request (delete = false) sent to broker %d is %v", broker, noDelete.Partitions)
		noDelete.Partitions = nonNilStop(noDelete.Partitions)
		c.channelManager.SendRequest(broker, noDelete, nil)
		for _, r := range infos {
			if !r.DeletePartition {
				continue
			}
			req := &protocol.StopReplicaRequest{Version: 0, ControllerID: c.config.BrokerID, ControllerEpoch: controllerEpoch,
				DeletePartitions: true, Partitions: []protocol.StopReplicaRequestPartition{{Topic: r.Replica.Topic, Partition: r.Replica.Partition}}}
			c.log.Debugf("The stop replica request (delete = true) sent to broker %d is %s", broker, r.Replica)
			var cb func(protocol.Message)
			if r.Callback != nil {
				callback, id := r.Callback, broker
				cb = func(m protocol.Message) { callback(m, id) }
			}
			c.channelManager.SendRequest(broker, req, cb)
		}
	}
}

func (b *ControllerBrokerRequestBatch) sendUpdateMetadata(controllerEpoch int32) {
	c := b.controller
	version := updateMetadataRequestVersion(c.config.InterBrokerProtocolVersion)
	brokers := sortedBrokerIDs(b.updateMetadataRequestBrokerSet)
	tps := make([]common.TopicPartition, 0, len(b.updateMetadataRequestPartitionInfoMap))
	for tp := range b.updateMetadataRequestPartitionInfoMap {
		tps = append(tps, tp)
	}
	sortTPs(tps)
	for _, tp := range tps {
		c.stateChangeLog.Tracef("Controller %d epoch %d sending UpdateMetadata request %s to brokers Set(%s) for partition %s",
			c.config.BrokerID, controllerEpoch, b.updateMetadataRequestPartitionInfoMap[tp].LeaderIsrAndControllerEpoch,
			strings.ReplaceAll(joinIDs(brokers), ",", ", "), tpString(tp))
	}
	for _, broker := range brokers {
		req := &protocol.UpdateMetadataRequest{Version: version, ControllerID: c.config.BrokerID, ControllerEpoch: controllerEpoch,
			PartitionStates: []protocol.UpdateMetadataRequestPartitionState{}, LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{}}
		for _, tp := range tps {
			s := b.updateMetadataRequestPartitionInfoMap[tp]
			l := s.LeaderIsrAndControllerEpoch
			req.PartitionStates = append(req.PartitionStates, protocol.UpdateMetadataRequestPartitionState{
				Topic: tp.Topic, Partition: tp.Partition, ControllerEpoch: l.ControllerEpoch, Leader: l.LeaderAndIsr.Leader,
				LeaderEpoch: l.LeaderAndIsr.LeaderEpoch, Isr: nonNil(l.LeaderAndIsr.Isr), ZkVersion: l.LeaderAndIsr.ZkVersion,
				Replicas: nonNil(s.AllReplicas)})
		}
		for _, lb := range c.ctx.LiveOrShuttingDownBrokers() {
			req.LiveBrokers = append(req.LiveBrokers, liveBrokerEntry(lb, version))
		}
		c.channelManager.SendRequest(broker, req, nil)
	}
}

// liveBrokerEntry describes a broker at an UpdateMetadata version: v0 carries
// the PLAINTEXT host and port, v1-v3 every endpoint (v3 with its listener
// name, which the encoder drops before v3); the rack from v2.
func liveBrokerEntry(b zkutils.BrokerInfo, version int16) protocol.UpdateMetadataRequestLiveBroker {
	e := protocol.UpdateMetadataRequestLiveBroker{ID: b.ID, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{}}
	if version == 0 {
		for _, ep := range b.EndPoints {
			if ep.SecurityProtocol == common.PLAINTEXT {
				e.Host, e.Port = ep.Host, ep.Port
				break
			}
		}
		return e
	}
	for _, ep := range b.EndPoints {
		e.EndPoints = append(e.EndPoints, protocol.UpdateMetadataRequestLiveBrokerEndPoint{Port: ep.Port, Host: ep.Host,
			ListenerName: ep.ListenerName, SecurityProtocolType: ep.SecurityProtocol.ID()})
	}
	if b.Rack != "" {
		r := b.Rack
		e.Rack = &r
	}
	return e
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}

func nonNilStop(p []protocol.StopReplicaRequestPartition) []protocol.StopReplicaRequestPartition {
	if p == nil {
		return []protocol.StopReplicaRequestPartition{}
	}
	return p
}
