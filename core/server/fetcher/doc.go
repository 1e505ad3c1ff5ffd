// Package fetcher is the skeleton shared by every component that pulls records from a broker in
// a loop: a fetcher goroutine per (source broker, fetcher id), each keeping an ordered set of
// partitions with the offset to fetch next, and a manager that spreads partitions over those
// goroutines.
//
// Kafka 0.10.2: kafka.server (core/src/main/scala/kafka/server): AbstractFetcherThread,
// AbstractFetcherManager, PartitionFetchState, BrokerAndFetcherId, BrokerAndInitialOffset
// (moved to this leaf because clients/oldconsumer's ConsumerFetcherThread extends the same
// skeleton and core/server imports what it would otherwise import; docs/design.md §1.2).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.6.3 (ReplicaFetcherThread and its abstract parent);
// 《Kafka技术内幕》 §6.3 (replica synchronisation); 000 §3.3 and §7.2.2 (the shared fetcher).
//
// # Hooks instead of abstract methods
//
// A Scala subclass overrides five methods of AbstractFetcherThread. Here the concrete fetcher
// implements the FetcherHooks interface and passes it to NewAbstractFetcherThread; the
// AbstractFetcherManager gets a CreateFetcherThread function in the same way.
//
// # Log truncation (Kafka 0.11, opt-in)
//
// A thread given LogTruncationHooks (IncludeLogTruncation; the replica fetcher does this with
// zkafka.leader.epoch.truncation.enable) adds every partition in the truncating state: before
// each fetch, the loop asks the source for the end offset of each truncating partition's latest
// leader epoch (OffsetsForLeaderEpoch, without the lock), then, under the lock, lets the hooks
// truncate and marks the partitions ready at the offsets they chose. Failed answers keep the
// partition truncating and delay it by the back-off; a truncating partition is in no fetch
// request, and data that arrives for one is stale and dropped. Kafka 0.11.0:
// AbstractFetcherThread.maybeTruncate, PartitionFetchState.truncatingLog.
//
// # Invariants
//
//   - A partition's data is handed to ProcessPartitionData only while partitionMapLock is held,
//     and only if the partition's fetch offset is still the one the request asked for. So once
//     RemovePartitions has returned, no data of that partition is appended any more: the caller
//     may truncate the log safely (ReplicaManager.makeFollowers relies on this).
//   - A partition with an error is moved to the end of the order and, through the hooks,
//     usually delayed by a backoff (PartitionFetchState.IsActive false until then); a delayed
//     partition is left out of the requests built meanwhile.
//   - Partitions that returned data move to the end of the order, so that with a response size
//     limit every partition gets its turn (fairness, as Kafka's PartitionStates).
//
// # Lock order
//
//	AbstractFetcherManager.mapLock -> AbstractFetcherThread.partitionMapLock
//
// The hooks run with partitionMapLock held, except Fetch and FetchEpochsFromLeader (network I/O)
// and HandlePartitionsWithErrors, which may call DelayPartitions.
//
// # Shutdown
//
// Kafka's replica fetcher thread is not interruptible: shutdown waits for the fetch in flight
// (at most replica.fetch.wait.max.ms plus the network). Here Fetch gets a context that is
// cancelled by Shutdown, so a fetcher stops at once; the cancelled fetch's answer would have
// been discarded anyway, because the thread no longer runs.
package fetcher
