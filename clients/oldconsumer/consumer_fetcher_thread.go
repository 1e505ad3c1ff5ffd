package oldconsumer

import (
	"context"
	"fmt"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/cluster"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/fetcher"
)

// ConsumerFetcherThread fetches, for the partitions its manager gave it, from one broker and
// puts each partition's message sets on that partition's stream queue.
//
// Kafka 0.10.2: kafka.consumer.ConsumerFetcherThread, a subclass of the broker's
// AbstractFetcherThread: here the FetcherHooks of a fetcher.AbstractFetcherThread, the same
// skeleton the replica fetchers run on. It fetches as an ordinary consumer (replica id -1, so up
// to the high watermark) through a SimpleConsumer, backs off refresh.leader.backoff.ms when it
// has nothing to fetch, and gives partitions with errors back to the manager's leader finder.
type ConsumerFetcherThread struct {
	*fetcher.AbstractFetcherThread
	config         *ConsumerConfig
	partitionMap   map[common.TopicPartition]*PartitionTopicInfo // read-only after construction
	manager        *ConsumerFetcherManager
	simpleConsumer *SimpleConsumer
	builder        *FetchRequestBuilder
	log            *logrus.Entry
}

func newConsumerFetcherThread(name string, config *ConsumerConfig, sourceBroker cluster.BrokerEndPoint,
	partitionMap map[common.TopicPartition]*PartitionTopicInfo, manager *ConsumerFetcherManager,
	reg *metrics.Registry, log *logrus.Entry) *ConsumerFetcherThread {
	sc := newSimpleConsumer(sourceBroker.Host, sourceBroker.Port, ms(config.SocketTimeoutMs), config.ClientID, reg, log)
	t := &ConsumerFetcherThread{config: config, partitionMap: partitionMap, manager: manager, simpleConsumer: sc,
		builder: NewFetchRequestBuilder().ReplicaID(OrdinaryConsumerID).MaxWait(config.FetchWaitMaxMs).
			MinBytes(config.FetchMinBytes).RequestVersion(FetchRequestCurrentVersion),
		log: log.WithField("logger", "kafka.consumer.ConsumerFetcherThread").WithField("ident", "["+name+"], ")}
	t.AbstractFetcherThread = fetcher.NewAbstractFetcherThread(name, config.ClientID, sourceBroker,
		int64(config.RefreshLeaderBackoffMs), t, nil, log.WithField("logger", "kafka.consumer.ConsumerFetcherThread"))
	return t
}

// CloseFetcher implements fetcher.FetcherCloser: the connection goes once the loop has ended.
func (t *ConsumerFetcherThread) CloseFetcher() { t.simpleConsumer.Close() }

// consumerFetchRequest is a built request and the offsets it asks for.
type consumerFetchRequest struct {
	underlying *protocol.FetchRequest
	offsets    map[common.TopicPartition]int64
}

func (r *consumerFetchRequest) IsEmpty() bool { return len(r.offsets) == 0 }

func (r *consumerFetchRequest) Offset(tp common.TopicPartition) (int64, bool) {
	o, ok := r.offsets[tp]
	return o, ok
}

func (r *consumerFetchRequest) String() string {
	var parts []string
	for _, t := range r.underlying.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("[%s,%d] -> PartitionFetchInfo(%d,%d)", t.Topic, p.Partition, p.FetchOffset, p.MaxBytes))
		}
	}
	return fmt.Sprintf("Name: FetchRequest; Version: %d; ReplicaId: %d; MaxWait: %d ms; MinBytes: %d bytes; MaxBytes:%d bytes; RequestInfo: %s",
		r.underlying.Version, r.underlying.ReplicaID, r.underlying.MaxWaitTime, r.underlying.MinBytes, r.underlying.MaxBytes,
		strings.Join(parts, ","))
}

