package cluster

import (
	"errors"
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ReplicaManager is what a Partition needs from the broker's replica manager: the logs, the
// purgatories to poke when its HW or leadership changes, the ISR-change recorder, the HW
// checkpoint files, the broker config and ZooKeeper (for ISR updates).
//
// Kafka 0.10.2: the constructor parameter `replicaManager: ReplicaManager` of
// kafka.cluster.Partition. *server.ReplicaManager satisfies it (layout.md B.4, the seam).
// LogConfigFor stands for Partition's own LogConfig.fromProps(defaults, topic overrides from
// ZooKeeper), so that Partition does not need the broker's default properties.
type ReplicaManager interface {
	LogManager() *log.LogManager
	LogConfigFor(topic string) (*log.LogConfig, error)
	TryCompleteDelayedProduce(key purgatory.DelayedOperationKey)
	TryCompleteDelayedFetch(key purgatory.DelayedOperationKey)
	RecordIsrChange(tp common.TopicPartition)
	HighWatermarkCheckpoints() map[string]*log.OffsetCheckpoint
	Config() *config.KafkaConfig
	ZkUtils() *zkutils.ZkUtils
}

// ToKafkaError maps an error of the log layer to the Kafka error it stands for (wrapping the
// original), so protocol.CodeOf finds its code; a Kafka error or nil is returned unchanged.
func ToKafkaError(err error) error {
	if err == nil {
		return nil
	}
	var ke *protocol.Error
	if errors.As(err, &ke) {
		return err
	}
	var k *protocol.Error
	switch {
	case errors.Is(err, log.ErrOffsetOutOfRange):
		k = protocol.ErrOffsetOutOfRange
	case errors.Is(err, record.ErrCorruptRecord), errors.Is(err, log.ErrInvalidMessage):
		k = protocol.ErrCorruptMessage
	case errors.Is(err, record.ErrRecordTooLarge):
		k = protocol.ErrMessageTooLarge
	case errors.Is(err, log.ErrRecordBatchTooLarge):
		k = protocol.ErrRecordListTooLarge
	case errors.Is(err, log.ErrInvalidTimestamp):
		k = protocol.ErrInvalidTimestamp
	case errors.Is(err, log.ErrUnsupportedForMessageFormat):
		k = protocol.ErrUnsupportedForMessageFormat
	default:
		return err
	}
	return fmt.Errorf("%w: %w", k, err)
}
