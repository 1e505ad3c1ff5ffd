// Package oldconsumer is Kafka's Scala consumer: the ZooKeeper-coordinated high-level consumer
// (ZookeeperConsumerConnector), the low-level SimpleConsumer, and the BaseConsumer the tools
// share with the new consumer.
//
// Kafka 0.10.2: kafka.consumer (core/src/main/scala/kafka/consumer), with
// kafka.message.MessageAndMetadata and kafka.api.FetchRequestBuilder.
//
// Bookmap: 《Kafka技术内幕》 ch.3 (the whole chapter: §3.1 startup, §3.2 rebalance and
// assignment, §3.3 fetchers, §3.4 streams and iterators, §3.5 offsets, §3.6 SimpleConsumer);
// 《Kafka技术内幕》 §7.2.1 (the old consumer's problems: herd effect, split brain);
// 《深入理解Kafka》 §3.3 (rebalance designs).
//
// # ZooKeeper layout (what a member writes)
//
//	/consumers/<group>/ids/<consumerId>          ephemeral: {"version":1,"subscription":{"t":2},"pattern":"static","timestamp":"<ms>"}
//	/consumers/<group>/owners/<topic>/<partition> ephemeral: "<consumerId>-<thread>"
//	/consumers/<group>/offsets/<topic>/<partition> persistent: "<offset>" (offsets.storage=zookeeper or dual commit)
//
// consumerId is "<group>_<host>-<ms>-<8 hex digits>" (or "<group>_<consumer.id>"). A wildcard
// member's subscription maps its JSON-escaped regex to its stream count, with pattern
// "white_list" or "black_list".
//
// # Thread model (goroutines)
//
//   - The caller's goroutine(s): one per KafkaStream, iterating a ConsumerIterator over the
//     stream's bounded queue of FetchedDataChunks (queued.max.message.chunks).
//   - The watcher executor ("<consumer>_watcher_executor"): runs syncedRebalance when a
//     ZooKeeper listener flagged a change.
//   - The ZooKeeper event goroutine (zk/zkclient): runs the listeners; after a session expiry
//     ZKSessionExpireListener re-registers and rebalances on it, and a wildcard topic event
//     reinitialises the consumer on it, as in Kafka.
//   - ConsumerFetcherManager's leader finder, and one ConsumerFetcherThread per (broker, fetcher
//     id), on core/server/fetcher's AbstractFetcherThread: the same fetch loop the brokers'
//     replica fetchers run (the one cross-jar edge the layout allows).
//   - The auto committer (a KafkaScheduler task) when auto.commit.enable.
//
// # Rebalance
//
// syncedRebalance holds rebalanceLock and tries up to rebalance.max.retries times,
// rebalance.backoff.ms apart: stop the fetchers and clear the queues (committing first with auto
// commit on), release the owner znodes, compute the assignment (range or roundrobin) from the
// registrations, read the committed offsets, create the owner znodes (any still held by the
// previous owner fails the attempt) and start the fetchers. The log lines are Kafka's ("begin
// rebalancing consumer ... try #N", "... attempting to claim partition N", "... successfully
// owned partition N for topic T", "Consumer ... selected partitions : ...").
//
// # Lock order
//
//	ZookeeperConsumerConnector.rebalanceLock -> offsetsChannelLock -> {mu, registryMu}
//	ConsumerFetcherManager: AbstractFetcherManager.mapLock -> AbstractFetcherThread.partitionMapLock;
//	ConsumerFetcherManager.lock is taken alone.
//
// A fetcher waits for room in a stream queue while it holds its partition map lock, as Kafka's
// does; shutting the fetcher down cancels that wait.
//
// # Differences from 0.10.2
//
//   - A rebalance attempt fails (and is retried) when the assignment names a wildcard topic whose
//     stream queue is not wired yet; Kafka would start a fetcher that later fails on a null queue.
//   - An owner znode that cannot be created for a reason other than a conflict makes the attempt
//     release the ones it created, as a conflict does (Kafka leaves them until the session ends).
//   - CommitOffsets returns the error of a commit that failed every attempt (Kafka logs it).
package oldconsumer
