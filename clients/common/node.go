package common

import (
	"net"
	"strconv"
)

// Node is one broker as a client knows it: id, host, port and rack. Bootstrap nodes (from
// bootstrap.servers, before the first metadata response) carry negative ids -1, -2, ...
//
// Kafka 0.10.2: org.apache.kafka.common.Node.
type Node struct {
	ID   int32
	Host string
	Port int32
	Rack string // "" when the broker has none
}

// NoNode is Node.noNode(): id -1, empty host, port -1 (a partition without a leader).
var NoNode = Node{ID: -1, Host: "", Port: -1}

// IDString is the node id as a connection id (NetworkClient keys connections by it).
func (n Node) IDString() string { return strconv.FormatInt(int64(n.ID), 10) }

// IsEmpty reports a node without a host or port, to which nothing can connect.
func (n Node) IsEmpty() bool { return n.Host == "" || n.Port < 0 }

// Addr is host:port.
func (n Node) Addr() string { return net.JoinHostPort(n.Host, strconv.Itoa(int(n.Port))) }

// String renders the node as Kafka's Node.toString does.
func (n Node) String() string {
	rack := "null"
	if n.Rack != "" {
		rack = n.Rack
	}
	return n.Host + ":" + strconv.Itoa(int(n.Port)) + " (id: " + n.IDString() + " rack: " + rack + ")"
}
