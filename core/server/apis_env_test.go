package server

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/network"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/core/utils/timer"
)

// recordingChannel keeps what KafkaApis answers.
type recordingChannel struct {
	mu        sync.Mutex
	responses []*network.Response
	cond      *sync.Cond
}

func newRecordingChannel() *recordingChannel {
	c := &recordingChannel{}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *recordingChannel) SendResponse(r *network.Response) {
	c.mu.Lock()
	c.responses = append(c.responses, r)
	c.cond.Broadcast()
	c.mu.Unlock()
}

func (c *recordingChannel) NoOperation(r *network.Request) {
	c.SendResponse(&network.Response{Request: r, Action: network.NoOpAction})
}

func (c *recordingChannel) CloseConnection(r *network.Request) {
	c.SendResponse(&network.Response{Request: r, Action: network.CloseConnectionAction})
}

func (c *recordingChannel) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.responses)
}

// take waits for the next response.
func (c *recordingChannel) take(t testing.TB) *network.Response {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.responses) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no response")
		}
		c.mu.Unlock()
		time.Sleep(time.Millisecond)
		c.mu.Lock()
	}
	r := c.responses[0]
	c.responses = c.responses[1:]
	return r
}

// decode writes the response's Send and parses it as key at version.
func decode(t testing.TB, r *network.Response, key protocol.ApiKeys, version int16) protocol.Message {
	t.Helper()
	if r.Action != network.SendAction || r.Send == nil {
		t.Fatalf("response action %v, want a send", r.Action)
	}
	var buf bytes.Buffer
	if _, err := r.Send.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if len(b) < 8 || int(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3])) != len(b)-4 {
		t.Fatalf("bad size prefix in % x", b[:min(len(b), 8)])
	}
	_, body, err := protocol.ReadResponseHeader(b[4:])
	if err != nil {
		t.Fatal(err)
	}
	m, err := protocol.ParseResponse(key, version, body)
	if err != nil {
		t.Fatalf("parsing %s v%d: %v", key, version, err)
	}
	return m
}

// apisEnv is a KafkaApis on a real LogManager and ReplicaManager, without ZooKeeper, with the
// purgatories on a MockTimer.
type apisEnv struct {
	clock *common.MockTime
	sched *utils.MockScheduler
	lm    *log.LogManager
	rm    *ReplicaManager
	cache *MetadataCache
	ch    *recordingChannel
	apis  *KafkaApis
	corr  int32
	// halts counts the ReplicaManager's calls of Exit (where Kafka halts the JVM).
	halts *atomic.Int32
}

