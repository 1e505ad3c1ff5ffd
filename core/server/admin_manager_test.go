package server

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// switchController is a Controller whose activity a test sets.
type switchController struct{ active atomic.Bool }

func (c *switchController) IsActive() bool { return c.active.Load() }

// adminEnv is KafkaApis with an AdminManager over a real ZooKeeper (no controller runs: the
// test plays the controller's UpdateMetadata itself). Brokers 0, 1 and 2 are alive.
type adminEnv struct {
	*apisEnv
	zk  *zkutils.ZkUtils
	ctl *switchController
	am  *AdminManager
}

type refusePrefixPolicy struct{ prefix string }

func (p *refusePrefixPolicy) Configure(c map[string]string) error {
	p.prefix = c["test.policy.refused.prefix"]
	return nil
}

func (p *refusePrefixPolicy) Validate(md RequestMetadata) error {
	if strings.HasPrefix(md.Topic, p.prefix) {
		return NewPolicyViolationException("Topic " + md.Topic + " is refused by the test policy: " + md.String())
	}
	return nil
}

func (p *refusePrefixPolicy) Close() error { return nil }

func init() {
	RegisterCreateTopicPolicy("zkafka.test.RefusePrefixPolicy", func() CreateTopicPolicy { return &refusePrefixPolicy{} })
}

func newAdminEnv(t *testing.T, props map[string]string) *adminEnv {
	t.Helper()
	e := &adminEnv{apisEnv: newApisEnv(t, props), ctl: &switchController{}}
	e.ctl.active.Store(true)
	e.zk = connectZk(t, zktest.Chroot(t))
	if err := e.zk.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	cfg := e.apis.config
	loggers, _ := testLoggers(t)
	var err error
	e.am, err = NewAdminManager(AdminManagerConfig{Config: cfg, MetadataCache: e.cache, ZkUtils: e.zk, Time: common.SystemTime{}, Logger: loggers.Server})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.am.Shutdown)
	e.apis = NewKafkaApis(KafkaApisConfig{RequestChannel: e.ch, ReplicaManager: e.rm, ZkUtils: e.zk, BrokerID: 0, Config: cfg,
		MetadataCache: e.cache, Controller: e.ctl, AdminManager: e.am, ClusterID: "test-cluster-id-000000", Logger: loggers.Server})
	e.updateMetadata(t, nil)
	return e
}

// updateMetadata plays the controller: brokers 0-2 alive, and the given partition states.
func (e *adminEnv) updateMetadata(t *testing.T, states []protocol.UpdateMetadataRequestPartitionState) {
	t.Helper()
	ur := &protocol.UpdateMetadataRequest{Version: 3, ControllerID: 0, ControllerEpoch: 1, PartitionStates: states}
	for id := int32(0); id < 3; id++ {
		ur.LiveBrokers = append(ur.LiveBrokers, protocol.UpdateMetadataRequestLiveBroker{ID: id,
			EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: 9092 + id, Host: "h", ListenerName: "PLAINTEXT"}}})
	}
	e.handle(ur, "controller")
	if r := decode(t, e.takeKey(t, protocol.UpdateMetadata), protocol.UpdateMetadata, 3).(*protocol.UpdateMetadataResponse); r.ErrorCode != 0 {
		t.Fatalf("UpdateMetadata %+v", r)
	}
}

// takeKey waits for the next response to a request of the given key, leaving the others queued
// (a delayed CreateTopics answer goes out before the UpdateMetadata answer that completed it).
func (e *adminEnv) takeKey(t *testing.T, key protocol.ApiKeys) *network.Response {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		e.ch.mu.Lock()
		for i, r := range e.ch.responses {
			if r.Request.Header.ApiKey == key {
				e.ch.responses = append(e.ch.responses[:i:i], e.ch.responses[i+1:]...)
				e.ch.mu.Unlock()
				return r
			}
		}
		e.ch.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %s response", key)
		}
		time.Sleep(time.Millisecond)
	}
}

