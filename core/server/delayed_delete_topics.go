package server

import (
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/purgatory"
)

// DelayedDeleteTopics is a DeleteTopics request waiting, in the AdminManager's "topic"
// purgatory, until every topic it marked for deletion has left this broker's MetadataCache (the
// controller's UpdateMetadata with LeaderDuringDelete once TopicDeletionManager is done), or
// until its timeout: a topic still present then answers REQUEST_TIMED_OUT.
//
// Kafka 0.10.2: kafka.server.DelayedDeleteTopics.
type DelayedDeleteTopics struct {
	purgatory.DelayedOperation
	deleteMetadata   []DeleteTopicMetadata
	adminManager     *AdminManager
	responseCallback func(map[string]error)
}

// NewDelayedDeleteTopics makes the operation.
func NewDelayedDeleteTopics(delayMs int64, deleteMetadata []DeleteTopicMetadata, m *AdminManager,
	responseCallback func(map[string]error)) *DelayedDeleteTopics {
	d := &DelayedDeleteTopics{deleteMetadata: deleteMetadata, adminManager: m, responseCallback: responseCallback}
	d.Init(delayMs, d)
	return d
}

// TryComplete completes the operation once none of the marked topics is in the cache.
func (d *DelayedDeleteTopics) TryComplete() bool {
	d.adminManager.logger.Tracef("Trying to complete operation for %v", d.deleteMetadata)
	existing := 0
	for _, md := range d.deleteMetadata {
		if md.Err == nil && d.adminManager.metadataCache.Contains(md.Topic) {
			existing++
		}
	}
	if existing == 0 {
		d.adminManager.logger.Trace("All topics have been deleted or have errors, completing the delayed operation")
		return d.ForceComplete()
	}
	d.adminManager.logger.Tracef("%d topics still exist, not completing the delayed operation", existing)
	return false
}

// OnComplete answers: REQUEST_TIMED_OUT for a marked topic still in the cache, the marking
// error or NONE otherwise.
func (d *DelayedDeleteTopics) OnComplete() {
	d.adminManager.logger.Tracef("Completing operation for %v", d.deleteMetadata)
	results := make(map[string]error, len(d.deleteMetadata))
	for _, md := range d.deleteMetadata {
		if md.Err == nil && d.adminManager.metadataCache.Contains(md.Topic) {
			results[md.Topic] = protocol.ErrRequestTimedOut
		} else {
			results[md.Topic] = md.Err
		}
	}
	d.responseCallback(results)
}

// OnExpiration implements purgatory.DelayedOperationHooks (nothing beyond OnComplete).
func (d *DelayedDeleteTopics) OnExpiration() {}
