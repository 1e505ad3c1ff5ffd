// Package interop holds tests in which a real client reads bytes that zkafka wrote: a small fake
// broker built from clients/protocol's request and response types serves message sets built by
// clients/record to sarama's consumer, and the tests check that sarama yields the exact keys,
// values, offsets and timestamps that went in (kcat, when installed, is checked the same way).
// In the other direction the fake broker decodes sarama's live Produce requests with
// clients/protocol and clients/record and answers with zkafka's ProduceResponse.
//
// Kafka 0.10.2: no Kafka class; test-only, for org.apache.kafka.common.requests
// (clients/src/main/java/org/apache/kafka/common/requests) and
// org.apache.kafka.common.record.MemoryRecordsBuilder (clients/src/main/java/org/apache/kafka/common/record).
//
// Bookmap: docs/formats.md §2.5 (client interoperability), §3 (message format v0/v1,
// message sets and compressed wrappers, gzip/snappy/lz4 framing).
//
// The package has no non-test code besides this file. It sits under clients/internal because it
// imports both clients/protocol and clients/record and belongs to neither; nothing may import it.
// The other direction (real clients' bytes read by zkafka) is tested in clients/protocol with the
// captures under clients/protocol/testdata/captures.
package interop
