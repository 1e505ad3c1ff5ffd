package server

import (
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/metrics"
)

// replicaManagerMetrics holds the ReplicaManager's meters (nil when it has no registry).
//
// Kafka 0.10.2: the newGauge/newMeter calls in kafka.server.ReplicaManager's constructor.
type replicaManagerMetrics struct {
	reg           *metrics.Registry
	isrExpandRate *metrics.Meter
	isrShrinkRate *metrics.Meter
	// DelayedProduceMetrics' aggregate meter and DelayedFetchMetrics' two meters.
	produceExpirations       *metrics.Meter
	followerFetchExpirations *metrics.Meter
	consumerFetchExpirations *metrics.Meter
}

var _ cluster.IsrChangeMeters = (*ReplicaManager)(nil)

// registerMetrics registers, under kafka.server:type=ReplicaManager, the LeaderCount,
// PartitionCount and UnderReplicatedPartitions gauges and the IsrExpandsPerSec and
// IsrShrinksPerSec meters, and the gauges of the produce and fetch purgatories.
func (rm *ReplicaManager) registerMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.server", "ReplicaManager")
	g.NewGauge("LeaderCount", func() int64 {
		return int64(rm.countPartitions(func(p *cluster.Partition) bool { return p.LeaderReplicaIfLocal() != nil }))
	})
	g.NewGauge("PartitionCount", func() int64 { return int64(rm.countPartitions(nil)) })
	g.NewGauge("UnderReplicatedPartitions", func() int64 {
		return int64(rm.countPartitions((*cluster.Partition).IsUnderReplicated))
	})
	rm.metrics.isrExpandRate = g.NewMeter("IsrExpandsPerSec", "expands", time.Second)
	rm.metrics.isrShrinkRate = g.NewMeter("IsrShrinksPerSec", "shrinks", time.Second)
	rm.metrics.reg = reg
	rm.metrics.produceExpirations = metrics.NewKafkaMetricsGroup(reg, "kafka.server", "DelayedProduceMetrics").
		NewMeter("ExpiresPerSec", "requests", time.Second)
	fetchGroup := metrics.NewKafkaMetricsGroup(reg, "kafka.server", "DelayedFetchMetrics")
	rm.metrics.followerFetchExpirations = fetchGroup.NewMeter("ExpiresPerSec", "requests", time.Second,
		metrics.Tags("fetcherType", "follower")...)
	rm.metrics.consumerFetchExpirations = fetchGroup.NewMeter("ExpiresPerSec", "requests", time.Second,
		metrics.Tags("fetcherType", "consumer")...)
	rm.delayedProducePurgatory.RegisterMetrics(reg)
	rm.delayedFetchPurgatory.RegisterMetrics(reg)
	rm.replication.replicaFetcherManager.RegisterMetrics(reg, "kafka.server", "ReplicaFetcherManager")
}

// countPartitions counts the hosted partitions for which pred holds (all when pred is nil). The
// predicates take the partition's own locks, so they run on a snapshot, outside partitionsMu.
func (rm *ReplicaManager) countPartitions(pred func(*cluster.Partition) bool) int {
	rm.partitionsMu.RLock()
	if pred == nil {
		n := len(rm.allPartitions)
		rm.partitionsMu.RUnlock()
		return n
	}
	ps := make([]*cluster.Partition, 0, len(rm.allPartitions))
	for _, p := range rm.allPartitions {
		ps = append(ps, p)
	}
	rm.partitionsMu.RUnlock()
	n := 0
	for _, p := range ps {
		if pred(p) {
			n++
		}
	}
	return n
}

// MarkIsrExpand implements cluster.IsrChangeMeters (IsrExpandsPerSec).
func (rm *ReplicaManager) MarkIsrExpand() {
	if rm.metrics.isrExpandRate != nil {
		rm.metrics.isrExpandRate.Mark(1)
	}
}

// MarkIsrShrink implements cluster.IsrChangeMeters (IsrShrinksPerSec).
func (rm *ReplicaManager) MarkIsrShrink() {
	if rm.metrics.isrShrinkRate != nil {
		rm.metrics.isrShrinkRate.Mark(1)
	}
}

// partitionMetricNames are the gauges of kafka.cluster:type=Partition.
var partitionMetricNames = []string{"UnderReplicated", "InSyncReplicasCount", "ReplicasCount"}

func partitionMetricTags(tp common.TopicPartition) []metrics.Tag {
	return metrics.Tags("topic", tp.Topic, "partition", strconv.Itoa(int(tp.Partition)))
}

