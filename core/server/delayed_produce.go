package server

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

// PartitionResponse is one partition's answer to a produce: error, base offset, and the
// LogAppendTime used (-1 unless the topic uses LogAppendTime).
//
// Kafka 0.10.2: org.apache.kafka.common.requests.ProduceResponse.PartitionResponse.
type PartitionResponse struct {
	Err           error
	BaseOffset    int64
	LogAppendTime int64
}

// ProducePartitionStatus is one partition of a produce waiting for its acks: the offset the HW
// must reach (last appended offset + 1) and the response so far.
//
// Kafka 0.10.2: kafka.server.ProducePartitionStatus.
type ProducePartitionStatus struct {
	TopicPartition common.TopicPartition
	RequiredOffset int64
	ResponseStatus PartitionResponse
	acksPending    bool
}

// DelayedProduce is a produce with acks=-1 waiting until every partition's HW has passed what it
// appended (or its partition failed, or the broker stopped leading it), or until the request's
// timeout (REQUEST_TIMED_OUT for the partitions still pending).
//
// Kafka 0.10.2: kafka.server.DelayedProduce.
type DelayedProduce struct {
	purgatory.DelayedOperation
	requiredAcks     int16
	produceStatus    []*ProducePartitionStatus
	replicaManager   *ReplicaManager
	responseCallback func(map[common.TopicPartition]PartitionResponse)
}

// NewDelayedProduce makes the operation. A partition that appended without error starts pending
// with REQUEST_TIMED_OUT as its provisional answer; a failed one is settled already.
func NewDelayedProduce(delayMs int64, requiredAcks int16, status []*ProducePartitionStatus, rm *ReplicaManager,
	cb func(map[common.TopicPartition]PartitionResponse)) *DelayedProduce {
	for _, s := range status {
		if s.ResponseStatus.Err == nil {
			s.acksPending = true
			s.ResponseStatus.Err = protocol.ErrRequestTimedOut
		} else {
			s.acksPending = false
		}
	}
	d := &DelayedProduce{requiredAcks: requiredAcks, produceStatus: status, replicaManager: rm, responseCallback: cb}
	d.Init(delayMs, d)
	return d
}

// TryComplete settles every pending partition whose HW reached its required offset (or that
// errored) and completes when none is pending.
func (d *DelayedProduce) TryComplete() bool {
	pending := false
	for _, s := range d.produceStatus {
		if !s.acksPending {
			continue
		}
		var hasEnough bool
		var err error
		if p := d.replicaManager.GetPartition(s.TopicPartition); p != nil {
			hasEnough, err = p.CheckEnoughReplicasReachOffset(s.RequiredOffset)
		} else {
			err = protocol.ErrUnknownTopicOrPartition
		}
		if err != nil || hasEnough {
			s.acksPending = false
			s.ResponseStatus.Err = err
		} else {
			pending = true
		}
	}
	if !pending {
		return d.ForceComplete()
	}
	return false
}

// OnExpiration logs the partitions that timed out and counts them on the DelayedProduceMetrics
// ExpiresPerSec meters.
func (d *DelayedProduce) OnExpiration() {
	for _, s := range d.produceStatus {
		if s.acksPending {
			d.replicaManager.logger.Debugf("Expiring produce request for partition %s", s.TopicPartition)
			d.replicaManager.recordProduceExpiration(s.TopicPartition)
		}
	}
}

// OnComplete sends the response through the callback.
func (d *DelayedProduce) OnComplete() {
	out := make(map[common.TopicPartition]PartitionResponse, len(d.produceStatus))
	for _, s := range d.produceStatus {
		out[s.TopicPartition] = s.ResponseStatus
	}
	d.responseCallback(out)
}
