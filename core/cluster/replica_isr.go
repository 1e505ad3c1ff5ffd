package cluster

// ResetLastCaughtUpTime starts a remote replica's catch-up history afresh when this broker
// becomes leader: the position of the "previous fetch" is the current leader LEO at curTimeMs,
// and the replica counts as caught up at lastCaughtUpTimeMs (now for an ISR member, so that it
// gets a full replica.lag.time.max.ms to fetch before it can be dropped; 0 for the others).
//
// Kafka 0.10.2: kafka.cluster.Replica.resetLastCaughtUpTime.
func (r *Replica) ResetLastCaughtUpTime(curLeaderLogEndOffset, curTimeMs, lastCaughtUpTimeMs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastFetchLeaderLogEndOffset = curLeaderLogEndOffset
	r.lastFetchTimeMs = curTimeMs
	r.lastCaughtUpTimeMs = lastCaughtUpTimeMs
}