// registerPartitionMetrics registers a new partition's gauges under kafka.cluster:type=Partition:
// UnderReplicated (1 or 0), and InSyncReplicasCount and ReplicasCount, which are 0 unless this
// broker leads the partition. Caller holds partitionsMu (the gauges do not take it).
//
// Kafka 0.10.2: the newGauge calls in kafka.cluster.Partition's constructor. The registry lives
// in the ReplicaManager, so the ReplicaManager registers them when it creates the partition.
func (rm *ReplicaManager) registerPartitionMetrics(p *cluster.Partition) {
	if rm.metrics.reg == nil {
		return
	}
	g := metrics.NewKafkaMetricsGroup(rm.metrics.reg, "kafka.cluster", "Partition")
	tags := partitionMetricTags(common.TopicPartition{Topic: p.Topic, Partition: p.PartitionID})
	g.NewGauge("UnderReplicated", func() int64 {
		if p.IsUnderReplicated() {
			return 1
		}
		return 0
	}, tags...)
	g.NewGauge("InSyncReplicasCount", func() int64 {
		if p.LeaderReplicaIfLocal() == nil {
			return 0
		}
		return int64(len(p.InSyncReplicas()))
	}, tags...)
	g.NewGauge("ReplicasCount", func() int64 {
		if p.LeaderReplicaIfLocal() == nil {
			return 0
		}
		return int64(len(p.AssignedReplicas()))
	}, tags...)
}

// removePartitionMetrics drops a deleted partition's gauges and, once this broker hosts none of
// the topic's partitions any more, the topic's BrokerTopicMetrics (Kafka does the first in
// Partition.delete and the second in stopReplica).
func (rm *ReplicaManager) removePartitionMetrics(tp common.TopicPartition) {
	if rm.metrics.reg != nil {
		g := metrics.NewKafkaMetricsGroup(rm.metrics.reg, "kafka.cluster", "Partition")
		for _, n := range partitionMetricNames {
			g.RemoveMetric(n, partitionMetricTags(tp)...)
		}
	}
	if rm.topicStats == nil {
		return
	}
	topic := tp.Topic
	rm.partitionsMu.RLock()
	for tp := range rm.allPartitions {
		if tp.Topic == topic {
			rm.partitionsMu.RUnlock()
			return
		}
	}
	rm.partitionsMu.RUnlock()
	rm.topicStats.RemoveMetrics(topic)
}

// markBytesRejected marks BytesRejectedPerSec with the size of a produced message set the log
// refused for being too large. Kafka 0.10.2 marks it inside Log.append, where it throws
// RecordTooLargeException / RecordBatchTooLargeException; the broker topic stats live in the
// ReplicaManager here, so the mark is made where that error comes back.
// Only an oversized message counts (MESSAGE_TOO_LARGE), as in Kafka; a message set larger than a
// segment (RECORD_LIST_TOO_LARGE) does not.
func (rm *ReplicaManager) markBytesRejected(topic string, records *record.MemoryRecords, err error) {
	if records == nil || protocol.CodeOf(err) != protocol.ErrMessageTooLarge.Code {
		return
	}
	n := int64(records.SizeInBytes())
	rm.meters(topic, func(m *metrics.BrokerTopicMetrics) { m.BytesRejectedRate.Mark(n) })
}

// recordProduceExpiration marks DelayedProduceMetrics' ExpiresPerSec, the broker-wide meter and
// the partition's (created on first use, as Kafka's pool of per-partition meters).
//
// Kafka 0.10.2: kafka.server.DelayedProduceMetrics.recordExpiration.
func (rm *ReplicaManager) recordProduceExpiration(tp common.TopicPartition) {
	if rm.metrics.reg == nil {
		return
	}
	rm.metrics.produceExpirations.Mark(1)
	metrics.NewKafkaMetricsGroup(rm.metrics.reg, "kafka.server", "DelayedProduceMetrics").
		NewMeter("ExpiresPerSec", "requests", time.Second,
			metrics.Tags("topic", tp.Topic, "partition", strconv.Itoa(int(tp.Partition)))...).Mark(1)
}

// recordFetchExpiration marks DelayedFetchMetrics' ExpiresPerSec for followers or consumers.
//
// Kafka 0.10.2: DelayedFetch.onExpiration.
func (rm *ReplicaManager) recordFetchExpiration(fromFollower bool) {
	switch {
	case rm.metrics.reg == nil:
	case fromFollower:
		rm.metrics.followerFetchExpirations.Mark(1)
	default:
		rm.metrics.consumerFetchExpirations.Mark(1)
	}
}
