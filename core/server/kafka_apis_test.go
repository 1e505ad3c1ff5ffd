package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/network"
)

func recordSet(t testing.TB, n int, codec record.CompressionType) *record.MemoryRecords {
	t.Helper()
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, codec, record.CreateTime, 0, 0, 0)
	for i := 0; i < n; i++ {
		if _, err := b.AppendWithOffset(int64(i), 1_700_000_000_000+int64(i), nil, []byte(fmt.Sprintf("value-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func produceReq(topic string, acks int16, sets map[int32]record.Records) *protocol.ProduceRequest {
	td := protocol.ProduceRequestTopic{Topic: topic}
	for p := int32(0); p < int32(len(sets)); p++ {
		td.Data = append(td.Data, protocol.ProduceRequestTopicPartition{Partition: p, RecordSet: sets[p]})
	}
	return &protocol.ProduceRequest{Version: 2, Acks: acks, Timeout: 1000, TopicData: []protocol.ProduceRequestTopic{td}}
}

// TestApisComponentsNotBuiltYet: the APIs of the coordinator and controller answer with the code
// a 0.10.2 broker without an active coordinator/controller gives, never a crash or a close.
func TestApisComponentsNotBuiltYet(t *testing.T) {
	e := newApisEnv(t, nil)
	gcna := protocol.ErrGroupCoordinatorNotAvailable.Code
	cases := []struct {
		req  protocol.Message
		code func(protocol.Message) []int16
	}{
		{&protocol.GroupCoordinatorRequest{GroupID: "g"}, func(m protocol.Message) []int16 {
			r := m.(*protocol.GroupCoordinatorResponse)
			if r.Coordinator.NodeID != -1 {
				t.Errorf("coordinator node %+v", r.Coordinator)
			}
			return []int16{r.ErrorCode}
		}},
		{&protocol.JoinGroupRequest{Version: 1, GroupID: "g", ProtocolType: "consumer"}, func(m protocol.Message) []int16 {
			return []int16{m.(*protocol.JoinGroupResponse).ErrorCode}
		}},
		{&protocol.HeartbeatRequest{GroupID: "g"}, func(m protocol.Message) []int16 { return []int16{m.(*protocol.HeartbeatResponse).ErrorCode} }},
		{&protocol.LeaveGroupRequest{GroupID: "g"}, func(m protocol.Message) []int16 { return []int16{m.(*protocol.LeaveGroupResponse).ErrorCode} }},
		{&protocol.SyncGroupRequest{GroupID: "g"}, func(m protocol.Message) []int16 { return []int16{m.(*protocol.SyncGroupResponse).ErrorCode} }},
		{&protocol.DescribeGroupsRequest{GroupIds: []string{"a", "b"}}, func(m protocol.Message) []int16 {
			var out []int16
			for _, g := range m.(*protocol.DescribeGroupsResponse).Groups {
				out = append(out, g.ErrorCode)
			}
			return out
		}},
		{&protocol.ListGroupsRequest{}, func(m protocol.Message) []int16 { return []int16{m.(*protocol.ListGroupsResponse).ErrorCode} }},
		{&protocol.OffsetCommitRequest{Version: 2, GroupID: "g", Topics: []protocol.OffsetCommitRequestTopic{{Topic: "t",
			Partitions: []protocol.OffsetCommitRequestTopicPartition{{Partition: 0}, {Partition: 1}}}}}, func(m protocol.Message) []int16 {
			var out []int16
			for _, p := range m.(*protocol.OffsetCommitResponse).Responses[0].PartitionResponses {
				out = append(out, p.ErrorCode)
			}
			return out
		}},
		{&protocol.OffsetFetchRequest{Version: 2, GroupID: "g", Topics: []protocol.OffsetFetchRequestTopic{{Topic: "t",
			Partitions: []protocol.OffsetFetchRequestTopicPartition{{Partition: 0}}}}}, func(m protocol.Message) []int16 {
			// v2: the error at the top and no partitions (OffsetFetchRequest.getErrorResponse)
			r := m.(*protocol.OffsetFetchResponse)
			if len(r.Responses) != 0 {
				t.Errorf("OffsetFetch v2 error response lists partitions: %+v", r.Responses)
			}
			return []int16{r.ErrorCode}
		}},
	}
	for _, c := range cases {
		e.handle(c.req, "client")
		resp := decode(t, e.ch.take(t), c.req.Key(), c.req.GetVersion())
		codes := c.code(resp)
		if len(codes) == 0 {
			t.Errorf("%s: no codes", c.req.Key())
		}
		for _, code := range codes {
			if code != gcna {
				t.Errorf("%s: code %d, want %d (GROUP_COORDINATOR_NOT_AVAILABLE)", c.req.Key(), code, gcna)
			}
		}
	}

	// This broker has no controller module, so it is not the active controller: NOT_CONTROLLER
	// (KafkaApis.scala:1186 and :1246). The controller's answers are admin_manager_test.go's.
	e.handle(&protocol.CreateTopicsRequest{Version: 1, CreateTopicRequests: []protocol.CreateTopicsRequestTopic{{Topic: "x", NumPartitions: 1, ReplicationFactor: 1}}}, "c")
	if r := decode(t, e.ch.take(t), protocol.CreateTopics, 1).(*protocol.CreateTopicsResponse); len(r.TopicErrors) != 1 || r.TopicErrors[0].ErrorCode != protocol.ErrNotController.Code {
		t.Errorf("CreateTopics %+v", r)
	}
	e.handle(&protocol.DeleteTopicsRequest{Topics: []string{"x", "y"}}, "c")
	if r := decode(t, e.ch.take(t), protocol.DeleteTopics, 0).(*protocol.DeleteTopicsResponse); len(r.TopicErrorCodes) != 2 || r.TopicErrorCodes[1].ErrorCode != protocol.ErrNotController.Code {
		t.Errorf("DeleteTopics %+v", r)
	}
	e.handle(&protocol.ControlledShutdownRequest{Version: 1, BrokerID: 0}, "c")
	if r := decode(t, e.ch.take(t), protocol.ControlledShutdown, 1).(*protocol.ControlledShutdownResponse); r.ErrorCode != protocol.ErrStaleControllerEpoch.Code {
		t.Errorf("ControlledShutdown %+v", r)
	}
	e.handle(&protocol.SaslHandshakeRequest{Mechanism: "PLAIN"}, "c")
	if r := decode(t, e.ch.take(t), protocol.SaslHandshake, 0).(*protocol.SaslHandshakeResponse); r.ErrorCode != protocol.ErrIllegalSaslState.Code || fmt.Sprint(r.EnabledMechanisms) != "[GSSAPI]" {
		t.Errorf("SaslHandshake %+v", r)
	}
	e.handle(&protocol.ApiVersionsRequest{}, "c")
	if r := decode(t, e.ch.take(t), protocol.ApiVersions, 0).(*protocol.ApiVersionsResponse); r.ErrorCode != 0 || len(r.ApiVersions) != 21 {
		t.Errorf("ApiVersions v0: error %d, %d apis", r.ErrorCode, len(r.ApiVersions))
	}
	e.handle(&protocol.ApiVersionsRequest{Version: 3}, "c")
	if r := decode(t, e.ch.take(t), protocol.ApiVersions, 0).(*protocol.ApiVersionsResponse); r.ErrorCode != protocol.ErrUnsupportedVersion.Code || len(r.ApiVersions) != 0 {
		t.Errorf("ApiVersions v3: %+v", r)
	}
}

// TestApisProduceAcksZero: acks=0 never answers; a failure closes the connection.
func TestApisProduceAcksZero(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0})
	e.handle(produceReq("t", 0, map[int32]record.Records{0: recordSet(t, 3, record.NONE)}), "p")
	if r := e.ch.take(t); r.Action != network.NoOpAction {
		t.Fatalf("acks=0 success: action %v, want NoOp", r.Action)
	}
	e.handle(produceReq("unknown", 0, map[int32]record.Records{0: recordSet(t, 3, record.NONE)}), "p")
	if r := e.ch.take(t); r.Action != network.CloseConnectionAction {
		t.Fatalf("acks=0 failure: action %v, want CloseConnection", r.Action)
	}
	// The error response of an acks=0 produce is nil: the connection is closed.
	if GetErrorResponse(produceReq("t", 0, nil), protocol.ErrUnknown) != nil {
		t.Fatal("acks=0 has an error response")
	}
}

// TestApisProduceErrors: invalid acks, unknown topic, internal topic, per partition.
func TestApisProduceErrors(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 2, []int32{0})
	e.lead(t, GroupMetadataTopicName, 1, []int32{0})

	e.handle(produceReq("t", 2, map[int32]record.Records{0: recordSet(t, 1, record.NONE), 1: recordSet(t, 1, record.NONE)}), "p")
	r := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse)
	for _, p := range r.Responses[0].PartitionResponses {
		if p.ErrorCode != protocol.ErrInvalidRequiredAcks.Code || p.BaseOffset != -1 || p.LogAppendTime != -1 {
			t.Errorf("acks=2: %+v", p)
		}
	}
	if leo := e.rm.GetPartition(tpOf("t", 0)).LocalReplica().LogEndOffset().MessageOffset; leo != 0 {
		t.Errorf("invalid acks wrote: LEO %d", leo)
	}

	e.handle(produceReq(GroupMetadataTopicName, 1, map[int32]record.Records{0: recordSet(t, 1, record.NONE)}), "p")
	r = decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse)
	if c := r.Responses[0].PartitionResponses[0].ErrorCode; c != protocol.ErrInvalidTopicException.Code {
		t.Errorf("internal topic from a client: %d", c)
	}
	e.handle(produceReq(GroupMetadataTopicName, 1, map[int32]record.Records{0: recordSet(t, 1, record.NONE)}), AdminClientID)
	r = decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse)
	if c := r.Responses[0].PartitionResponses[0].ErrorCode; c != 0 {
		t.Errorf("internal topic from the admin client: %d", c)
	}

	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 5, record.GZIP), 1: recordSet(t, 2, record.NONE)}), "p")
	r = decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse)
	if p := r.Responses[0].PartitionResponses; p[0].ErrorCode != 0 || p[0].BaseOffset != 0 || p[1].BaseOffset != 0 {
		t.Errorf("produce %+v", p)
	}
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 1, record.NONE)}), "p")
	r = decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse)
	if p := r.Responses[0].PartitionResponses[0]; p.BaseOffset != 5 {
		t.Errorf("second produce base offset %d, want 5", p.BaseOffset)
	}
}

