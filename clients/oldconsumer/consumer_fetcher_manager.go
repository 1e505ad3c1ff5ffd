package oldconsumer

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/fetcher"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ConsumerFetcherManager runs the fetchers of one consumer: a leader-finder goroutine looks up
// the leader of every partition that has none yet (or lost it) and hands the partition to the
// fetcher thread of that broker.
//
// Kafka 0.10.2: kafka.consumer.ConsumerFetcherManager (an AbstractFetcherManager) with its
// LeaderFinderThread. StartConnections and StopConnections may be called in turn any number
// of times; the rebalance does so.
//
// Lock order: lock (the no-leader set and the partition map) is never held while the embedded
// manager's mapLock is taken.
type ConsumerFetcherManager struct {
	*fetcher.AbstractFetcherManager
	consumerIDString string
	config           *ConsumerConfig
	zk               *zkutils.ZkUtils
	reg              *metrics.Registry
	baseLog          *logrus.Entry
	log              *logrus.Entry
	correlationID    atomic.Int32

	lock                 sync.Mutex
	wake                 chan struct{} // cond: the no-leader set may have grown (capacity 1)
	partitionMap         map[common.TopicPartition]*PartitionTopicInfo
	noLeaderPartitionSet map[common.TopicPartition]struct{}

	leaderFinder *leaderFinderThread // set and cleared by Start/StopConnections only
}

// NewConsumerFetcherManager makes the manager; no goroutine runs until StartConnections.
func NewConsumerFetcherManager(consumerIDString string, config *ConsumerConfig, zk *zkutils.ZkUtils, reg *metrics.Registry,
	log *logrus.Entry) *ConsumerFetcherManager {
	name := fmt.Sprintf("ConsumerFetcherManager-%d", time.Now().UnixMilli())
	m := &ConsumerFetcherManager{consumerIDString: consumerIDString, config: config, zk: zk, reg: reg, baseLog: log,
		log:                  log.WithField("logger", "kafka.consumer.ConsumerFetcherManager").WithField("ident", "["+name+"] "),
		wake:                 make(chan struct{}, 1),
		noLeaderPartitionSet: map[common.TopicPartition]struct{}{}}
	m.AbstractFetcherManager = fetcher.NewAbstractFetcherManager(name, config.ClientID, int(config.NumConsumerFetchers),
		m.createFetcherThread, log.WithField("logger", "kafka.consumer.ConsumerFetcherManager"))
	return m
}

// createFetcherThread names the thread ConsumerFetcherThread-<consumer>-<fetcherId>-<brokerId>.
func (m *ConsumerFetcherManager) createFetcherThread(fetcherID int, sourceBroker cluster.BrokerEndPoint) *fetcher.AbstractFetcherThread {
	m.lock.Lock()
	pm := m.partitionMap
	m.lock.Unlock()
	name := fmt.Sprintf("ConsumerFetcherThread-%s-%d-%d", m.consumerIDString, fetcherID, sourceBroker.ID)
	return newConsumerFetcherThread(name, m.config, sourceBroker, pm, m, m.reg, m.baseLog).AbstractFetcherThread
}

// StartConnections starts fetching the partitions (all without a known leader at first).
func (m *ConsumerFetcherManager) StartConnections(topicInfos []*PartitionTopicInfo) {
	m.leaderFinder = newLeaderFinderThread(m.consumerIDString+"-leader-finder-thread", m)
	m.lock.Lock()
	m.partitionMap = make(map[common.TopicPartition]*PartitionTopicInfo, len(topicInfos))
	for _, pti := range topicInfos {
		tp := common.TopicPartition{Topic: pti.Topic, Partition: pti.PartitionID}
		m.partitionMap[tp] = pti
		m.noLeaderPartitionSet[tp] = struct{}{}
	}
	m.lock.Unlock()
	m.leaderFinder.start()
	m.signal()
}

// StopConnections stops the leader finder first (so that it adds no fetcher meanwhile), then
// every fetcher.
func (m *ConsumerFetcherManager) StopConnections() {
	m.log.Info("Stopping leader finder thread")
	if m.leaderFinder != nil {
		m.leaderFinder.shutdown()
		m.leaderFinder = nil
	}
	m.log.Info("Stopping all fetchers")
	m.CloseAllFetchers()
	m.lock.Lock()
	m.partitionMap = nil
	clear(m.noLeaderPartitionSet)
	m.lock.Unlock()
	m.log.Info("All connections stopped")
}

// addPartitionsWithError gives partitions back to the leader finder.
func (m *ConsumerFetcherManager) addPartitionsWithError(tps []common.TopicPartition) {
	m.log.Debugf("adding partitions with error %v", tps)
	m.lock.Lock()
	if m.partitionMap != nil {
		for _, tp := range tps {
			m.noLeaderPartitionSet[tp] = struct{}{}
		}
	}
	m.lock.Unlock()
	m.signal()
}

