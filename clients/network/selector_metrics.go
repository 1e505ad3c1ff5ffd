package network

import (
	"sort"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
)

// selectorMetrics are the Selector's metrics, in group <prefix>-metrics, and per connection in
// <prefix>-node-metrics tagged node-id=node-<id>. A nil *selectorMetrics records nothing.
//
// Kafka 0.10.2: Selector.SelectorMetrics (same sensor and metric names).
type selectorMetrics struct {
	m                  *metrics.Metrics
	time               common.Time
	grp, nodeGrp       string
	tags               map[string]string
	connectionClosedS  *metrics.Sensor
	connectionCreatedS *metrics.Sensor
	bytesSent          *metrics.Sensor
	bytesReceived      *metrics.Sensor
	selectTime         *metrics.Sensor
	ioTime             *metrics.Sensor
	topLevel           []metrics.MetricName
	sensors            []string
}

func newSelectorMetrics(m *metrics.Metrics, prefix string, tags map[string]string, t common.Time, connections func() int) *selectorMetrics {
	if m == nil {
		return nil
	}
	sm := &selectorMetrics{m: m, time: t, grp: prefix + "-metrics", nodeGrp: prefix + "-node-metrics", tags: tags}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var suffix strings.Builder
	for _, k := range keys {
		suffix.WriteString(k + "-" + tags[k])
	}
	sfx := suffix.String()
	name := func(n, desc string) metrics.MetricName { return m.MetricName(n, sm.grp, desc, tags) }
	add := func(s *metrics.Sensor, n metrics.MetricName, st metrics.MeasurableStat) { _ = s.Add(n, st, nil) }

	sm.connectionClosedS = sm.sensor("connections-closed:" + sfx)
	add(sm.connectionClosedS, name("connection-close-rate", "Connections closed per second in the window."), metrics.NewRate())
	sm.connectionCreatedS = sm.sensor("connections-created:" + sfx)
	add(sm.connectionCreatedS, name("connection-creation-rate", "New connections established per second in the window."), metrics.NewRate())
	transferred := sm.sensor("bytes-sent-received:" + sfx)
	add(transferred, name("network-io-rate", "The average number of network operations (reads or writes) on all connections per second."), metrics.NewRateOf(metrics.NewCount()))
	sm.bytesSent = sm.sensor("bytes-sent:"+sfx, transferred)
	add(sm.bytesSent, name("outgoing-byte-rate", "The average number of outgoing bytes sent per second to all servers."), metrics.NewRate())
	add(sm.bytesSent, name("request-rate", "The average number of requests sent per second."), metrics.NewRateOf(metrics.NewCount()))
	add(sm.bytesSent, name("request-size-avg", "The average size of all requests in the window.."), metrics.NewAvg())
	add(sm.bytesSent, name("request-size-max", "The maximum size of any request sent in the window."), metrics.NewMax())
	sm.bytesReceived = sm.sensor("bytes-received:"+sfx, transferred)
	add(sm.bytesReceived, name("incoming-byte-rate", "Bytes/second read off all sockets"), metrics.NewRate())
	add(sm.bytesReceived, name("response-rate", "Responses received sent per second."), metrics.NewRateOf(metrics.NewCount()))
	sm.selectTime = sm.sensor("select-time:" + sfx)
	add(sm.selectTime, name("select-rate", "Number of times the I/O layer checked for new I/O to perform per second"), metrics.NewRateOf(metrics.NewCount()))
	add(sm.selectTime, name("io-wait-time-ns-avg", "The average length of time the I/O thread spent waiting for a socket ready for reads or writes in nanoseconds."), metrics.NewAvg())
	add(sm.selectTime, name("io-wait-ratio", "The fraction of time the I/O thread spent waiting."), metrics.NewRateIn(time.Nanosecond))
	sm.ioTime = sm.sensor("io-time:" + sfx)
	add(sm.ioTime, name("io-time-ns-avg", "The average length of time for I/O per select call in nanoseconds."), metrics.NewAvg())
	add(sm.ioTime, name("io-ratio", "The fraction of time the I/O thread spent doing I/O"), metrics.NewRateIn(time.Nanosecond))
	cc := name("connection-count", "The current number of active connections.")
	sm.topLevel = append(sm.topLevel, cc)
	_ = m.AddMetric(cc, nil, metrics.MeasurableFunc(func(*metrics.MetricConfig, int64) float64 { return float64(connections()) }))
	return sm
}

