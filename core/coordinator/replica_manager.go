package coordinator

import (
	"strconv"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
)

// ReplicaManager is what the group metadata manager needs from the broker's replica manager:
// appending to (and waiting for the replication of) its __consumer_offsets partitions, and
// reading them back when it becomes their leader.
//
// Kafka 0.10.2: the constructor parameter `replicaManager: ReplicaManager` of
// GroupMetadataManager. core/server cannot be imported from here (it imports this package), so
// the broker passes an adapter over *server.ReplicaManager, whose AppendRecords speaks in
// server.ProduceEntry / server.PartitionResponse.
type ReplicaManager interface {
	// AppendRecords appends each partition's records to its leader replica and calls cb once
	// with the per-partition outcome (nil = success; a *protocol.Error otherwise), after the
	// acks given by requiredAcks (-1: the whole ISR, within timeoutMs).
	AppendRecords(timeoutMs int64, requiredAcks int16, internalTopicsAllowed bool,
		records map[common.TopicPartition]*record.MemoryRecords, cb func(map[common.TopicPartition]error))
	// GetLog is the local log of tp.
	GetLog(tp common.TopicPartition) (*log.Log, bool)
	// GetHighWatermark is the local replica's high watermark.
	GetHighWatermark(tp common.TopicPartition) (int64, bool)
	// GetMagic is the message format magic of the local log of tp; ok=false when this broker
	// has no replica of tp.
	GetMagic(tp common.TopicPartition) (int8, bool)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
