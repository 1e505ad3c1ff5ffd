// Package verifiable is kafka-verifiable-producer: it sends the increasing integers 0, 1, 2, ...
// (as strings, optionally "<value-prefix>.<n>") to --topic, without retries, and prints one JSON
// object per line on stdout for every send's outcome (producer_send_success with partition and
// offset, producer_send_error with the exception's class and message), then
// shutdown_complete and tool_data (sent, acked, target and average throughput) when it stops:
// after --max-messages, or on SIGINT/SIGTERM. System tests (Kafka's kafkatest and zkafka's)
// compare what it says was acknowledged with what consumers read.
//
// Kafka 0.10.2: org.apache.kafka.tools.VerifiableProducer (tools/src/main/java/org/apache/kafka/tools).
// The JSON objects keep the field order Java's HashMap gave them in 0.10.2 and numbers in Java's
// notation (time_ms as an integer, avg_throughput as a double).
//
// Bookmap: 《Apache Kafka源码剖析》 ch.5 (tools); kafkatest's VerifiableProducer service.
package verifiable
