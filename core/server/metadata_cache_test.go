package server

import (
	"fmt"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol"
)

func strp(s string) *string { return &s }

// cacheWithBrokers: brokers 0 (PLAINTEXT, SSL, rack r0) and 1 (PLAINTEXT) alive; broker 2 dead.
// Topic t: p0 leader 0 replicas [0 1 2] ISR [0 2]; p1 leader 2 (dead).
func cacheWithBrokers(t *testing.T) *MetadataCache {
	c := NewMetadataCache(0, nil)
	req := &protocol.UpdateMetadataRequest{Version: 3, ControllerID: 1, ControllerEpoch: 3,
		LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{
			{ID: 0, Rack: strp("r0"), EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{
				{Port: 9092, Host: "h0", ListenerName: "PLAINTEXT", SecurityProtocolType: 0},
				{Port: 9093, Host: "h0", ListenerName: "SSL", SecurityProtocolType: 1}}},
			{ID: 1, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: 9192, Host: "h1", ListenerName: "PLAINTEXT"}}},
		},
		PartitionStates: []protocol.UpdateMetadataRequestPartitionState{
			{Topic: "t", Partition: 0, Leader: 0, LeaderEpoch: 1, Isr: []int32{0, 2}, Replicas: []int32{0, 1, 2}},
			{Topic: "t", Partition: 1, Leader: 2, LeaderEpoch: 1, Isr: []int32{2}, Replicas: []int32{2, 0}},
		}}
	if del := c.UpdateCache(1, req); len(del) != 0 {
		t.Fatalf("deleted %v", del)
	}
	return c
}

func TestMetadataCachePartitionErrors(t *testing.T) {
	c := cacheWithBrokers(t)
	// Metadata v0 (errorUnavailableEndpoints): dead replicas are left out and flagged.
	md := c.GetTopicMetadata([]string{"t", "missing"}, "PLAINTEXT", true)
	if len(md) != 1 || md[0].Topic != "t" || len(md[0].PartitionMetadata) != 2 {
		t.Fatalf("%+v", md)
	}
	p0, p1 := md[0].PartitionMetadata[0], md[0].PartitionMetadata[1]
	if p0.PartitionErrorCode != protocol.ErrReplicaNotAvailable.Code || p0.Leader != 0 ||
		fmt.Sprint(p0.Replicas) != "[0 1]" || fmt.Sprint(p0.Isr) != "[0]" {
		t.Errorf("v0 p0 %+v", p0)
	}
	if p1.PartitionErrorCode != protocol.ErrLeaderNotAvailable.Code || p1.Leader != -1 || len(p1.Isr) != 0 || fmt.Sprint(p1.Replicas) != "[0]" {
		t.Errorf("v0 p1 %+v", p1)
	}
	// v1+: the ids stay and there is no error for dead replicas.
	md = c.GetTopicMetadata([]string{"t"}, "PLAINTEXT", false)
	p0, p1 = md[0].PartitionMetadata[0], md[0].PartitionMetadata[1]
	if p0.PartitionErrorCode != 0 || fmt.Sprint(p0.Replicas) != "[0 1 2]" || fmt.Sprint(p0.Isr) != "[0 2]" {
		t.Errorf("v1 p0 %+v", p0)
	}
	if p1.PartitionErrorCode != protocol.ErrLeaderNotAvailable.Code || fmt.Sprint(p1.Replicas) != "[2 0]" {
		t.Errorf("v1 p1 %+v", p1)
	}
	// Broker addresses follow the listener the request came in on.
	if b := c.aliveNodesFor("SSL"); len(b) != 1 || b[0].Port != 9093 || *b[0].Rack != "r0" {
		t.Errorf("SSL brokers %+v", b)
	}
	if b := c.aliveNodesFor("PLAINTEXT"); len(b) != 2 || b[1].Host != "h1" || b[1].Rack != nil {
		t.Errorf("PLAINTEXT brokers %+v", b)
	}
	if c.GetControllerID() != 1 {
		t.Errorf("controller %d", c.GetControllerID())
	}
	// A leader of -2 deletes the partition; the last one takes the topic with it.
	del := c.UpdateCache(2, &protocol.UpdateMetadataRequest{Version: 3, ControllerID: -1, PartitionStates: []protocol.UpdateMetadataRequestPartitionState{
		{Topic: "t", Partition: 0, Leader: -2}, {Topic: "t", Partition: 1, Leader: -2}}})
	if len(del) != 2 || c.Contains("t") || c.GetControllerID() != -1 || len(c.GetAliveBrokers()) != 0 {
		t.Errorf("after delete: %v contains=%v controller=%d", del, c.Contains("t"), c.GetControllerID())
	}
}

