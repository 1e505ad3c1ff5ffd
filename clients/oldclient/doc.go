// Package oldclient holds the Scala clients' plumbing: BlockingChannel, a connection that sends one
// request and reads its response, and ClientUtils, which finds topic metadata, brokers and a
// group's offset manager for the old producer, the old consumer, SimpleConsumer and the tools.
//
// Kafka 0.10.2: kafka.network.BlockingChannel (core/src/main/scala/kafka/network/BlockingChannel.scala)
// and kafka.client.ClientUtils (core/src/main/scala/kafka/client/ClientUtils.scala).
//
// Bookmap: 《Kafka技术内幕》 §2.2.3 (the old producer's blocking channel), §3.5.3 (connecting to the
// offset manager), §3.6 (SimpleConsumer); 《Apache Kafka源码剖析》 §5 (tools talking to brokers).
//
// Frames: a BlockingChannel writes requests with protocol.WriteRequest and reads responses as the
// clients' network.NetworkReceive (no size limit, as Kafka's BlockingChannel, and no allocation
// ahead of the bytes), so it shares the one frame reader of the repository. It cannot sit on
// clients.NetworkClient, which ranks above it.
//
// ClientUtils reads the broker registry in ZooKeeper (channelToAnyBroker), so this package
// imports zk/zkutils, as Kafka's kafka.client imports kafka.utils.ZkUtils.
//
// # Concurrency
//
// A BlockingChannel serves one caller at a time, as in Kafka; only Disconnect may come from
// another goroutine (to cut a blocked exchange short). Every blocking call takes a context.
package oldclient
