// Package getoffsetshell is kafka.tools.GetOffsetShell (run as
// `kafka-run-class.sh kafka.tools.GetOffsetShell`): it reads a topic's
// metadata from the broker list and asks each partition's leader for the
// offsets before a time (ListOffsets v0), printing `topic:partition:o1,o2`.
//
// Kafka 0.10.2: kafka.tools.GetOffsetShell (core/src/main/scala/kafka/tools/GetOffsetShell.scala),
// with kafka.client.ClientUtils.fetchTopicMetadata and SimpleConsumer.getOffsetsBefore.
//
// Bookmap: docs/bookmap.md (001 ch.5, the command-line tools).
//
// The requests go over a blocking connection local to this package
// (blocking_channel.go), standing in for kafka.network.BlockingChannel until
// clients/oldclient carries it. Kafka shuffles the broker list before asking
// for metadata; here the brokers are tried in the given order.
package getoffsetshell
