// Package log is the broker's storage: a partition's Log made of LogSegments, each a .log file of
// message sets with a sparse OffsetIndex and a TimeIndex beside it, plus the validation and offset
// assignment done on the leader's append path (LogValidator).
//
// Kafka 0.10.2: kafka.log (core/src/main/scala/kafka/log), plus kafka.server.LogOffsetMetadata and
// kafka.server.FetchDataInfo (moved here, docs/design.md §1.2 row 5).
//
// Bookmap: 4.3.1-4.3.6 (layout, indexes, LogSegment, Log), 6.1.1-6.1.4 (writing, segments,
// reading), 6.1.5 in part (Log.deleteOldSegments), 10.2 (timestamps, LogValidator, TimeIndex,
// fetchOffsetsByTimestamp); docs/formats.md §3-4. Files: log.go (the Log, its
// segment list, roll, flush, deletion), log_load.go (loadSegments, recoverLog), log_append.go,
// log_read.go, log_retention.go, log_truncate.go, log_names.go (Kafka's object Log), log_segment.go,
// abstract_index.go, offset_index.go, time_index.go, log_validator.go, log_config.go.
//
// # On-disk format
//
// A partition directory <topic>-<partition> holds, per segment, files named by the segment's base
// offset zero-padded to 20 digits:
//
//	00000000000000000000.log        message sets as produced (INT64 offset, INT32 size, message)
//	00000000000000000000.index      8-byte entries: INT32 offset-baseOffset, INT32 byte position
//	00000000000000000000.timeindex  12-byte entries: INT64 timestamp, INT32 offset-baseOffset
//
// Integers are big-endian. Indexes are preallocated to segment.index.bytes (rounded down to a whole
// entry) while a segment is active and trimmed to exactly their entries on roll and close, because
// the entry count of an index is derived from its file length when it is opened. Suffixes .deleted,
// .cleaned and .swap mark files being deleted, written by the cleaner, or swapped in; loadSegments
// finishes or discards each at startup.
//
// With zkafka.leader.epoch.truncation.enable (a zkafka extension, Kafka 0.11's KIP-101) the
// directory also holds leader-epoch-checkpoint, Kafka 0.11's format: "0\n<count>\n" then one
// "<epoch> <startOffset>\n" line per epoch (LeaderEpochFileCache, leader_epoch_*.go). Message
// format stays v0/v1; the epochs come from the controller's LeaderAndIsr, not from the batches.
// Segment loading ignores the file; with the mode off the broker deletes it at startup
// (LogManager.RemoveLeaderEpochCheckpoints), so a history not kept up to date is never trusted.
//
// # Invariants
//
//   - A segment's base offset is <= every offset it holds and > every offset of earlier segments.
//   - Index entries increase strictly in offset; time-index entries increase in timestamp and never
//     decrease in offset. An offset-index entry is added before a batch once more than
//     index.interval.bytes were written since the last one, so the first entry is never at position 0.
//   - The log end offset (nextOffsetMetadata) is published after the bytes are in the segment; reads
//     of the active segment stop at the position published with it, never at the raw file size.
//   - Recovery keeps exactly the valid prefix of a segment: the first entry that is truncated, too
//     large or fails its CRC ends the segment; everything after it (and every later segment) goes.
//
// # Locks
//
// Lock order: Log.mu → (LogSegment has no lock of its own; callers serialise writes through Log.mu)
// → AbstractIndex.mu; Log.mu → LeaderEpochFileCache.mu → LeaderEpochCheckpointFile.mu (the cache
// is edited under the log's lock by truncation and retention, and alone by its other callers). Kafka's Log lock is a reentrant monitor; Go's mutex is not, so internal
// methods whose names end in Locked expect the caller to hold Log.mu and never take it again. The
// log never calls its Scheduler while holding Log.mu: the roll's flush and the delayed deletion of
// .deleted files are queued and handed to the scheduler when Log.mu is released, because a
// scheduler may run due tasks (possibly LogManager jobs that take Log.mu) inside Schedule.
// FlushTo takes no lock at all (the recovery point only moves forward, by compare-and-swap). Reads (Log.Read) do not take
// Log.mu: they snapshot the segment list and the published log end offset, as Kafka's lock-free
// reads over a ConcurrentSkipListMap do. Index lookups take the index's read lock because a Resize
// replaces the memory mapping.
package log
