package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/security/auth"
)

// recordingAuthorizer answers allow and records each question as "<Operation> <Resource>".
type recordingAuthorizer struct {
	mu    sync.Mutex
	allow bool
	asked []string
}

func (r *recordingAuthorizer) Authorize(_ network.Session, op auth.Operation, res auth.Resource) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, fmt.Sprintf("%s %s", op, res))
	return r.allow
}

func (r *recordingAuthorizer) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := strings.Join(r.asked, ", ")
	r.asked = nil
	return s
}

func (r *recordingAuthorizer) AddAcls([]auth.Acl, auth.Resource) error            { return nil }
func (r *recordingAuthorizer) RemoveAcls([]auth.Acl, auth.Resource) (bool, error) { return false, nil }
func (r *recordingAuthorizer) RemoveResource(auth.Resource) (bool, error)         { return false, nil }
func (r *recordingAuthorizer) GetAcls(auth.Resource) []auth.Acl                   { return nil }
func (r *recordingAuthorizer) GetAllAcls() map[auth.Resource][]auth.Acl           { return nil }
func (r *recordingAuthorizer) Close()                                             {}

// TestApisAuthorizeTable lists every API key with the operations and resources KafkaApis asks
// the authorizer about, as 0.10.2's KafkaApis.scala does (line numbers of tag 0.10.2), once with
// an authorizer that denies (the first question decides) and once with one that allows (every
// question of the handler), and the error code a denied controller request answers.
func TestApisAuthorizeTable(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0})
	a := &recordingAuthorizer{}
	e.apis.authorizer = a
	cluster := "Cluster:kafka-cluster"
	part := []protocol.FetchRequestTopic{{Topic: "t", Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0, MaxBytes: 1024}}}}
	cases := []struct {
		key         protocol.ApiKeys
		line        string // KafkaApis.scala at 0.10.2
		req         protocol.Message
		denied      string // questions asked when everything is denied
		allowed     string // questions asked when everything is allowed
		deniedCode  int16  // for requests whose denial is one code (-1: not checked here)
		codeOf      func(protocol.Message) int16
		respVersion int16
	}{
		{protocol.Produce, "354, 358", produceReq("t", 1, nil), "Describe Topic:t", "Describe Topic:t, Write Topic:t", -1, nil, 0},
		{protocol.Fetch, "457, 461", &protocol.FetchRequest{ReplicaID: -1, Topics: part}, "Describe Topic:t", "Describe Topic:t, Read Topic:t", -1, nil, 0},
		{protocol.Fetch, "450 (from a follower)", &protocol.FetchRequest{ReplicaID: 1, Topics: part}, "ClusterAction " + cluster, "ClusterAction " + cluster + ", Describe Topic:t, Read Topic:t",
			protocol.ErrClusterAuthorizationFailed.Code, func(m protocol.Message) int16 {
				return m.(*protocol.FetchResponse).Responses[0].PartitionResponses[0].PartitionHeader.ErrorCode
			}, 0},
		{protocol.ListOffsets, "590, 641", &protocol.ListOffsetRequest{Version: 1, ReplicaID: -1, Topics: []protocol.ListOffsetRequestTopic{{Topic: "t",
			Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: 0, Timestamp: -1}}}}}, "Describe Topic:t", "Describe Topic:t", -1, nil, 0},
		{protocol.Metadata, "848, 855", &protocol.MetadataRequest{Version: 1, Topics: []string{"t"}}, "Describe Topic:t", "Describe Topic:t", -1, nil, 0},
		{protocol.LeaderAndIsr, "147", &protocol.LeaderAndIsrRequest{ControllerID: 0, ControllerEpoch: 1}, "ClusterAction " + cluster, "ClusterAction " + cluster,
			protocol.ErrClusterAuthorizationFailed.Code, func(m protocol.Message) int16 { return m.(*protocol.LeaderAndIsrResponse).ErrorCode }, 0},
		{protocol.StopReplica, "170", &protocol.StopReplicaRequest{ControllerID: 0, ControllerEpoch: 1, Partitions: []protocol.StopReplicaRequestPartition{{Topic: "x"}}},
			"ClusterAction " + cluster, "ClusterAction " + cluster,
			protocol.ErrClusterAuthorizationFailed.Code, func(m protocol.Message) int16 { return m.(*protocol.StopReplicaResponse).ErrorCode }, 0},
		{protocol.UpdateMetadata, "198", &protocol.UpdateMetadataRequest{Version: 3, ControllerID: 0, ControllerEpoch: 1}, "ClusterAction " + cluster, "ClusterAction " + cluster,
			protocol.ErrClusterAuthorizationFailed.Code, func(m protocol.Message) int16 { return m.(*protocol.UpdateMetadataResponse).ErrorCode }, 3},
		{protocol.ControlledShutdown, "1264 (authorizeClusterAction)", &protocol.ControlledShutdownRequest{Version: 1, BrokerID: 0}, "ClusterAction " + cluster, "ClusterAction " + cluster,
			protocol.ErrClusterAuthorizationFailed.Code, func(m protocol.Message) int16 { return m.(*protocol.ControlledShutdownResponse).ErrorCode }, 1},
		// 248, 258 (Describe and Read on each topic) come after the group's offset store, which
		// this environment lacks (no ZooKeeper, no coordinator): TestKafkaServerAuthorizer.
		{protocol.OffsetCommit, "238", &protocol.OffsetCommitRequest{GroupID: "g", Topics: []protocol.OffsetCommitRequestTopic{{Topic: "t",
			Partitions: []protocol.OffsetCommitRequestTopicPartition{{Partition: 0}}}}}, "Read Group:g", "Read Group:g", -1, nil, 0},
		{protocol.OffsetFetch, "913", &protocol.OffsetFetchRequest{GroupID: "g"}, "Read Group:g", "Read Group:g", -1, nil, 0},
		{protocol.GroupCoordinator, "978", &protocol.GroupCoordinatorRequest{GroupID: "g"}, "Describe Group:g", "Describe Group:g", -1, nil, 0},
		{protocol.JoinGroup, "1055", &protocol.JoinGroupRequest{GroupID: "g", SessionTimeout: 10000, ProtocolType: "consumer"}, "Read Group:g", "Read Group:g", -1, nil, 0},
		{protocol.Heartbeat, "1114", &protocol.HeartbeatRequest{GroupID: "g"}, "Read Group:g", "Read Group:g", -1, nil, 0},
		{protocol.LeaveGroup, "1139", &protocol.LeaveGroupRequest{GroupID: "g"}, "Read Group:g", "Read Group:g", -1, nil, 0},
		{protocol.SyncGroup, "1090", &protocol.SyncGroupRequest{GroupID: "g"}, "Read Group:g", "Read Group:g", -1, nil, 0},
		// 1012: Describe on each group, asked once a coordinator answers (none here).
		{protocol.DescribeGroups, "1012 (after the coordinator check)", &protocol.DescribeGroupsRequest{GroupIds: []string{"g"}}, "", "", -1, nil, 0},
		{protocol.ListGroups, "1031", &protocol.ListGroupsRequest{}, "Describe " + cluster, "Describe " + cluster, -1, nil, 0},
		{protocol.SaslHandshake, "none", &protocol.SaslHandshakeRequest{Mechanism: "PLAIN"}, "", "", -1, nil, 0},
		{protocol.ApiVersions, "none", &protocol.ApiVersionsRequest{}, "", "", -1, nil, 0},
		// 1189: Create on the cluster, asked only by the active controller (this broker is not).
		{protocol.CreateTopics, "1189 (after the controller check)", &protocol.CreateTopicsRequest{}, "", "", -1, nil, 0},
		{protocol.DeleteTopics, "1229, 1233", &protocol.DeleteTopicsRequest{Topics: []string{"t"}}, "Describe Topic:t", "Describe Topic:t, Delete Topic:t", -1, nil, 0},
	}
	for _, allow := range []bool{false, true} {
		for _, c := range cases {
			a.allow = allow
			e.handle(c.req, "c")
			resp := e.ch.take(t)
			want := c.denied
			if allow {
				want = c.allowed
			}
			if got := a.take(); got != want {
				t.Errorf("%s (KafkaApis.scala:%s) allow=%v: asked %q, want %q", c.key, c.line, allow, got, want)
			}
			if !allow && c.codeOf != nil {
				if got := c.codeOf(decode(t, resp, c.key, c.respVersion)); got != c.deniedCode {
					t.Errorf("%s denied: error %d, want %d", c.key, got, c.deniedCode)
				}
			}
		}
	}
	// Every API key of 0.10.2 is in the table.
	seen := map[protocol.ApiKeys]bool{}
	for _, c := range cases {
		seen[c.key] = true
	}
	for k := protocol.ApiKeys(0); k <= protocol.MaxApiKey; k++ {
		if !seen[k] {
			t.Errorf("%s is not in the table", k)
		}
	}
}
