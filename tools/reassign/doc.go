// Package reassign is kafka-reassign-partitions.sh: --generate proposes an
// assignment, --execute writes /admin/reassign_partitions (optionally with
// replication throttles), --verify reports progress and removes the throttles
// once every partition has moved. The controller performs the moves.
//
// Kafka 0.10.2: kafka.admin.ReassignPartitionsCommand (core/src/main/scala/kafka/admin/ReassignPartitionsCommand.scala)
//
// Bookmap: shared/spec/tools.md §6 (options, JSON formats, printed output,
// throttle writes); zookeeper.md §3.6 (/admin/reassign_partitions).
//
// # Order of entries
//
// Kafka prints and writes several JVM hash maps, so its partition order inside
// the JSON lines is hash order (tools.md §6.2 says not to rely on it). Here
// the printed assignments are sorted by topic and partition, and
// /admin/reassign_partitions and --verify follow the order of the JSON file,
// which is also Kafka's order for up to four partitions (a small immutable
// Scala map keeps insertion order).
//
// Runtime failures print "Partitions reassignment failed due to <message>"
// and the exception on stdout and exit 0, as Kafka does.
package reassign