func TestMetadataCacheOldUpdateMetadataVersions(t *testing.T) {
	c := NewMetadataCache(0, nil)
	c.UpdateCache(1, &protocol.UpdateMetadataRequest{Version: 0, LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{{ID: 4, Host: "h4", Port: 1}}})
	if b := c.aliveNodesFor("PLAINTEXT"); len(b) != 1 || b[0].NodeID != 4 || b[0].Host != "h4" {
		t.Errorf("v0: %+v", b)
	}
	// v1/v2: the listener name is the security protocol's name.
	c.UpdateCache(2, &protocol.UpdateMetadataRequest{Version: 2, LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{
		{ID: 5, Rack: strp("x"), EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: 2, Host: "h5", SecurityProtocolType: 2}}}}})
	if b := c.aliveNodesFor("SASL_PLAINTEXT"); len(b) != 1 || b[0].NodeID != 5 || *b[0].Rack != "x" {
		t.Errorf("v2: %+v", b)
	}
	if len(c.aliveNodesFor("PLAINTEXT")) != 0 {
		t.Error("live brokers were not replaced")
	}
}

// TestApisMetadataVersions: v0 empty = all topics; v1+ null = all, empty = none; v1 adds the
// controller id, racks and is_internal; v2 the cluster id; unknown topics without auto-create.
func TestApisMetadataVersions(t *testing.T) {
	e := newApisEnv(t, nil)
	e.lead(t, "a", 1, []int32{0})
	e.lead(t, GroupMetadataTopicName, 1, []int32{0})
	topicsOf := func(r *protocol.MetadataResponse) string {
		var s []string
		for _, tm := range r.TopicMetadata {
			s = append(s, fmt.Sprintf("%s:%d:%t", tm.Topic, tm.TopicErrorCode, tm.IsInternal))
		}
		return fmt.Sprint(s)
	}
	get := func(req *protocol.MetadataRequest) *protocol.MetadataResponse {
		e.handle(req, "m")
		return decode(t, e.ch.take(t), protocol.Metadata, req.Version).(*protocol.MetadataResponse)
	}
	if r := get(&protocol.MetadataRequest{Version: 0, Topics: []string{}}); topicsOf(r) != "[__consumer_offsets:0:false a:0:false]" || len(r.Brokers) != 1 {
		t.Errorf("v0 empty: %s", topicsOf(r))
	}
	if r := get(&protocol.MetadataRequest{Version: 1, Topics: nil}); topicsOf(r) != "[__consumer_offsets:0:true a:0:false]" || r.ControllerID != 0 {
		t.Errorf("v1 null: %s controller %d", topicsOf(r), r.ControllerID)
	}
	if r := get(&protocol.MetadataRequest{Version: 1, Topics: []string{}}); len(r.TopicMetadata) != 0 || len(r.Brokers) != 1 {
		t.Errorf("v1 empty: %s", topicsOf(r))
	}
	r := get(&protocol.MetadataRequest{Version: 2, Topics: []string{"a", "nope"}})
	if r.ClusterID == nil || *r.ClusterID != "test-cluster-id-000000" {
		t.Errorf("v2 cluster id %v", r.ClusterID)
	}
	want := fmt.Sprintf("[a:0:false nope:%d:false]", protocol.ErrUnknownTopicOrPartition.Code)
	if topicsOf(r) != want {
		t.Errorf("v2: %s, want %s", topicsOf(r), want)
	}
	if p := r.TopicMetadata[0].PartitionMetadata[0]; p.Leader != 0 || fmt.Sprint(p.Isr) != "[0]" {
		t.Errorf("partition %+v", p)
	}
}
