package server

import (
	"fmt"
	"os"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/server/fetcher"
)

// ReplicaFetcherManager runs the follower's fetcher threads: num.replica.fetchers per leader
// broker, each partition on a fixed one of them.
//
// Kafka 0.10.2: kafka.server.ReplicaFetcherManager (an AbstractFetcherManager whose
// createFetcherThread makes ReplicaFetcherThreads).
type ReplicaFetcherManager struct {
	*fetcher.AbstractFetcherManager
	logger *logrus.Entry
}

// NewReplicaFetcherManager makes the manager; exit (os.Exit when nil) is what a fetcher calls
// where Kafka exits the JVM (a forbidden unclean truncation, a disk error).
func NewReplicaFetcherManager(cfg *config.KafkaConfig, rm *ReplicaManager, clock common.Time, exit func(int),
	logger *logrus.Entry) *ReplicaFetcherManager {
	if exit == nil {
		exit = os.Exit
	}
	if logger == nil {
		logger = discardEntry()
	}
	name := fmt.Sprintf("ReplicaFetcherManager on broker %d", cfg.BrokerID)
	create := func(fetcherID int, sourceBroker cluster.BrokerEndPoint) *fetcher.AbstractFetcherThread {
		threadName := fmt.Sprintf("ReplicaFetcherThread-%d-%d", fetcherID, sourceBroker.ID)
		return NewReplicaFetcherThread(threadName, fetcherID, sourceBroker, cfg, rm, clock, exit, logger).AbstractFetcherThread
	}
	mlog := logger.WithField("logger", "kafka.server.ReplicaFetcherManager")
	return &ReplicaFetcherManager{
		AbstractFetcherManager: fetcher.NewAbstractFetcherManager(name, "Replica", int(cfg.NumReplicaFetchers), create, mlog),
		logger:                 mlog.WithField("ident", "["+name+"] "),
	}
}

// Shutdown stops every fetcher thread.
func (m *ReplicaFetcherManager) Shutdown() {
	m.logger.Info("shutting down")
	m.CloseAllFetchers()
	m.logger.Info("shutdown completed")
}