// TestApisStaleControllerEpoch: a controller request older than the last one seen is refused.
func TestApisStaleControllerEpoch(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0}) // epoch 1
	lr := &protocol.LeaderAndIsrRequest{ControllerID: 0, ControllerEpoch: 0, PartitionStates: []protocol.LeaderAndIsrRequestPartitionState{
		{Topic: "t", Partition: 0, ControllerEpoch: 0, Leader: 0, LeaderEpoch: 5, Isr: []int32{0}, Replicas: []int32{0}}}}
	e.handle(lr, "c")
	if r := decode(t, e.ch.take(t), protocol.LeaderAndIsr, 0).(*protocol.LeaderAndIsrResponse); r.ErrorCode != protocol.ErrStaleControllerEpoch.Code {
		t.Errorf("stale LeaderAndIsr: %+v", r)
	}
	// Same controller epoch, leader epoch not newer: per-partition STALE_CONTROLLER_EPOCH.
	lr.ControllerEpoch, lr.PartitionStates[0].LeaderEpoch = 1, 0
	e.handle(lr, "c")
	if r := decode(t, e.ch.take(t), protocol.LeaderAndIsr, 0).(*protocol.LeaderAndIsrResponse); r.ErrorCode != 0 || r.Partitions[0].ErrorCode != protocol.ErrStaleControllerEpoch.Code {
		t.Errorf("old leader epoch: %+v", r)
	}
	// Not among the replicas: UNKNOWN_TOPIC_OR_PARTITION.
	lr.PartitionStates[0].LeaderEpoch, lr.PartitionStates[0].Replicas, lr.PartitionStates[0].Leader = 7, []int32{1, 2}, 1
	e.handle(lr, "c")
	if r := decode(t, e.ch.take(t), protocol.LeaderAndIsr, 0).(*protocol.LeaderAndIsrResponse); r.Partitions[0].ErrorCode != protocol.ErrUnknownTopicOrPartition.Code {
		t.Errorf("not a replica: %+v", r)
	}
	// UpdateMetadata from an old controller: the handler fails, the error response carries 11.
	e.handle(&protocol.UpdateMetadataRequest{Version: 2, ControllerID: 0, ControllerEpoch: 0}, "c")
	if r := decode(t, e.ch.take(t), protocol.UpdateMetadata, 2).(*protocol.UpdateMetadataResponse); r.ErrorCode != protocol.ErrStaleControllerEpoch.Code {
		t.Errorf("stale UpdateMetadata: %+v", r)
	}
	e.handle(&protocol.StopReplicaRequest{ControllerID: 0, ControllerEpoch: 0, Partitions: []protocol.StopReplicaRequestPartition{{Topic: "t"}}}, "c")
	if r := decode(t, e.ch.take(t), protocol.StopReplica, 0).(*protocol.StopReplicaResponse); r.ErrorCode != protocol.ErrStaleControllerEpoch.Code {
		t.Errorf("stale StopReplica: %+v", r)
	}
}

