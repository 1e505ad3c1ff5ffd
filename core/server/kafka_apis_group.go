package server

import (
	"fmt"
	"net"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/coordinator"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// KafkaApis' group membership handlers, one per API, each a thin adapter from the request to
// the GroupCoordinator and from its callback to the response (Kafka 0.10.2: KafkaApis.
// handleGroupCoordinatorRequest, handleJoinGroupRequest, handleSyncGroupRequest,
// handleHeartbeatRequest, handleLeaveGroupRequest, handleDescribeGroupRequest,
// handleListGroupsRequest), and the coordinator's side of LeaderAndIsr and StopReplica
// (groups move in and out with the leadership of __consumer_offsets partitions). The offset APIs
// are in kafka_apis_offset_commit.go and kafka_apis_offset_fetch.go.

func (a *KafkaApis) coordinatorActive() bool { return a.coordinator != nil && a.coordinator.IsActive() }

// groupRequest unpacks the body of a group API request and returns the coordinator to hand it
// to: without one, the request is answered GROUP_COORDINATOR_NOT_AVAILABLE.
func groupRequest[T protocol.Message](a *KafkaApis, req *network.Request) (T, GroupCoordinator, error) {
	r, ok := req.Body.(T)
	if !ok {
		return r, nil, fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if a.coordinator == nil {
		return r, nil, protocol.ErrGroupCoordinatorNotAvailable
	}
	return r, a.coordinator, nil
}

// handleGroupCoordinatorRequest finds the broker leading the group's __consumer_offsets
// partition, creating the topic on first use.
func (a *KafkaApis) handleGroupCoordinatorRequest(req *network.Request) error {
	gr, ok := req.Body.(*protocol.GroupCoordinatorRequest)
	if !ok {
		return fmt.Errorf("%w: unexpected body %T", protocol.ErrInvalidRequest, req.Body)
	}
	if !a.authorize(req.Session, auth.Describe, groupResource(gr.GroupID)) {
		a.sendResponse(req, &protocol.GroupCoordinatorResponse{Version: gr.Version, ErrorCode: protocol.ErrGroupAuthorizationFailed.Code,
			Coordinator: protocol.GroupCoordinatorResponseCoordinator{NodeID: -1, Host: "", Port: -1}})
		return nil
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

// handleJoinGroupRequest adds the member to the group (or rejoins it) and answers when the
// rebalance completes. A v0 request has no rebalance timeout: the session timeout stands in.
func (a *KafkaApis) handleJoinGroupRequest(req *network.Request) error {
	if r, ok := req.Body.(*protocol.JoinGroupRequest); ok && !a.authorize(req.Session, auth.Read, groupResource(r.GroupID)) {
		return protocol.ErrGroupAuthorizationFailed
	}
	r, c, err := groupRequest[*protocol.JoinGroupRequest](a, req)
	if err != nil {
		return err
	}
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
	return nil
}

// handleSyncGroupRequest hands the leader's assignment to the coordinator and answers each member
// with its own share once the group is stable.
func (a *KafkaApis) handleSyncGroupRequest(req *network.Request) error {
	if r, ok := req.Body.(*protocol.SyncGroupRequest); ok && !a.authorize(req.Session, auth.Read, groupResource(r.GroupID)) {
		return protocol.ErrGroupAuthorizationFailed
	}
	r, c, err := groupRequest[*protocol.SyncGroupRequest](a, req)
	if err != nil {
		return err
	}
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
	return nil
}

// handleHeartbeatRequest keeps the member's session alive and tells it when to rejoin.
func (a *KafkaApis) handleHeartbeatRequest(req *network.Request) error {
	if r, ok := req.Body.(*protocol.HeartbeatRequest); ok && !a.authorize(req.Session, auth.Read, groupResource(r.GroupID)) {
		return protocol.ErrGroupAuthorizationFailed
	}
	r, c, err := groupRequest[*protocol.HeartbeatRequest](a, req)
	if err != nil {
		return err
	}
	c.HandleHeartbeat(r.GroupID, r.MemberID, r.GroupGenerationID, func(code int16) {
		a.sendResponse(req, &protocol.HeartbeatResponse{Version: r.Version, ErrorCode: code})
	})
	return nil
}

// handleLeaveGroupRequest removes the member from the group, which rebalances without it.
func (a *KafkaApis) handleLeaveGroupRequest(req *network.Request) error {
	if r, ok := req.Body.(*protocol.LeaveGroupRequest); ok && !a.authorize(req.Session, auth.Read, groupResource(r.GroupID)) {
		return protocol.ErrGroupAuthorizationFailed
	}
	r, c, err := groupRequest[*protocol.LeaveGroupRequest](a, req)
	if err != nil {
		return err
	}
	c.HandleLeaveGroup(r.GroupID, r.MemberID, func(code int16) {
		a.sendResponse(req, &protocol.LeaveGroupResponse{Version: r.Version, ErrorCode: code})
	})
	return nil
}

// handleDescribeGroupRequest describes each requested group (its state, protocol and members).
func (a *KafkaApis) handleDescribeGroupRequest(req *network.Request) error {
	r, c, err := groupRequest[*protocol.DescribeGroupsRequest](a, req)
	if err != nil {
		return err
	}
	resp := &protocol.DescribeGroupsResponse{Version: r.Version, Groups: []protocol.DescribeGroupsResponseGroup{}}
	for _, id := range r.GroupIds {
		if !a.authorize(req.Session, auth.Describe, groupResource(id)) {
			resp.Groups = append(resp.Groups, protocol.DescribeGroupsResponseGroup{ErrorCode: protocol.ErrGroupAuthorizationFailed.Code,
				GroupID: id, Members: []protocol.DescribeGroupsResponseGroupMember{}})
			continue
		}
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
	return nil
}

// handleListGroupsRequest lists the groups this broker coordinates.
func (a *KafkaApis) handleListGroupsRequest(req *network.Request) error {
	if _, ok := req.Body.(*protocol.ListGroupsRequest); ok && !a.authorize(req.Session, auth.Describe, auth.ClusterResource) {
		return protocol.ErrClusterAuthorizationFailed
	}
	r, c, err := groupRequest[*protocol.ListGroupsRequest](a, req)
	if err != nil {
		return err
	}
	code, groups := c.HandleListGroups()
	resp := &protocol.ListGroupsResponse{Version: r.Version, ErrorCode: code, Groups: []protocol.ListGroupsResponseGroup{}}
	for _, g := range groups {
		resp.Groups = append(resp.Groups, protocol.ListGroupsResponseGroup{GroupID: g.GroupID, ProtocolType: g.ProtocolType})
	}
	a.sendResponse(req, resp)
	return nil
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
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
