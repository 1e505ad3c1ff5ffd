package replicaverification

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/oldclient"
	"github.com/zkafka/zkafka/clients/oldconsumer"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// partitionData is one replica's answer for one partition (FetchResponsePartitionData).
type partitionData struct {
	records   *record.MemoryRecords
	errorCode int16
	hw        int64
}

func emptyPartitionData() partitionData {
	return partitionData{records: record.NewMemoryRecords(nil), hw: -1}
}

// countDownLatch is java.util.concurrent.CountDownLatch.
type countDownLatch struct {
	count atomic.Int64
	done  chan struct{}
}

func newCountDownLatch(n int) *countDownLatch {
	l := &countDownLatch{done: make(chan struct{})}
	l.count.Store(int64(n))
	if n <= 0 {
		close(l.done)
	}
	return l
}

func (l *countDownLatch) countDown() {
	if l.count.Add(-1) == 0 {
		close(l.done)
	}
}

// await waits for zero; false when ctx ended first.
func (l *countDownLatch) await(ctx context.Context) bool {
	select {
	case <-l.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// messageInfo is the first replica's message at an offset.
type messageInfo struct {
	replicaID          int32
	offset, nextOffset int64
	checksum           uint32
}

// replicaBuffer keeps each round's fetched data, the offset verified so far per partition, and
// the barriers of the round.
//
// Kafka 0.10.2: kafka.tools.ReplicaBuffer.
type replicaBuffer struct {
	expectedReplicas    map[common.TopicPartition]int
	expectedNumFetchers int
	reportInterval      time.Duration
	out                 io.Writer
	log                 *logrus.Entry

	mu              sync.Mutex
	fetchOffsetMap  map[common.TopicPartition]int64
	messageSetCache map[common.TopicPartition]map[int32]partitionData

	fetcherBarrier      atomic.Pointer[countDownLatch]
	verificationBarrier atomic.Pointer[countDownLatch]

	lastReportTime time.Time
	mismatch       chan struct{} // closed when two replicas disagree on an offset
	mismatchOnce   sync.Once
}

func newReplicaBuffer(ctx context.Context, expected map[common.TopicPartition]int, leadersPerBroker map[int32][]common.TopicPartition,
	expectedNumFetchers int, brokerMap map[int32]oldclient.BrokerEndPoint, initialOffsetTime int64, reportInterval time.Duration,
	out io.Writer, log *logrus.Entry) (*replicaBuffer, error) {
	rb := &replicaBuffer{expectedReplicas: expected, expectedNumFetchers: expectedNumFetchers, reportInterval: reportInterval,
		out: out, log: log.WithField("logger", "kafka.tools.ReplicaBuffer"), fetchOffsetMap: map[common.TopicPartition]int64{},
		messageSetCache: map[common.TopicPartition]map[int32]partitionData{}, lastReportTime: time.Now(), mismatch: make(chan struct{})}
	for tp := range expected {
		rb.messageSetCache[tp] = map[int32]partitionData{}
	}
	rb.newBarriers()
	return rb, rb.setInitialOffsets(ctx, leadersPerBroker, brokerMap, initialOffsetTime)
}

// setInitialOffsets asks each leader for its partitions' offsets before initialOffsetTime.
func (rb *replicaBuffer) setInitialOffsets(ctx context.Context, leadersPerBroker map[int32][]common.TopicPartition,
	brokerMap map[int32]oldclient.BrokerEndPoint, initialOffsetTime int64) error {
	for id, tps := range leadersPerBroker {
		b, ok := brokerMap[id]
		if !ok {
			return fmt.Errorf("no leader broker %d for %v", id, tps)
		}
		sc, err := oldconsumer.NewSimpleConsumer(b.Host, b.Port, 10*time.Second, clientID, nil, nil)
		if err != nil {
			return err
		}
		req := &protocol.ListOffsetRequest{Version: 0, ReplicaID: oldconsumer.OrdinaryConsumerID}
		for _, tp := range tps {
			req.Topics = append(req.Topics, protocol.ListOffsetRequestTopic{Topic: tp.Topic,
				Partitions: []protocol.ListOffsetRequestTopicPartition{{Partition: tp.Partition, Timestamp: initialOffsetTime, MaxNumOffsets: 1}}})
		}
		resp, err := sc.GetOffsetsBefore(ctx, req)
		sc.Close()
		if err != nil {
			return err
		}
		for _, tp := range tps {
			offsets, code, ok := oldconsumer.PartitionOffsets(resp, tp)
			if !ok || code != 0 || len(offsets) == 0 {
				return fmt.Errorf("offset of %s: error %v, offsets %v", tp, protocol.ErrorForCode(code), offsets)
			}
			rb.fetchOffsetMap[tp] = offsets[0]
		}
	}
	return nil
}

func (rb *replicaBuffer) newBarriers() {
	rb.fetcherBarrier.Store(newCountDownLatch(rb.expectedNumFetchers))
	rb.verificationBarrier.Store(newCountDownLatch(1))
}

func (rb *replicaBuffer) barriers() (*countDownLatch, *countDownLatch) {
	return rb.fetcherBarrier.Load(), rb.verificationBarrier.Load()
}

func (rb *replicaBuffer) addFetchedData(tp common.TopicPartition, replicaID int32, d partitionData) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if m, ok := rb.messageSetCache[tp]; ok {
		m[replicaID] = d
	}
}

func (rb *replicaBuffer) getOffset(tp common.TopicPartition) int64 {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return rb.fetchOffsetMap[tp]
}

func (rb *replicaBuffer) failed() bool {
	select {
	case <-rb.mismatch:
		return true
	default:
		return false
	}
}

// verifyCheckSum walks every partition's replicas one message at a time up to each replica's
// high watermark: an offset that differs ends the tool; a checksum that differs is printed. It
// then reports the largest lag behind the high watermark once per report interval.
func (rb *replicaBuffer) verifyCheckSum() {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	rb.log.Debug("Begin verification")
	maxLag, offsetWithMaxLag := int64(-1), int64(-1)
	var maxLagTP common.TopicPartition
	tps := make([]common.TopicPartition, 0, len(rb.messageSetCache))
	for tp := range rb.messageSetCache {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	for _, tp := range tps {
		perReplica := rb.messageSetCache[tp]
		rb.log.Debugf("Verifying %s", tp)
		if len(perReplica) != rb.expectedReplicas[tp] {
			rb.log.Errorf("fetched %d replicas for %s, but expected %d replicas", len(perReplica), fmtTP(tp), rb.expectedReplicas[tp])
			continue
		}
		replicaIDs := make([]int32, 0, len(perReplica))
		entries := map[int32][]record.LogEntry{}
		maxHw := int64(-1)
		for id, d := range perReplica {
			replicaIDs = append(replicaIDs, id)
			for e, err := range d.records.ShallowEntries() {
				if err != nil {
					break
				}
				entries[id] = append(entries[id], e)
			}
			maxHw = max(maxHw, d.hw)
		}
		sort.Slice(replicaIDs, func(i, j int) bool { return replicaIDs[i] < replicaIDs[j] })
		for pos := 0; ; pos++ {
			inAll := true
			var first *messageInfo
			for _, id := range replicaIDs {
				es := entries[id]
				if pos >= len(es) || es[pos].Offset >= perReplica[id].hw {
					inAll = false
					continue
				}
				e := es[pos]
				if first == nil {
					first = &messageInfo{replicaID: id, offset: e.Offset, nextOffset: e.NextOffset(), checksum: e.Record.Checksum()}
					continue
				}
				if first.offset != e.Offset {
					fmt.Fprintf(rb.out, "%s: partition %s: replica %d's offset %d doesn't match replica %d's offset %d\n",
						currentTimeString(time.Now()), fmtTP(tp), first.replicaID, first.offset, id, e.Offset)
					rb.mismatchOnce.Do(func() { close(rb.mismatch) })
					return
				}
				if first.checksum != e.Record.Checksum() {
					fmt.Fprintf(rb.out, "%s: partition %s has unmatched checksum at offset %d; replica %d's checksum %d; replica %d's checksum %d\n",
						currentTimeString(time.Now()), fmtTP(tp), e.Offset, first.replicaID, first.checksum, id, e.Record.Checksum())
				}
			}
			if !inAll || first == nil {
				break
			}
			rb.fetchOffsetMap[tp] = first.nextOffset
			rb.log.Debugf("%d replicas match at offset %d for %s", rb.expectedReplicas[tp], first.nextOffset, fmtTP(tp))
		}
		if lag := maxHw - rb.fetchOffsetMap[tp]; lag > maxLag {
			offsetWithMaxLag = rb.fetchOffsetMap[tp]
			maxLag = lag
			maxLagTP = tp
		}
		clear(perReplica)
	}
	if now := time.Now(); now.Sub(rb.lastReportTime) > rb.reportInterval {
		fmt.Fprintf(rb.out, "%s: max lag is %d for partition %s at offset %d among %d partitions\n",
			currentTimeString(now), maxLag, fmtTP(maxLagTP), offsetWithMaxLag, len(rb.messageSetCache))
		rb.lastReportTime = now
	}
}

// fmtTP is TopicAndPartition.toString: "[topic,partition]".
func fmtTP(tp common.TopicPartition) string { return fmt.Sprintf("[%s,%d]", tp.Topic, tp.Partition) }
