package fetcher

import (
	"math"
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
)

// The fetchers' metrics.
//
//   - Per thread, FetcherStats: kafka.server:type=FetcherStats,name={RequestsPerSec,BytesPerSec},
//     clientId=<thread's client id>,brokerHost=<h>,brokerPort=<p>; a fetch attempt marks the
//     first, the valid bytes appended the second.
//   - Per partition, FetcherLagMetrics: kafka.server:type=FetcherLagMetrics,name=ConsumerLag,
//     clientId=<c>,topic=<t>,partition=<p>, the source's high watermark minus the next offset to
//     fetch, set from each fetch response and dropped when the partition leaves the thread.
//   - Per manager: <group>:type=<manager type>,name={MaxLag,MinFetchRate},clientId=<c>, the
//     largest lag and the smallest one-minute request rate over its threads.
//
// Kafka 0.10.2: kafka.server.FetcherStats, FetcherLagStats, FetcherLagMetrics and the gauges of
// AbstractFetcherManager. As in Kafka, a thread's metrics go when the thread is shut down.

// fetcherMetrics are one thread's FetcherStats meters and the group its lag gauges go in.
type fetcherMetrics struct {
	reg         *metrics.Registry
	requestRate *metrics.Meter
	byteRate    *metrics.Meter
}

func (t *AbstractFetcherThread) statsTags() []metrics.Tag {
	return metrics.Tags("clientId", t.clientID, "brokerHost", t.sourceBroker.Host,
		"brokerPort", strconv.Itoa(int(t.sourceBroker.Port)))
}

func lagTags(clientID string, tp common.TopicPartition) []metrics.Tag {
	return metrics.Tags("clientId", clientID, "topic", tp.Topic, "partition", strconv.Itoa(int(tp.Partition)))
}

func fetcherStatsGroup(reg *metrics.Registry) metrics.KafkaMetricsGroup {
	return metrics.NewKafkaMetricsGroup(reg, "kafka.server", "FetcherStats")
}

func fetcherLagGroup(reg *metrics.Registry) metrics.KafkaMetricsGroup {
	return metrics.NewKafkaMetricsGroup(reg, "kafka.server", "FetcherLagMetrics")
}

// registerMetrics creates the thread's FetcherStats meters (before Start; nil: none).
func (t *AbstractFetcherThread) registerMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	g := fetcherStatsGroup(reg)
	t.metrics.Store(&fetcherMetrics{reg: reg,
		requestRate: g.NewMeter("RequestsPerSec", "requests", time.Second, t.statsTags()...),
		byteRate:    g.NewMeter("BytesPerSec", "bytes", time.Second, t.statsTags()...)})
}

// unregisterMetrics removes the thread's meters and lag gauges (after it has stopped).
func (t *AbstractFetcherThread) unregisterMetrics() {
	fm := t.metrics.Swap(nil)
	if fm == nil {
		return
	}
	g := fetcherStatsGroup(fm.reg)
	g.RemoveMetric("RequestsPerSec", t.statsTags()...)
	g.RemoveMetric("BytesPerSec", t.statsTags()...)
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	for tp := range t.lags {
		fetcherLagGroup(fm.reg).RemoveMetric("ConsumerLag", lagTags(t.clientID, tp)...)
	}
}

// markRequest counts one fetch attempt.
func (t *AbstractFetcherThread) markRequest() {
	if fm := t.metrics.Load(); fm != nil {
		fm.requestRate.Mark(1)
	}
}

// markBytes counts fetched bytes appended.
func (t *AbstractFetcherThread) markBytes(n int) {
	if fm := t.metrics.Load(); fm != nil {
		fm.byteRate.Mark(int64(n))
	}
}

// requestRate1 is the thread's one-minute fetch request rate (0 without metrics).
func (t *AbstractFetcherThread) requestRate1() float64 {
	if fm := t.metrics.Load(); fm != nil {
		return fm.requestRate.Rate1()
	}
	return 0
}

// setLag records how far tp is behind its source: the source's high watermark minus the next
// offset this thread will fetch, never negative. The partition's ConsumerLag gauge is
// registered the first time. Caller holds partitionMapLock.
func (t *AbstractFetcherThread) setLag(tp common.TopicPartition, lag int64) {
	if t.lags == nil {
		t.lags = map[common.TopicPartition]int64{}
	}
	_, known := t.lags[tp]
	t.lags[tp] = max(0, lag)
	if fm := t.metrics.Load(); fm != nil && !known {
		fetcherLagGroup(fm.reg).NewGauge("ConsumerLag", func() int64 { return t.lagOf(tp) }, lagTags(t.clientID, tp)...)
	}
}

// removeLag forgets tp's lag and drops its gauge. Caller holds partitionMapLock.
func (t *AbstractFetcherThread) removeLag(tp common.TopicPartition) {
	if _, ok := t.lags[tp]; !ok {
		return
	}
	delete(t.lags, tp)
	if fm := t.metrics.Load(); fm != nil {
		fetcherLagGroup(fm.reg).RemoveMetric("ConsumerLag", lagTags(t.clientID, tp)...)
	}
}

// IsReplicaInSync reports whether tp had caught up with its source (lag 0) at the last fetch
// response; false before the first. Caller holds partitionMapLock: the hooks call it from
// BuildFetchRequest, which runs under it.
//
// Kafka 0.10.2: FetcherLagStats.isReplicaInSync.
func (t *AbstractFetcherThread) IsReplicaInSync(tp common.TopicPartition) bool {
	lag, ok := t.lags[tp]
	return ok && lag <= 0
}

// lagOf is tp's last lag (0 when unknown).
func (t *AbstractFetcherThread) lagOf(tp common.TopicPartition) int64 {
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	return t.lags[tp]
}

// MaxLag is the largest lag among this thread's partitions (0 when it has none).
func (t *AbstractFetcherThread) MaxLag() int64 {
	t.partitionMapLock.Lock()
	defer t.partitionMapLock.Unlock()
	var m int64
	for _, l := range t.lags {
		m = max(m, l)
	}
	return m
}

// RegisterMetrics registers the manager's gauges, <group>:type=<typeName>,name=MaxLag and
// name=MinFetchRate, tagged clientId=<id> (kafka.server:type=ReplicaFetcherManager for the
// replica fetchers), and gives the registry to the threads it creates from now on. MaxLag is
// the largest lag of any partition on any thread (0 without threads); MinFetchRate the
// smallest one-minute fetch rate of a thread (math.MaxFloat64 without threads, as Kafka's
// Double.MaxValue). A nil registry registers nothing.
func (m *AbstractFetcherManager) RegisterMetrics(reg *metrics.Registry, group, typeName string) {
	if reg == nil {
		return
	}
	m.mapLock.Lock()
	m.registry = reg
	m.mapLock.Unlock()
	g := metrics.NewKafkaMetricsGroup(reg, group, typeName)
	tags := metrics.Tags("clientId", m.clientID)
	g.NewGauge("MaxLag", func() int64 {
		m.mapLock.Lock()
		defer m.mapLock.Unlock()
		var lag int64
		for _, f := range m.fetcherThreadMap {
			lag = max(lag, f.MaxLag())
		}
		return lag
	}, tags...)
	g.NewGaugeFloat64("MinFetchRate", func() float64 {
		m.mapLock.Lock()
		defer m.mapLock.Unlock()
		rate := math.MaxFloat64
		for _, f := range m.fetcherThreadMap {
			rate = math.Min(rate, f.requestRate1())
		}
		return rate
	}, tags...)
}
