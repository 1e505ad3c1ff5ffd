// Package zkclient gives Kafka's ZooKeeper client semantics (the I0Itec ZkClient
// that Kafka 0.10.2 builds on) on top of go-zookeeper's one-shot watches.
//
// Kafka 0.10.2: zkclient (org.I0Itec.zkclient.ZkClient 0.10, an external library;
// Kafka's own users are core/src/main/scala/kafka/utils/ZkUtils.scala and every
// listener in kafka.controller, kafka.server and kafka.consumer).
//
// Bookmap: 《Kafka技术内幕》 ch.6 (controller listeners), 《Apache Kafka源码剖析》
// §5 (KafkaController, ZooKeeper listeners), 000 §7.2.2 (old consumer rebalance).
//
// # What it adds to go-zookeeper
//
//   - Persistent subscriptions. A ZooKeeper watch fires once; Kafka's listeners
//     expect to hear about every change. The client keeps listener sets per path and
//     re-arms the watch each time it reads the path again after an event.
//   - One event goroutine per client (I0Itec's ZkEventThread). Every callback runs
//     on it, one after the other, in the order events arrived. The queue feeding it
//     is unbounded, so a slow listener delays events but never loses them.
//   - Fresh data. A listener is not handed the watch event; it is handed what the
//     path holds when the event is processed (data, or the current children, or
//     nil when the node is gone). Several changes between two reads collapse into
//     one callback with the latest state, exactly as with I0Itec.
//   - Session handling. go-zookeeper reconnects with a new session after expiry and
//     drops every watch. The client reports HandleStateChanged(Expired), and once
//     the new session is up it calls HandleNewSession on every state listener and
//     then re-reads (and re-watches) every subscribed path, firing each listener
//     once. KafkaHealthcheck and the controller rely on this.
//   - Chroot. go-zookeeper has none: the client prefixes every path with the chroot
//     of the connect string and strips it from everything it returns.
//   - RetryUntilConnected: operations failing with a lost connection (or an expired
//     session) wait for the connection and are retried, as I0Itec does. A retried
//     create can therefore see its own earlier success as ErrNodeExists, which is
//     why zkutils.ZKCheckedEphemeral checks the node's owner.
//
// # Watch mechanics
//
// Every ZooKeeper event (session or node) reaches the client through
// go-zookeeper's event callback, which only appends to the event queue (it must not
// block the connection's receive goroutine). Node events on path P are handled as
// I0Itec does: NodeChildrenChanged, NodeCreated and NodeDeleted fire the child
// listeners of P; NodeDataChanged, NodeCreated and NodeDeleted fire its data
// listeners. Child subscriptions watch with exists (to notice the parent being
// created) plus getChildren; data subscriptions watch with exists plus getData, so a
// data listener on a missing node hears about its creation.
//
// # Locks
//
// stateMu (connection state) and listenersMu (listener sets) are leaves: nothing
// else is locked while either is held and no callback runs under them. The event
// queue has its own mutex, also a leaf.
package zkclient