func (sm *selectorMetrics) sensor(name string, parents ...*metrics.Sensor) *metrics.Sensor {
	sm.sensors = append(sm.sensors, name)
	return sm.m.Sensor(name, parents...)
}

// connectionCreated records a new connection and registers its per-node metrics (ids of
// bootstrap nodes, "-1", included, as in Kafka).
//
// Kafka 0.10.2: SelectorMetrics.maybeRegisterConnectionMetrics.
func (sm *selectorMetrics) connectionCreated(id string) {
	if sm == nil {
		return
	}
	_ = sm.connectionCreatedS.Record()
	if id == "" || sm.m.GetSensor("node-"+id+".bytes-sent") != nil {
		return
	}
	tags := make(map[string]string, len(sm.tags)+1)
	for k, v := range sm.tags {
		tags[k] = v
	}
	tags["node-id"] = "node-" + id
	name := func(n, desc string) metrics.MetricName { return sm.m.MetricName(n, sm.nodeGrp, desc, tags) }
	req := sm.sensor("node-" + id + ".bytes-sent")
	_ = req.Add(name("outgoing-byte-rate", ""), metrics.NewRate(), nil)
	_ = req.Add(name("request-rate", "The average number of requests sent per second."), metrics.NewRateOf(metrics.NewCount()), nil)
	_ = req.Add(name("request-size-avg", "The average size of all requests in the window.."), metrics.NewAvg(), nil)
	_ = req.Add(name("request-size-max", "The maximum size of any request sent in the window."), metrics.NewMax(), nil)
	resp := sm.sensor("node-" + id + ".bytes-received")
	_ = resp.Add(name("incoming-byte-rate", ""), metrics.NewRate(), nil)
	_ = resp.Add(name("response-rate", "The average number of responses received per second."), metrics.NewRateOf(metrics.NewCount()), nil)
	lat := sm.sensor("node-" + id + ".latency")
	_ = lat.Add(name("request-latency-avg", ""), metrics.NewAvg(), nil)
	_ = lat.Add(name("request-latency-max", ""), metrics.NewMax(), nil)
}

func (sm *selectorMetrics) connectionClosed() {
	if sm != nil {
		_ = sm.connectionClosedS.Record()
	}
}

func (sm *selectorMetrics) recordBytesSent(id string, n int64) {
	if sm == nil {
		return
	}
	now := sm.time.Milliseconds()
	_ = sm.bytesSent.RecordAt(float64(n), now)
	if s := sm.m.GetSensor("node-" + id + ".bytes-sent"); s != nil {
		_ = s.RecordAt(float64(n), now)
	}
}

func (sm *selectorMetrics) recordBytesReceived(id string, n int) {
	if sm == nil {
		return
	}
	now := sm.time.Milliseconds()
	_ = sm.bytesReceived.RecordAt(float64(n), now)
	if s := sm.m.GetSensor("node-" + id + ".bytes-received"); s != nil {
		_ = s.RecordAt(float64(n), now)
	}
}

func (sm *selectorMetrics) recordSelect(ns, nowMs int64) {
	if sm != nil {
		_ = sm.selectTime.RecordAt(float64(ns), nowMs)
	}
}

func (sm *selectorMetrics) recordIO(ns, nowMs int64) {
	if sm != nil {
		_ = sm.ioTime.RecordAt(float64(ns), nowMs)
	}
}

func (sm *selectorMetrics) close() {
	if sm == nil {
		return
	}
	for _, n := range sm.topLevel {
		sm.m.RemoveMetric(n)
	}
	for _, s := range sm.sensors {
		sm.m.RemoveSensor(s)
	}
}
