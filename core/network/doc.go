// Package network is the broker's SocketServer: one Acceptor per listener hands connections to
// num.network.threads Processors; each Processor owns its connections, frames requests, parses
// their headers and bodies, and puts them on the RequestChannel's bounded request queue; the
// KafkaRequestHandler pool (core/server) takes them off, and answers each request to the connection
// that read it.
//
// Kafka 0.10.2: kafka.network (core/src/main/scala/kafka/network: SocketServer.scala with
// Acceptor, Processor, ConnectionQuotas; RequestChannel.scala with Request, Response,
// ResponseAction).
//
// Bookmap: 《Kafka技术内幕》 §2.3 (the broker's network layer), 《Apache Kafka源码剖析》 §4.1
// (SocketServer: Acceptor, Processor, RequestChannel), 《深入理解Kafka》 §6.2.
//
// Threads as goroutines (docs/design.md §2): the Acceptor and each Processor are one goroutine. Kafka's
// Processor drives a non-blocking Selector; here each connection (KafkaChannel) has one goroutine,
// and the work is placed so that a request and its response cross as few goroutines as possible
// (each hand-off to a parked goroutine costs a wake-up, which on a virtual machine was most of
// the cost of a consumer fetch):
//   - The connection's goroutine reads a size-prefixed request (through a small buffer, so a small
//     request costs one read(2) and pipelined small requests share one), runs the Processor's
//     processCompletedReceive itself (parse, put the Request on the RequestChannel) and, muted,
//     waits for the response: SendResponse hands it straight back (KafkaChannel.deliver). It
//     writes the response (processResponse: Kafka's processNewResponses, the Selector's write and
//     processCompletedSends), records the request's metrics, and reads the next request.
//   - The Processor's goroutine accepts new connections, closes connections (on a bad frame, an
//     unparsable request, end of stream, a failed write, CloseConnection, or idle reaping), holds
//     the connection map, and hands on the responses to Requests that did not come from a
//     connection (its response queue, processNewResponses).
//
// Muting gives Kafka's ordering guarantee: a connection has at most one request in flight (the
// KafkaChannel's inflight request), so responses leave in request order, and the end of a stream
// or a bad frame after a request is met only once that request is answered.
//
// Zero copy: a Response carries a Send; the connection's goroutine calls Send.WriteTo with the
// *net.TCPConn, so a FetchResponse whose record sets are FileRecords slices goes out with
// sendfile(2).
//
// Metrics (SocketServerConfig.Metrics; nil turns them off): RequestMetrics per ApiKeys name plus
// FetchConsumer/FetchFollower, recorded when a request is finished (response written, NoOp,
// CloseConnection, or its connection gone; by the connection's goroutine, or by the Processor
// closing it, or by SendResponse finding it closed), from the timestamps the request collects on
// its way: StartTime (parse), DequeueTime (handler), MarkAPILocalComplete (KafkaApis),
// MarkAPIRemoteComplete (purgatory callbacks), response complete (SendResponse), response dequeue
// (taken up by the connection). Also RequestChannel's RequestQueueSize/ResponseQueueSize gauges and
// the Processors' IdlePercent and NetworkProcessorAvgIdlePercent (time spent waiting in the run
// loop's select). Names and units: docs/metrics.md.
//
// Lock order: ConnectionQuotas.mu is a leaf; Processor state is owned by its goroutine (no lock),
// except each KafkaChannel's inflight request and response slot, which the connection's goroutine,
// the handler's SendResponse and the Processor pass between them (an atomic pointer and a channel
// of capacity one; whoever clears inflight, or takes the response out of the slot, records the
// request's metrics); RequestChannel response queues have one mutex each (leaf).
//
// Errors: a frame whose size is negative or above socket.request.max.bytes, a header or body that
// does not parse, an unknown api key or an unsupported version (other than ApiVersions) close the
// connection without a response and log a line, as Processor.processCompletedReceives does.
package network
