package server

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/coordinator"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/config"
)

// The KafkaServer side of the group coordinator: the seam KafkaApis calls (GroupCoordinator), the
// adapter that lets the coordinator append to __consumer_offsets through the ReplicaManager, and
// building and stopping the coordinator in KafkaServer's startup and shutdown order.

// GroupCoordinator is what KafkaApis needs from the group coordinator; *coordinator.GroupCoordinator
// is the implementation. A nil one answers every group API with
// GROUP_COORDINATOR_NOT_AVAILABLE, as 0.10.2's coordinator does before it is active.
type GroupCoordinator interface {
	IsActive() bool
	PartitionFor(groupID string) int32
	OffsetsForCommit(req *protocol.OffsetCommitRequest) map[common.TopicPartition]coordinator.OffsetAndMetadata
	HandleJoinGroup(groupID, memberID, clientID, clientHost string, rebalanceTimeoutMs, sessionTimeoutMs int32,
		protocolType string, protocols []coordinator.Protocol, cb coordinator.JoinCallback)
	HandleSyncGroup(groupID string, generation int32, memberID string, assignment map[string][]byte, cb coordinator.SyncCallback)
	HandleHeartbeat(groupID, memberID string, generation int32, cb func(int16))
	HandleLeaveGroup(groupID, memberID string, cb func(int16))
	HandleCommitOffsets(groupID, memberID string, generation int32, offsets map[common.TopicPartition]coordinator.OffsetAndMetadata,
		cb func(map[common.TopicPartition]int16))
	HandleFetchOffsets(groupID string, tps []common.TopicPartition) (int16, map[common.TopicPartition]coordinator.OffsetFetchPartitionData)
	HandleListGroups() (int16, []coordinator.GroupOverview)
	HandleDescribeGroup(groupID string) (int16, coordinator.GroupSummary)
	HandleGroupImmigration(partition int32)
	HandleGroupEmigration(partition int32)
	HandleDeletedPartitions(tps []common.TopicPartition)
}

var _ GroupCoordinator = (*coordinator.GroupCoordinator)(nil)

// coordinatorReplicaManager adapts *ReplicaManager to the coordinator's seam.
//
// Kafka 0.10.2: GroupMetadataManager holds the ReplicaManager itself; Go's package layering
// (core/server imports core/coordinator) makes it a small interface there and this adapter here.
type coordinatorReplicaManager struct{ rm *ReplicaManager }

func (c coordinatorReplicaManager) AppendRecords(timeoutMs int64, requiredAcks int16, internalTopicsAllowed bool,
	records map[common.TopicPartition]*record.MemoryRecords, cb func(map[common.TopicPartition]error)) {
	entries := make([]ProduceEntry, 0, len(records))
	for tp, r := range records {
		entries = append(entries, ProduceEntry{TopicPartition: tp, Records: r})
	}
	c.rm.AppendRecords(timeoutMs, requiredAcks, internalTopicsAllowed, entries, func(status map[common.TopicPartition]PartitionResponse) {
		out := make(map[common.TopicPartition]error, len(status))
		for tp, s := range status {
			out[tp] = s.Err
		}
		cb(out)
	})
}

func (c coordinatorReplicaManager) GetLog(tp common.TopicPartition) (*log.Log, bool) {
	if p := c.rm.GetPartition(tp); p != nil {
		if r := p.LocalReplica(); r != nil && r.Log != nil {
			return r.Log, true
		}
	}
	return nil, false
}

func (c coordinatorReplicaManager) GetHighWatermark(tp common.TopicPartition) (int64, bool) {
	return c.rm.GetHighWatermark(tp)
}

func (c coordinatorReplicaManager) GetMagic(tp common.TopicPartition) (int8, bool) {
	return c.rm.GetMagic(tp)
}

// startGroupCoordinator builds and starts the group coordinator unless a test set one.
//
// Kafka 0.10.2: KafkaServer.startup ("start group coordinator") and GroupCoordinator.apply.
func (s *KafkaServer) startGroupCoordinator() error {
	if s.Coordinator != nil {
		return nil
	}
	parts, err := s.zkUtils.GetPartitionsForTopics([]string{GroupMetadataTopicName})
	if err != nil {
		return err
	}
	v0101, err := config.ParseApiVersion("0.10.1-IV0")
	if err != nil {
		return err
	}
	valueVersion := int16(0)
	if s.config.InterBrokerProtocolVersion.AtLeast(v0101) {
		valueVersion = coordinator.CurrentGroupValueSchemaVersion
	}
	oc := coordinator.OffsetConfigFromKafkaConfig(s.config)
	logger := s.loggers.Server
	mgr := coordinator.NewGroupMetadataManager(coordinator.GroupMetadataManagerConfig{BrokerID: s.config.BrokerID, Config: oc,
		GroupMetadataValueVersion: valueVersion, ReplicaManager: coordinatorReplicaManager{s.replicaManager}, Time: s.time,
		OffsetsTopicPartitionCount: int32(len(parts[GroupMetadataTopicName])), Logger: logger})
	gc := coordinator.NewGroupCoordinator(coordinator.GroupCoordinatorConfig{BrokerID: s.config.BrokerID,
		GroupConfig: coordinator.GroupConfigFromKafkaConfig(s.config), OffsetConfig: oc, GroupManager: mgr, Time: s.time, Logger: logger})
	gc.Startup(true)
	s.Coordinator = gc
	s.stopCoordinator = func() {
		gc.Shutdown()
		if s.Coordinator == GroupCoordinator(gc) {
			s.Coordinator = nil
		}
	}
	return nil
}

// shutdownGroupCoordinator stops the coordinator startGroupCoordinator built.
func (s *KafkaServer) shutdownGroupCoordinator() {
	if s.stopCoordinator != nil {
		s.stopCoordinator()
		s.stopCoordinator = nil
	}
}
