// Package consumer is Kafka's new consumer: KafkaConsumer with its group coordinator, fetcher and
// subscription state, on the clients network core (NetworkClient, Metadata).
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer (clients/src/main/java/org/apache/kafka/clients/consumer),
// with its internals package folded in.
//
// Bookmap: 《Apache Kafka源码剖析》 ch.3 (KafkaConsumer, ConsumerNetworkClient, SubscriptionState,
// ConsumerCoordinator, PartitionAssignor, Fetcher, HeartbeatThread); 《Kafka技术内幕》 ch.4-5 (the new
// consumer: subscription, polling, the group protocol, rebalance, offsets).
//
// Threads. The application's goroutine drives everything (KafkaConsumer is not safe for concurrent
// use; only Wakeup may be called from another goroutine, as in Kafka). One HeartbeatThread per
// consumer with a group.id sends heartbeats while the application processes records.
//
// Lock order: ConsumerNetworkClient.mu (held while the NetworkClient polls and response handlers
// run) before the leaf locks (AbstractCoordinator.mu, SubscriptionState.mu, Fetcher.mu,
// RequestFuture.mu). No leaf lock is held while calling into the ConsumerNetworkClient.
package consumer
