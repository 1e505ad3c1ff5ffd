// Package simpleconsumershell is kafka-simple-consumer-shell.sh: it fetches one partition from
// its leader (or from a chosen replica) with a SimpleConsumer and prints the messages through a
// MessageFormatter.
//
// Kafka 0.10.2: kafka.tools.SimpleConsumerShell (core/src/main/scala/kafka/tools/SimpleConsumerShell.scala).
//
// Bookmap: 《Kafka技术内幕》 §3.6 (SimpleConsumer, the low-level API); 《Apache Kafka源码剖析》 ch.5
// (the tools).
//
// Fetches go as the debugging consumer (replica id -2), so a follower answers too. As in Kafka,
// the fetched set is iterated as it comes (messages of a compressed wrapper before the start
// offset are printed too), a partition error in the response reads as an empty set, and the
// shell ends at the end of the log only with --no-wait-at-logend.
package simpleconsumershell
