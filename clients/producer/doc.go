// Package producer is Kafka's Java producer: KafkaProducer sends records asynchronously in
// batches, one per partition, built in memory from a BufferPool, and a Sender goroutine ships
// them as ProduceRequest v2 (message format v1) to each partition's leader, retrying what can be
// retried and refreshing metadata when it is stale.
//
// Kafka 0.10.2: org.apache.kafka.clients.producer and its internals package
// (clients/src/main/java/org/apache/kafka/clients/producer: KafkaProducer, Producer,
// ProducerConfig, ProducerRecord, RecordMetadata, Callback, Partitioner, ProducerInterceptor;
// internals: RecordAccumulator, RecordBatch, BufferPool, Sender, DefaultPartitioner,
// ProducerInterceptors, FutureRecordMetadata, ProduceRequestResult). The internals are folded
// into this package (layout.md B.2), exported so godoc shows them.
//
// The user API: KafkaProducer (NewKafkaProducer, Send, Flush, PartitionsFor, Metrics, Close),
// ProducerRecord, RecordMetadata, FutureRecordMetadata.Get, Callback, Partitioner,
// ProducerInterceptor, ProducerConfig. The rest is the machinery the books walk through.
//
// Bookmap: 《Apache Kafka源码剖析》 ch.2 (§2.1 example, §2.2 KafkaProducer, §2.3
// RecordAccumulator, §2.4 Sender); 《Kafka技术内幕》 §2.1 (the new producer).
//
// The path of a record: Send → interceptors → waitOnMetadata (add the topic, wake the Sender,
// wait up to max.block.ms for metadata) → serialize key and value → partition (the record's,
// or the Partitioner's) → check the size against max.request.size and buffer.memory →
// RecordAccumulator.Append (into the partition's last batch, or a new one from the BufferPool,
// waiting up to max.block.ms for memory) → wake the Sender if a batch filled or began. The
// Sender's loop: Ready (leaders with a full, lingered, retried, flushed or closing batch) →
// NetworkClient.Ready (connect) → Drain (per leader, up to max.request.size) → mute drained
// partitions when max.in.flight.requests.per.connection=1 → expire batches older than
// request.timeout.ms → one ProduceRequest per leader → NetworkClient.Poll → per partition:
// retry a retriable error (attempts < retries) after retry.backoff.ms at the head of its
// deque, or complete the batch (futures, then callbacks in record order) and free its buffer;
// request a metadata update on NOT_LEADER_FOR_PARTITION, UNKNOWN_TOPIC_OR_PARTITION,
// LEADER_NOT_AVAILABLE and NETWORK_EXCEPTION (a disconnection).
//
// Ordering: records of one partition are appended in Send order; with max.in.flight=1 a
// partition has at most one batch in flight (muted until it completes) and a retried batch
// goes back to the head of its deque, so acknowledged records of a partition are in Send order
// even across retries and leader changes.
//
// Goroutines: the caller's (Send, Flush, PartitionsFor, Close; any number at once), and the
// Sender (one per producer, Start'ed by the constructor, ended by Close), on which callbacks and
// interceptors' OnAcknowledgement run. Lock order: RecordAccumulator.mu, then a partition
// deque's mutex, then BufferPool.mu and the incomplete set's mutex (leaves); Metadata's mutex
// is a leaf; metrics sensors lock themselves (metrics package).
//
// Errors: Kafka's exceptions are errors wrapping the protocol.Err* of their code (errors.Is):
// TimeoutException is protocol.ErrRequestTimedOut ("Failed to update metadata after N ms.",
// "Expiring N record(s) for t-0: ...", "Failed to allocate memory within the configured max
// blocking time N ms."), RecordTooLargeException is protocol.ErrMessageTooLarge; the producer's
// own states are ErrProducerClosed ("Cannot send after the producer is closed.") and
// ErrIllegalArgument; configuration errors are *config.ConfigException with Kafka's messages.
// protocol.ExceptionName gives the Java class name tools print.
package producer