// leaders are the states the controller sends once a topic's partitions are online.
func leaders(topic string, partitions int32, leader int32) []protocol.UpdateMetadataRequestPartitionState {
	var out []protocol.UpdateMetadataRequestPartitionState
	for p := int32(0); p < partitions; p++ {
		out = append(out, protocol.UpdateMetadataRequestPartitionState{Topic: topic, Partition: p, ControllerEpoch: 1,
			Leader: leader, Isr: []int32{leader}, Replicas: []int32{leader}})
	}
	return out
}

func (e *adminEnv) create(t *testing.T, version int16, timeout int32, validateOnly bool, topics ...protocol.CreateTopicsRequestTopic) *protocol.CreateTopicsResponse {
	t.Helper()
	e.handle(&protocol.CreateTopicsRequest{Version: version, CreateTopicRequests: topics, Timeout: timeout, ValidateOnly: validateOnly}, "admin-client")
	return decode(t, e.ch.take(t), protocol.CreateTopics, version).(*protocol.CreateTopicsResponse)
}

func (e *adminEnv) delete(t *testing.T, timeout int32, topics ...string) map[string]int16 {
	t.Helper()
	e.handle(&protocol.DeleteTopicsRequest{Topics: topics, Timeout: timeout}, "admin-client")
	r := decode(t, e.ch.take(t), protocol.DeleteTopics, 0).(*protocol.DeleteTopicsResponse)
	out := map[string]int16{}
	for _, te := range r.TopicErrorCodes {
		out[te.Topic] = te.ErrorCode
	}
	return out
}

type ct = protocol.CreateTopicsRequestTopic

func topicReq(name string, partitions int32, rf int16, configs ...string) ct {
	r := ct{Topic: name, NumPartitions: partitions, ReplicationFactor: rf}
	for i := 0; i+1 < len(configs); i += 2 {
		r.Configs = append(r.Configs, protocol.CreateTopicsRequestTopicConfig{ConfigKey: configs[i], ConfigValue: configs[i+1]})
	}
	return r
}

func assigned(name string, replicas ...[]int32) ct {
	r := ct{Topic: name, NumPartitions: -1, ReplicationFactor: -1}
	for p, rs := range replicas {
		r.ReplicaAssignment = append(r.ReplicaAssignment, protocol.CreateTopicsRequestTopicReplicaAssignment{PartitionID: int32(p), Replicas: rs})
	}
	return r
}