// TestGetErrorResponse: the same code on every partition, at the request's version.
func TestGetErrorResponse(t *testing.T) {
	err := protocol.ErrNotLeaderForPartition
	pr := produceReq("t", -1, map[int32]record.Records{0: record.NewMemoryRecords(nil), 1: record.NewMemoryRecords(nil)})
	pr.Version = 1
	resp := GetErrorResponse(pr, fmt.Errorf("wrapped: %w", err)).(*protocol.ProduceResponse)
	if resp.Version != 1 || len(resp.Responses[0].PartitionResponses) != 2 {
		t.Fatalf("%+v", resp)
	}
	for _, p := range resp.Responses[0].PartitionResponses {
		if p.ErrorCode != err.Code || p.BaseOffset != -1 {
			t.Errorf("%+v", p)
		}
	}
	fr := &protocol.FetchRequest{Version: 3, Topics: []protocol.FetchRequestTopic{{Topic: "a", Partitions: []protocol.FetchRequestTopicPartition{{Partition: 0}, {Partition: 3}}}}}
	fresp := GetErrorResponse(fr, fmt.Errorf("boom")).(*protocol.FetchResponse)
	for _, p := range fresp.Responses[0].PartitionResponses {
		if p.PartitionHeader.ErrorCode != protocol.ErrUnknown.Code || p.PartitionHeader.HighWatermark != -1 || p.RecordSet.SizeInBytes() != 0 {
			t.Errorf("%+v", p)
		}
	}
	// Every request type of 0.10.2 has an error response that encodes.
	for k := protocol.ApiKeys(0); k <= protocol.MaxApiKey; k++ {
		v := protocol.LatestVersion(k)
		req, e := protocol.NewRequest(k, v)
		if e != nil {
			t.Fatal(e)
		}
		if k == protocol.Produce {
			req.(*protocol.ProduceRequest).Acks = 1
		}
		m := GetErrorResponse(req, err)
		if m == nil {
			t.Errorf("%s: no error response", k)
			continue
		}
		if m.Key() != k {
			t.Errorf("%s: error response of key %s", k, m.Key())
		}
		_ = network.NewResponseSend(1, m)
	}
}

