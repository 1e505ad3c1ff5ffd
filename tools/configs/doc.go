// Package configs is kafka-configs.sh: describe and alter the dynamic configs
// of topics, clients, users (and <user, client> pairs) and brokers, stored in
// /config/<type>/<name>, each change announced by a /config/changes
// notification the brokers' DynamicConfigManager follows.
//
// Kafka 0.10.2: kafka.admin.ConfigCommand (core/src/main/scala/kafka/admin/ConfigCommand.scala)
//
// Bookmap: docs/bookmap.md (001 ch.5); the config and change-notification znodes are in
// docs/formats.md §1.2.
//
// Argument validation failures are uncaught IllegalArgumentExceptions in
// Kafka: the JVM prints them and exits 1. Failures while altering or
// describing print "Error while executing config command <message>" and the
// exception on stdout and exit 0.
//
// Entities are listed in sorted order when describing all of a type (Kafka
// uses ZooKeeper's child order, which is unspecified); configs print in
// java.util.Properties order. SCRAM credentials given as
// SCRAM-SHA-256/512=[iterations=n,]password=p are turned into the stored
// credential (random salt, PBKDF2 over HMAC, as ScramFormatter does).
package configs
