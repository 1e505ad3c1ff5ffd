// Package topics is kafka-topics.sh: create, alter, delete, list and describe
// topics by reading and writing ZooKeeper (the controller does the rest).
//
// Kafka 0.10.2: kafka.admin.TopicCommand (core/src/main/scala/kafka/admin/TopicCommand.scala)
//
// Bookmap: docs/bookmap.md (001 ch.5, topic management); replica assignment and
// topic name rules via core/admin.
//
// Output goes to stdout exactly as Kafka prints it; usage errors go to stderr
// with the help table and exit 1; a failed action prints
// "Error while executing topic command : <message>" on stdout, logs the
// exception at ERROR on stderr and exits 1.
//
// --topic is a regular expression for every action but --create (Kafka's
// Whitelist: commas become alternation, spaces and surrounding quotes are
// dropped, and the whole name must match). Go's RE2 syntax stands in for
// java.util.regex; look-arounds and back-references are not supported.
package topics
