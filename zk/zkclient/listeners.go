package zkclient

import (
	"reflect"
	"strconv"
)

// KeeperState is the connection state a StateListener is told about.
//
// Kafka 0.10.2: org.apache.zookeeper.Watcher.Event.KeeperState (the numeric values
// are ZooKeeper's, so log lines read the same).
type KeeperState int

// The states I0Itec passes to handleStateChanged.
const (
	Disconnected      KeeperState = 0
	SyncConnected     KeeperState = 3
	AuthFailed        KeeperState = 4
	ConnectedReadOnly KeeperState = 5
	SaslAuthenticated KeeperState = 6
	Expired           KeeperState = -112
)

// String gives ZooKeeper's enum name, as Kafka logs it.
func (s KeeperState) String() string {
	switch s {
	case Disconnected:
		return "Disconnected"
	case SyncConnected:
		return "SyncConnected"
	case AuthFailed:
		return "AuthFailed"
	case ConnectedReadOnly:
		return "ConnectedReadOnly"
	case SaslAuthenticated:
		return "SaslAuthenticated"
	case Expired:
		return "Expired"
	}
	return "KeeperState(" + strconv.Itoa(int(s)) + ")"
}

// ChildListener hears about the children of one path.
//
// Kafka 0.10.2: org.I0Itec.zkclient.IZkChildListener. HandleChildChange receives the
// children as they are when the event is processed, or nil when parentPath no
// longer exists. A returned error is logged (I0Itec logs the exception) and does
// not unsubscribe the listener.
type ChildListener interface {
	HandleChildChange(parentPath string, currentChildren []string) error
}

// DataListener hears about the data of one path.
//
// Kafka 0.10.2: org.I0Itec.zkclient.IZkDataListener. HandleDataChange also fires
// when the watched node is created.
type DataListener interface {
	HandleDataChange(dataPath string, data []byte) error
	HandleDataDeleted(dataPath string) error
}

// StateListener hears about the connection.
//
// Kafka 0.10.2: org.I0Itec.zkclient.IZkStateListener. HandleNewSession runs after an
// expired session has been replaced by a new one; ephemeral nodes of the old
// session are gone by then and must be re-created by the listener (as
// KafkaHealthcheck does). I0Itec's handleSessionEstablishmentError has no
// counterpart: go-zookeeper keeps trying to establish a session until closed.
type StateListener interface {
	HandleStateChanged(state KeeperState) error
	HandleNewSession() error
}

// Stat is the znode metadata ZooKeeper returns with a read.
//
// Kafka 0.10.2: org.apache.zookeeper.data.Stat.
type Stat struct {
	Czxid          int64
	Mzxid          int64
	Ctime          int64 // creation time, ms since the epoch
	Mtime          int64
	Version        int32 // the data version, used by conditional writes
	Cversion       int32
	Aversion       int32
	EphemeralOwner int64 // session id of the owner, 0 for persistent nodes
	DataLength     int32
	NumChildren    int32
	Pzxid          int64
}

// sameListener compares two listeners without panicking on uncomparable
// dynamic types (a func or a struct holding a slice): those are never equal, so
// such a listener can be subscribed but not unsubscribed. Use pointers.
func sameListener(a, b any) bool {
	if a == nil || b == nil {
		return a == b
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}
