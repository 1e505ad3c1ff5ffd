package clients

import (
	"math"
)

// ConnectionState is the state of the connection to one node.
//
// Kafka 0.10.2: org.apache.kafka.clients.ConnectionState.
type ConnectionState int

// The connection states.
const (
	DISCONNECTED ConnectionState = iota
	CONNECTING
	CHECKING_API_VERSIONS
	READY
)

func (s ConnectionState) String() string {
	return [...]string{"DISCONNECTED", "CONNECTING", "CHECKING_API_VERSIONS", "READY"}[s]
}

type nodeConnectionState struct {
	state                ConnectionState
	lastConnectAttemptMs int64
}

// ClusterConnectionStates tracks each node's connection state and when it was last tried, so
// that a node is not reconnected to sooner than reconnect.backoff.ms after a failure.
//
// Kafka 0.10.2: org.apache.kafka.clients.ClusterConnectionStates.
type ClusterConnectionStates struct {
	reconnectBackoffMs int64
	nodeState          map[string]*nodeConnectionState
}

// NewClusterConnectionStates uses reconnect.backoff.ms.
func NewClusterConnectionStates(reconnectBackoffMs int64) *ClusterConnectionStates {
	return &ClusterConnectionStates{reconnectBackoffMs: reconnectBackoffMs, nodeState: map[string]*nodeConnectionState{}}
}

// CanConnect: never tried, or disconnected for at least the backoff.
func (c *ClusterConnectionStates) CanConnect(id string, nowMs int64) bool {
	s := c.nodeState[id]
	return s == nil || (s.state == DISCONNECTED && nowMs-s.lastConnectAttemptMs >= c.reconnectBackoffMs)
}

// IsBlackedOut: disconnected less than the backoff ago.
func (c *ClusterConnectionStates) IsBlackedOut(id string, nowMs int64) bool {
	s := c.nodeState[id]
	return s != nil && s.state == DISCONNECTED && nowMs-s.lastConnectAttemptMs < c.reconnectBackoffMs
}

// ConnectionDelay is how long until a connection to id may be attempted (MaxInt64 while one is
// up or in progress).
func (c *ClusterConnectionStates) ConnectionDelay(id string, nowMs int64) int64 {
	s := c.nodeState[id]
	if s == nil {
		return 0
	}
	if s.state == DISCONNECTED {
		return max(c.reconnectBackoffMs-(nowMs-s.lastConnectAttemptMs), 0)
	}
	return math.MaxInt64
}

// IsConnecting reports a connection attempt in progress.
func (c *ClusterConnectionStates) IsConnecting(id string) bool {
	s := c.nodeState[id]
	return s != nil && s.state == CONNECTING
}

// Connecting records a connection attempt starting now.
func (c *ClusterConnectionStates) Connecting(id string, nowMs int64) {
	c.nodeState[id] = &nodeConnectionState{state: CONNECTING, lastConnectAttemptMs: nowMs}
}

// Disconnected records a disconnection now (the backoff starts).
func (c *ClusterConnectionStates) Disconnected(id string, nowMs int64) {
	s := c.state(id)
	s.state = DISCONNECTED
	s.lastConnectAttemptMs = nowMs
}

// CheckingApiVersions records a connection that is asking the node for its API versions.
func (c *ClusterConnectionStates) CheckingApiVersions(id string) {
	c.state(id).state = CHECKING_API_VERSIONS
}

// Ready records a usable connection.
func (c *ClusterConnectionStates) Ready(id string) { c.state(id).state = READY }

// IsReady reports a usable connection.
func (c *ClusterConnectionStates) IsReady(id string) bool {
	s := c.nodeState[id]
	return s != nil && s.state == READY
}

// Remove forgets node id.
func (c *ClusterConnectionStates) Remove(id string) { delete(c.nodeState, id) }

// ConnectionState is id's state (DISCONNECTED when unknown; Kafka throws).
func (c *ClusterConnectionStates) ConnectionState(id string) ConnectionState {
	if s := c.nodeState[id]; s != nil {
		return s.state
	}
	return DISCONNECTED
}

// state returns id's entry, creating a DISCONNECTED one when a state change arrives for a node
// never connected to (Kafka throws IllegalStateException there).
func (c *ClusterConnectionStates) state(id string) *nodeConnectionState {
	s := c.nodeState[id]
	if s == nil {
		s = &nodeConnectionState{state: DISCONNECTED}
		c.nodeState[id] = s
	}
	return s
}
