package oldproducer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/protocol"
)

// PartitionAndLeader is a partition and its leader broker, if it has one.
//
// Kafka 0.10.2: kafka.producer.PartitionAndLeader.
type PartitionAndLeader struct {
	Topic       string
	PartitionID int32
	Leader      int32 // -1: none
	HasLeader   bool
}

// topicMetadata is what the cache keeps of a topic's metadata.
type topicMetadata struct {
	errorCode  int16
	partitions []PartitionAndLeader
}

// BrokerPartitionInfo caches the topics' partitions and leaders, refreshed from the brokers of
// metadata.broker.list.
//
// Kafka 0.10.2: kafka.producer.BrokerPartitionInfo.
type BrokerPartitionInfo struct {
	config *ProducerConfig
	pool   *ProducerPool
	log    *logrus.Entry

	mu    sync.Mutex
	cache map[string]topicMetadata
}

func newBrokerPartitionInfo(config *ProducerConfig, pool *ProducerPool, log *logrus.Entry) *BrokerPartitionInfo {
	return &BrokerPartitionInfo{config: config, pool: pool, log: log.WithField("logger", "kafka.producer.BrokerPartitionInfo"),
		cache: map[string]topicMetadata{}}
}

// getBrokerPartitionInfo returns a topic's partitions (sorted) with their leaders, fetching the
// metadata when the topic is not cached.
func (b *BrokerPartitionInfo) getBrokerPartitionInfo(ctx context.Context, topic string, correlationID int32) ([]PartitionAndLeader, error) {
	b.log.Debugf("Getting broker partition info for topic %s", topic)
	b.mu.Lock()
	md, ok := b.cache[topic]
	b.mu.Unlock()
	if !ok {
		if err := b.updateInfo(ctx, []string{topic}, correlationID); err != nil {
			return nil, err
		}
		b.mu.Lock()
		md, ok = b.cache[topic]
		b.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("kafka.common.KafkaException: Failed to fetch topic metadata for topic: %s", topic)
		}
	}
	if len(md.partitions) == 0 {
		if md.errorCode != 0 {
			return nil, protocol.ErrorForCode(md.errorCode)
		}
		return nil, fmt.Errorf("kafka.common.KafkaException: Topic metadata for %s has empty partition metadata and no error code", topic)
	}
	return md.partitions, nil
}

// updateInfo fetches the topics' metadata from a random configured broker, caches the topics
// without error and refreshes the producer pool.
func (b *BrokerPartitionInfo) updateInfo(ctx context.Context, topics []string, correlationID int32) error {
	resp, err := oldclient.FetchTopicMetadata(ctx, topics, b.config.Brokers, b.config.ClientID,
		time.Duration(b.config.RequestTimeoutMs)*time.Millisecond, correlationID, b.log.WithField("logger", "kafka.client.ClientUtils$"))
	if err != nil {
		return err
	}
	brokers := map[int32]oldclient.BrokerEndPoint{}
	for _, br := range resp.Brokers {
		brokers[br.NodeID] = oldclient.BrokerEndPoint{ID: br.NodeID, Host: br.Host, Port: br.Port}
	}
	var leaders []oldclient.BrokerEndPoint
	seen := map[int32]bool{}
	b.mu.Lock()
	for _, tm := range resp.TopicMetadata {
		b.log.Tracef("Metadata for topic %s is %+v", tm.Topic, tm)
		md := topicMetadata{errorCode: tm.TopicErrorCode}
		for _, pm := range tm.PartitionMetadata {
			leader, hasLeader := brokers[pm.Leader]
			pl := PartitionAndLeader{Topic: tm.Topic, PartitionID: pm.PartitionID, Leader: -1}
			if hasLeader {
				pl.Leader, pl.HasLeader = leader.ID, true
				if !seen[leader.ID] {
					seen[leader.ID] = true
					leaders = append(leaders, leader)
				}
			}
			if pm.PartitionErrorCode == protocol.ErrLeaderNotAvailable.Code {
				b.log.Warnf("Error while fetching metadata %+v for topic partition [%s,%d]: [%v]", pm, tm.Topic, pm.PartitionID,
					protocol.ErrorForCode(pm.PartitionErrorCode))
			}
			md.partitions = append(md.partitions, pl)
		}
		sort.Slice(md.partitions, func(i, j int) bool { return md.partitions[i].PartitionID < md.partitions[j].PartitionID })
		if tm.TopicErrorCode == 0 {
			b.cache[tm.Topic] = md
		} else {
			b.log.Warnf("Error while fetching metadata for topic [%s]: %v", tm.Topic, protocol.ErrorForCode(tm.TopicErrorCode))
		}
	}
	b.mu.Unlock()
	b.pool.updateProducer(leaders)
	return nil
}

// errNoBrokersForPartition is NoBrokersForPartitionException.
var errNoBrokersForPartition = errors.New("kafka.common.NoBrokersForPartitionException")
