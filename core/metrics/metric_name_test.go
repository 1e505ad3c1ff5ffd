package metrics

import (
	"strings"
	"testing"
	"time"
)

// TestMetricNamesAreKafkas builds every metric the brief lists the way its Kafka 0.10.2 owner
// does, and compares the registry keys with the JMX names, byte for byte (docs/ops.html's
// monitoring table and the newMeter/newGauge/newHistogram/newTimer calls in core/src/main/scala).
func TestMetricNamesAreKafkas(t *testing.T) {
	cases := []struct {
		group, typ, name string
		tags             []Tag
		want             string
	}{
		{"kafka.server", "BrokerTopicMetrics", "MessagesInPerSec", nil, "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec"},
		{"kafka.server", "BrokerTopicMetrics", "BytesInPerSec", Tags("topic", "t"), "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=t"},
		{"kafka.network", "RequestMetrics", "RequestsPerSec", Tags("request", "Produce"), "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce"},
		{"kafka.network", "RequestMetrics", "TotalTimeMs", Tags("request", "Fetch"), "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Fetch"},
		{"kafka.network", "RequestMetrics", "RequestQueueTimeMs", Tags("request", "FetchConsumer"), "kafka.network:type=RequestMetrics,name=RequestQueueTimeMs,request=FetchConsumer"},
		{"kafka.network", "RequestChannel", "RequestQueueSize", nil, "kafka.network:type=RequestChannel,name=RequestQueueSize"},
		{"kafka.network", "RequestChannel", "ResponseQueueSize", Tags("processor", "2"), "kafka.network:type=RequestChannel,name=ResponseQueueSize,processor=2"},
		{"kafka.network", "SocketServer", "NetworkProcessorAvgIdlePercent", nil, "kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent"},
		{"kafka.network", "Processor", "IdlePercent", Tags("networkProcessor", "0"), "kafka.network:type=Processor,name=IdlePercent,networkProcessor=0"},
		{"kafka.server", "ReplicaManager", "UnderReplicatedPartitions", nil, "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"},
		{"kafka.server", "ReplicaManager", "IsrShrinksPerSec", nil, "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec"},
		{"kafka.controller", "KafkaController", "ActiveControllerCount", nil, "kafka.controller:type=KafkaController,name=ActiveControllerCount"},
		{"kafka.controller", "ControllerStats", "LeaderElectionRateAndTimeMs", nil, "kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs"},
		{"kafka.server", "DelayedOperationPurgatory", "PurgatorySize", Tags("delayedOperation", "Produce"), "kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Produce"},
		{"kafka.log", "Log", "LogEndOffset", Tags("topic", "t", "partition", "0"), "kafka.log:type=Log,name=LogEndOffset,topic=t,partition=0"},
		{"kafka.log", "LogFlushStats", "LogFlushRateAndTimeMs", nil, "kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs"},
		{"kafka.server", "KafkaServer", "BrokerState", nil, "kafka.server:type=KafkaServer,name=BrokerState"},
		{"kafka.server", "KafkaRequestHandlerPool", "RequestHandlerAvgIdlePercent", nil, "kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent"},
		{"kafka.server", "FetcherStats", "BytesPerSec", Tags("clientId", "ReplicaFetcherThread-0-1", "brokerHost", "::1", "brokerPort", "9092"),
			`kafka.server:type=FetcherStats,name=BytesPerSec,clientId=ReplicaFetcherThread-0-1,brokerHost="::1",brokerPort=9092`},
		{"kafka.server", "BrokerTopicMetrics", "BytesInPerSec", Tags("topic", ""), "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec"},
		{"kafka.server", "KafkaServer", "", nil, "kafka.server:type=KafkaServer"},
	}
	for _, c := range cases {
		n := NewMetricName(c.group, c.typ, c.name, c.tags...)
		if got := n.MBeanName(); got != c.want {
			t.Errorf("MBeanName = %s\n            want %s", got, c.want)
		}
		g, props, ok := ParseMBeanName(c.want)
		if !ok || g != c.group || props[0] != (Tag{"type", c.typ}) {
			t.Errorf("ParseMBeanName(%s) = %q %v %v", c.want, g, props, ok)
		}
	}
	if got := NewMetricName("kafka.log", "Log", "Size", Tags("topic", "a.b", "partition", "3")...).Scope(); got != "partition.3.topic.a_b" {
		t.Errorf("Scope = %q", got)
	}
	if got := NewMetricName("kafka.server", "DelayedOperationPurgatory", "PurgatorySize",
		TagsFromMap(map[string]string{"delayedOperation": "Fetch"})...).MBeanName(); got != "kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Fetch" {
		t.Errorf("TagsFromMap name = %s", got)
	}
	if got := quoteIfRequired(`fe80::1"*?\` + "\n"); got != `"fe80::1\"\*\?\\\n"` {
		t.Errorf("quote = %s", got)
	}
	_, props, ok := ParseMBeanName(NewMetricName("g", "T", "N", Tags("h", "a:\"b\n")...).MBeanName())
	if !ok || props[2].Value != "a:\"b\n" {
		t.Errorf("quoted value round trip: %v %v", props, ok)
	}
}

// TestRegisteredNamesGolden registers metrics through the helpers the way their owners will and
// checks the registry's key set equals the golden list.
func TestRegisteredNamesGolden(t *testing.T) {
	reg, _ := newFakeRegistry()
	NewBrokerTopicStats(reg).TopicStats("t")
	rm := NewKafkaMetricsGroup(reg, "kafka.server", "ReplicaManager")
	for _, n := range []string{"UnderReplicatedPartitions", "PartitionCount", "LeaderCount"} {
		rm.NewGauge(n, func() int64 { return 0 })
	}
	rm.NewMeter("IsrShrinksPerSec", "shrinks", time.Second)
	rm.NewMeter("IsrExpandsPerSec", "expands", time.Second)
	kc := NewKafkaMetricsGroup(reg, "kafka.controller", "KafkaController")
	for _, n := range []string{"ActiveControllerCount", "OfflinePartitionsCount", "PreferredReplicaImbalanceCount"} {
		kc.NewGauge(n, func() int64 { return 0 })
	}
	cs := NewKafkaMetricsGroup(reg, "kafka.controller", "ControllerStats")
	cs.NewTimer("LeaderElectionRateAndTimeMs", time.Millisecond, time.Second)
	cs.NewMeter("UncleanLeaderElectionsPerSec", "elections", time.Second)
	for _, p := range []string{"Produce", "Fetch", "Heartbeat", "Rebalance"} {
		g := NewKafkaMetricsGroup(reg, "kafka.server", "DelayedOperationPurgatory")
		g.NewGauge("PurgatorySize", func() int64 { return 0 }, Tags("delayedOperation", p)...)
		g.NewGauge("NumDelayedOperations", func() int64 { return 0 }, Tags("delayedOperation", p)...)
	}
	lg := NewKafkaMetricsGroup(reg, "kafka.log", "Log")
	for _, n := range []string{"LogEndOffset", "LogStartOffset", "NumLogSegments", "Size"} {
		lg.NewGauge(n, func() int64 { return 0 }, Tags("topic", "t", "partition", "0")...)
	}
	NewKafkaMetricsGroup(reg, "kafka.log", "LogFlushStats").NewTimer("LogFlushRateAndTimeMs", time.Millisecond, time.Second)
	NewKafkaMetricsGroup(reg, "kafka.server", "KafkaServer").NewGauge("BrokerState", func() int64 { return 3 })
	NewKafkaMetricsGroup(reg, "kafka.server", "KafkaRequestHandlerPool").NewMeter("RequestHandlerAvgIdlePercent", "percent", time.Nanosecond)

	golden := `kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs
kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec
kafka.controller:type=KafkaController,name=ActiveControllerCount
kafka.controller:type=KafkaController,name=OfflinePartitionsCount
kafka.controller:type=KafkaController,name=PreferredReplicaImbalanceCount
kafka.log:type=Log,name=LogEndOffset,topic=t,partition=0
kafka.log:type=Log,name=LogStartOffset,topic=t,partition=0
kafka.log:type=Log,name=NumLogSegments,topic=t,partition=0
kafka.log:type=Log,name=Size,topic=t,partition=0
kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs
kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec
kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=t
kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec
kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec,topic=t
kafka.server:type=BrokerTopicMetrics,name=BytesRejectedPerSec
kafka.server:type=BrokerTopicMetrics,name=BytesRejectedPerSec,topic=t
kafka.server:type=BrokerTopicMetrics,name=FailedFetchRequestsPerSec
kafka.server:type=BrokerTopicMetrics,name=FailedFetchRequestsPerSec,topic=t
kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec
kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec,topic=t
kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec
kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=t
kafka.server:type=BrokerTopicMetrics,name=TotalFetchRequestsPerSec
kafka.server:type=BrokerTopicMetrics,name=TotalFetchRequestsPerSec,topic=t
kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec
kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec,topic=t
kafka.server:type=DelayedOperationPurgatory,name=NumDelayedOperations,delayedOperation=Fetch
kafka.server:type=DelayedOperationPurgatory,name=NumDelayedOperations,delayedOperation=Heartbeat
kafka.server:type=DelayedOperationPurgatory,name=NumDelayedOperations,delayedOperation=Produce
kafka.server:type=DelayedOperationPurgatory,name=NumDelayedOperations,delayedOperation=Rebalance
kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Fetch
kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Heartbeat
kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Produce
kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize,delayedOperation=Rebalance
kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent
kafka.server:type=KafkaServer,name=BrokerState
kafka.server:type=ReplicaManager,name=IsrExpandsPerSec
kafka.server:type=ReplicaManager,name=IsrShrinksPerSec
kafka.server:type=ReplicaManager,name=LeaderCount
kafka.server:type=ReplicaManager,name=PartitionCount
kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions`
	if got := strings.Join(reg.Names(), "\n"); got != golden {
		t.Fatalf("registered names differ from the golden list:\n%s", got)
	}
}

func FuzzParseMBeanName(f *testing.F) {
	for _, s := range []string{"kafka.server:type=KafkaServer,name=BrokerState", `g:type=T,h="::1",x=y`, `g:type="unterminated`, "", ":", "a:b", "a:b=,=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, props, ok := ParseMBeanName(s)
		if !ok {
			return
		}
		// Re-rendering what was parsed and parsing again is stable.
		n := MetricName{Group: g}
		for _, p := range props {
			n.Tags = append(n.Tags, Tag{Key: p.Key, Value: p.Value})
		}
		_ = n.MBeanName()
	})
}