// TestCreateTopicsErrorTable: every per-topic outcome of CreateTopics v1 (timeout 0, so a
// successful creation answers REQUEST_TIMED_OUT at once, as 0.10.2 does), with the 0.10.2 source
// line that decides it. The broker has the test policy, which refuses names starting "refused-".
func TestCreateTopicsErrorTable(t *testing.T) {
	e := newAdminEnv(t, map[string]string{"create.topic.policy.class.name": "zkafka.test.RefusePrefixPolicy",
		"test.policy.refused.prefix": "refused-"})
	if r := e.create(t, 1, 0, false, topicReq("existing", 1, 1), topicReq("foo_bar", 1, 1)); r.TopicErrors[0].ErrorCode != protocol.ErrRequestTimedOut.Code {
		t.Fatalf("creating the existing topics: %+v", r)
	}
	long := strings.Repeat("x", 250)
	rows := []struct {
		name   string
		req    ct
		code   *protocol.Error // nil: NONE
		msg    string          // a substring of error_message ("" for none)
		source string          // the 0.10.2 line deciding the row
	}{
		{"counts, timeout 0", topicReq("created", 3, 2), protocol.ErrRequestTimedOut, "",
			"AdminManager.scala:134 (timeout <= 0: initiated creations report REQUEST_TIMED_OUT)"},
		{"explicit assignment, timeout 0", assigned("created-assigned", []int32{0, 1}, []int32{1, 2}), protocol.ErrRequestTimedOut, "",
			"AdminManager.scala:86 (the assignment is used as given), :134"},
		{"configs, timeout 0", topicReq("created-configs", 1, 1, "retention.ms", "1000", "cleanup.policy", "compact"), protocol.ErrRequestTimedOut, "",
			"AdminManager.scala:76 (LogConfig.validate passes), :134"},
		{"unknown config name", topicReq("c1", 1, 1, "no.such.config", "1"), protocol.ErrInvalidConfig, "Unknown Log configuration no.such.config.",
			"LogConfig.scala:323 (InvalidConfigurationException) via AdminManager.scala:76"},
		{"bad config value", topicReq("c2", 1, 1, "retention.ms", "soon"), protocol.ErrUnknown, "Invalid value soon for configuration retention.ms",
			"LogConfig.scala:331 (ConfigException is no ApiException: Errors.forException -> UNKNOWN) via AdminManager.scala:125"},
		{"counts and assignment", ct{Topic: "c3", NumPartitions: 1, ReplicationFactor: -1,
			ReplicaAssignment: []protocol.CreateTopicsRequestTopicReplicaAssignment{{PartitionID: 0, Replicas: []int32{0}}}},
			protocol.ErrInvalidRequest, "Both numPartitions or replicationFactor and replicasAssignments were set", "AdminManager.scala:81"},
		{"zero partitions", topicReq("c4", 0, 1), protocol.ErrInvalidPartitions, "number of partitions must be larger than 0", "AdminUtils.scala:122"},
		{"no counts, no assignment", topicReq("c5", -1, -1), protocol.ErrInvalidPartitions, "number of partitions must be larger than 0", "AdminUtils.scala:122"},
		{"replication factor 0", topicReq("c6", 1, 0), protocol.ErrInvalidReplicationFactor, "replication factor must be larger than 0", "AdminUtils.scala:124"},
		{"replication factor over the live brokers", topicReq("c7", 1, 4), protocol.ErrInvalidReplicationFactor,
			"replication factor: 4 larger than available brokers: 3", "AdminUtils.scala:126"},
		{"topic exists", topicReq("existing", 1, 1), protocol.ErrTopicAlreadyExists, "Topic 'existing' already exists.", "AdminUtils.scala:430"},
		{"collides with an existing topic", topicReq("foo.bar", 1, 1), protocol.ErrInvalidTopicException,
			"Topic 'foo.bar' collides with existing topics: foo_bar", "AdminUtils.scala:439"},
		{"replica lists of different sizes", assigned("c8", []int32{0, 1}, []int32{1}), protocol.ErrInvalidReplicaAssignment,
			"All partitions should have the same number of replicas", "AdminUtils.scala:445"},
		{"a broker twice in one replica list", assigned("c9", []int32{1, 1}), protocol.ErrInvalidReplicaAssignment,
			"Duplicate replica assignment found", "AdminUtils.scala:449"},
		{"empty name", topicReq("", 1, 1), protocol.ErrInvalidTopicException, "topic name is illegal, can't be empty", "Topic.scala:35"},
		{"name '..'", topicReq("..", 1, 1), protocol.ErrInvalidTopicException, `topic name cannot be "." or ".."`, "Topic.scala:37"},
		{"name too long", topicReq(long, 1, 1), protocol.ErrInvalidTopicException, "can't be longer than 249 characters", "Topic.scala:39"},
		{"illegal character", topicReq("a b", 1, 1), protocol.ErrInvalidTopicException, "contains a character other than ASCII alphanumerics", "Topic.scala:44"},
		{"refused by the policy", topicReq("refused-1", 1, 1), protocol.ErrPolicyViolation, "Topic refused-1 is refused by the test policy",
			"AdminManager.scala:105 (PolicyViolationException -> POLICY_VIOLATION)"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			r := e.create(t, 1, 0, false, row.req)
			if len(r.TopicErrors) != 1 || r.TopicErrors[0].Topic != row.req.Topic {
				t.Fatalf("response %+v", r)
			}
			got := r.TopicErrors[0]
			want := int16(0)
			if row.code != nil {
				want = row.code.Code
			}
			if got.ErrorCode != want {
				t.Errorf("%s: code %d (%s), want %d (%v); decided by %s", row.name, got.ErrorCode, strOr(got.ErrorMessage), want, row.code, row.source)
			}
			switch {
			case row.msg == "" && got.ErrorMessage != nil:
				t.Errorf("%s: error_message %q, want null", row.name, *got.ErrorMessage)
			case row.msg != "" && (got.ErrorMessage == nil || !strings.Contains(*got.ErrorMessage, row.msg)):
				t.Errorf("%s: error_message %s, want it to contain %q", row.name, strOr(got.ErrorMessage), row.msg)
			}
		})
	}
	// What the successful rows wrote: the assignment as given, the configs under /config/topics.
	assignment, err := e.zk.GetReplicaAssignmentForTopics([]string{"created-assigned", "created"})
	if err != nil {
		t.Fatal(err)
	}
	if got := assignment[common.TopicPartition{Topic: "created-assigned", Partition: 1}]; len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("created-assigned partition 1 replicas %v, want [1 2]", got)
	}
	for p := int32(0); p < 3; p++ {
		if got := assignment[common.TopicPartition{Topic: "created", Partition: p}]; len(got) != 2 {
			t.Errorf("created partition %d replicas %v, want 2 replicas", p, got)
		}
	}
	cfg, err := e.zk.FetchEntityConfig(zkutils.ConfigTypeTopic, "created-configs")
	if err != nil || cfg["retention.ms"] != "1000" || cfg["cleanup.policy"] != "compact" {
		t.Errorf("created-configs config %v, %v", cfg, err)
	}
	// Nothing was written for a refused topic.
	for _, topic := range []string{"c1", "c2", "c3", "c8", "refused-1"} {
		if ok, _ := e.zk.PathExists(zkutils.TopicPath(topic)); ok {
			t.Errorf("refused topic %s was created", topic)
		}
	}
}

