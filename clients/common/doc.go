// Package common holds the small value types every other package shares:
// TopicPartition, the Time clock abstraction (SystemTime and MockTime) and
// Java-compatible hashing helpers.
//
// Kafka 0.10.2: org.apache.kafka.common (clients/src/main/java/org/apache/kafka/common),
// org.apache.kafka.common.utils.{Time,SystemTime,Utils}, kafka.common.TopicAndPartition.
//
// Bookmap: 《Apache Kafka源码剖析》 §2 (producer data types), 《Kafka技术内幕》 ch.1.
package common
