package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestKafkaServerMetricsReporter starts one broker (hosting the controller) with the HTTP
// reporter on an ephemeral port, creates a topic through ZooKeeper, produces and consumes through
// sarama, and reads /metrics.json: every layer's metrics are there with the values this traffic
// implies. After Shutdown the reporter is gone.
func TestKafkaServerMetricsReporter(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	cfg := brokerConfig(t, connect, t.TempDir(), map[string]string{
		MetricsHTTPPortProp: "0", MetricsHTTPHostProp: "127.0.0.1"})
	srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	addr := srv.MetricsReporterAddr()
	if addr == nil {
		t.Fatal("no metrics reporter although metrics.http.port is set")
	}
	gauge := func(name string) float64 {
		t.Helper()
		v, ok := srv.Metrics.GaugeValue(name)
		if !ok {
			t.Fatalf("gauge %s not registered", name)
		}
		return v
	}
	zktest.WaitUntilTrue(t, func() bool {
		return gauge("kafka.controller:type=KafkaController,name=ActiveControllerCount") == 1
	}, "active controller", 20*time.Second)

	const topic = "metered"
	if err := srv.ZkUtils().CreatePersistentPath(zkutils.TopicPath(topic),
		zkutils.ReplicaAssignmentZkData(map[int32][]int32{0: {0}})); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return gauge("kafka.server:type=ReplicaManager,name=LeaderCount") == 1
	}, "leader of the new partition", 20*time.Second)
	zktest.WaitUntilTrue(t, func() bool {
		return srv.MetadataCache().Contains(topic)
	}, "metadata for the new topic", 20*time.Second)
	const n = 50
	first := produceAndConsume(t, fmt.Sprintf("127.0.0.1:%d", srv.BoundPort("PLAINTEXT")), sarama.V0_10_2_0,
		sarama.CompressionNone, topic, 0, time.Now().Truncate(time.Millisecond), n)
	if first != 0 {
		t.Fatalf("first offset %d", first)
	}
	if err := srv.LogManager().GetLog(tpOf(topic, 0)).Flush(); err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get("http://" + addr.String() + "/metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]float64
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	field := func(name, key string) float64 {
		t.Helper()
		m, ok := got[name]
		if !ok {
			t.Errorf("%s missing from /metrics.json", name)
			return -1
		}
		v, ok := m[key]
		if !ok {
			t.Errorf("%s has no %q: %v", name, key, m)
			return -1
		}
		return v
	}
	logTags := ",topic=" + topic + ",partition=0"
	for _, c := range []struct {
		name, key string
		check     func(float64) bool
		want      string
	}{
		{"kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec", "count", metricEq(n), fmt.Sprint(n)},
		{"kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=" + topic, "count", metricEq(n), fmt.Sprint(n)},
		{"kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=" + topic, "count", metricGt(0), "> 0"},
		{"kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec", "count", metricGt(0), "> 0"},
		{"kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec", "count", metricGt(0), "> 0"},
		{"kafka.server:type=BrokerTopicMetrics,name=TotalFetchRequestsPerSec", "count", metricGt(0), "> 0"},
		{"kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec", "count", metricEq(0), "0"},
		{"kafka.server:type=BrokerTopicMetrics,name=BytesRejectedPerSec", "count", metricEq(0), "0"},
		{"kafka.server:type=ReplicaManager,name=LeaderCount", "value", metricEq(1), "1"},
		{"kafka.server:type=ReplicaManager,name=PartitionCount", "value", metricEq(1), "1"},
		{"kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions", "value", metricEq(0), "0"},
		{"kafka.server:type=ReplicaManager,name=IsrExpandsPerSec", "count", metricEq(0), "0"},
		{"kafka.server:type=ReplicaManager,name=IsrShrinksPerSec", "count", metricEq(0), "0"},
		{"kafka.server:type=KafkaServer,name=BrokerState", "value", metricEq(3), "3 (RunningAsBroker)"},
		{"kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent", "count", metricGt(0), "> 0"},
		{"kafka.controller:type=KafkaController,name=ActiveControllerCount", "value", metricEq(1), "1"},
		{"kafka.controller:type=KafkaController,name=OfflinePartitionsCount", "value", metricEq(0), "0"},
		{"kafka.controller:type=KafkaController,name=PreferredReplicaImbalanceCount", "value", metricEq(0), "0"},
		{"kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec", "count", metricEq(0), "0"},
		{"kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs", "count", metricGe(0), ">= 0"},
		{"kafka.log:type=Log,name=NumLogSegments" + logTags, "value", metricEq(1), "1"},
		{"kafka.log:type=Log,name=LogStartOffset" + logTags, "value", metricEq(0), "0"},
		{"kafka.log:type=Log,name=LogEndOffset" + logTags, "value", metricEq(n), fmt.Sprint(n)},
		{"kafka.log:type=Log,name=Size" + logTags, "value", metricGt(0), "> 0"},
		{"kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs", "count", metricGt(0), "> 0"},
		{"kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Produce", "value", metricGe(0), ">= 0"},
		{"kafka.server:type=DelayedOperationPurgatory,name=NumDelayedOperations,delayedOperation=Produce", "value", metricGe(0), ">= 0"},
		{"kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Fetch", "value", metricGe(0), ">= 0"},
		{"kafka.server:type=DelayedOperationPurgatory,name=NumDelayedOperations,delayedOperation=Fetch", "value", metricGe(0), ">= 0"},
		{"kafka.cluster:type=Partition,name=UnderReplicated" + logTags, "value", metricEq(0), "0"},
		{"kafka.cluster:type=Partition,name=InSyncReplicasCount" + logTags, "value", metricEq(1), "1"},
		{"kafka.cluster:type=Partition,name=ReplicasCount" + logTags, "value", metricEq(1), "1"},
		{"kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica", "value", metricEq(0), "0 (no followers)"},
		{"kafka.server:type=DelayedProduceMetrics,name=ExpiresPerSec", "count", metricEq(0), "0"},
		{"kafka.server:type=DelayedFetchMetrics,name=ExpiresPerSec,fetcherType=consumer", "count", metricGe(0), ">= 0"},
		{"kafka.server:type=SessionExpireListener,name=ZooKeeperExpiresPerSec", "count", metricEq(0), "0"},
		{"kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce", "count", metricGt(0), "> 0"},
		{"kafka.network:type=RequestMetrics,name=LocalTimeMs,request=Produce", "count", metricGt(0), "> 0"},
		{"kafka.network:type=RequestMetrics,name=RemoteTimeMs,request=FetchConsumer", "count", metricGt(0), "> 0"},
	} {
		if v := field(c.name, c.key); v >= 0 && !c.check(v) {
			t.Errorf("%s %s = %v, want %s", c.name, c.key, v, c.want)
		}
	}

	srv.Shutdown()
	if srv.MetricsReporterAddr() != nil {
		t.Error("reporter still set after Shutdown")
	}
	if resp, err := http.Get("http://" + addr.String() + "/metrics.json"); err == nil {
		resp.Body.Close()
		t.Error("reporter still serving after Shutdown")
	}
}

func metricEq(want float64) func(float64) bool { return func(v float64) bool { return v == want } }
func metricGt(min float64) func(float64) bool  { return func(v float64) bool { return v > min } }
func metricGe(min float64) func(float64) bool  { return func(v float64) bool { return v >= min } }
