package fetcher

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/metrics"
)

// The fetchers' lag bookkeeping and the manager's MaxLag gauge.
//
// Kafka 0.10.2: kafka.server.FetcherLagStats / FetcherLagMetrics (one lag per partition, set
// from each fetch response) and the MaxLag gauge of kafka.server.AbstractFetcherManager. The
// per-partition ConsumerLag gauges, FetcherStats and MinFetchRate are not registered.

// setLag records how far tp is behind its source: the source's high watermark minus the next
// offset this thread will fetch, never negative. Caller holds partitionMapLock.
func (t *AbstractFetcherThread) setLag(tp common.TopicPartition, lag int64) {
	if t.lags == nil {
		t.lags = map[common.TopicPartition]int64{}
	}
	t.lags[tp] = max(0, lag)
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

// RegisterMetrics registers the MaxLag gauge, <group>:type=<typeName>,name=MaxLag,clientId=<id>
// (kafka.server:type=ReplicaFetcherManager for the replica fetchers): the largest lag of any
// partition on any of the manager's threads. A nil registry registers nothing.
func (m *AbstractFetcherManager) RegisterMetrics(reg *metrics.Registry, group, typeName string) {
	if reg == nil {
		return
	}
	metrics.NewKafkaMetricsGroup(reg, group, typeName).NewGauge("MaxLag", func() int64 {
		m.mapLock.Lock()
		defer m.mapLock.Unlock()
		var lag int64
		for _, f := range m.fetcherThreadMap {
			lag = max(lag, f.MaxLag())
		}
		return lag
	}, metrics.Tags("clientId", m.clientID)...)
}
