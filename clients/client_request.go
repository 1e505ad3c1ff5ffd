package clients

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/protocol"
)

// RequestCompletionHandler is called with the response to a request (or its disconnection) by
// the NetworkClient.Poll that completes it, on the goroutine driving the client.
//
// Kafka 0.10.2: org.apache.kafka.clients.RequestCompletionHandler.
type RequestCompletionHandler func(response *ClientResponse)

// ClientRequest is a request on its way to a node: its body (whose version is the highest the
// caller wants; NetworkClient lowers it to what the node supports), the correlation id and
// client id of its header, when it was created, whether a response is expected (acks=0
// produce requests get none), and the handler to call.
//
// Kafka 0.10.2: org.apache.kafka.clients.ClientRequest (the body's builder is the body itself).
type ClientRequest struct {
	destination    string
	body           protocol.Message
	correlationID  int32
	clientID       string
	createdTimeMs  int64
	expectResponse bool
	callback       RequestCompletionHandler
}

// Destination is the node id the request goes to.
func (r *ClientRequest) Destination() string { return r.destination }

// Body is the request body.
func (r *ClientRequest) Body() protocol.Message { return r.body }

// ApiKey is the request's API.
func (r *ClientRequest) ApiKey() protocol.ApiKeys { return r.body.Key() }

// CorrelationID is the id the response echoes.
func (r *ClientRequest) CorrelationID() int32 { return r.correlationID }

// CreatedTimeMs is when the request was made.
func (r *ClientRequest) CreatedTimeMs() int64 { return r.createdTimeMs }

// ExpectResponse is false for requests the broker does not answer (acks=0).
func (r *ClientRequest) ExpectResponse() bool { return r.expectResponse }

// Callback is the completion handler (nil for none).
func (r *ClientRequest) Callback() RequestCompletionHandler { return r.callback }

// MakeHeader is the request header at the body's current version.
func (r *ClientRequest) MakeHeader() protocol.RequestHeader {
	id := r.clientID
	return protocol.RequestHeader{ApiKey: r.body.Key(), ApiVersion: r.body.GetVersion(), CorrelationID: r.correlationID, ClientID: &id}
}

func (r *ClientRequest) String() string {
	return fmt.Sprintf("ClientRequest(expectResponse=%t, callback=%t, destination=%s, correlationId=%d, clientId=%s, createdTimeMs=%d, requestBuilder=%s)",
		r.expectResponse, r.callback != nil, r.destination, r.correlationID, r.clientID, r.createdTimeMs, r.body.Key())
}

// ClientResponse is the outcome of a ClientRequest: the parsed response body, or disconnected
// (the connection was lost or timed out first), or a version mismatch (the node supports no
// version of the request that the client can send). ResponseBody is nil for the last two and for
// requests that expect no response.
//
// Kafka 0.10.2: org.apache.kafka.clients.ClientResponse.
type ClientResponse struct {
	RequestHeader   protocol.RequestHeader
	Destination     string
	ReceivedTimeMs  int64
	LatencyMs       int64
	Disconnected    bool
	VersionMismatch error
	ResponseBody    protocol.Message
	callback        RequestCompletionHandler
}

// HasResponse reports a parsed response body.
func (r *ClientResponse) HasResponse() bool { return r.ResponseBody != nil }

// OnComplete calls the request's handler.
func (r *ClientResponse) OnComplete() {
	if r.callback != nil {
		r.callback(r)
	}
}

func (r *ClientResponse) String() string {
	return fmt.Sprintf("ClientResponse(receivedTimeMs=%d, latencyMs=%d, disconnected=%t, requestHeader=%s, responseBody=%v)",
		r.ReceivedTimeMs, r.LatencyMs, r.Disconnected, r.RequestHeader, r.ResponseBody != nil)
}
