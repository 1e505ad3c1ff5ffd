package clients

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/zkafka/zkafka/clients/common"
)

// ErrConnectionFailed and ErrDisconnected are the IOExceptions of the blocking operations.
var (
	ErrConnectionFailed = errors.New("connection failed")
	ErrDisconnected     = errors.New("disconnected before the response was read")
)

// NetworkClientBlockingOps drives a NetworkClient synchronously for the callers that exchange
// one request at a time with one node: the controller's RequestSendThread, the replica
// fetcher's blocking send, the broker's controlled shutdown, the admin tools. Every such caller
// gets the NetworkClient's frame-size limit, correlation check and request timeout.
//
// Kafka 0.10.2: kafka.utils.NetworkClientBlockingOps (an implicit Scala wrapper; here a small
// struct around the client and its clock). Go difference: every wait also ends when ctx is done
// (the caller's shutdown), where Scala relied on thread interruption: cancelling ctx wakes the
// Poll in progress (KafkaClient.Wakeup), and each Poll is also bounded to ctxPollSlice.
type NetworkClientBlockingOps struct {
	Client KafkaClient
	Time   common.Time
}

// IsReady polls once without waiting and reports whether node is ready.
func (b NetworkClientBlockingOps) IsReady(node common.Node) bool {
	now := b.Time.Milliseconds()
	b.Client.Poll(0, now)
	return b.Client.IsReady(node, now)
}

// BlockingReady connects to node if needed and waits up to timeoutMs for it to be ready. It
// returns false when the time is up, an error wrapping ErrConnectionFailed when the connection
// failed, or ctx's error.
//
// Kafka 0.10.2: NetworkClientBlockingOps.blockingReady.
func (b NetworkClientBlockingOps) BlockingReady(ctx context.Context, node common.Node, timeoutMs int64) (bool, error) {
	if timeoutMs < 0 {
		return false, errors.New("timeout should be >= 0")
	}
	defer context.AfterFunc(ctx, b.Client.Wakeup)() // a cancelled ctx ends the Poll in progress
	start := b.Time.Milliseconds()
	if b.IsReady(node) || b.Client.Ready(node, start) {
		return true, nil
	}
	expiry := start + timeoutMs
	for now := start; ; {
		if b.Client.IsReady(node, now) {
			return true, nil
		}
		if b.Client.ConnectionFailed(node) {
			return false, fmt.Errorf("%w: Connection to %s failed", ErrConnectionFailed, node)
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		b.Client.Poll(min(expiry-now, ctxPollSlice), now)
		now = b.Time.Milliseconds()
		if now >= expiry {
			return false, nil
		}
	}
}

// ctxPollSlice bounds one Poll of a blocking operation so that a cancelled ctx is noticed.
const ctxPollSlice = 100

// BlockingSendAndReceive sends request (its node must be ready) and polls until its response
// arrives. A disconnection (which includes request.timeout.ms passing without an answer: the
// client closes the connection) is an error wrapping ErrDisconnected; a version the node does
// not support is the VersionMismatch error.
//
// Kafka 0.10.2: NetworkClientBlockingOps.blockingSendAndReceive.
func (b NetworkClientBlockingOps) BlockingSendAndReceive(ctx context.Context, request *ClientRequest) (*ClientResponse, error) {
	if err := b.Client.Send(request, b.Time.Milliseconds()); err != nil {
		return nil, err
	}
	// A cancelled ctx ends the Poll in progress; the request timeout bounds each Poll.
	defer context.AfterFunc(ctx, b.Client.Wakeup)()
	wait := int64(math.MaxInt64)
	if ctx.Done() != nil {
		wait = ctxPollSlice
	}
	for {
		for _, r := range b.Client.Poll(wait, b.Time.Milliseconds()) {
			if r.RequestHeader.CorrelationID != request.CorrelationID() {
				continue
			}
			switch {
			case r.Disconnected:
				return nil, fmt.Errorf("%w: Connection to %s was disconnected before the response was read", ErrDisconnected, request.Destination())
			case r.VersionMismatch != nil:
				return nil, r.VersionMismatch
			}
			return r, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}
