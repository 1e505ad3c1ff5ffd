// Package recorder captures the exact request frames that real Kafka clients (sarama, librdkafka
// through kcat) send to a broker, so that clients/protocol can be tested against golden bytes it
// did not write itself.
//
// Kafka 0.10.2: no Kafka class; test support for org.apache.kafka.common.requests
// (clients/src/main/java/org/apache/kafka/common/requests) and the request header of
// org.apache.kafka.common.requests.RequestHeader.
//
// Bookmap: docs/formats.md §2.1 (framing, headers), §2.3 (the ApiVersions quirk), §2.5 (client interop).
//
// How it works. A Listener wraps a loopback net.Listener and is handed to
// sarama.NewMockBrokerListener, so the fake broker advertises the listener's own address in
// Metadata and GroupCoordinator answers and every client connection passes through it. Each
// accepted connection reads whole size-prefixed frames from the client, keeps a copy of the frame
// (without the 4-byte size), and then passes it on to the mock broker, except ApiVersions: that is
// answered inside the recorder with the bytes a 0.10.2 broker sends (the full v0 table for v0, the
// v0-encoded error 35 with an empty array for any other version), because sarama's mock broker would
// otherwise advertise sarama's own, much newer, version ranges and the clients would send requests a
// 0.10.2 broker cannot parse.
//
// The package lives under clients/protocol/internal (not in a _test.go file of clients/protocol)
// so that captures can be regenerated while clients/protocol itself is being rewritten, and so
// that no test-only dependency on sarama's mock broker leaks into the protocol package's API.
//
// Invariants: frames are numbered in arrival order across all connections of one Listener; a
// connection's goroutine (owned by sarama's mock broker) is the only reader and writer of that
// connection, so intercepting ApiVersions needs no extra locking beyond the frame list's mutex.
package recorder
