// Package consumergroups is kafka-consumer-groups.sh: list, describe and delete consumer
// groups, either those of the old ZooKeeper-based consumer (--zookeeper: /consumers/<group>)
// or those coordinated by the brokers for the Java consumer (--bootstrap-server, the default
// "--new-consumer" view, spoken over the wire protocol with a small blocking client).
//
// Kafka 0.10.2: kafka.admin.ConsumerGroupCommand (core/src/main/scala/kafka/admin/ConsumerGroupCommand.scala),
// with the parts of kafka.admin.AdminClient and AdminUtils it uses.
//
// Bookmap: docs/bookmap.md (001 ch.5, kafka-consumer-groups.sh; 000 ch.5).
//
// Output: --describe prints an empty line, then the header and one row per partition with the
// columns TOPIC, PARTITION, CURRENT-OFFSET, LOG-END-OFFSET, LAG, CONSUMER-ID (and, for the new
// consumer, HOST and CLIENT-ID), in Kafka's printf widths; "-" stands for a missing value.
package consumergroups
