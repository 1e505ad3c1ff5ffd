// Package network is the broker's SocketServer: one Acceptor per listener hands connections to
// num.network.threads Processors; each Processor owns its connections, frames requests, parses
// their headers and bodies, and puts them on the RequestChannel's bounded request queue; the
// KafkaRequestHandler pool (core/server) takes them off, and answers through the Processor's own
// response queue.
//
// Kafka 0.10.2: kafka.network (core/src/main/scala/kafka/network: SocketServer.scala with
// Acceptor, Processor, ConnectionQuotas; RequestChannel.scala with Request, Response,
// ResponseAction).
//
// Bookmap: 《Kafka技术内幕》 §2.3 (the broker's network layer), 《Apache Kafka源码剖析》 §4.1
// (SocketServer: Acceptor, Processor, RequestChannel), 《深入理解Kafka》 §6.2.
//
// Threads as goroutines (layout.md B.7): the Acceptor and each Processor are one goroutine. Kafka's
// Processor drives a non-blocking Selector; here each connection (KafkaChannel) has a reader
// goroutine that reads exactly one size-prefixed request and then waits while the channel is muted,
// and a writer goroutine that writes one response Send at a time. The Processor's loop consumes
// their completions in the order SocketServer.scala's run loop does: configureNewConnections,
// processNewResponses, (poll), processCompletedReceives, processCompletedSends,
// processDisconnected. Muting gives Kafka's ordering guarantee: a connection has at most one
// request in flight, so responses leave in request order.
//
// Zero copy: a Response carries a Send; the writer calls Send.WriteTo with the *net.TCPConn, so a
// FetchResponse whose record sets are FileRecords slices goes out with sendfile(2).
//
// Metrics (SocketServerConfig.Metrics; nil turns them off): RequestMetrics per ApiKeys name plus
// FetchConsumer/FetchFollower, recorded by the Processor when a request is finished (response
// written, NoOp, CloseConnection, or its connection gone), from the timestamps the request collects
// on its way: StartTime (Processor), DequeueTime (handler), MarkAPILocalComplete (KafkaApis),
// MarkAPIRemoteComplete (purgatory callbacks), response complete (SendResponse), response dequeue
// (Processor). Also RequestChannel's RequestQueueSize/ResponseQueueSize gauges and the Processors'
// IdlePercent and NetworkProcessorAvgIdlePercent (time spent waiting in the run loop's select).
// Names and units: docs/metrics.md.
//
// Lock order: ConnectionQuotas.mu is a leaf; Processor state is owned by its goroutine (no lock);
// RequestChannel response queues have one mutex each (leaf).
//
// Errors: a frame whose size is negative or above socket.request.max.bytes, a header or body that
// does not parse, an unknown api key or an unsupported version (other than ApiVersions) close the
// connection without a response and log a line, as Processor.processCompletedReceives does.
package network