// TestApisBadBodyClosesConnection: a body that does not match its key (which the network layer
// never produces) is answered by closing the connection, not by a crash.
func TestApisBadBodyClosesConnection(t *testing.T) {
	e := newApisEnv(t, nil)
	req := &network.Request{ConnectionID: "c", Header: protocol.RequestHeader{ApiKey: protocol.Fetch, ApiVersion: 3}, Body: nil}
	e.apis.Handle(req)
	if r := e.ch.take(t); r.Action != network.CloseConnectionAction {
		t.Fatalf("action %v", r.Action)
	}
}

// TestApisProduceEmptyRecordSet: an empty record_set appends nothing and answers NONE with
// base_offset -1 (Log.append returns early when there is no message).
func TestApisProduceEmptyRecordSet(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "t", 1, []int32{0})
	e.handle(produceReq("t", 1, map[int32]record.Records{0: record.NewMemoryRecords(nil)}), "p")
	p := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse).Responses[0].PartitionResponses[0]
	if p.ErrorCode != 0 || p.BaseOffset != -1 {
		t.Fatalf("empty produce %+v", p)
	}
}

// TestApisProduceLogAppendTime: with message.timestamp.type=LogAppendTime, Produce v2 reports
// the broker time it stamped; with CreateTime it reports -1.
func TestApisProduceLogAppendTime(t *testing.T) {
	e := newApisEnv(t, map[string]string{"log.message.timestamp.type": "LogAppendTime"})
	e.lead(t, "t", 1, []int32{0})
	e.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 2, record.NONE)}), "p")
	p := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse).Responses[0].PartitionResponses[0]
	if p.ErrorCode != 0 || p.LogAppendTime != e.clock.Milliseconds() {
		t.Fatalf("LogAppendTime produce %+v, clock %d", p, e.clock.Milliseconds())
	}
	e2 := newApisEnv(t, nil)
	e2.lead(t, "t", 1, []int32{0})
	e2.handle(produceReq("t", 1, map[int32]record.Records{0: recordSet(t, 2, record.NONE)}), "p")
	if p := decode(t, e2.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse).Responses[0].PartitionResponses[0]; p.LogAppendTime != -1 {
		t.Fatalf("CreateTime produce %+v", p)
	}
}

