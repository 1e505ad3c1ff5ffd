// Package reassign is kafka-reassign-partitions.sh: --generate proposes an
// assignment, --execute writes /admin/reassign_partitions (optionally with
// replication throttles), --verify reports progress and removes the throttles
// once every partition has moved. The controller performs the moves.
//
// Kafka 0.10.2: kafka.admin.ReassignPartitionsCommand (core/src/main/scala/kafka/admin/ReassignPartitionsCommand.scala)
//
// Bookmap: docs/bookmap.md (001 ch.5); /admin/reassign_partitions is in
// docs/formats.md §1.2.
//
// # Order of entries
//
// Kafka prints and writes several JVM hash maps, so its partition order inside
// the JSON lines is hash order (nothing may rely on it). Here
// the printed assignments are sorted by topic and partition, and
// /admin/reassign_partitions and --verify follow the order of the JSON file,
// which is also Kafka's order for up to four partitions (a small immutable
// Scala map keeps insertion order).
//
// Runtime failures print "Partitions reassignment failed due to <message>"
// and the exception on stdout and exit 0, as Kafka does.
package reassign
