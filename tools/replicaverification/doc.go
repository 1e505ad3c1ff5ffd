// Package replicaverification is kafka-replica-verification.sh: it fetches every partition of
// the chosen topics from every replica, and checks, message by message up to each replica's
// high watermark, that the replicas hold the same offsets and checksums, reporting the largest
// lag between the verified offset and the high watermark.
//
// Kafka 0.10.2: kafka.tools.ReplicaVerificationTool (core/src/main/scala/kafka/tools/ReplicaVerificationTool.scala):
// ReplicaBuffer, ReplicaFetcher, with SimpleConsumer.
//
// Bookmap: 《Kafka技术内幕》 ch.6 (replication: the consistency the tool checks); 《Apache Kafka源码剖析》
// ch.5 (the tools).
//
// # Goroutines
//
// One fetcher goroutine per broker ("ReplicaFetcher-<id>"). In each round every fetcher fetches
// its partitions (as the debugging consumer, so followers answer, up to their high watermark)
// into the shared buffer and waits at the fetcher barrier; the fetcher of the first broker then
// verifies and opens the next round through the verification barrier. As in Kafka the tool runs
// until it is stopped (SIGINT, SIGTERM), and exits 1 when two replicas disagree on an offset.
package replicaverification
