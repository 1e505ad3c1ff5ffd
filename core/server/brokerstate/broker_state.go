package brokerstate

import "sync/atomic"

// State is one broker state; the values are Kafka's (the BrokerState gauge reads them).
//
// Kafka 0.10.2: kafka.server.BrokerStates.
type State int8

// The broker states of 0.10.2.
const (
	NotRunning                    State = 0
	Starting                      State = 1
	RecoveringFromUncleanShutdown State = 2
	RunningAsBroker               State = 3
	PendingControlledShutdown     State = 6
	BrokerShuttingDown            State = 7
)

// String is the state's Kafka name.
func (s State) String() string {
	switch s {
	case NotRunning:
		return "NotRunning"
	case Starting:
		return "Starting"
	case RecoveringFromUncleanShutdown:
		return "RecoveringFromUncleanShutdown"
	case RunningAsBroker:
		return "RunningAsBroker"
	case PendingControlledShutdown:
		return "PendingControlledShutdown"
	case BrokerShuttingDown:
		return "BrokerShuttingDown"
	}
	return "Unknown"
}

// BrokerState is the current state, safe for concurrent use.
//
// Kafka 0.10.2: kafka.server.BrokerState.
type BrokerState struct{ v atomic.Int32 }

// NewState moves to s.
func (b *BrokerState) NewState(s State) { b.v.Store(int32(s)) }

// CurrentState is the current state.
func (b *BrokerState) CurrentState() State { return State(b.v.Load()) }

// RecoveringFromUncleanShutdown lets LogManager record its recovery (log.BrokerStateRecorder).
func (b *BrokerState) RecoveringFromUncleanShutdown() { b.NewState(RecoveringFromUncleanShutdown) }
