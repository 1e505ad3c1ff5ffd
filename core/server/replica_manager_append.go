package server

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

func parentDir(dir string) string { return filepath.Dir(dir) }

func contextBackground() context.Context { return context.Background() }

func discardEntry() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

// ProduceEntry is one partition's record set of a produce request.
type ProduceEntry struct {
	TopicPartition common.TopicPartition
	Records        *record.MemoryRecords
}

// isValidRequiredAcks: acks must be -1, 0 or 1.
func isValidRequiredAcks(acks int16) bool { return acks == -1 || acks == 1 || acks == 0 }

type logAppendResult struct {
	info log.LogAppendInfo
	err  error
}

// AppendRecords appends to the leader replicas and answers through cb: at once for acks 0 and 1
// (or when every partition failed), through the produce purgatory for acks=-1. Invalid acks
// answer INVALID_REQUIRED_ACKS on every partition without writing.
func (rm *ReplicaManager) AppendRecords(timeoutMs int64, requiredAcks int16, internalTopicsAllowed bool,
	entries []ProduceEntry, cb func(map[common.TopicPartition]PartitionResponse)) {
	if !isValidRequiredAcks(requiredAcks) {
		out := make(map[common.TopicPartition]PartitionResponse, len(entries))
		for _, e := range entries {
			out[e.TopicPartition] = PartitionResponse{Err: protocol.ErrInvalidRequiredAcks, BaseOffset: -1, LogAppendTime: record.NoTimestamp}
		}
		cb(out)
		return
	}
	results := rm.appendToLocalLog(internalTopicsAllowed, entries, requiredAcks)
	status := make([]*ProducePartitionStatus, len(entries))
	failed := 0
	for i, e := range entries {
		r := results[i]
		if r.err != nil {
			failed++
		}
		status[i] = &ProducePartitionStatus{TopicPartition: e.TopicPartition, RequiredOffset: r.info.LastOffset + 1,
			ResponseStatus: PartitionResponse{Err: r.err, BaseOffset: r.info.FirstOffset, LogAppendTime: r.info.LogAppendTime}}
	}
	if requiredAcks == -1 && len(entries) > 0 && failed < len(entries) {
		op := NewDelayedProduce(timeoutMs, requiredAcks, status, rm, cb)
		keys := make([]purgatory.DelayedOperationKey, len(entries))
		for i, e := range entries {
			keys[i] = purgatory.NewTopicPartitionOperationKey(e.TopicPartition)
		}
		rm.delayedProducePurgatory.TryCompleteElseWatch(op, keys)
		return
	}
	out := make(map[common.TopicPartition]PartitionResponse, len(status))
	for _, s := range status {
		out[s.TopicPartition] = s.ResponseStatus
	}
	cb(out)
}

func (rm *ReplicaManager) appendToLocalLog(internalTopicsAllowed bool, entries []ProduceEntry, requiredAcks int16) []logAppendResult {
	out := make([]logAppendResult, len(entries))
	for i, e := range entries {
		tp := e.TopicPartition
		if IsInternalTopic(tp.Topic) && !internalTopicsAllowed {
			out[i] = logAppendResult{info: log.UnknownLogAppendInfo,
				err: protocol.Errorf(protocol.ErrInvalidTopicException, "Cannot append to internal topic %s", tp.Topic)}
			continue
		}
		rm.meters(tp.Topic, func(m *metrics.BrokerTopicMetrics) { m.TotalProduceRequestRate.Mark(1) })
		p := rm.GetPartition(tp)
		if p == nil {
			out[i] = logAppendResult{info: log.UnknownLogAppendInfo,
				err: protocol.Errorf(protocol.ErrUnknownTopicOrPartition, "Partition %s doesn't exist on %d", tp, rm.localBrokerID)}
			continue
		}
		info, err := p.AppendRecordsToLeader(e.Records, requiredAcks)
		if err != nil && isStorageError(err) {
			// 0.10.2: a KafkaStorageException halts the broker, so a leader whose disk failed
			// does not keep its partitions (every produce would fail until the disk is fixed)
			// while in-sync followers could take over.
			rm.halt(err, "Halting due to unrecoverable I/O error while handling produce request: ")
			out[i] = logAppendResult{info: log.UnknownLogAppendInfo, err: fmt.Errorf("%w: %w", protocol.ErrUnknown, err)}
			continue
		}
		if err != nil {
			rm.meters(tp.Topic, func(m *metrics.BrokerTopicMetrics) { m.FailedProduceRequestRate.Mark(1) })
			rm.markBytesRejected(tp.Topic, e.Records, err)
			if protocol.CodeOf(err) == protocol.ErrUnknown.Code {
				rm.logger.WithError(err).Errorf("Error processing append operation on partition %s", tp)
			} else {
				rm.logger.Debugf("Error processing append operation on partition %s: %v", tp, err)
			}
			out[i] = logAppendResult{info: log.UnknownLogAppendInfo, err: err}
			continue
		}
		appended := int64(0)
		if info.FirstOffset >= 0 && info.LastOffset >= 0 {
			appended = info.LastOffset - info.FirstOffset + 1
		}
		rm.meters(tp.Topic, func(m *metrics.BrokerTopicMetrics) {
			m.BytesInRate.Mark(int64(e.Records.SizeInBytes()))
			m.MessagesInRate.Mark(appended)
		})
		rm.logger.Tracef("%d bytes written to log %s beginning at offset %d and ending at offset %d",
			e.Records.SizeInBytes(), tp, info.FirstOffset, info.LastOffset)
		out[i] = logAppendResult{info: info}
	}
	return out
}
