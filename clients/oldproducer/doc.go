// Package oldproducer is Kafka's Scala producer: Producer (sync, or async through a
// ProducerSendThread), DefaultEventHandler, BrokerPartitionInfo, ProducerPool, SyncProducer on a
// BlockingChannel, the old partitioners, and the BaseProducer the tools share with the new
// producer.
//
// Kafka 0.10.2: kafka.producer and kafka.producer.async (core/src/main/scala/kafka/producer).
//
// Bookmap: 《Kafka技术内幕》 §2.2 (the old producer: §2.2.1 the event handler, §2.2.2 collating by
// broker and partition, §2.2.3 sending over a blocking channel).
//
// # How a send goes
//
// Producer.Send (sync) or the send thread (async, batch.num.messages / queue.buffering.max.ms)
// calls DefaultEventHandler.Handle: encode (format v1, CreateTime = now), refresh the metadata
// when topic.metadata.refresh.interval.ms has passed, pick each message's partition (the
// partitioner for a keyed message; a random partition with a leader, kept per topic until the
// next refresh, for the others), group by leader and partition, build one message set per
// partition (compression.codec, limited by compressed.topics), and send one Produce v2 request
// per broker through the ProducerPool's SyncProducer. Partitions that failed are retried after
// retry.backoff.ms and a metadata refresh, up to message.send.max.retries times.
//
// With request.required.acks = 0 (the old producer's default) the broker does not answer and a
// send counts as done once written.
//
// # Partitioning
//
// DefaultPartitioner is abs(hashCode(key)) % n with Java's hashCode (String.hashCode for
// strings); ByteArrayPartitioner, the tools' default, is abs(Arrays.hashCode(bytes)) % n. Kafka's
// DefaultPartitioner gives a byte[] its identity hash (a different partition in every JVM);
// zkafka uses Arrays.hashCode there too (docs/deviations.md).
//
// # Goroutines and locks
//
// Producer.mu serialises Send and Close (Kafka's lock). An async producer has one send
// goroutine; the event handler is used by one goroutine at a time. ProducerPool.mu,
// BrokerPartitionInfo.mu and SyncProducer.mu are leaves.
package oldproducer
