package server

import (
	"fmt"
	"net"
	"sort"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/coordinator"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/server/config"
)

// GroupCoordinator is what KafkaApis needs from the group coordinator; *coordinator.GroupCoordinator
// is the implementation (issue 8). A nil one answers every group API with
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

// onLeadershipChange moves groups in and out with the leadership of __consumer_offsets
// partitions (Kafka 0.10.2: KafkaApis.handleLeaderAndIsrRequest's onLeadershipChange).
func (a *KafkaApis) onLeadershipChange(leaders, followers []*cluster.Partition) {
	if a.coordinator == nil {
		return
	}
	for _, p := range leaders {
		if tp := p.TopicPartition(); tp.Topic == GroupMetadataTopicName {
			a.coordinator.HandleGroupImmigration(tp.Partition)
		}
	}
	for _, p := range followers {
		if tp := p.TopicPartition(); tp.Topic == GroupMetadataTopicName {
			a.coordinator.HandleGroupEmigration(tp.Partition)
		}
	}
}

// onStopReplicas unloads the groups of __consumer_offsets partitions this broker no longer
// hosts (a reassignment may never send it a LeaderAndIsr making it a follower).
func (a *KafkaApis) onStopReplicas(sr *protocol.StopReplicaRequest, result map[common.TopicPartition]int16) {
	if a.coordinator == nil || !sr.DeletePartitions {
		return
	}
	for tp, code := range result {
		if code == 0 && tp.Topic == GroupMetadataTopicName {
			a.coordinator.HandleGroupEmigration(tp.Partition)
		}
	}
}

func clientHostOf(req *network.Request) string {
	if req.Session.ClientAddr == nil {
		return ""
	}
	if ta, ok := req.Session.ClientAddr.(*net.TCPAddr); ok {
		return "/" + ta.IP.String() // Java's InetAddress.toString() of an unresolved address
	}
	host, _, err := net.SplitHostPort(req.Session.ClientAddr.String())
	if err != nil {
		return "/" + req.Session.ClientAddr.String()
	}
	return "/" + host
}

