package metrics

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return string(b)
}

func exampleRegistry(t *testing.T) (*Registry, *fakeClock) {
	reg, clock := newFakeRegistry()
	bts := NewBrokerTopicStats(reg)
	bts.BrokerAllTopicsStats().MessagesInRate.Mark(50)
	bts.TopicStats("t").BytesInRate.Mark(1000)
	clock.advance(5 * time.Second)
	NewKafkaMetricsGroup(reg, "kafka.server", "ReplicaManager").NewGauge("UnderReplicatedPartitions", func() int64 { return 2 })
	NewKafkaMetricsGroup(reg, "kafka.network", "SocketServer").NewGaugeFloat64("NetworkProcessorAvgIdlePercent", func() float64 { return 0.75 })
	h := NewKafkaMetricsGroup(reg, "kafka.network", "RequestMetrics").NewHistogram("TotalTimeMs", true, Tags("request", "Produce")...)
	h.Update(4)
	h.Update(8)
	NewKafkaMetricsGroup(reg, "kafka.log", "LogFlushStats").NewTimer("LogFlushRateAndTimeMs", time.Millisecond, time.Second).Update(6 * time.Millisecond)
	return reg, clock
}

// TestHTTPEndpoints serves a registry on loopback and reads both views over real HTTP.
func TestHTTPEndpoints(t *testing.T) {
	reg, _ := exampleRegistry(t)
	rep, err := Serve(t.Context(), "127.0.0.1:0", reg)
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Shutdown()
	base := "http://" + rep.Addr().String()

	var all map[string]map[string]any
	if err := json.Unmarshal([]byte(get(t, base+JSONPath)), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != len(reg.Names()) {
		t.Fatalf("JSON has %d metrics, registry %d", len(all), len(reg.Names()))
	}
	checks := []struct {
		name, field string
		want        float64
	}{
		{"kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec", "count", 50},
		{"kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec", "1m.rate", 10},
		{"kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=t", "count", 1000},
		{"kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions", "value", 2},
		{"kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent", "value", 0.75},
		{"kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce", "max", 8},
		{"kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce", "count", 2},
		{"kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs", "max", 6},
		{"kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs", "count", 1},
	}
	for _, c := range checks {
		if got, _ := all[c.name][c.field].(float64); got != c.want {
			t.Errorf("JSON %s %s = %v, want %v", c.name, c.field, all[c.name][c.field], c.want)
		}
	}

	var some map[string]map[string]any
	if err := json.Unmarshal([]byte(get(t, base+JSONPath+"?name=kafka.server:type=BrokerTopicMetrics,name=*")), &some); err != nil {
		t.Fatal(err)
	}
	if len(some) != 16 { // 8 all-topics meters + 8 for topic t
		t.Fatalf("filtered JSON has %d metrics: %v", len(some), some)
	}

	text := get(t, base+PrometheusPath)
	for _, line := range []string{
		"# TYPE kafka_server_BrokerTopicMetrics_MessagesInPerSec_total counter",
		"kafka_server_BrokerTopicMetrics_MessagesInPerSec_total 50",
		"kafka_server_BrokerTopicMetrics_MessagesInPerSec_one_minute_rate 10",
		`kafka_server_BrokerTopicMetrics_BytesInPerSec_total{topic="t"} 1000`,
		"# TYPE kafka_server_ReplicaManager_UnderReplicatedPartitions gauge",
		"kafka_server_ReplicaManager_UnderReplicatedPartitions 2",
		"kafka_network_SocketServer_NetworkProcessorAvgIdlePercent 0.75",
		"# TYPE kafka_network_RequestMetrics_TotalTimeMs summary",
		`kafka_network_RequestMetrics_TotalTimeMs{request="Produce",quantile="0.999"} 8`,
		`kafka_network_RequestMetrics_TotalTimeMs_sum{request="Produce"} 12`,
		`kafka_network_RequestMetrics_TotalTimeMs_count{request="Produce"} 2`,
		`kafka_network_RequestMetrics_TotalTimeMs_max{request="Produce"} 8`,
		"kafka_log_LogFlushStats_LogFlushRateAndTimeMs_count 1",
		"kafka_log_LogFlushStats_LogFlushRateAndTimeMs_max 6",
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("Prometheus text lacks %q", line)
		}
	}
	// Every family's TYPE line appears once and before its samples.
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(l, "# TYPE ") {
			f := strings.Fields(l)[2]
			if seen[f] {
				t.Errorf("family %s typed twice", f)
			}
			seen[f] = true
		}
	}

	if err := rep.Shutdown(); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := http.Get(base + JSONPath); err == nil {
		t.Fatal("server still answering after Shutdown")
	}
}

func TestServeStopsWithContext(t *testing.T) {
	reg, _ := newFakeRegistry()
	ctx, cancel := context.WithCancel(context.Background())
	rep, err := Serve(ctx, "127.0.0.1:0", reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Serve(ctx, rep.Addr().String(), reg); err == nil {
		t.Fatal("a second Serve on a bound port must fail")
	}
	cancel()
	select {
	case <-rep.done:
	case <-time.After(5 * time.Second):
		t.Fatal("reporter still running after its context was cancelled")
	}
}

func TestPrometheusNames(t *testing.T) {
	f, l := promName(`kafka.server:type=FetcherStats,name=BytesPerSec,clientId=c-1,brokerHost="::1",brokerPort=9092`)
	if f != "kafka_server_FetcherStats_BytesPerSec" || l != `clientId="c-1",brokerHost="::1",brokerPort="9092"` {
		t.Fatalf("promName = %q %q", f, l)
	}
	if got := escapeLabel("a\"b\\c\nd"); got != `a\"b\\c\nd` {
		t.Fatalf("escapeLabel = %q", got)
	}
	if got := sanitize("9-lives.x"); got != "_9_lives_x" {
		t.Fatalf("sanitize = %q", got)
	}
}
