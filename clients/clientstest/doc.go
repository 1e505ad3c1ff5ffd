// Package clientstest is test support for the Java clients' ports (as Kafka's clients test jar
// is): MockCluster runs a few fake brokers on loopback that speak the 0.10.2 protocol far enough
// for clients to be exercised without ZooKeeper or a real broker (ApiVersions, Metadata with
// partitions and leaders the test moves at will, Produce into in-memory logs), and lets a test
// intercept any request to inject an error or a delay.
//
// Kafka 0.10.2: org.apache.kafka.clients.MockClient and org.apache.kafka.test.MockSelector play
// this role in Kafka's own tests; a fake broker over real sockets exercises the Selector and
// NetworkClient as well.
//
// Lock order: MockCluster.mu is a leaf; hooks are called without it.
package clientstest
