// Package consoleproducer is kafka-console-producer: it reads lines from standard input with a
// LineMessageReader (one record per line; with parse.key=true the key is the text before
// key.separator, tab by default) and sends each to --topic through a KafkaProducer configured
// from the command line (the options map onto producer keys exactly as 0.10.2's
// getNewProducerProps does, after --producer.config and --producer-property, which they
// override), asynchronously with an error-logging callback, or one at a time with --sync.
//
// Kafka 0.10.2: kafka.tools.ConsoleProducer (core/src/main/scala/kafka/tools/ConsoleProducer.scala:
// ProducerConfig, LineMessageReader, getNewProducerProps), kafka.producer.NewShinyProducer and
// org.apache.kafka.clients.producer.internals.ErrorLoggingCallback; with --old-producer
// getOldProducerProps and kafka.producer.OldProducer.
//
// Bookmap: 《Kafka技术内幕》 §1.4.3 (console producer/consumer), 《Apache Kafka源码剖析》 ch.5.
//
// With --old-producer the lines go to the old (Scala) producer, clients/oldproducer's
// OldProducer, configured as 0.10.2's getOldProducerProps does: --sync is producer.type=sync
// (async otherwise), --batch-size batch.num.messages, --timeout queue.buffering.max.ms,
// --queue-size queue.buffering.max.messages, --queue-enqueuetimeout-ms queue.enqueue.timeout.ms,
// --compression-codec compression.codec, --message-send-max-retries, --retry-backoff-ms,
// --request-required-acks and --request-timeout-ms their dotted keys, --metadata-expiry-ms
// topic.metadata.refresh.interval.ms, --key-serializer and --value-serializer the encoder
// classes (kafka.serializer.DefaultEncoder only: the tool sends byte arrays).
//
// Options of the old producer (--batch-size, --queue-size, --queue-enqueuetimeout-ms,
// --key-serializer, --value-serializer) are accepted and, as in 0.10.2 with the new producer,
// not used without --old-producer. --sync sends each record and waits for it
// (producer.type=sync, as 0.11 passes it; 0.10.2 dropped the flag for the new producer). End of
// input, SIGINT or SIGTERM close the producer, which sends what is buffered first, as the JVM's
// shutdown hook does.
package consoleproducer
