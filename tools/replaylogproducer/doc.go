// Package replaylogproducer is kafka-replay-log-producer: it reads --inputtopic from the
// beginning with the old (ZooKeeper) consumer, group "replay-log-producer" (whose znodes it
// deletes first, so that every run starts from the earliest offset), --threads streams, and
// sends each message's key, value and timestamp to --outputtopic of the cluster of
// --broker-list, with one KafkaProducer per thread (--sync: each send waits for its
// acknowledgement; --property: producer keys). Each thread stops after --messages messages
// (per thread, as Kafka's stream.slice) or when no message came for 10 s
// (consumer.timeout.ms, logged at ERROR as "consumer thread timing out").
//
// As in 0.10.2, a message without a timestamp (message format v0) cannot be sent (the
// ProducerRecord refuses a negative timestamp) and is skipped with "Skipping this message", and
// --outputtopic is not checked up front: without it every message is skipped.
//
// Kafka 0.10.2: kafka.tools.ReplayLogProducer (Config, ZKConsumerThread).
package replaylogproducer
