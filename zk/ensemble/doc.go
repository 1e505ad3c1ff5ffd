// Package ensemble runs a real Apache ZooKeeper (one standalone server or a
// three-server quorum) as child JVM processes, for tests, `make run` and the
// `zkafka zookeeper-server-start` subcommand.
//
// Kafka 0.10.2: kafka.zk (core/src/test/scala/unit/kafka/zk): EmbeddedZookeeper,
// ZkFourLetterWords; and the server launched by bin/zookeeper-server-start.sh
// (org.apache.zookeeper.server.quorum.QuorumPeerMain).
//
// Bookmap: 000 §1.4.1 (单机模式, bin/zookeeper-server-start.sh) and 002 §1.2
// (安装与配置): RunForeground is what `zkafka zookeeper-server-start` and
// `make run` start. The fault operations (Kill, Pause, ExpireSession) serve
// the tests of the controller failover and session-expiry sections (000
// §7.1, 001 §4.6.8).
//
// Where Kafka's own tests embed ZooKeeperServer in the test JVM, Go cannot, so
// each server is a `java ... QuorumPeerMain zoo.cfg` process. The ZooKeeper is
// the Debian package (3.8); zkafka uses only what 3.4.9 (shipped with Kafka
// 0.10.2) offers. The classpath is /usr/share/java/zookeeper.jar plus
// slf4j-simple.jar: the Debian jar's MANIFEST Class-Path pulls in jute,
// slf4j-api, netty, jetty, jackson and the rest. ZOOKEEPER_CLASSPATH, or
// ZOOKEEPER_HOME (a tarball install: $ZOOKEEPER_HOME/lib/*.jar and
// $ZOOKEEPER_HOME/*.jar), replaces it.
//
// Layout on disk, under Config.BaseDir:
//
//	node<myid>/zoo.cfg     generated each time the node starts
//	node<myid>/data/myid   the server id (quorum mode only)
//	node<myid>/data/...    ZooKeeper's snapshots and transaction logs
//	node<myid>/zookeeper.log  the JVM's stdout and stderr (appended on Restart)
//
// Node indexes in the API are 0-based; node i has myid i+1. Every node listens on
// 127.0.0.1 unless Config.Hosts gives it an address of its own, and Config.Wrapper can prefix
// its command (the partition tests run each node in a network namespace through
// `ip netns exec`). QuorumPeerMainArgs is the JVM command line, shared with the Docker image.
//
// Readiness and Mode use the `srvr` four-letter word and its `Mode:` line
// (standalone, leader, follower), never `ruok`, which answers before the
// server has joined a quorum.
//
// Session expiry: SessionCapture records the session id and password from
// the ConnectResponse a client receives; Ensemble.ExpireSession then attaches
// a second raw connection to that session and sends closeSession (type -11),
// the technique of Curator's KillSession and of ZooKeeper's older tests.
// SessionCapture.SetBlackhole is the slower, more realistic way: it drops
// the client's traffic (a network partition) until the server's own session
// timer expires the session. The wire
// format (jute, big-endian, every frame prefixed with an int32 length):
//
//	ConnectRequest:  int32 protocolVersion, int64 lastZxidSeen, int32 timeOut,
//	                 int64 sessionId, buffer passwd (int32 len + bytes)
//	ConnectResponse: int32 protocolVersion, int32 timeOut, int64 sessionId,
//	                 buffer passwd [, bool readOnly]
//	RequestHeader:   int32 xid, int32 type
//	ReplyHeader:     int32 xid, int64 zxid, int32 err
//
// Goroutines: one per running node, waiting on the JVM process; it exits
// when the process does, and Close waits for it.
//
// Lock order: Ensemble.mu, then nothing (node processes are only touched
// with Ensemble.mu held; the per-node wait goroutine only closes a channel).
// Stop, Kill and Restart hold Ensemble.mu while they wait for a process, so
// Mode and the other accessors block meanwhile. SessionCapture.mu is
// independent.
package ensemble
