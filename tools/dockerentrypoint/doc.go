// Package dockerentrypoint is the entrypoint and the health check of zkafka's two Docker images
// (docker/): it turns a container's environment variables into a broker's server.properties
// overrides or a ZooKeeper server's zoo.cfg, execs the server as the container's main process,
// and answers the compose file's health checks. It is built as the static binary
// `zkafka-docker` (tools/cmd/zkafka-docker), so that the FROM-scratch broker image needs no
// shell.
//
// Kafka 0.10.2: no counterpart (Kafka ships no images); the broker is started as
// bin/kafka-server-start.sh does (kafka.Kafka with --override), ZooKeeper as
// bin/zookeeper-server-start.sh does (QuorumPeerMain).
//
// It follows what Kafka users run in Docker: a KAFKA_* variable
// per server.properties key (upper case, dots as underscores: KAFKA_ADVERTISED_LISTENERS is
// advertised.listeners), handed to `kafka-server-start.sh server.properties --override k=v`,
// and ZOO_* variables for ZooKeeper (ZOO_MY_ID, ZOO_SERVERS) as the zookeeper image has them.
// docs/docker.md has the tables.
//
// Commands:
//
//	zkafka-docker broker               exec zkafka server-start with the KAFKA_* overrides
//	zkafka-docker zookeeper            write zoo.cfg and myid, exec java ... QuorumPeerMain
//	zkafka-docker health broker        exit 0 when /brokers/ids/<broker.id> exists in ZooKeeper
//	zkafka-docker health zookeeper     exit 0 when srvr answers Mode leader, follower or standalone
//
// A variable that maps to no configuration key is an error at start (a misspelt
// KAFKA_ADVERTISED_LISTENER would otherwise be ignored silently).
package dockerentrypoint
