package oldproducer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

// ErrFailedToSendMessage is a batch that could not be sent within message.send.max.retries.
//
// Kafka 0.10.2: kafka.common.FailedToSendMessageException.
var ErrFailedToSendMessage = errors.New("kafka.common.FailedToSendMessageException")

// EventHandler sends batches of messages.
//
// Kafka 0.10.2: kafka.producer.async.EventHandler.
type EventHandler[K, V any] interface {
	Handle(ctx context.Context, events []KeyedMessage[K, V]) error
	Close()
}

// serializedMessage is a message encoded to bytes, still with its partition key.
type serializedMessage struct {
	topic     string
	partKey   any
	key       []byte // nil: no key
	value     []byte // nil: null value
	timestamp int64
}

func (m serializedMessage) payloadSize() int { return len(m.value) }

// DefaultEventHandler encodes messages, partitions them, groups them by leader broker and
// partition, and sends one produce request per broker; the partitions that failed are sent
// again after retry.backoff.ms and a metadata refresh, up to message.send.max.retries times.
//
// Kafka 0.10.2: kafka.producer.async.DefaultEventHandler. Messages are written in format v1
// with the send time as timestamp (Message.MagicValue_V1, CreateTime); a batch is compressed
// per partition as compression.codec and compressed.topics say.
//
// One goroutine at a time calls Handle (the caller of a sync producer, or the send thread).
type DefaultEventHandler[K, V any] struct {
	config       *ProducerConfig
	partitioner  Partitioner
	encoder      serialization.Encoder[V]
	keyEncoder   serialization.Encoder[K]
	pool         *ProducerPool
	partInfo     *BrokerPartitionInfo
	time         common.Time
	log          *logrus.Entry
	isSync       bool
	stats        *ProducerStats
	topicStats   *ProducerTopicStats
	correlation  atomic.Int32
	lastRefresh  int64
	toRefresh    map[string]bool
	sendPartPerT map[string]int32
}

// NewDefaultEventHandler makes the handler; clock may be nil (system time).
func NewDefaultEventHandler[K, V any](config *ProducerConfig, partitioner Partitioner, encoder serialization.Encoder[V],
	keyEncoder serialization.Encoder[K], pool *ProducerPool, clock common.Time, stats *ProducerStats, topicStats *ProducerTopicStats,
	log *logrus.Entry) *DefaultEventHandler[K, V] {
	if clock == nil {
		clock = common.SystemTime{}
	}
	if log == nil {
		log = discardEntry()
	}
	return &DefaultEventHandler[K, V]{config: config, partitioner: partitioner, encoder: encoder, keyEncoder: keyEncoder, pool: pool,
		partInfo: newBrokerPartitionInfo(config, pool, log), time: clock, isSync: config.ProducerType == "sync",
		log: log.WithField("logger", "kafka.producer.async.DefaultEventHandler"), stats: stats, topicStats: topicStats,
		toRefresh: map[string]bool{}, sendPartPerT: map[string]int32{}}
}

