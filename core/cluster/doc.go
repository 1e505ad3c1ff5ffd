// Package cluster models what a broker knows about the cluster it serves: the brokers, and for
// each partition hosted here its replicas, its leader, its in-sync replica set and its high
// watermark.
//
// Kafka 0.10.2: kafka.cluster (core/src/main/scala/kafka/cluster), plus kafka.server.LogReadResult
// (moved here because Partition.updateReplicaLogReadResult takes it; docs/design.md §1.2 row 6).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.6 (Partition, Replica, HW/LEO); 《Kafka技术内幕》 §6.1-6.2.
//
// # The ReplicaManager seam
//
// A Scala Partition holds its ReplicaManager. core/server imports this package, so Partition
// sees it through the ReplicaManager interface declared here, which *server.ReplicaManager
// satisfies (docs/design.md §1.3).
//
// # Invariants
//
//   - The high watermark is only advanced by the leader, and only to the smallest log end offset
//     among the replicas that are in the ISR or were caught up within replica.lag.time.max.ms.
//   - The HW never goes backwards while a broker stays leader.
//   - A local replica's HW is restored from replication-offset-checkpoint, capped at the LEO.
//
// # Lock order
//
//	Partition.leaderIsrUpdateLock (RWMutex: appends and reads take it shared; leadership and
//	ISR changes take it exclusive)
//	  -> Partition.replicasMu (the assigned-replica map, a ConcurrentHashMap in Scala)
//	  -> Replica.mu
//	Go's RWMutex is not reentrant: no method that takes leaderIsrUpdateLock is called while it
//	is held. Delayed operations are completed only after the lock has been released (a
//	completion may read the partition again).
package cluster
