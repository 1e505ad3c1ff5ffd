// Package preferredelection is kafka-preferred-replica-election.sh: it writes
// /admin/preferred_replica_election with the partitions (from a JSON file, or
// every partition of every topic) whose leadership the controller should move
// back to the first replica.
//
// Kafka 0.10.2: kafka.admin.PreferredReplicaLeaderElectionCommand
// (core/src/main/scala/kafka/admin/PreferredReplicaLeaderElectionCommand.scala)
//
// Bookmap: docs/bookmap.md (001 ch.5); the znode it writes is in docs/formats.md §1.2.
//
// Kafka prints the partitions as a Scala Set, whose order is insertion order
// up to four elements and hash order above. Here the order is the file's
// (duplicates removed) or, without a file, sorted by topic and partition; the
// znode lists the partitions in the same order as the printed Set.
//
// Every failure prints "Failed to start preferred replica election" and the
// exception on stdout and exits 0, as Kafka does.
package preferredelection
