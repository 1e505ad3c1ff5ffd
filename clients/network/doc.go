// Package network is the clients' network layer: a Selector that drives many connections
// (KafkaChannel) with Kafka's non-blocking API (Connect, Send, Poll, then CompletedSends,
// CompletedReceives, Connected, Disconnected; Mute/Unmute), size-delimited frames written as a
// NetworkSend and read as a NetworkReceive, and the one frame-size rule (CheckReceiveSize).
// NetworkClient (package clients) sits on it, as do, on the broker side, the Processors of
// core/network (imported there as knetwork, Kafka's own KSelector alias).
//
// Kafka 0.10.2: org.apache.kafka.common.network (clients/src/main/java/org/apache/kafka/common/network:
// Selector, Selectable, KafkaChannel, NetworkReceive, NetworkSend, Send, InvalidReceiveException;
// the PLAINTEXT transport layer is the net.Conn).
//
// Bookmap: 《Apache Kafka源码剖析》 §2.4.2 (KSelector); 《Kafka技术内幕》 §2.1.4 (the selector
// handles network requests).
//
// Goroutines (layout.md B.7): the goroutine that drives a Selector owns it (its channel map and
// the lists Poll publishes); every connection has a reader goroutine (one NetworkReceive at a
// time, waiting while the channel is muted) and a writer goroutine (the queued Sends in order);
// every Connect dials on a goroutine. They hand what they complete to the Selector under its
// mutex and wake the Poll in progress through a one-slot channel, which Wakeup uses too. Close
// closes every socket and waits for every goroutine.
//
// Ordering: the receives of one connection are published in the order they were read, and a
// Send is published in CompletedSends in the Poll in which its write finished, which may be the
// same Poll as, or a later one than, the response to it (the reader and the writer race);
// NetworkClient does not rely on the send being seen first.
//
// Frame sizes: a frame is an INT32 size and that many bytes. CheckReceiveSize refuses a negative
// size and one above the configured maximum (Unlimited for clients, as in Kafka); a frame that
// declares a large size grows its buffer only as its bytes arrive, so a bogus size costs nothing.
//
// Lock order: Selector.mu and KafkaChannel.muteMu are leaves.
package network
