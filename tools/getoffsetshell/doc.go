// Package getoffsetshell is kafka.tools.GetOffsetShell (run as
// `kafka-run-class.sh kafka.tools.GetOffsetShell`): it reads a topic's
// metadata from the broker list and asks each partition's leader for the
// offsets before a time (ListOffsets v0), printing `topic:partition:o1,o2`.
//
// Kafka 0.10.2: kafka.tools.GetOffsetShell (core/src/main/scala/kafka/tools/GetOffsetShell.scala),
// with kafka.client.ClientUtils.fetchTopicMetadata and SimpleConsumer.getOffsetsBefore, which it
// uses from clients/oldclient and clients/oldconsumer.
//
// Bookmap: 《Kafka技术内幕》 §3.6.3 (getting a read offset with SimpleConsumer).
package getoffsetshell
