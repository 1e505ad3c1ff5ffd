// Package clients is the core the Java clients share: NetworkClient (send requests to nodes,
// poll for their responses, connect and reconnect with backoff, time requests out, keep cluster
// metadata current, find the least loaded node), its bookkeeping (InFlightRequests,
// ClusterConnectionStates, ClientRequest, ClientResponse, NodeApiVersions), the cluster
// Metadata with its DefaultMetadataUpdater and ManualMetadataUpdater, and
// NetworkClientBlockingOps for callers that want one request and its response at a time.
//
// Kafka 0.10.2: org.apache.kafka.clients (clients/src/main/java/org/apache/kafka/clients:
// NetworkClient, KafkaClient, InFlightRequests, ClusterConnectionStates, ConnectionState,
// ClientRequest, ClientResponse, RequestCompletionHandler, Metadata, MetadataUpdater,
// ManualMetadataUpdater, NodeApiVersions, ClientUtils) and kafka.utils.NetworkClientBlockingOps
// (core, moved here: layout.md B.4 row 18).
//
// Bookmap: 《Apache Kafka源码剖析》 §2.2.2 (Metadata), §2.4.3 (InFlightRequests), §2.4.4
// (MetadataUpdater), §2.4.5 (NetworkClient); 《Kafka技术内幕》 §2.1.3 (the client network
// connection object).
//
// Goroutines: NetworkClient, its InFlightRequests and ClusterConnectionStates belong to the one
// goroutine that drives it (the producer's Sender, the consumer's caller under
// ConsumerNetworkClient's lock, a broker's RequestSendThread); Wakeup is the only method other
// goroutines may call. Metadata is shared with the user's goroutines and guards itself with its
// mutex (a leaf lock); AwaitUpdate waits on a channel closed by each Update.
//
// The request/response rules every caller gets from here: frames through
// network.CheckReceiveSize (no limit for clients, as in Kafka, but no allocation ahead of the
// bytes); responses matched to the oldest request in flight on their connection, a mismatched
// correlation id or an unparsable body closing the connection and failing its requests as
// disconnected; requests unanswered for request.timeout.ms failing the same way; versions lowered
// to what the node supports (ApiVersions) when DiscoverBrokerVersions is on.
//
// How a one-request-at-a-time caller uses it (the controller, the replica fetcher, controlled
// shutdown, a tool):
//
//	sel := network.NewSelector(network.SelectorConfig{MaxReceiveSize: network.Unlimited})
//	nc := clients.NewNetworkClientWithUpdater(sel, &clients.ManualMetadataUpdater{},
//		clients.NetworkClientConfig{ClientID: id, MaxInFlightRequestsPerConnection: 1,
//			ReconnectBackoffMs: 50, RequestTimeoutMs: timeout, SocketReceiveBuffer: -1, SocketSendBuffer: -1})
//	ops := clients.NetworkClientBlockingOps{Client: nc, Time: common.SystemTime{}}
//	if ok, err := ops.BlockingReady(ctx, node, socketTimeoutMs); !ok || err != nil { nc.CloseNode(node.IDString()); ... }
//	resp, err := ops.BlockingSendAndReceive(ctx, nc.NewClientRequest(node.IDString(), req, now, true, nil))
//	// on err: nc.CloseNode(node.IDString()), back off, retry
package clients
