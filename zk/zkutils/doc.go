// Package zkutils is everything Kafka stores in ZooKeeper: the znode paths, a
// typed codec for every znode's content that writes Kafka's bytes exactly, the
// ZkUtils read/write idioms, conditional partition-state updates, checked
// ephemeral creation, leader election and sequential change notifications.
//
// Kafka 0.10.2: kafka.utils (core/src/main/scala/kafka/utils: ZkUtils.scala with
// ZkPath, ZKGroupDirs, ZKGroupTopicDirs, ZKCheckedEphemeral; ReplicationUtils.scala;
// Json.scala), kafka.server.{ZookeeperLeaderElector, ConfigType, ConfigEntityName},
// kafka.common.ZkNodeChangeNotificationListener, kafka.api.LeaderAndIsr,
// kafka.controller.LeaderIsrAndControllerEpoch, and the JSON halves of
// kafka.cluster.Broker, AdminUtils, PreferredReplicaLeaderElectionCommand and
// kafka.security.auth.Acl.
//
// Bookmap: 《Apache Kafka源码剖析》 §5.x (KafkaController, ZooKeeper layout),
// 《Kafka技术内幕》 ch.6; docs/formats.md §1 (every znode, conditional writes, sessions).
//
// # Formats
//
// Znode data is UTF-8 text. JSON is written by a small encoder that behaves like
// kafka.utils.Json.encode (json.go): no whitespace, strings never escaped, only
// integers, and members in the iteration order of the JVM map Kafka built. That
// order is reproduced, not approximated (scala_order.go): immutable Scala maps
// keep insertion order up to four entries and use hash-trie order from five;
// mutable Scala HashMaps and java.util.Properties use their own bucket orders.
// Decoders use encoding/json and accept any member order. Examples of every
// znode, byte for byte, are in json_test.go (docs/formats.md §1.2).
//
// The broker registration and ACLs are kept here as plain records
// (BrokerInfo, AclEntry) because core/cluster and core/security import this
// package; they convert to their richer types.
//
// # Locks
//
// ZkUtils has no lock of its own. ZookeeperLeaderElector uses the caller's lock
// (the controller lock) as Kafka does: onBecomingLeader runs with it held,
// onResigningAsLeader without. ZkNodeChangeNotificationListener's processMu
// serialises processing and is held while its handler runs (the handler must not
// call back into the listener). Listener callbacks run on the zkclient event
// goroutine.
package zkutils