// handleGroupCoordinatorRequest finds the broker leading the group's __consumer_offsets
// partition, creating the topic on first use.
func (a *KafkaApis) handleGroupCoordinatorRequest(req *network.Request) error {
	gr, ok := req.Body.(*protocol.GroupCoordinatorRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if a.coordinator == nil {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	partition := a.coordinator.PartitionFor(gr.GroupID)
	md := a.getTopicMetadata([]string{GroupMetadataTopicName}, req.ListenerName, false)
	resp := &protocol.GroupCoordinatorResponse{Version: gr.Version, ErrorCode: protocol.ErrGroupCoordinatorNotAvailable.Code,
		Coordinator: protocol.GroupCoordinatorResponseCoordinator{NodeID: -1, Host: "", Port: -1}}
	if len(md) == 1 && md[0].TopicErrorCode == 0 {
		for _, p := range md[0].PartitionMetadata {
			if p.PartitionID != partition || p.Leader < 0 {
				continue
			}
			for _, b := range a.metadataCache.aliveNodesFor(req.ListenerName) {
				if b.NodeID == p.Leader {
					resp.ErrorCode = 0
					resp.Coordinator = protocol.GroupCoordinatorResponseCoordinator{NodeID: b.NodeID, Host: b.Host, Port: b.Port}
				}
			}
		}
	}
	a.sendResponse(req, resp)
	return nil
}

// handleGroupRequest routes JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups and
// ListGroups to the coordinator.
func (a *KafkaApis) handleGroupRequest(req *network.Request) error {
	if a.coordinator == nil {
		return protocol.ErrGroupCoordinatorNotAvailable
	}
	c := a.coordinator
	switch r := req.Body.(type) {
	case *protocol.JoinGroupRequest:
		rebalance := r.RebalanceTimeout
		if r.Version == 0 {
			rebalance = r.SessionTimeout // v0 has none: the session timeout stands in
		}
		protocols := make([]coordinator.Protocol, len(r.GroupProtocols))
		for i, p := range r.GroupProtocols {
			protocols[i] = coordinator.Protocol{Name: p.ProtocolName, Metadata: append([]byte(nil), p.ProtocolMetadata...)}
		}
		c.HandleJoinGroup(r.GroupID, r.MemberID, clientIDOf(req), clientHostOf(req), rebalance, r.SessionTimeout, r.ProtocolType, protocols,
			func(res coordinator.JoinGroupResult) {
				members := make([]protocol.JoinGroupResponseMember, len(res.Members))
				for i, m := range res.Members {
					members[i] = protocol.JoinGroupResponseMember{MemberID: m.MemberID, MemberMetadata: m.Metadata}
				}
				a.sendResponse(req, &protocol.JoinGroupResponse{Version: r.Version, ErrorCode: res.ErrorCode, GenerationID: res.GenerationID,
					GroupProtocol: res.SubProtocol, LeaderID: res.LeaderID, MemberID: res.MemberID, Members: members})
			})
	case *protocol.SyncGroupRequest:
		assignment := make(map[string][]byte, len(r.GroupAssignment))
		for _, g := range r.GroupAssignment {
			assignment[g.MemberID] = append([]byte(nil), g.MemberAssignment...)
		}
		c.HandleSyncGroup(r.GroupID, r.GenerationID, r.MemberID, assignment, func(a2 []byte, code int16) {
			if a2 == nil {
				a2 = []byte{}
			}
			a.sendResponse(req, &protocol.SyncGroupResponse{Version: r.Version, ErrorCode: code, MemberAssignment: a2})
		})
	case *protocol.HeartbeatRequest:
		c.HandleHeartbeat(r.GroupID, r.MemberID, r.GroupGenerationID, func(code int16) {
			a.sendResponse(req, &protocol.HeartbeatResponse{Version: r.Version, ErrorCode: code})
		})
	case *protocol.LeaveGroupRequest:
		c.HandleLeaveGroup(r.GroupID, r.MemberID, func(code int16) {
			a.sendResponse(req, &protocol.LeaveGroupResponse{Version: r.Version, ErrorCode: code})
		})
	case *protocol.DescribeGroupsRequest:
		resp := &protocol.DescribeGroupsResponse{Version: r.Version, Groups: []protocol.DescribeGroupsResponseGroup{}}
		for _, id := range r.GroupIds {
			code, s := c.HandleDescribeGroup(id)
			g := protocol.DescribeGroupsResponseGroup{ErrorCode: code, GroupID: id, State: s.State, ProtocolType: s.ProtocolType,
				Protocol: s.Protocol, Members: []protocol.DescribeGroupsResponseGroupMember{}}
			for _, m := range s.Members {
				g.Members = append(g.Members, protocol.DescribeGroupsResponseGroupMember{MemberID: m.MemberID, ClientID: m.ClientID,
					ClientHost: m.ClientHost, MemberMetadata: orEmpty(m.Metadata), MemberAssignment: orEmpty(m.Assignment)})
			}
			resp.Groups = append(resp.Groups, g)
		}
		a.sendResponse(req, resp)
	case *protocol.ListGroupsRequest:
		code, groups := c.HandleListGroups()
		resp := &protocol.ListGroupsResponse{Version: r.Version, ErrorCode: code, Groups: []protocol.ListGroupsResponseGroup{}}
		for _, g := range groups {
			resp.Groups = append(resp.Groups, protocol.ListGroupsResponseGroup{GroupID: g.GroupID, ProtocolType: g.ProtocolType})
		}
		a.sendResponse(req, resp)
	default:
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	return nil
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// handleOffsetCommitV1 is OffsetCommit v1/v2: partitions of unknown topics are answered
// UNKNOWN_TOPIC_OR_PARTITION, the rest go to the coordinator.
func (a *KafkaApis) handleOffsetCommitV1(req *network.Request, or *protocol.OffsetCommitRequest) error {
	known := *or
	known.Topics = nil
	unknown := map[common.TopicPartition]int16{}
	for _, t := range or.Topics {
		if a.metadataCache.Contains(t.Topic) {
			known.Topics = append(known.Topics, t)
			continue
		}
		for _, p := range t.Partitions {
			unknown[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = protocol.ErrUnknownTopicOrPartition.Code
		}
	}
	respond := func(codes map[common.TopicPartition]int16) {
		resp := &protocol.OffsetCommitResponse{Version: or.Version}
		for _, t := range or.Topics {
			rt := protocol.OffsetCommitResponseTopic{Topic: t.Topic}
			for _, p := range t.Partitions {
				tp := common.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				code, ok := codes[tp]
				if !ok {
					code = unknown[tp]
				}
				rt.PartitionResponses = append(rt.PartitionResponses, protocol.OffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		a.sendResponse(req, resp)
	}
	if len(known.Topics) == 0 {
		respond(nil)
		return nil
	}
	a.coordinator.HandleCommitOffsets(or.GroupID, or.MemberID, or.GroupGenerationID, a.coordinator.OffsetsForCommit(&known), respond)
	return nil
}

// handleOffsetFetchV1 is OffsetFetch v1/v2 from the coordinator's cache (v2 with a null
// partition list: every committed offset of the group).
func (a *KafkaApis) handleOffsetFetchV1(req *network.Request, or *protocol.OffsetFetchRequest) error {
	var tps []common.TopicPartition
	if or.Topics != nil {
		tps = []common.TopicPartition{}
		for _, t := range or.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, common.TopicPartition{Topic: t.Topic, Partition: p.Partition})
			}
		}
	}
	code, data := a.coordinator.HandleFetchOffsets(or.GroupID, tps)
	if code != 0 {
		return protocol.ErrorForCode(code)
	}
	resp := &protocol.OffsetFetchResponse{Version: or.Version}
	add := func(tp common.TopicPartition, d coordinator.OffsetFetchPartitionData) {
		md := d.Metadata
		pr := protocol.OffsetFetchResponseTopicPartition{Partition: tp.Partition, Offset: d.Offset, Metadata: &md, ErrorCode: d.ErrorCode}
		for i := range resp.Responses {
			if resp.Responses[i].Topic == tp.Topic {
				resp.Responses[i].PartitionResponses = append(resp.Responses[i].PartitionResponses, pr)
				return
			}
		}
		resp.Responses = append(resp.Responses, protocol.OffsetFetchResponseTopic{Topic: tp.Topic,
			PartitionResponses: []protocol.OffsetFetchResponseTopicPartition{pr}})
	}
	if tps != nil {
		for _, tp := range tps {
			add(tp, data[tp])
		}
	} else {
		for _, tp := range coordinatorOffsetOrder(data) {
			add(tp, data[tp])
		}
	}
	a.sendResponse(req, resp)
	return nil
}

// coordinatorOffsetOrder lists a group's committed partitions by topic, then partition.
func coordinatorOffsetOrder(m map[common.TopicPartition]coordinator.OffsetFetchPartitionData) []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