// TestUnencodableResponseAnswersUnknown: a response holding a string over 32767 bytes (a member
// id made from a client id of that length) cannot be encoded; the request is answered with its
// error response, UNKNOWN, as 0.10.2's SchemaException from the serialization ends in
// KafkaApis.handleError, instead of a silently cut member id.
func TestUnencodableResponseAnswersUnknown(t *testing.T) {
	e := newApisEnv(t, nil)
	clientID := strings.Repeat("c", 32767)
	req := &network.Request{ConnectionID: "c", ListenerName: "PLAINTEXT", Body: &protocol.JoinGroupRequest{Version: 1, GroupID: "g"},
		Header: protocol.RequestHeader{ApiKey: protocol.JoinGroup, ApiVersion: 1, CorrelationID: 7, ClientID: &clientID}}
	e.apis.sendResponse(req, &protocol.JoinGroupResponse{Version: 1, GenerationID: 1, MemberID: clientID + "-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"})
	r := decode(t, e.ch.take(t), protocol.JoinGroup, 1).(*protocol.JoinGroupResponse)
	if r.ErrorCode != protocol.ErrUnknown.Code || r.MemberID != "" {
		t.Errorf("JoinGroup answered code %d, member id of %d bytes; want UNKNOWN and none", r.ErrorCode, len(r.MemberID))
	}
}
