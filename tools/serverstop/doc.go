// Package serverstop implements kafka-server-stop.sh: SIGTERM to every running broker, which then
// shuts down cleanly (controlled shutdown first), as the script's `kill -s TERM` does.
//
// Kafka 0.10.2: bin/kafka-server-stop.sh (finds `kafka.Kafka` JVMs with ps and signals them).
//
// Bookmap: 《Kafka技术内幕》 §1.4 (quick start: stopping the broker).
package serverstop
