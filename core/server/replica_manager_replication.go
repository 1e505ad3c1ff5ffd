package server

import (
	"cmp"
	"slices"
	"sync/atomic"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/server/fetcher"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

// Replication, as this file and the replica fetcher files implement it:
//
//   - A follower fetches from its leader as replica_id = its broker id, num.replica.fetchers
//     goroutines per leader (ReplicaFetcherManager), appending what arrives with the leader's
//     offsets and setting its HW to min(its LEO, the leader's HW).
//   - The leader records each follower's LEO on every fetch (Partition.UpdateReplicaLogReadResult),
//     adds a follower that reached the HW to the ISR, and advances the HW to the smallest LEO of
//     the ISR; acks=-1 produces wait in the purgatory until the HW passes them.
//   - Every replica.lag.time.max.ms / 2 the leader drops followers not caught up for
//     replica.lag.time.max.ms; ISR changes go to ZooKeeper with a zkVersion-conditional write,
//     and, batched, to /isr_change_notification for the controller.
//   - Becoming a follower truncates the log to the HW first: what lies above it was never
//     committed and the new leader may not have it. This loses an acknowledged message when the
//     follower's HW still trails the leader's and the follower then becomes leader (the double
//     failure of KIP-101). With zkafka.leader.epoch.truncation.enable the fetcher truncates
//     instead, to where the new leader says the follower's latest leader epoch ends (Kafka 0.11;
//     replica_fetcher_leader_epoch.go).
//
// Lock order (extending the package's): ReplicaManager.replicaStateChangeLock ->
// AbstractFetcherManager.mapLock -> AbstractFetcherThread.partitionMapLock ->
// Partition.leaderIsrUpdateLock -> Log's lock. A fetcher appends under its partitionMapLock, so
// once RemoveFetcherForPartitions has returned, makeFollowers may truncate safely.

// ISR-change propagation timing (ReplicaManager's companion object): a batch of ISR changes is
// written once no change has come for IsrChangePropagationBlackOut ms, or at the latest
// IsrChangePropagationInterval ms after the previous write; the task checks every
// isrChangePropagationPeriod. This keeps a burst of ISR changes (a broker restarting with
// thousands of partitions) from flooding the controller with notifications.
const (
	IsrChangePropagationBlackOut int64 = 5000
	IsrChangePropagationInterval int64 = 60000
	isrChangePropagationPeriod         = 2500 * time.Millisecond
)

// replicaManagerReplication is ReplicaManager's replication state and tasks: the follower side
// (the ReplicaFetcherManager, becoming a follower) and the leader's ISR upkeep (expiration, and
// the batched propagation of ISR changes to ZooKeeper). ReplicaManager holds one and forwards to
// it; the methods keep Kafka's ReplicaManager names.
//
// Kafka 0.10.2: part of kafka.server.ReplicaManager (replicaFetcherManager, lastIsrChangeMs,
// lastIsrPropagationMs, makeFollowers, maybeShrinkIsr, maybePropagateIsrChanges).
type replicaManagerReplication struct {
	rm                    *ReplicaManager
	metadataCache         *MetadataCache
	replicaFetcherManager *ReplicaFetcherManager
	lastIsrChangeMs       atomic.Int64
	lastIsrPropagationMs  atomic.Int64
}

// newReplicaManagerReplication builds the replication side of rm; cache is the broker's
// MetadataCache (the leaders' endpoints), exit what a fetcher calls where Kafka exits.
func newReplicaManagerReplication(rm *ReplicaManager, cache *MetadataCache, exit func(int)) *replicaManagerReplication {
	r := &replicaManagerReplication{rm: rm, metadataCache: cache}
	r.replicaFetcherManager = NewReplicaFetcherManager(rm.config, rm, rm.time, exit, rm.logger.Logger.WithField("ident", ""))
	now := rm.time.Milliseconds()
	r.lastIsrChangeMs.Store(now)
	r.lastIsrPropagationMs.Store(now)
	return r
}

// isrChanged notes the time of an ISR change (ReplicaManager.recordIsrChange's timestamp).
func (r *replicaManagerReplication) isrChanged() { r.lastIsrChangeMs.Store(r.rm.time.Milliseconds()) }

// shutdown stops every fetcher.
func (r *replicaManagerReplication) shutdown() { r.replicaFetcherManager.Shutdown() }

// startReplicationTasks schedules the ISR expiration (every replica.lag.time.max.ms / 2, so a
// follower is dropped between 1x and 1.5x that lag) and the ISR-change propagation.
func (r *replicaManagerReplication) startReplicationTasks() {
	rm := r.rm
	lag := rm.config.ReplicaLagTimeMaxMs
	rm.scheduler.Schedule("isr-expiration", r.maybeShrinkIsr, 0, time.Duration(lag/2)*time.Millisecond)
	rm.scheduler.Schedule("isr-change-propagation", r.maybePropagateIsrChanges, 0, isrChangePropagationPeriod)
}

// maybeShrinkIsr asks every hosted partition (only leaders act) to drop its lagging followers.
//
// Kafka 0.10.2: ReplicaManager.maybeShrinkIsr.
func (r *replicaManagerReplication) maybeShrinkIsr() {
	rm := r.rm
	rm.logger.Trace("Evaluating ISR list of partitions to see which replicas can be removed from the ISR")
	lag := rm.config.ReplicaLagTimeMaxMs
	for _, p := range rm.partitions() {
		if err := p.MaybeShrinkIsr(lag); err != nil {
			rm.logger.WithError(err).Errorf("Error shrinking the ISR of partition %s", p.TopicPartition())
		}
	}
}

// maybePropagateIsrChanges writes the ISR changes recorded since the last write as one
// /isr_change_notification/isr_change_<seq> node, when there are any and either no change came
// in the last IsrChangePropagationBlackOut ms or the last write is older than
// IsrChangePropagationInterval ms. The controller reads the node, refreshes its cache from the
// partition states and tells every broker through UpdateMetadata.
//
// Kafka 0.10.2: ReplicaManager.maybePropagateIsrChanges.
func (r *replicaManagerReplication) maybePropagateIsrChanges() {
	rm := r.rm
	now := rm.time.Milliseconds()
	rm.isrChangeMu.Lock()
	defer rm.isrChangeMu.Unlock()
	if len(rm.isrChangeSet) == 0 {
		return
	}
	if !(r.lastIsrChangeMs.Load()+IsrChangePropagationBlackOut < now ||
		r.lastIsrPropagationMs.Load()+IsrChangePropagationInterval < now) {
		return
	}
	if rm.zkUtils != nil {
		tps := sortedTopicPartitions(rm.isrChangeSet)
		if _, err := rm.zkUtils.PropagateIsrChanges(tps); err != nil {
			// ReplicationUtils logs and swallows the failure; the set is cleared all the same.
			rm.logger.WithError(err).Errorf("Failed to write isr change notification for %v", tps)
		}
	}
	clear(rm.isrChangeSet)
	r.lastIsrPropagationMs.Store(now)
}

// followerTransition is one partition of a LeaderAndIsr request that makes this broker a
// follower.
type followerTransition struct {
	partition *cluster.Partition
	state     protocol.LeaderAndIsrRequestPartitionState
}

// makeFollowers makes this broker follow the new leaders:
//
//  1. record the new leader in each partition whose leader is alive in the metadata cache (a
//     partition whose leader is unknown still gets its local replica, so that its HW stays in
//     the checkpoint file; KAFKA-1647);
//  2. stop fetching those partitions from the old leaders;
//  3. truncate each log to its high watermark: what lies above it may never have been
//     committed, and the new leader may not have it (it is fetched again if it does); with
//     leader-epoch truncation this step is the fetcher's, before its first fetch;
//  4. release produces and fetches waiting on them (they now fail with NotLeader);
//  5. start fetching from the new leaders at the log end offset (unless shutting down).
//
// Kafka 0.10.2: ReplicaManager.makeFollowers. Caller holds replicaStateChangeLock.
func (r *replicaManagerReplication) makeFollowers(controllerID, epoch int32, transitions []followerTransition, correlationID int32,
	responseMap map[common.TopicPartition]int16) ([]*cluster.Partition, error) {
	rm := r.rm
	for _, ft := range transitions {
		rm.stateChange.Tracef("Broker %d handling LeaderAndIsr request correlationId %d from controller %d epoch %d starting the become-follower transition for partition %s",
			rm.localBrokerID, correlationID, controllerID, epoch, ft.partition.TopicPartition())
	}
	for _, ft := range transitions {
		responseMap[ft.partition.TopicPartition()] = 0
	}
	fail := func(err error) ([]*cluster.Partition, error) {
		rm.stateChange.WithError(err).Errorf("Error on broker %d while processing LeaderAndIsr request with correlationId %d received from controller %d epoch %d",
			rm.localBrokerID, correlationID, controllerID, epoch)
		return nil, err
	}
	var toFollow []*cluster.Partition
	for _, ft := range transitions {
		p, s := ft.partition, ft.state
		if !r.leaderIsAlive(s.Leader) {
			rm.stateChange.Errorf("Broker %d received LeaderAndIsrRequest with correlation id %d from controller %d epoch %d for partition %s but cannot become follower since the new leader %d is unavailable.",
				rm.localBrokerID, correlationID, controllerID, s.ControllerEpoch, p.TopicPartition(), s.Leader)
			if _, err := p.GetOrCreateReplica(rm.localBrokerID); err != nil {
				return fail(err)
			}
			continue
		}
		changed, err := p.MakeFollower(controllerID, s, correlationID)
		if err != nil {
			return fail(err)
		}
		if changed {
			toFollow = append(toFollow, p)
		} else {
			rm.stateChange.Infof("Broker %d skipped the become-follower state change after marking its partition as follower with correlation id %d from controller %d epoch %d for partition %s since the new leader %d is the same as the old leader",
				rm.localBrokerID, correlationID, controllerID, s.ControllerEpoch, p.TopicPartition(), s.Leader)
		}
	}

	tps := make(map[common.TopicPartition]struct{}, len(toFollow))
	for _, p := range toFollow {
		tps[p.TopicPartition()] = struct{}{}
	}
	r.replicaFetcherManager.RemoveFetcherForPartitions(tps)
	for _, p := range toFollow {
		rm.stateChange.Tracef("Broker %d stopped fetchers as part of become-follower request from controller %d epoch %d with correlation id %d for partition %s",
			rm.localBrokerID, controllerID, epoch, correlationID, p.TopicPartition())
	}

	// With leader-epoch truncation the fetcher truncates instead, once the new leader has said
	// where this replica's latest epoch ends (replica_fetcher_leader_epoch.go; Kafka 0.11).
	if !rm.config.LeaderEpochTruncationEnable {
		truncate := make(map[common.TopicPartition]int64, len(toFollow))
		for _, p := range toFollow {
			r, err := p.GetOrCreateReplica(rm.localBrokerID)
			if err != nil {
				return fail(err)
			}
			truncate[p.TopicPartition()] = r.HighWatermark().MessageOffset
		}
		if err := rm.logManager.TruncateTo(truncate); err != nil {
			return fail(err)
		}
	}
	for _, p := range toFollow {
		key := purgatory.NewTopicPartitionOperationKey(p.TopicPartition())
		rm.TryCompleteDelayedProduce(key)
		rm.TryCompleteDelayedFetch(key)
	}
	for _, p := range toFollow {
		rm.stateChange.Tracef("Broker %d truncated logs and checkpointed recovery boundaries for partition %s as part of become-follower request with correlation id %d from controller %d epoch %d",
			rm.localBrokerID, p.TopicPartition(), correlationID, controllerID, epoch)
	}

	if rm.isShuttingDown.Load() {
		for _, p := range toFollow {
			rm.stateChange.Tracef("Broker %d skipped the adding-fetcher step of the become-follower state change with correlation id %d from controller %d epoch %d for partition %s since it is shutting down",
				rm.localBrokerID, correlationID, controllerID, epoch, p.TopicPartition())
		}
	} else {
		offsets := make(map[common.TopicPartition]fetcher.BrokerAndInitialOffset, len(toFollow))
		for _, p := range toFollow {
			ep, err := r.leaderEndPoint(p.LeaderReplicaID())
			if err != nil {
				return fail(err)
			}
			offsets[p.TopicPartition()] = fetcher.BrokerAndInitialOffset{Broker: ep,
				InitOffset: p.LocalReplica().LogEndOffset().MessageOffset}
		}
		if err := r.replicaFetcherManager.AddFetcherForPartitions(offsets); err != nil {
			return fail(err)
		}
		for _, p := range toFollow {
			rm.stateChange.Tracef("Broker %d started fetcher to new leader as part of become-follower request from controller %d epoch %d with correlation id %d for partition %s",
				rm.localBrokerID, controllerID, epoch, correlationID, p.TopicPartition())
		}
	}
	for _, ft := range transitions {
		rm.stateChange.Tracef("Broker %d completed LeaderAndIsr request correlationId %d from controller %d epoch %d for the become-follower transition for partition %s",
			rm.localBrokerID, correlationID, controllerID, epoch, ft.partition.TopicPartition())
	}
	return toFollow, nil
}

// leaderIsAlive: the new leader is among the live brokers of the metadata cache.
func (r *replicaManagerReplication) leaderIsAlive(id int32) bool {
	return r.metadataCache != nil && r.metadataCache.IsBrokerAlive(id)
}

// leaderEndPoint is the leader's endpoint on the inter-broker listener.
func (r *replicaManagerReplication) leaderEndPoint(id int32) (cluster.BrokerEndPoint, error) {
	for _, b := range r.metadataCache.GetAliveBrokers() {
		if b.ID == id {
			return b.GetBrokerEndPoint(r.rm.config.InterBrokerListenerName)
		}
	}
	return cluster.BrokerEndPoint{}, protocol.Errorf(protocol.ErrBrokerNotAvailable, "leader %d is not alive", id)
}

// removeFetchers stops fetching the partitions (they become leader, or are stopped).
func (r *replicaManagerReplication) removeFetchers(tps []common.TopicPartition) {
	if len(tps) == 0 {
		return
	}
	set := make(map[common.TopicPartition]struct{}, len(tps))
	for _, tp := range tps {
		set[tp] = struct{}{}
	}
	r.replicaFetcherManager.RemoveFetcherForPartitions(set)
}

// ReplicaFetcherManager is the broker's follower fetcher manager.
func (rm *ReplicaManager) ReplicaFetcherManager() *ReplicaFetcherManager {
	return rm.replication.replicaFetcherManager
}

func sortedTopicPartitions[V any](set map[common.TopicPartition]V) []common.TopicPartition {
	out := make([]common.TopicPartition, 0, len(set))
	for tp := range set {
		out = append(out, tp)
	}
	slices.SortFunc(out, func(a, b common.TopicPartition) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}
