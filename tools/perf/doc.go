// Package perf is kafka-producer-perf-test: it sends --num-records records of --record-size
// bytes (or payloads picked at random from --payload-file) through a KafkaProducer, paced to
// --throughput records/s by a ThroughputThrottler, and prints a line of throughput and latency
// every 5 seconds and a final line with the latency percentiles, in 0.10.2's exact formats.
// --print-metrics (a 0.11 addition) prints the producer's metrics after the final line.
//
// Kafka 0.10.2: org.apache.kafka.tools.ProducerPerformance (tools/src/main/java/org/apache/kafka/tools)
// and its Stats and PerfCallback; the payload bytes come from java.util.Random with seed 0, as there.
//
// Bookmap: 《Apache Kafka源码剖析》 ch.5 (the tools), 《Kafka技术内幕》 ch.2 (producer tuning).
//
// Goroutines: the caller's loop sends; callbacks (Stats.record) run on the producer's network
// goroutine, the only one that touches the Stats until the producer is closed.
package perf