func strOr(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TestCreateTopicsRequestLevelCases: a topic named twice (KafkaApis.scala:1209), validate_only
// (AdminManager.scala:113 and :131: NONE, nothing written; with a policy, :96-:105 then nothing),
// v0 (no error_message), and a broker that is not the active controller (KafkaApis.scala:1186).
func TestCreateTopicsRequestLevelCases(t *testing.T) {
	e := newAdminEnv(t, map[string]string{"create.topic.policy.class.name": "zkafka.test.RefusePrefixPolicy",
		"test.policy.refused.prefix": "refused-"})
	r := e.create(t, 1, 0, false, topicReq("twice", 1, 1), topicReq("once", 1, 1), topicReq("twice", 2, 1))
	codes := map[string]int16{}
	for _, te := range r.TopicErrors {
		codes[te.Topic] = te.ErrorCode
		if te.Topic == "twice" && (te.ErrorMessage == nil || !strings.Contains(*te.ErrorMessage,
			"Create topics request from client `admin-client` contains multiple entries for the following topics: twice")) {
			t.Errorf("duplicate's message %s", strOr(te.ErrorMessage))
		}
	}
	if len(r.TopicErrors) != 2 || codes["twice"] != protocol.ErrInvalidRequest.Code || codes["once"] != protocol.ErrRequestTimedOut.Code {
		t.Errorf("duplicate topic: %+v", r.TopicErrors)
	}
	if ok, _ := e.zk.PathExists(zkutils.TopicPath("twice")); ok {
		t.Error("a topic named twice was created")
	}

	r = e.create(t, 1, 5000, true, topicReq("checked", 2, 3), topicReq("refused-2", 1, 1), topicReq("once", 1, 1))
	want := map[string]int16{"checked": 0, "refused-2": protocol.ErrPolicyViolation.Code, "once": protocol.ErrTopicAlreadyExists.Code}
	for _, te := range r.TopicErrors {
		if te.ErrorCode != want[te.Topic] {
			t.Errorf("validate_only %s: code %d, want %d", te.Topic, te.ErrorCode, want[te.Topic])
		}
	}
	if ok, _ := e.zk.PathExists(zkutils.TopicPath("checked")); ok {
		t.Error("validate_only created the topic")
	}

	r = e.create(t, 0, 0, false, topicReq("v0", 0, 1))
	if r.TopicErrors[0].ErrorCode != protocol.ErrInvalidPartitions.Code || r.TopicErrors[0].ErrorMessage != nil {
		t.Errorf("v0 %+v", r.TopicErrors[0])
	}

	e.ctl.active.Store(false)
	r = e.create(t, 1, 1000, false, topicReq("elsewhere", 1, 1), topicReq("", 0, 0))
	for _, te := range r.TopicErrors {
		if te.ErrorCode != protocol.ErrNotController.Code || te.ErrorMessage != nil {
			t.Errorf("non-controller %+v", te)
		}
	}
	if ok, _ := e.zk.PathExists(zkutils.TopicPath("elsewhere")); ok {
		t.Error("a non-controller created the topic")
	}
}

// TestCreateTopicsWaitsForLeaders: with a timeout the answer waits until the controller's
// UpdateMetadata gives every partition a leader (DelayedCreateTopics.tryComplete); a topic whose
// leaders never arrive answers REQUEST_TIMED_OUT at the deadline (DelayedCreateTopics.onComplete).
func TestCreateTopicsWaitsForLeaders(t *testing.T) {
	e := newAdminEnv(t, nil)
	e.handle(&protocol.CreateTopicsRequest{Version: 1, Timeout: 30_000,
		CreateTopicRequests: []ct{topicReq("slow", 2, 1), topicReq("", 1, 1)}}, "admin-client")
	time.Sleep(50 * time.Millisecond)
	if n := e.ch.count(); n != 0 {
		t.Fatalf("answered before any leader: %d responses", n)
	}
	e.updateMetadata(t, leaders("slow", 1, 1)) // partition 1 still leaderless
	time.Sleep(50 * time.Millisecond)
	if n := e.ch.count(); n != 0 {
		t.Fatalf("answered with a partition still leaderless: %d responses", n)
	}
	e.updateMetadata(t, leaders("slow", 2, 1))
	r := decode(t, e.ch.take(t), protocol.CreateTopics, 1).(*protocol.CreateTopicsResponse)
	codes := map[string]int16{}
	for _, te := range r.TopicErrors {
		codes[te.Topic] = te.ErrorCode
	}
	if codes["slow"] != 0 || codes[""] != protocol.ErrInvalidTopicException.Code {
		t.Errorf("after the leaders: %+v", r.TopicErrors)
	}

	start := time.Now()
	r = e.create(t, 1, 300, false, topicReq("never", 1, 1))
	if r.TopicErrors[0].ErrorCode != protocol.ErrRequestTimedOut.Code {
		t.Errorf("without leaders: %+v", r.TopicErrors[0])
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("answered after %v, before the 300 ms timeout", d)
	}
	if ok, _ := e.zk.PathExists(zkutils.TopicPath("never")); !ok {
		t.Error("a timed-out creation must still have created the topic")
	}
}

// TestDeleteTopicsOutcomes: unknown topics (KafkaApis.scala:1237), timeout 0
// (AdminManager.scala:177), a topic already marked (AdminManager.scala:163), a known topic the
// controller removes (DelayedDeleteTopics), a topic in the cache but not in ZooKeeper
// (AdminUtils.scala:330 via AdminManager.scala:168), and a non-controller (KafkaApis.scala:1246).
func TestDeleteTopicsOutcomes(t *testing.T) {
	e := newAdminEnv(t, nil)
	for _, topic := range []string{"d1", "d2"} {
		if r := e.create(t, 1, 0, false, topicReq(topic, 1, 1)); r.TopicErrors[0].ErrorCode != protocol.ErrRequestTimedOut.Code {
			t.Fatalf("create %s: %+v", topic, r)
		}
	}
	e.updateMetadata(t, append(append(leaders("d1", 1, 0), leaders("d2", 1, 0)...), leaders("ghost", 1, 0)...))

	got := e.delete(t, 0, "d1", "nope", "d1")
	if len(got) != 2 || got["d1"] != protocol.ErrRequestTimedOut.Code || got["nope"] != protocol.ErrUnknownTopicOrPartition.Code {
		t.Errorf("timeout 0: %v", got)
	}
	if ok, _ := e.zk.PathExists(zkutils.DeleteTopicPath("d1")); !ok {
		t.Error("no deletion marker for d1")
	}
	if got := e.delete(t, 0, "ghost"); got["ghost"] != protocol.ErrUnknownTopicOrPartition.Code {
		t.Errorf("topic in the cache only: %v", got)
	}

	// d1 is marked already, d2 is new: both wait until the controller's UpdateMetadata removes them.
	e.handle(&protocol.DeleteTopicsRequest{Topics: []string{"d1", "d2"}, Timeout: 30_000}, "admin-client")
	time.Sleep(50 * time.Millisecond)
	if n := e.ch.count(); n != 0 {
		t.Fatalf("answered before the topics left the cache: %d responses", n)
	}
	gone := []protocol.UpdateMetadataRequestPartitionState{
		{Topic: "d1", Partition: 0, ControllerEpoch: 1, Leader: zkutils.LeaderDuringDelete, Isr: []int32{0}, Replicas: []int32{0}},
		{Topic: "d2", Partition: 0, ControllerEpoch: 1, Leader: zkutils.LeaderDuringDelete, Isr: []int32{0}, Replicas: []int32{0}},
	}
	e.updateMetadata(t, gone)
	r := decode(t, e.ch.take(t), protocol.DeleteTopics, 0).(*protocol.DeleteTopicsResponse)
	for _, te := range r.TopicErrorCodes {
		if te.ErrorCode != 0 {
			t.Errorf("after deletion: %+v", r.TopicErrorCodes)
		}
	}

	e.ctl.active.Store(false)
	e.updateMetadata(t, leaders("d3", 1, 0))
	if got := e.delete(t, 1000, "d3", "nope"); got["d3"] != protocol.ErrNotController.Code || got["nope"] != protocol.ErrNotController.Code {
		t.Errorf("non-controller: %v", got)
	}
}

// TestUnknownCreateTopicPolicyStopsStartup: a policy name nobody registered fails the broker's
// start with Kafka's class-lookup message.
func TestUnknownCreateTopicPolicyStopsStartup(t *testing.T) {
	cfg := brokerConfig(t, "localhost:2181", t.TempDir(), map[string]string{"create.topic.policy.class.name": "com.example.Missing"})
	_, err := NewAdminManager(AdminManagerConfig{Config: cfg, MetadataCache: NewMetadataCache(0, nil)})
	if err == nil || !strings.Contains(err.Error(), "Class com.example.Missing could not be found.") {
		t.Fatalf("err %v", err)
	}
}

// TestAdminWithRealController: a one-broker cluster (its own KafkaController is active) creates
// a topic and answers NONE once the partitions have leaders; with delete.topic.enable=false the
// controller removes the deletion marker without deleting (PartitionStateMachine.scala's
// DeleteTopicsListener), so DeleteTopics answers REQUEST_TIMED_OUT and the topic stays, as in
// 0.10.2.
func TestAdminWithRealController(t *testing.T) {
	c := newReplicationCluster(t, 1, map[string]string{"delete.topic.enable": "false"})
	srv := c.servers[0]
	zktest.WaitUntilTrue(t, func() bool {
		return srv.Controller != nil && srv.Controller.IsActive() && len(srv.MetadataCache().GetAliveBrokers()) == 1
	}, "broker 0 to be the controller and know itself alive", 20*time.Second)
	cl := dialRaw(t, c.ports[0])
	r := cl.roundTrip(t, &protocol.CreateTopicsRequest{Version: 1, Timeout: 20_000,
		CreateTopicRequests: []ct{topicReq("kept", 4, 1)}}).(*protocol.CreateTopicsResponse)
	if r.TopicErrors[0].ErrorCode != 0 {
		t.Fatalf("create: %+v", r.TopicErrors[0])
	}
	for p := int32(0); p < 4; p++ {
		if s, ok := srv.MetadataCache().GetPartitionInfo("kept", p); !ok || s.Leader != 0 {
			t.Errorf("partition %d: %+v %v after the create answered", p, s, ok)
		}
	}
	d := cl.roundTrip(t, &protocol.DeleteTopicsRequest{Topics: []string{"kept"}, Timeout: 1000}).(*protocol.DeleteTopicsResponse)
	if d.TopicErrorCodes[0].ErrorCode != protocol.ErrRequestTimedOut.Code {
		t.Errorf("delete with delete.topic.enable=false: %+v", d.TopicErrorCodes[0])
	}
	zktest.WaitUntilTrue(t, func() bool {
		ok, err := srv.ZkUtils().PathExists(zkutils.DeleteTopicPath("kept"))
		return err == nil && !ok
	}, "the controller to remove the marker", 10*time.Second)
	if !srv.MetadataCache().Contains("kept") {
		t.Error("the topic was deleted although delete.topic.enable=false")
	}
}
