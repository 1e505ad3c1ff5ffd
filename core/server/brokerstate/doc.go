// Package brokerstate holds the broker's lifecycle state, the value of the BrokerState gauge.
//
// Kafka 0.10.2: kafka.server (core/src/main/scala/kafka/server/BrokerStates.scala). It is a leaf
// below core/server because LogManager (recovering after an unclean shutdown) and the
// controller change it (docs/design.md §1.2 row 2).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.1 (KafkaServer startup).
package brokerstate
