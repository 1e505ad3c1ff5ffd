package clients

import (
	"github.com/zkafka/zkafka/clients/network"
	"github.com/zkafka/zkafka/clients/protocol"
)

// inFlightRequest is a request that was handed to the Selector and has not completed.
//
// Kafka 0.10.2: NetworkClient.InFlightRequest.
type inFlightRequest struct {
	header            protocol.RequestHeader
	destination       string
	callback          RequestCompletionHandler
	expectResponse    bool
	isInternalRequest bool // metadata and api-versions requests NetworkClient makes itself
	send              network.Send
	sendTimeMs        int64
	createdTimeMs     int64
}

func (r *inFlightRequest) completed(body protocol.Message, nowMs int64) *ClientResponse {
	return &ClientResponse{RequestHeader: r.header, Destination: r.destination, ReceivedTimeMs: nowMs,
		LatencyMs: nowMs - r.createdTimeMs, ResponseBody: body, callback: r.callback}
}

func (r *inFlightRequest) disconnected(nowMs int64) *ClientResponse {
	return &ClientResponse{RequestHeader: r.header, Destination: r.destination, ReceivedTimeMs: nowMs,
		LatencyMs: nowMs - r.createdTimeMs, Disconnected: true, callback: r.callback}
}

// InFlightRequests are the requests sent or being sent to each node and not yet answered,
// oldest last, at most maxInFlightRequestsPerConnection per node
// (max.in.flight.requests.per.connection). Responses arrive in request order per connection,
// so the oldest request is the one a response answers.
//
// Kafka 0.10.2: org.apache.kafka.clients.InFlightRequests. Not safe for concurrent use: the
// goroutine driving NetworkClient owns it.
type InFlightRequests struct {
	maxInFlightRequestsPerConnection int
	requests                         map[string][]*inFlightRequest // newest first, as Kafka's deque
}

// NewInFlightRequests allows max requests in flight per node.
func NewInFlightRequests(max int) *InFlightRequests {
	return &InFlightRequests{maxInFlightRequestsPerConnection: max, requests: map[string][]*inFlightRequest{}}
}

func (f *InFlightRequests) add(r *inFlightRequest) {
	q := f.requests[r.destination]
	f.requests[r.destination] = append([]*inFlightRequest{r}, q...)
}

// completeNext removes and returns the oldest request to node: the one a response answers.
func (f *InFlightRequests) completeNext(node string) *inFlightRequest {
	q := f.requests[node]
	if len(q) == 0 {
		return nil
	}
	r := q[len(q)-1]
	f.requests[node] = q[:len(q)-1]
	return r
}

// lastSent is the newest request to node.
func (f *InFlightRequests) lastSent(node string) *inFlightRequest {
	q := f.requests[node]
	if len(q) == 0 {
		return nil
	}
	return q[0]
}

// completeSend removes the request whose send is s if it expects no response (its send
// finishing completes it), and returns it; nil otherwise (Kafka's completeLastSent, matched by
// the send rather than by position, since a completed send may be published after its
// response, see package network).
func (f *InFlightRequests) completeSend(s network.Send) *inFlightRequest {
	q := f.requests[s.Destination()]
	for i, r := range q {
		if r.send == s {
			if r.expectResponse {
				return nil
			}
			f.requests[s.Destination()] = append(q[:i:i], q[i+1:]...)
			return r
		}
	}
	return nil
}

// CanSendMore reports whether another request may be sent to node: nothing is in flight, or
// the newest request's bytes are all written and fewer than the maximum are in flight.
func (f *InFlightRequests) CanSendMore(node string) bool {
	q := f.requests[node]
	return len(q) == 0 || (q[0].send.Completed() && len(q) < f.maxInFlightRequestsPerConnection)
}

// Count is the number of requests in flight to node.
func (f *InFlightRequests) Count(node string) int { return len(f.requests[node]) }

// TotalCount is the number of requests in flight to every node.
func (f *InFlightRequests) TotalCount() int {
	n := 0
	for _, q := range f.requests {
		n += len(q)
	}
	return n
}

// clearAll removes and returns the requests to node (newest first).
func (f *InFlightRequests) clearAll(node string) []*inFlightRequest {
	q := f.requests[node]
	delete(f.requests, node)
	return q
}

// nodesWithTimedOutRequests lists the nodes whose oldest request was sent more than
// requestTimeoutMs ago.
func (f *InFlightRequests) nodesWithTimedOutRequests(nowMs, requestTimeoutMs int64) []string {
	var out []string
	for node, q := range f.requests {
		if len(q) > 0 && nowMs-q[len(q)-1].sendTimeMs > requestTimeoutMs {
			out = append(out, node)
		}
	}
	return out
}
