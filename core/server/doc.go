// Package server is the broker: KafkaServer starts and stops the components, KafkaApis answers
// every request, ReplicaManager owns the hosted partitions (appends, fetches, high watermarks),
// MetadataCache serves Metadata from what the controller sent, and DelayedProduce/DelayedFetch
// wait in the purgatories for acks and bytes; AdminManager creates and deletes topics for
// CreateTopics and DeleteTopics (DelayedCreateTopics/DelayedDeleteTopics wait for the controller).
//
// Kafka 0.10.2: kafka.server (core/src/main/scala/kafka/server), minus the classes moved to the
// leaves config, brokerstate, purgatory and fetcher and to core/log and core/cluster (docs/design.md
// B.4).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.1 (KafkaServer), §4.2 (KafkaRequestHandler, KafkaApis),
// §4.4 (DelayedProduce, DelayedFetch), §4.5 (ReplicaManager, HW checkpoint), §4.7
// (MetadataCache); 《Kafka技术内幕》 ch.6.2-6.3; 001 §4.1-4.5.
//
// # Startup and shutdown (0.10.2's order)
//
// Startup: BrokerState Starting; scheduler; ZooKeeper (chroot created first through a
// connection without it, then the common paths); /cluster/id; LogManager (per-topic configs
// from /config/topics, recovery unless .kafka_cleanshutdown); broker id (broker.id,
// meta.properties, or /brokers/seqid); [zkafka: /zkafka/brokers/<id> marker and the check that
// every live broker agrees on leader-epoch truncation]; SocketServer; ReplicaManager; KafkaController (joins the
// /controller election); GroupCoordinator (kafka_server_coordinator.go); AdminManager; KafkaApis and the
// request handler pool; DynamicConfigManager; KafkaHealthcheck (/brokers/ids/<id>, v4 JSON,
// bound port for port 0); [zkafka: the agreement check again]; meta.properties; RunningAsBroker.
//
// Shutdown: controlled shutdown (controlled.shutdown.enable: ControlledShutdown to the broker
// /controller names, retried up to controlled.shutdown.max.retries times until it leads
// nothing); BrokerShuttingDown; health check listener; SocketServer; handlers; scheduler;
// ReplicaManager (last HW checkpoint); AdminManager; DynamicConfigManager; GroupCoordinator;
// LogManager (.kafka_cleanshutdown);
// KafkaController; ZooKeeper (the ephemeral registration goes); NotRunning.
//
// # The broker's own clients
//
// The replica fetcher (replica_fetcher_blocking_send.go) and controlled shutdown
// (kafka_server_controlled_shutdown.go) each own a clients.NetworkClient (ManualMetadataUpdater,
// max.in.flight 1, reconnect backoff 0, request.timeout.ms) and drive it with
// clients.NetworkClientBlockingOps, as 0.10.2 does: frame sizes, correlation ids and timeouts
// are checked where every client checks them. replicaFetcherBlockingSend.mu serialises the fetch
// loop and AddPartitions' offset lookups on one client; it is taken before the clients/network
// leaves.
//
// # Dynamic config
//
// DynamicConfigManager follows /config/changes (zkutils' ZkNodeChangeNotificationListener) and
// hands the named entity's whole stored config to the ConfigHandler of its type:
// TopicConfigHandler rebuilds the LogConfig of the topic's live logs from the broker defaults
// plus the overrides and marks its replication-throttled partitions; the client and user
// handlers set producer_byte_rate and consumer_byte_rate on the quota managers, and the broker
// handler this broker's leader/follower replication throttle rates.
//
// # Quotas
//
// QuotaManagers (quota_factory.go) hold the produce and fetch ClientQuotaManagers and the leader
// and follower ReplicationQuotaManagers, built on the broker's client-metrics registry
// (KafkaServer.clientMetrics, shown in Metrics by a JmxReporter). A produce or consumer fetch
// over its client's quota is answered after a delay, with the delay in throttle_time_ms (v1+):
// the response waits in the manager's delay queue (throttled_response.go) while the connection
// stays muted. Replication throttling leaves a throttled, out-of-sync partition out of a
// follower's fetch: on the leader (ReplicaManager.shouldLeaderThrottle, DelayedFetch) and on
// the follower (ReplicaFetcherThread.shouldFollowerThrottle). Lock order: ClientQuotaManager.lock
// -> quotaMu -> the client metrics' Sensor and Metrics locks; ReplicationQuotaManager.lock ->
// the same; throttledMu is a leaf. The reaper runs the response callbacks with no lock held.
//
// # Requests
//
// KafkaApis.Handle dispatches keys 0-20 (and 23 between brokers, with leader-epoch truncation). A handler returns an error instead of throwing; Handle
// turns it into GetErrorResponse (the error's code on every partition, topic or group, at the
// request's version) or, for a produce with acks=0, closes the connection. A panic in a handler
// is recovered the same way, so a request never takes the broker down. Each API has its own
// handler, named as in KafkaApis.scala, in a file named after its group: kafka_apis_produce.go,
// kafka_apis_fetch.go, kafka_apis_offsets.go (ListOffsets), kafka_apis_metadata.go,
// kafka_apis_controller.go (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown),
// kafka_apis_admin.go (CreateTopics and DeleteTopics, through the AdminManager on the active
// controller; any other broker answers NOT_CONTROLLER), kafka_apis_offset_commit.go, kafka_apis_offset_fetch.go,
// kafka_apis_group.go (GroupCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
// DescribeGroups, ListGroups) and kafka_apis_handshake.go (SaslHandshake: ILLEGAL_SASL_STATE on a
// plaintext listener; ApiVersions). OffsetCommit/OffsetFetch v0 are served from ZooKeeper, as in
// 0.10.2. ControlledShutdown goes to
// KafkaController.ShutdownBroker; a broker that is not the active controller answers
// STALE_CONTROLLER_EPOCH (0.10.2's ControllerMovedException).
//
// Fetch responses are written at send time by protocol.WriteResponse, which streams each
// FileRecords slice from its segment with sendfile (core/network's writer exposes the socket's
// descriptor); nothing of the log is copied into the response buffer.
//
// # Replication
//
// Followers fetch from their leaders with ReplicaFetcherThreads (the fetcher leaf's skeleton),
// as replica_id = their broker id; the leader records each follower's LEO, grows the ISR, moves
// the HW and completes acks=-1 produces; the isr-expiration task shrinks the ISR, and ISR
// changes reach ZooKeeper (conditional on zkVersion) and, batched, /isr_change_notification.
// See replica_manager_replication.go. Bookmap: 《Apache Kafka源码剖析》 §4.6.3; 《Kafka技术内幕》
// §6.3-6.4.
//
// # Leader-epoch truncation (a zkafka extension, off by default)
//
// 0.10.2 truncates a new follower to its high watermark, which can throw away an acknowledged
// message when two replicas fail one after the other (《深入理解Kafka》 §8.1). With
// zkafka.leader.epoch.truncation.enable, as Kafka 0.11 (KIP-101): every log keeps a
// leader-epoch-checkpoint (core/log); a leader records its epoch at its log end offset when it
// becomes leader, a follower the leader's epoch before appending the first message fetched in
// it (message formats stay v0/v1: the epoch is the controller's leader_epoch); makeFollowers
// no longer truncates, and the replica fetcher first asks the leader with OffsetsForLeaderEpoch
// (key 23, only between brokers: kafka_apis_leader_epoch.go) where its latest epoch ends and
// truncates there (replica_fetcher_leader_epoch.go). Every broker must have the same setting:
// leader_epoch_marker.go refuses to start next to a live broker that disagrees.
//
// # Lock order
//
//	ReplicaManager.replicaStateChangeLock (LeaderAndIsr, StopReplica, UpdateMetadata)
//	  -> fetcher.AbstractFetcherManager.mapLock -> AbstractFetcherThread.partitionMapLock
//	  -> ReplicaManager.partitionsMu
//	  -> cluster.Partition.leaderIsrUpdateLock -> Partition.replicasMu -> Replica.mu
//	MetadataCache.mu is a leaf. Purgatory hooks run with no ReplicaManager lock held, and
//	Partition completes delayed operations only after releasing leaderIsrUpdateLock.
package server
