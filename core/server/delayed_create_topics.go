package server

import (
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/purgatory"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// DelayedCreateTopics is a CreateTopics request waiting, in the AdminManager's "topic"
// purgatory, until every partition of the topics it created has a leader in this broker's
// MetadataCache (the controller's UpdateMetadata after KafkaController.onNewTopicCreation), or
// until its timeout: a created topic whose partitions still lack a leader then answers
// REQUEST_TIMED_OUT (the topic exists all the same).
//
// Kafka 0.10.2: kafka.server.DelayedCreateTopics.
type DelayedCreateTopics struct {
	purgatory.DelayedOperation
	createMetadata   []CreateTopicMetadata
	adminManager     *AdminManager
	responseCallback func(map[string]error)
}

// NewDelayedCreateTopics makes the operation.
func NewDelayedCreateTopics(delayMs int64, createMetadata []CreateTopicMetadata, m *AdminManager,
	responseCallback func(map[string]error)) *DelayedCreateTopics {
	d := &DelayedCreateTopics{createMetadata: createMetadata, adminManager: m, responseCallback: responseCallback}
	d.Init(delayMs, d)
	return d
}

// TryComplete completes the operation once no created topic has a partition without a leader.
func (d *DelayedCreateTopics) TryComplete() bool {
	d.adminManager.logger.Tracef("Trying to complete operation for %v", d.createMetadata)
	leaderless := 0
	for _, md := range d.createMetadata {
		if md.Err == nil {
			leaderless += d.missingLeaderCount(md)
		}
	}
	if leaderless == 0 {
		d.adminManager.logger.Trace("All partitions have a leader, completing the delayed operation")
		return d.ForceComplete()
	}
	d.adminManager.logger.Tracef("%d partitions do not have a leader, not completing the delayed operation", leaderless)
	return false
}

// OnComplete answers: REQUEST_TIMED_OUT for a created topic still missing a leader, the
// validation error or NONE otherwise.
func (d *DelayedCreateTopics) OnComplete() {
	d.adminManager.logger.Tracef("Completing operation for %v", d.createMetadata)
	results := make(map[string]error, len(d.createMetadata))
	for _, md := range d.createMetadata {
		if md.Err == nil && d.missingLeaderCount(md) > 0 {
			results[md.Topic] = protocol.ErrRequestTimedOut
		} else {
			results[md.Topic] = md.Err
		}
	}
	d.responseCallback(results)
}

// OnExpiration implements purgatory.DelayedOperationHooks (nothing beyond OnComplete).
func (d *DelayedCreateTopics) OnExpiration() {}

func (d *DelayedCreateTopics) missingLeaderCount(md CreateTopicMetadata) int {
	n := 0
	for p := range md.ReplicaAssignments {
		s, ok := d.adminManager.metadataCache.GetPartitionInfo(md.Topic, p)
		if !ok || s.Leader == zkutils.NoLeader {
			n++
		}
	}
	return n
}
