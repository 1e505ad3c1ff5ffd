// Package brokerapiversions is kafka-broker-api-versions.sh: it asks a
// bootstrap broker for the cluster's brokers (Metadata) and then each broker
// for the API versions it supports (ApiVersions), and prints them as
// NodeApiVersions does, with the version this client would use.
//
// Kafka 0.10.2: kafka.admin.BrokerApiVersionsCommand
// (core/src/main/scala/kafka/admin/BrokerApiVersionsCommand.scala), with the
// parts of kafka.admin.AdminClient (findAllBrokers, getApiVersions) and
// org.apache.kafka.clients.NodeApiVersions it uses.
//
// Bookmap: docs/bookmap.md (001 ch.5); the advertised table is docs/formats.md §2.3.
//
// The client side is one blocking connection per broker (request, then
// response), the way AdminClient drives its NetworkClient synchronously; it
// is local to this package (blocking_channel.go) until clients/ carries a
// NetworkClient. --command-config is read as a properties file and only its
// presence is checked (PLAINTEXT only).
package brokerapiversions
