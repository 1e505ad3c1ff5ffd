// Package perf holds Kafka's performance tools.
//
// ProducerPerformance is kafka-producer-perf-test: it sends --num-records records of
// --record-size bytes (or payloads picked at random from --payload-file) through a KafkaProducer,
// paced to --throughput records/s by a ThroughputThrottler, and prints a line of throughput and
// latency every 5 seconds and a final line with the latency percentiles, in 0.10.2's exact
// formats. --print-metrics (a 0.11 addition) prints the producer's metrics after the final line.
//
// ConsumerPerformance is kafka-consumer-perf-test: it consumes a number of messages with the old
// consumer (--zookeeper, one stream per --threads) and prints the throughput. The new consumer's
// path (--broker-list without --zookeeper, or --new-consumer) is plugged in through
// Deps.NewConsumer. Dates are formatted with the java.text.SimpleDateFormat patterns of
// --date-format (letters y M d H h m s S a E; others are refused).
//
// Kafka 0.10.2: org.apache.kafka.tools.ProducerPerformance (tools/src/main/java/org/apache/kafka/tools)
// with its Stats and PerfCallback (the payload bytes come from java.util.Random with seed 0, as
// there); kafka.tools.ConsumerPerformance and kafka.tools.PerfConfig (core/src/main/scala/kafka/tools).
//
// Bookmap: 《Apache Kafka源码剖析》 ch.5 and §5.10 (the perf tools), 《Kafka技术内幕》 ch.2
// (producer tuning).
//
// Goroutines: in ProducerPerformance the caller's loop sends; callbacks (Stats.record) run on the
// producer's network goroutine, the only one that touches the Stats until the producer is closed.
package perf
