// Package controller is the Kafka controller: the one broker, elected through
// ZooKeeper, that decides every partition's leader and ISR, and tells the
// brokers through LeaderAndIsr, UpdateMetadata and StopReplica requests.
//
// Kafka 0.10.2: kafka.controller (core/src/main/scala/kafka/controller)
//
// Bookmap: 000 §7.1-§7.1.7, §7.3 (UpdateMetadata), §7.4 (shutdownBroker);
// 001 §4.6-§4.6.9, §4.1.7, §4.3.1-§4.3.2, §5.3-§5.4; 002 §6.4.1-§6.4.3,
// §8.1.2, §8.3. Reference: docs/design.md §4 (from a watch to LeaderAndIsr), docs/formats.md §1.
//
// Pieces, each named after its Kafka class:
//   - KafkaController: election through zkutils.ZookeeperLeaderElector on
//     /controller, onControllerFailover, onControllerResignation, new topics
//     and partitions (kafka_controller.go); onBrokerStartup/Failure and
//     UpdateMetadata (kafka_controller_brokers.go); reassignment, RAR/OAR
//     (kafka_controller_reassign.go); preferred election and auto rebalance
//     (kafka_controller_election.go); controlled shutdown
//     (kafka_controller_shutdown.go).
//   - ControllerContext: the controller's cache of ZooKeeper (live brokers,
//     assignment, leaderships, reassignments in progress).
//   - PartitionStateMachine, ReplicaStateMachine: 0.10.2's states and only its
//     valid transitions; an invalid one is refused with an error and a
//     state.change.logger line.
//   - PartitionLeaderSelector and its five implementations.
//   - TopicDeletionManager: the DeleteTopicsThread as one goroutine.
//   - ControllerChannelManager, RequestSendThread, ControllerBrokerRequestBatch:
//     one queue and one sender goroutine per live broker, each sending one
//     request at a time to the broker's inter-broker listener on its own
//     clients.NetworkClient through NetworkClientBlockingOps, as Kafka does,
//     and waiting for its response.
//   - zk_listeners.go: every controller ZooKeeper listener.
//
// Invariants:
//   - Only the active controller acts: every listener checks IsActive under the
//     controller lock and returns at once otherwise.
//   - Every partition state znode written by the controller carries its epoch;
//     all writes are conditional on the znode version (docs/formats.md §1.3).
//
// Lock order (Go's sync.Mutex is not reentrant; docs/locks.md §3):
//
//	brokerShutdownLock  (KafkaController.brokerShutdownLock, ShutdownBroker only)
//	  -> controllerLock  (KafkaController.controllerLock)
//	  -> ControllerChannelManager.mu  (brokerStateInfo map)
//	  -> TopicDeletionManager.mu      (StopReplica responses waiting for the deletion goroutine)
//
// controllerLock is taken only at entry points: ZooKeeper listener handlers,
// Startup/Shutdown, ShutdownBroker, the auto-rebalance task and the deletion
// goroutine. Methods that are not entry points say "caller holds
// controllerLock" and never lock. Callbacks from the send goroutines never take
// controllerLock: StopReplica responses are handed to the deletion goroutine,
// so shutting the channel manager down under the lock cannot deadlock.
package controller