// Handle sends the events, retrying the failed ones; it fails with ErrFailedToSendMessage when
// some are still unsent after the retries.
func (h *DefaultEventHandler[K, V]) Handle(ctx context.Context, events []KeyedMessage[K, V]) error {
	serialized, err := h.serialize(events)
	if err != nil {
		return err
	}
	for _, m := range serialized {
		h.topicStats.GetProducerTopicStats(m.topic).ByteRate.Mark(int64(m.payloadSize()))
		h.topicStats.GetProducerAllTopicsStats().ByteRate.Mark(int64(m.payloadSize()))
	}
	outstanding := serialized
	remainingRetries := h.config.MessageSendMaxRetries + 1
	correlationIDStart := h.correlation.Load()
	h.log.Debugf("Handling %d events", len(events))
	for remainingRetries > 0 && len(outstanding) > 0 {
		for _, m := range outstanding {
			h.toRefresh[m.topic] = true
		}
		if interval := h.config.TopicMetadataRefreshIntervalMs; interval >= 0 && h.time.Milliseconds()-h.lastRefresh > int64(interval) {
			if err := h.partInfo.updateInfo(ctx, keysOf(h.toRefresh), h.correlation.Add(1)-1); err != nil {
				h.log.WithError(err).Error("")
			}
			clear(h.sendPartPerT)
			clear(h.toRefresh)
			h.lastRefresh = h.time.Milliseconds()
		}
		outstanding = h.dispatchSerializedData(ctx, outstanding)
		if len(outstanding) > 0 {
			h.log.Infof("Back off for %d ms before retrying send. Remaining retries = %d", h.config.RetryBackoffMs, remainingRetries-1)
			select {
			case <-time.After(time.Duration(h.config.RetryBackoffMs) * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
			topics := map[string]bool{}
			for _, m := range outstanding {
				topics[m.topic] = true
			}
			if err := h.partInfo.updateInfo(ctx, keysOf(topics), h.correlation.Add(1)-1); err != nil {
				h.log.WithError(err).Error("")
			}
			clear(h.sendPartPerT)
			remainingRetries--
			h.stats.ResendRate.Mark(1)
		}
	}
	if len(outstanding) > 0 {
		h.stats.FailedSendRate.Mark(1)
		topics := map[string]bool{}
		for _, m := range outstanding {
			topics[m.topic] = true
		}
		h.log.Errorf("Failed to send requests for topics %s with correlation ids in [%d,%d]", strings.Join(keysOf(topics), ","),
			correlationIDStart, h.correlation.Load()-1)
		return fmt.Errorf("%w: Failed to send messages after %d tries.", ErrFailedToSendMessage, h.config.MessageSendMaxRetries)
	}
	return nil
}

// serialize encodes keys and values; with a sync producer an encoder failure (a panic of a
// user encoder) fails the batch, with an async one the message is logged and dropped.
func (h *DefaultEventHandler[K, V]) serialize(events []KeyedMessage[K, V]) ([]serializedMessage, error) {
	out := make([]serializedMessage, 0, len(events))
	for _, e := range events {
		m, err := h.serializeOne(e)
		if err != nil {
			h.stats.SerializationErrorRate.Mark(1)
			if h.isSync {
				return nil, err
			}
			h.log.WithError(err).Errorf("Error serializing message for topic %s", e.Topic)
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

func (h *DefaultEventHandler[K, V]) serializeOne(e KeyedMessage[K, V]) (m serializedMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("encoder failed: %v", r)
		}
	}()
	m = serializedMessage{topic: e.Topic, partKey: e.PartitionKey(), value: h.encoder.ToBytes(e.Message), timestamp: h.time.Milliseconds()}
	if e.HasKey() {
		m.key = h.keyEncoder.ToBytes(e.Key) // nil: the message has no key, as Kafka's Message(key = null)
	}
	return m, nil
}

// dispatchSerializedData sends what it can and returns the messages to retry.
func (h *DefaultEventHandler[K, V]) dispatchSerializedData(ctx context.Context, messages []serializedMessage) []serializedMessage {
	perBroker, err := h.partitionAndCollate(ctx, messages)
	if err != nil {
		return messages
	}
	var failed []serializedMessage
	for _, brokerID := range sortedBrokerIDs(perBroker) {
		perPartition := perBroker[brokerID]
		if h.log.Logger.IsLevelEnabled(logrus.TraceLevel) {
			for tp, ms := range perPartition {
				h.log.Tracef("Handling event for Topic: %s, Broker: %d, Partitions: %d messages", tp, brokerID, len(ms))
			}
		}
		sets, err := h.groupMessagesToSet(perPartition)
		if err != nil {
			h.log.WithError(err).Error("Failed to group messages")
			for _, ms := range perPartition {
				failed = append(failed, ms...)
			}
			continue
		}
		for _, tp := range h.send(ctx, brokerID, sets) {
			failed = append(failed, perPartition[tp]...)
		}
	}
	return failed
}

// partitionAndCollate groups messages by leader (-1: none yet) and partition; a recoverable
// failure (unknown topic, no leader) fails the whole batch, to be retried.
func (h *DefaultEventHandler[K, V]) partitionAndCollate(ctx context.Context, messages []serializedMessage) (map[int32]map[common.TopicPartition][]serializedMessage, error) {
	ret := map[int32]map[common.TopicPartition][]serializedMessage{}
	for _, m := range messages {
		partitions, err := h.getPartitionListForTopic(ctx, m)
		if err == nil {
			var index int
			if index, err = h.getPartition(m.topic, m.partKey, partitions); err == nil {
				bp := partitions[index]
				leader := bp.Leader // -1 fails at send time, so that other brokers' requests go out
				if ret[leader] == nil {
					ret[leader] = map[common.TopicPartition][]serializedMessage{}
				}
				tp := common.TopicPartition{Topic: m.topic, Partition: bp.PartitionID}
				ret[leader][tp] = append(ret[leader][tp], m)
				continue
			}
		}
		if errors.Is(err, protocol.ErrUnknownTopicOrPartition) || errors.Is(err, protocol.ErrLeaderNotAvailable) {
			h.log.Warnf("Failed to collate messages by topic,partition due to: %v", err)
		} else {
			h.log.Errorf("Failed to collate messages by topic, partition due to: %v", err)
		}
		return nil, err
	}
	return ret, nil
}

func (h *DefaultEventHandler[K, V]) getPartitionListForTopic(ctx context.Context, m serializedMessage) ([]PartitionAndLeader, error) {
	partitions, err := h.partInfo.getBrokerPartitionInfo(ctx, m.topic, h.correlation.Add(1)-1)
	if err != nil {
		return nil, err
	}
	if h.log.Logger.IsLevelEnabled(logrus.DebugLevel) {
		ids := make([]string, len(partitions))
		for i, p := range partitions {
			ids[i] = fmt.Sprint(p.PartitionID)
		}
		h.log.Debugf("Broker partitions registered for topic: %s are %s", m.topic, strings.Join(ids, ","))
	}
	if len(partitions) == 0 {
		return nil, fmt.Errorf("%w: Partition key = %v", errNoBrokersForPartition, m.partKey)
	}
	return partitions, nil
}

// getPartition picks the partition index: by the partitioner for a keyed message, else a random
// partition with a leader, kept per topic until the next metadata refresh.
func (h *DefaultEventHandler[K, V]) getPartition(topic string, key any, partitions []PartitionAndLeader) (int, error) {
	n := len(partitions)
	if n <= 0 {
		return 0, fmt.Errorf("%w: Topic %s doesn't exist", protocol.ErrUnknownTopicOrPartition, topic)
	}
	var partition int
	if key == nil {
		if id, ok := h.sendPartPerT[topic]; ok {
			partition = int(id)
		} else {
			var available []PartitionAndLeader
			for _, p := range partitions {
				if p.HasLeader {
					available = append(available, p)
				}
			}
			if len(available) == 0 {
				return 0, fmt.Errorf("%w: No leader for any partition in topic %s", protocol.ErrLeaderNotAvailable, topic)
			}
			id := available[rand.IntN(len(available))].PartitionID
			h.sendPartPerT[topic] = id
			partition = int(id)
		}
	} else {
		partition = h.partitioner.Partition(key, n)
	}
	if partition < 0 || partition >= n {
		return 0, fmt.Errorf("%w: Invalid partition id: %d for topic %s; Valid values are in the inclusive range of [0, %d]",
			protocol.ErrUnknownTopicOrPartition, partition, topic, n-1)
	}
	h.log.Tracef("Assigning message of topic %s and key %v to a selected partition %d", topic, key, partition)
	return partition, nil
}

// groupMessagesToSet builds each partition's message set (offsets 0..n-1, as the broker
// reassigns them), compressed when the topic's codec says so.
func (h *DefaultEventHandler[K, V]) groupMessagesToSet(perPartition map[common.TopicPartition][]serializedMessage) (map[common.TopicPartition]*record.MemoryRecords, error) {
	out := make(map[common.TopicPartition]*record.MemoryRecords, len(perPartition))
	for tp, ms := range perPartition {
		codec := h.config.compressionFor(tp.Topic)
		h.log.Debugf("Sending %d messages with compression codec %d to %s", len(ms), codec.ID(), tp)
		b := record.NewMemoryRecordsBuilder(record.MagicValueV1, codec, record.CreateTime, 0, 0, 0)
		for _, m := range ms {
			if _, err := b.Append(m.timestamp, m.key, m.value); err != nil {
				return nil, err
			}
		}
		out[tp] = b.Build()
	}
	return out, nil
}

// send sends one broker's sets and returns the partitions that failed.
func (h *DefaultEventHandler[K, V]) send(ctx context.Context, brokerID int32, sets map[common.TopicPartition]*record.MemoryRecords) []common.TopicPartition {
	tps := common.SortedTopicPartitions(sets)
	if brokerID < 0 {
		h.log.Warnf("Failed to send data since partitions %s don't have a leader", joinTPs(tps))
		return tps
	}
	if len(sets) == 0 {
		return nil
	}
	correlationID := h.correlation.Add(1) - 1
	req := &protocol.ProduceRequest{Version: ProducerRequestCurrentVersion, Acks: h.config.RequestRequiredAcks, Timeout: h.config.RequestTimeoutMs}
	for _, tp := range tps {
		if n := len(req.TopicData); n == 0 || req.TopicData[n-1].Topic != tp.Topic {
			req.TopicData = append(req.TopicData, protocol.ProduceRequestTopic{Topic: tp.Topic})
		}
		last := &req.TopicData[len(req.TopicData)-1]
		last.Data = append(last.Data, protocol.ProduceRequestTopicPartition{Partition: tp.Partition, RecordSet: sets[tp]})
	}
	sp, err := h.pool.GetProducer(brokerID)
	if err != nil {
		h.log.WithError(err).Warnf("Failed to send producer request with correlation id %d to broker %d with data for partitions %s",
			correlationID, brokerID, joinTPs(tps))
		return tps
	}
	h.log.Debugf("Producer sending messages with correlation id %d for topics %s to broker %d on %s:%d", correlationID, joinTPs(tps),
		brokerID, sp.Host(), sp.Port())
	resp, err := sp.Send(ctx, req)
	if err != nil {
		h.log.WithError(err).Warnf("Failed to send producer request with correlation id %d to broker %d with data for partitions %s",
			correlationID, brokerID, joinTPs(tps))
		return tps
	}
	h.log.Debugf("Producer sent messages with correlation id %d for topics %s to broker %d on %s:%d", correlationID, joinTPs(tps),
		brokerID, sp.Host(), sp.Port())
	if resp == nil { // acks = 0
		return nil
	}
	statuses := map[common.TopicPartition]int16{}
	for _, t := range resp.Responses {
		for _, p := range t.PartitionResponses {
			statuses[common.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.ErrorCode
		}
	}
	if len(statuses) != len(tps) {
		h.log.Warnf("Failed to send producer request with correlation id %d to broker %d with data for partitions %s: "+
			"Incomplete response (%d partitions) for producer request (%d partitions)", correlationID, brokerID, joinTPs(tps), len(statuses), len(tps))
		return tps
	}
	var failed []common.TopicPartition
	var descs []string
	for _, tp := range tps {
		if code := statuses[tp]; code != 0 {
			failed = append(failed, tp)
			descs = append(descs, fmt.Sprintf("[%s,%d]: %v", tp.Topic, tp.Partition, protocol.ErrorForCode(code)))
		}
	}
	if len(failed) > 0 {
		h.log.Warnf("Produce request with correlation id %d failed due to %s", correlationID, strings.Join(descs, ","))
	}
	return failed
}

// Close closes the producer pool.
func (h *DefaultEventHandler[K, V]) Close() {
	if h.pool != nil {
		h.pool.Close()
	}
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedBrokerIDs[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func joinTPs(tps []common.TopicPartition) string {
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = fmt.Sprintf("[%s,%d]", tp.Topic, tp.Partition)
	}
	return strings.Join(parts, ",")
}