func newApisEnv(t testing.TB, extra map[string]string) *apisEnv {
	t.Helper()
	props := map[string]string{"auto.create.topics.enable": "false"}
	for k, v := range extra {
		props[k] = v
	}
	cfg := brokerConfig(t, "localhost:2181", t.TempDir(), props)
	clock := common.NewMockTime(1_700_000_000_000)
	lc, err := logConfigFromKafka(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := log.NewLogManager(log.LogManagerConfig{LogDirs: cfg.LogDirs, DefaultConfig: lc, IOThreads: 1},
		utils.NewMockScheduler(clock), nil, clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	loggers, _ := testLoggers(t)
	sched := utils.NewMockScheduler(clock)
	cache := NewMetadataCache(0, nil)
	halts := new(atomic.Int32)
	rm, err := NewReplicaManager(ReplicaManagerConfig{Config: cfg, Time: clock, LogManager: lm, Scheduler: sched,
		DefaultLogConfig: lc, Logger: loggers.Server, MetadataCache: cache, Exit: func(int) { halts.Add(1) },
		ProducePurgatory: purgatory.NewDelayedOperationPurgatoryWithTimer[*DelayedProduce]("Produce", timer.NewMockTimer(clock), 0, 1000, false, nil),
		FetchPurgatory:   purgatory.NewDelayedOperationPurgatoryWithTimer[*DelayedFetch]("Fetch", timer.NewMockTimer(clock), 0, 1000, false, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rm.Shutdown(false)
		_ = lm.Shutdown()
	})
	ch := newRecordingChannel()
	apis := NewKafkaApis(KafkaApisConfig{RequestChannel: ch, ReplicaManager: rm, BrokerID: 0, Config: cfg, MetadataCache: cache,
		ClusterID: "test-cluster-id-000000", Logger: loggers.Server})
	return &apisEnv{clock: clock, sched: sched, lm: lm, rm: rm, cache: cache, ch: ch, apis: apis, halts: halts}
}

// handle runs one request through KafkaApis.
func (e *apisEnv) handle(m protocol.Message, clientID string) *network.Request {
	e.corr++
	req := &network.Request{ConnectionID: "c", ListenerName: "PLAINTEXT", Body: m,
		Header: protocol.RequestHeader{ApiKey: m.Key(), ApiVersion: m.GetVersion(), CorrelationID: e.corr, ClientID: &clientID}}
	e.apis.Handle(req)
	return req
}

// lead makes broker 0 the leader (ISR isr, default [0]) of topic's partitions, through KafkaApis.
func (e *apisEnv) lead(t testing.TB, topic string, partitions int32, replicas []int32, isr ...int32) {
	if len(isr) == 0 {
		isr = []int32{0}
	}
	t.Helper()
	lr := &protocol.LeaderAndIsrRequest{ControllerID: 0, ControllerEpoch: 1}
	ur := &protocol.UpdateMetadataRequest{Version: 3, ControllerID: 0, ControllerEpoch: 1,
		LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{{ID: 0, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{
			{Port: 9092, Host: "h0", ListenerName: "PLAINTEXT"}}}}}
	for p := int32(0); p < partitions; p++ {
		lr.PartitionStates = append(lr.PartitionStates, protocol.LeaderAndIsrRequestPartitionState{Topic: topic, Partition: p,
			ControllerEpoch: 1, Leader: 0, LeaderEpoch: 0, Isr: isr, Replicas: replicas})
		ur.PartitionStates = append(ur.PartitionStates, protocol.UpdateMetadataRequestPartitionState{Topic: topic, Partition: p,
			ControllerEpoch: 1, Leader: 0, LeaderEpoch: 0, Isr: isr, Replicas: replicas})
	}
	e.handle(lr, "controller")
	if r := decode(t, e.ch.take(t), protocol.LeaderAndIsr, 0).(*protocol.LeaderAndIsrResponse); r.ErrorCode != 0 {
		t.Fatalf("LeaderAndIsr %+v", r)
	}
	e.handle(ur, "controller")
	if r := decode(t, e.ch.take(t), protocol.UpdateMetadata, 3).(*protocol.UpdateMetadataResponse); r.ErrorCode != 0 {
		t.Fatalf("UpdateMetadata %+v", r)
	}
}

// follow makes broker 0 a follower of broker 1 (alive on 127.0.0.1:1, where nothing listens) for
// partition 0 of topic, through KafkaApis; the LeaderAndIsr answer is left queued.
func (e *apisEnv) follow(t testing.TB, topic string) {
	t.Helper()
	// The new leader must be alive in the metadata cache for this broker to follow it.
	e.handle(&protocol.UpdateMetadataRequest{Version: 3, ControllerID: 0, ControllerEpoch: 1,
		LiveBrokers: []protocol.UpdateMetadataRequestLiveBroker{
			{ID: 0, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: 9092, Host: "h0", ListenerName: "PLAINTEXT"}}},
			{ID: 1, EndPoints: []protocol.UpdateMetadataRequestLiveBrokerEndPoint{{Port: 1, Host: "127.0.0.1", ListenerName: "PLAINTEXT"}}}}}, "c")
	e.ch.take(t)
	e.handle(&protocol.LeaderAndIsrRequest{ControllerID: 0, ControllerEpoch: 1, PartitionStates: []protocol.LeaderAndIsrRequestPartitionState{
		{Topic: topic, Partition: 0, ControllerEpoch: 1, Leader: 1, LeaderEpoch: 1, Isr: []int32{1, 0}, Replicas: []int32{1, 0}}}}, "c")
}
