// Package zookeeperserver implements zookeeper-server-start.sh and zookeeper-server-stop.sh:
// run a real ZooKeeper (the installed distribution, through zk/ensemble) in the foreground from a
// zookeeper.properties file, and stop such servers.
//
// Kafka 0.10.2: bin/zookeeper-server-start.sh (org.apache.zookeeper.server.quorum.QuorumPeerMain)
// and bin/zookeeper-server-stop.sh.
//
// Bookmap: 《Kafka技术内幕》 §1.4.1 (single-node quick start).
package zookeeperserver
