// Package oldclient holds the Scala clients' plumbing: BlockingChannel, a connection that sends one
// request and reads its response, which the old consumer, SimpleConsumer and the admin tools use.
//
// Kafka 0.10.2: kafka.network.BlockingChannel (core/src/main/scala/kafka/network/BlockingChannel.scala)
// and kafka.client.ClientUtils.
//
// Bookmap: 《Apache Kafka源码剖析》 §5 (tools talking to brokers), 《Kafka技术内幕》 §3.3 (SimpleConsumer).
package oldclient
