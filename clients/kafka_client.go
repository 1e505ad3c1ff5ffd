package clients

import (
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
)

// KafkaClient is the interface of NetworkClient, for code that drives one (the producer's
// Sender, the consumer's ConsumerNetworkClient, the broker's blocking senders) and for a mock.
//
// Kafka 0.10.2: org.apache.kafka.clients.KafkaClient.
type KafkaClient interface {
	IsReady(node common.Node, nowMs int64) bool
	Ready(node common.Node, nowMs int64) bool
	ConnectionDelay(node common.Node, nowMs int64) int64
	ConnectionFailed(node common.Node) bool
	Send(request *ClientRequest, nowMs int64) error
	Poll(timeoutMs, nowMs int64) []*ClientResponse
	CloseNode(nodeID string)
	LeastLoadedNode(nowMs int64) *common.Node
	InFlightRequestCount() int
	InFlightRequestCountFor(nodeID string) int
	NewClientRequest(nodeID string, body protocol.Message, createdTimeMs int64, expectResponse bool, callback RequestCompletionHandler) *ClientRequest
	Wakeup()
	Close()
}
