// Package consoleconsumer is kafka-console-consumer.sh: it reads messages and writes them to
// standard output through a MessageFormatter, with the old ZooKeeper consumer (--zookeeper,
// 0.10.2's default) or the new consumer (--bootstrap-server).
//
// Kafka 0.10.2: kafka.tools.ConsoleConsumer (core/src/main/scala/kafka/tools/ConsoleConsumer.scala),
// on kafka.consumer.BaseConsumer (OldConsumer, NewShinyConsumer).
//
// Bookmap: 《Apache Kafka源码剖析》 §5.6 (kafka-console-consumer); 《Kafka技术内幕》 §1.4.3 (the
// console consumer in the quick start).
//
// Both consumers are reached through oldconsumer.BaseConsumer: the old one is
// oldconsumer.OldConsumer; the new one is given by Deps.NewShinyConsumer (wired by
// tools/cmd/zkafka). Until a new consumer is wired, --bootstrap-server and --new-consumer
// answer that they are not supported yet and exit 1.
//
// "Processed a total of N messages" goes to standard error when the tool ends; SIGINT and
// SIGTERM stop the consumer as Kafka's shutdown hook does. A console consumer without group.id
// gets "console-consumer-<random>" and removes that group's znodes when it ends.
package consoleconsumer
