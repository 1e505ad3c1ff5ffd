package clients

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// MetadataUpdater is how a NetworkClient keeps its metadata fresh: DefaultMetadataUpdater
// sends Metadata requests itself; ManualMetadataUpdater (the broker's controller and replica
// fetcher, which learn the cluster from the controller) never does.
//
// Kafka 0.10.2: org.apache.kafka.clients.MetadataUpdater.
type MetadataUpdater interface {
	// FetchNodes lists the nodes leastLoadedNode picks from.
	FetchNodes() []common.Node
	// IsUpdateDue reports an update due now and not in progress (requests then wait).
	IsUpdateDue(nowMs int64) bool
	// MaybeUpdate starts an update if one is due and returns how long Poll may wait.
	MaybeUpdate(nowMs int64) int64
	// HandleDisconnection is told when the connection an update was in flight on is lost.
	HandleDisconnection(destination string)
	// HandleCompletedMetadataResponse receives the answer to an update.
	HandleCompletedMetadataResponse(header protocol.RequestHeader, nowMs int64, response *protocol.MetadataResponse)
	// RequestUpdate asks for an update.
	RequestUpdate()
}

// ManualMetadataUpdater holds a fixed node list and never updates.
//
// Kafka 0.10.2: org.apache.kafka.clients.ManualMetadataUpdater.
type ManualMetadataUpdater struct{ Nodes []common.Node }

// FetchNodes implements MetadataUpdater.
func (u *ManualMetadataUpdater) FetchNodes() []common.Node { return u.Nodes }

// IsUpdateDue implements MetadataUpdater.
func (u *ManualMetadataUpdater) IsUpdateDue(int64) bool { return false }

// MaybeUpdate implements MetadataUpdater.
func (u *ManualMetadataUpdater) MaybeUpdate(int64) int64 { return 1<<63 - 1 }

// HandleDisconnection implements MetadataUpdater.
func (u *ManualMetadataUpdater) HandleDisconnection(string) {}

// HandleCompletedMetadataResponse implements MetadataUpdater.
func (u *ManualMetadataUpdater) HandleCompletedMetadataResponse(protocol.RequestHeader, int64, *protocol.MetadataResponse) {
}

// RequestUpdate implements MetadataUpdater.
func (u *ManualMetadataUpdater) RequestUpdate() {}