func (m *ConsumerFetcherManager) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// leaderFinderThread is the LeaderFinderThread goroutine (a ShutdownableThread).
type leaderFinderThread struct {
	name   string
	m      *ConsumerFetcherManager
	log    *logrus.Entry
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func newLeaderFinderThread(name string, m *ConsumerFetcherManager) *leaderFinderThread {
	ctx, cancel := context.WithCancel(context.Background())
	return &leaderFinderThread{name: name, m: m, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		log: m.log.WithField("logger", "kafka.consumer.ConsumerFetcherManager$LeaderFinderThread").WithField("ident", "["+name+"], ")}
}

func (t *leaderFinderThread) start() {
	go func() {
		defer close(t.done)
		t.log.Info("Starting ")
		for t.ctx.Err() == nil {
			t.doWork()
		}
		t.log.Info("Stopped ")
	}()
}

func (t *leaderFinderThread) shutdown() {
	t.log.Info("Shutting down")
	t.cancel()
	<-t.done
	t.log.Info("Shutdown completed")
}

// doWork waits for partitions without leader, asks a broker for their topics' metadata, and
// adds a fetcher for each partition that has a leader now.
func (t *leaderFinderThread) doWork() {
	m := t.m
	var waiting []common.TopicPartition
	for {
		m.lock.Lock()
		for tp := range m.noLeaderPartitionSet {
			waiting = append(waiting, tp)
		}
		m.lock.Unlock()
		if len(waiting) > 0 {
			break
		}
		t.log.Trace("No partition for leader election.")
		select {
		case <-m.wake:
		case <-t.ctx.Done():
			return
		}
	}
	t.log.Tracef("Partitions without leader %v", waiting)
	leaders := t.findLeaders(waiting)
	if t.ctx.Err() != nil {
		return
	}
	if len(leaders) > 0 {
		m.lock.Lock()
		add := make(map[common.TopicPartition]fetcher.BrokerAndInitialOffset, len(leaders))
		for tp, b := range leaders {
			if pti, ok := m.partitionMap[tp]; ok {
				add[tp] = fetcher.BrokerAndInitialOffset{Broker: b, InitOffset: pti.GetFetchOffset()}
			}
		}
		m.lock.Unlock()
		if err := m.AddFetcherForPartitions(add); err != nil {
			if t.ctx.Err() != nil {
				return
			}
			names := make([]string, 0, len(leaders))
			for tp := range leaders {
				names = append(names, tp.String())
			}
			sort.Strings(names)
			t.log.WithError(err).Warnf("Failed to add leader for partitions %s; will retry", strings.Join(names, ","))
			m.addPartitionsWithError(keys(leaders))
		}
	}
	m.ShutdownIdleFetcherThreads()
	timer := time.NewTimer(ms(m.config.RefreshLeaderBackoffMs))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-t.ctx.Done():
	}
}

// findLeaders reads the metadata of the waiting partitions' topics and takes out of the
// no-leader set those that have a leader.
func (t *leaderFinderThread) findLeaders(waiting []common.TopicPartition) map[common.TopicPartition]cluster.BrokerEndPoint {
	m := t.m
	topicSet := map[string]bool{}
	var topics []string
	for _, tp := range waiting {
		if !topicSet[tp.Topic] {
			topicSet[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	sort.Strings(topics)
	brokers, err := oldclient.GetPlaintextBrokerEndPoints(m.zk)
	if err != nil {
		t.log.WithError(err).Warnf("Failed to find leader for %v", waiting)
		return nil
	}
	resp, err := oldclient.FetchTopicMetadata(t.ctx, topics, brokers, m.config.ClientID, ms(m.config.SocketTimeoutMs),
		m.correlationID.Add(1)-1, t.log.WithField("logger", "kafka.client.ClientUtils$"))
	if err != nil {
		if t.ctx.Err() == nil {
			t.log.WithError(err).Warnf("Failed to find leader for %v", waiting)
		}
		return nil
	}
	endpoints := map[int32]cluster.BrokerEndPoint{}
	for _, b := range resp.Brokers {
		endpoints[b.NodeID] = cluster.BrokerEndPoint{ID: b.NodeID, Host: b.Host, Port: b.Port}
	}
	out := map[common.TopicPartition]cluster.BrokerEndPoint{}
	m.lock.Lock()
	defer m.lock.Unlock()
	for _, tm := range resp.TopicMetadata {
		for _, pm := range tm.PartitionMetadata {
			tp := common.TopicPartition{Topic: tm.Topic, Partition: pm.PartitionID}
			leader, ok := endpoints[pm.Leader]
			if _, waitingFor := m.noLeaderPartitionSet[tp]; ok && waitingFor {
				out[tp] = leader
				delete(m.noLeaderPartitionSet, tp)
			}
		}
	}
	return out
}

func keys[V any](m map[common.TopicPartition]V) []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
