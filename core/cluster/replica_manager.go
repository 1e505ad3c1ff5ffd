package cluster

import (
	"github.com/zkafka/zkafka/clients/common"
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
// kafka.cluster.Partition. *server.ReplicaManager satisfies it (docs/design.md §1.3, the seam).
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
