// Package perf holds the performance tools; ConsumerPerformance is kafka-consumer-perf-test.sh:
// it consumes a number of messages with the old consumer (--zookeeper, one stream per
// --threads) and prints the throughput.
//
// Kafka 0.10.2: kafka.tools.ConsumerPerformance and kafka.tools.PerfConfig
// (core/src/main/scala/kafka/tools).
//
// Bookmap: 《Apache Kafka源码剖析》 §5.10 (kafka-consumer-perf-test).
//
// The new consumer's path (--broker-list without --zookeeper, or --new-consumer) is plugged in
// through Deps.NewConsumer; until a new consumer is wired it answers that it is not supported
// yet and exits 1. Dates are formatted with the java.text.SimpleDateFormat patterns of
// --date-format (letters y M d H h m s S a E; others are refused).
package perf
