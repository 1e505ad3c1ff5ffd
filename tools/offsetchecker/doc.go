// Package offsetchecker is kafka-consumer-offset-checker.sh: for an old-consumer group it prints,
// per partition, the committed offset (Kafka's offset manager first, then ZooKeeper), the log
// size, the lag and the owner thread. VerifyConsumerRebalance (through kafka-run-class.sh) checks
// that every partition of the group's topics has an owner that is a live member's thread.
//
// Kafka 0.10.2: kafka.tools.ConsumerOffsetChecker (core/src/main/scala/kafka/tools/ConsumerOffsetChecker.scala),
// deprecated there in favour of kafka-consumer-groups; kafka.tools.VerifyConsumerRebalance.
//
// Bookmap: 《Kafka技术内幕》 §3.5 (committed offsets, in ZooKeeper and in Kafka); 《Apache Kafka源码剖析》
// ch.5 (the tools).
package offsetchecker
