package fetcher

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/metrics"
)

// BrokerAndFetcherId names one fetcher: the source broker and the fetcher's index for it.
//
// Kafka 0.10.2: kafka.server.BrokerAndFetcherId.
type BrokerAndFetcherId struct {
	Broker    cluster.BrokerEndPoint
	FetcherID int
}

// BrokerAndInitialOffset is where to fetch a partition from, and from which offset.
//
// Kafka 0.10.2: kafka.server.BrokerAndInitialOffset.
type BrokerAndInitialOffset struct {
	Broker     cluster.BrokerEndPoint
	InitOffset int64
}

// AbstractFetcherManager spreads partitions over fetcher threads: numFetchers threads per source
// broker at most, a partition always going to the same fetcher index (a hash of topic and
// partition), threads created on demand and shut down when idle.
//
// Kafka 0.10.2: kafka.server.AbstractFetcherManager. The abstract createFetcherThread is the
// CreateFetcherThread function given to the constructor. RegisterMetrics adds the MaxLag gauge
// (fetcher_lag_stats.go); MinFetchRate is not registered.
type AbstractFetcherManager struct {
	name                string
	clientID            string
	numFetchers         int
	createFetcherThread func(fetcherID int, sourceBroker cluster.BrokerEndPoint) *AbstractFetcherThread
	logger              *logrus.Entry

	mapLock          sync.Mutex
	fetcherThreadMap map[BrokerAndFetcherId]*AbstractFetcherThread
	registry         *metrics.Registry // given to new threads (fetcher_lag_stats.go); guarded by mapLock
}

// NewAbstractFetcherManager makes a manager; create builds a (not yet started) thread.
func NewAbstractFetcherManager(name, clientID string, numFetchers int,
	create func(fetcherID int, sourceBroker cluster.BrokerEndPoint) *AbstractFetcherThread, logger *logrus.Entry) *AbstractFetcherManager {
	if logger == nil {
		logger = logrus.NewEntry(logrus.New())
		logger.Logger.SetLevel(logrus.PanicLevel)
	}
	return &AbstractFetcherManager{
		name: name, clientID: clientID, numFetchers: max(1, numFetchers), createFetcherThread: create,
		logger:           logger.WithField("ident", "["+name+"] "),
		fetcherThreadMap: map[BrokerAndFetcherId]*AbstractFetcherThread{},
	}
}

// getFetcherID is abs(31 * topic.hashCode + partition) % numFetchers, in Java int arithmetic, so a
// partition lands on the fetcher index Kafka would use.
func (m *AbstractFetcherManager) getFetcherID(topic string, partition int32) int {
	h := 31*common.JavaStringHashCode(topic) + partition
	return int(common.Abs(h)) % m.numFetchers
}

// AddFetcherForPartitions starts fetching each partition from its broker at its offset,
// creating and starting fetcher threads as needed.
func (m *AbstractFetcherManager) AddFetcherForPartitions(partitionAndOffsets map[common.TopicPartition]BrokerAndInitialOffset) error {
	m.mapLock.Lock()
	groups := map[BrokerAndFetcherId]map[common.TopicPartition]int64{}
	for tp, bo := range partitionAndOffsets {
		key := BrokerAndFetcherId{Broker: bo.Broker, FetcherID: m.getFetcherID(tp.Topic, tp.Partition)}
		if groups[key] == nil {
			groups[key] = map[common.TopicPartition]int64{}
		}
		groups[key][tp] = bo.InitOffset
	}
	var firstErr error
	for key, offsets := range groups {
		f, ok := m.fetcherThreadMap[key]
		if !ok {
			f = m.createFetcherThread(key.FetcherID, key.Broker)
			f.registerMetrics(m.registry)
			m.fetcherThreadMap[key] = f
			f.Start()
		}
		if err := f.AddPartitions(offsets); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	m.mapLock.Unlock()
	parts := make([]string, 0, len(partitionAndOffsets))
	for _, tp := range sortedTPs(partitionAndOffsets) {
		bo := partitionAndOffsets[tp]
		parts = append(parts, fmt.Sprintf("[%s, initOffset %d to broker %s] ", tp, bo.InitOffset, bo))
	}
	m.logger.Infof("Added fetcher for partitions %s", strings.Join(parts, ", "))
	return firstErr
}

// String formats like BrokerAndInitialOffset's broker (BrokerEndPoint(id,host,port)).
func (b BrokerAndInitialOffset) String() string {
	return fmt.Sprintf("BrokerEndPoint(%d,%s,%d)", b.Broker.ID, b.Broker.Host, b.Broker.Port)
}

// RemoveFetcherForPartitions stops fetching the partitions on every thread. When it returns no
// fetcher appends to them any more.
func (m *AbstractFetcherManager) RemoveFetcherForPartitions(tps map[common.TopicPartition]struct{}) {
	m.mapLock.Lock()
	for _, f := range m.fetcherThreadMap {
		f.RemovePartitions(tps)
	}
	m.mapLock.Unlock()
	names := make([]string, 0, len(tps))
	for _, tp := range sortedTPs(tps) {
		names = append(names, tp.String())
	}
	m.logger.Infof("Removed fetcher for partitions %s", strings.Join(names, ","))
}

// ShutdownIdleFetcherThreads stops the threads left without partitions.
func (m *AbstractFetcherManager) ShutdownIdleFetcherThreads() {
	m.mapLock.Lock()
	defer m.mapLock.Unlock()
	for key, f := range m.fetcherThreadMap {
		if f.PartitionCount() <= 0 {
			f.Shutdown()
			delete(m.fetcherThreadMap, key)
		}
	}
}

// CloseAllFetchers stops every thread: all are told first, then each is waited for.
func (m *AbstractFetcherManager) CloseAllFetchers() {
	m.mapLock.Lock()
	defer m.mapLock.Unlock()
	for _, f := range m.fetcherThreadMap {
		f.InitiateShutdown()
	}
	for _, f := range m.fetcherThreadMap {
		f.Shutdown()
	}
	clear(m.fetcherThreadMap)
}

// FetcherThreads lists the running threads by broker id and fetcher id (for tests and tools).
func (m *AbstractFetcherManager) FetcherThreads() []*AbstractFetcherThread {
	m.mapLock.Lock()
	defer m.mapLock.Unlock()
	keys := make([]BrokerAndFetcherId, 0, len(m.fetcherThreadMap))
	for k := range m.fetcherThreadMap {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b BrokerAndFetcherId) int {
		return cmp.Or(cmp.Compare(a.Broker.ID, b.Broker.ID), cmp.Compare(a.FetcherID, b.FetcherID))
	})
	out := make([]*AbstractFetcherThread, len(keys))
	for i, k := range keys {
		out[i] = m.fetcherThreadMap[k]
	}
	return out
}

// FetcherFor is the thread fetching tp, or nil.
func (m *AbstractFetcherManager) FetcherFor(tp common.TopicPartition) *AbstractFetcherThread {
	for _, f := range m.FetcherThreads() {
		if _, ok := f.FetchState(tp); ok {
			return f
		}
	}
	return nil
}

func sortedTPs[V any](m map[common.TopicPartition]V) []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	slices.SortFunc(out, func(a, b common.TopicPartition) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}