// BuildFetchRequest implements fetcher.FetcherHooks: fetch.message.max.bytes of every active
// partition.
func (t *ConsumerFetcherThread) BuildFetchRequest(states []fetcher.PartitionStateEntry) fetcher.FetchRequest {
	offsets := make(map[common.TopicPartition]int64, len(states))
	now := t.Now()
	for _, s := range states {
		if s.State.IsActive(now) {
			t.builder.AddFetch(s.TopicPartition.Topic, s.TopicPartition.Partition, s.State.Offset, t.config.FetchMessageMaxBytes)
			offsets[s.TopicPartition] = s.State.Offset
		}
	}
	return &consumerFetchRequest{underlying: t.builder.Build(), offsets: offsets}
}

// consumerPartitionData is one partition of a fetch response.
type consumerPartitionData struct {
	errorCode     int16
	highWatermark int64
	records       *record.MemoryRecords
}

func (d consumerPartitionData) ErrorCode() int16                 { return d.errorCode }
func (d consumerPartitionData) HighWatermark() int64             { return d.highWatermark }
func (d consumerPartitionData) ToRecords() *record.MemoryRecords { return d.records }

// Fetch implements fetcher.FetcherHooks through the SimpleConsumer.
func (t *ConsumerFetcherThread) Fetch(ctx context.Context, req fetcher.FetchRequest) ([]fetcher.FetchedPartition, error) {
	resp, err := t.simpleConsumer.Fetch(ctx, req.(*consumerFetchRequest).underlying)
	if err != nil {
		return nil, err
	}
	var out []fetcher.FetchedPartition
	for _, tt := range resp.Responses {
		for _, p := range tt.PartitionResponses {
			out = append(out, fetcher.FetchedPartition{
				TopicPartition: common.TopicPartition{Topic: tt.Topic, Partition: p.PartitionHeader.Partition},
				Data: consumerPartitionData{errorCode: p.PartitionHeader.ErrorCode, highWatermark: p.PartitionHeader.HighWatermark,
					records: asMemoryRecords(p.RecordSet)}})
		}
	}
	return out, nil
}

// ProcessPartitionData implements fetcher.FetcherHooks: the message set goes to the
// partition's stream queue (waiting for room, until the thread shuts down).
func (t *ConsumerFetcherThread) ProcessPartitionData(tp common.TopicPartition, fetchOffset int64, data fetcher.PartitionData) error {
	pti, ok := t.partitionMap[tp]
	if !ok {
		return fmt.Errorf("partition [%s,%d] is not owned by this consumer", tp.Topic, tp.Partition)
	}
	if pti.GetFetchOffset() != fetchOffset {
		return fmt.Errorf("Offset doesn't match for partition [%s,%d] pti offset: %d fetch offset: %d",
			tp.Topic, tp.Partition, pti.GetFetchOffset(), fetchOffset)
	}
	return pti.Enqueue(t.Context(), data.ToRecords())
}

// HandleOffsetOutOfRange implements fetcher.FetcherHooks: auto.offset.reset decides between the
// log start (smallest) and end (largest); both offsets of the partition move there.
func (t *ConsumerFetcherThread) HandleOffsetOutOfRange(tp common.TopicPartition) (int64, error) {
	startTimestamp := LatestTime
	if t.config.AutoOffsetReset == SmallestTimeString {
		startTimestamp = EarliestTime
	}
	newOffset, err := t.simpleConsumer.EarliestOrLatestOffset(t.Context(), tp, startTimestamp, OrdinaryConsumerID)
	if err != nil {
		return 0, err
	}
	if pti, ok := t.partitionMap[tp]; ok {
		pti.ResetFetchOffset(newOffset)
		pti.ResetConsumeOffset(newOffset)
	}
	return newOffset, nil
}

// HandlePartitionsWithErrors implements fetcher.FetcherHooks: the partitions leave this thread
// and go back to the leader finder.
func (t *ConsumerFetcherThread) HandlePartitionsWithErrors(tps []common.TopicPartition) {
	set := make(map[common.TopicPartition]struct{}, len(tps))
	for _, tp := range tps {
		set[tp] = struct{}{}
	}
	t.RemovePartitions(set)
	t.manager.addPartitionsWithError(tps)
}
