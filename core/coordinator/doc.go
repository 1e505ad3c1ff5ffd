// Package coordinator is the broker side of consumer groups: the group coordinator that runs
// the join/sync/heartbeat protocol, and the group metadata manager that keeps committed offsets
// and group metadata in the compacted internal topic __consumer_offsets.
//
// Kafka 0.10.2: kafka.coordinator (core/src/main/scala/kafka/coordinator)
//
// Bookmap: book 000 ch.5 (the coordinator), book 001 §4.7, book 002 ch.7.2-7.3;
// docs/formats.md §5 (__consumer_offsets, the consumer protocol).
//
// # Where a group lives
//
// A group belongs to partition abs(JavaStringHashCode(groupID)) % N of __consumer_offsets,
// N being the topic's partition count when the coordinator started (or
// offsets.topic.num.partitions if the topic did not exist yet). The broker leading that
// partition is the group's coordinator: it loads the partition (handleGroupImmigration) when
// it becomes leader and drops its groups (handleGroupEmigration) when it stops leading.
//
// # On-disk format (__consumer_offsets)
//
// Every key and value starts with an INT16 schema version.
//
//	offset commit key  v1: group STRING, topic STRING, partition INT32 (v0 read, same layout)
//	group key          v2: group STRING
//	offset value       v1: offset INT64, metadata STRING, commit_timestamp INT64, expire_timestamp INT64
//	                   (v0, read only: offset, metadata, timestamp)
//	group value        v1: protocol_type STRING, generation INT32, protocol NULLABLE_STRING,
//	                   leader NULLABLE_STRING, members ARRAY(member_id, client_id, client_host,
//	                   rebalance_timeout INT32, session_timeout INT32, subscription BYTES,
//	                   assignment BYTES) (v0 lacks rebalance_timeout)
//
// A null value is a tombstone for its key.
//
// # Locks
//
// Lock order: GroupMetadata.mu → DelayedOperation's own lock (inside the purgatory) →
// GroupMetadataManager.partitionMu / cacheMu. Go's mutexes are not reentrant while Kafka's
// `group synchronized` is, so:
//   - methods named *Locked expect the caller to hold the group's lock;
//   - DelayedJoin.TryComplete and DelayedHeartbeat.TryComplete run with the group lock already
//     held, because the coordinator only ever calls the purgatories (CheckAndComplete,
//     TryCompleteElseWatch) while holding it; their completion work is done right there;
//   - the expiry path (the timer's goroutine) holds no lock: OnExpiration takes the group lock;
//   - appends to the log (DelayedStore) are queued on the group under its lock and run after it
//     is released (unlockGroup), as Kafka does "without holding the group lock".
package coordinator
