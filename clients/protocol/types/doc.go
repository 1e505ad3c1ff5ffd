// Package types is the runtime schema library of the Kafka protocol: primitive wire types,
// arrays, fields, schemas and the generic Struct value they read into.
//
// Kafka 0.10.2: org.apache.kafka.common.protocol.types (clients/src/main/java/org/apache/kafka/common/protocol/types)
//
// Bookmap: the protocol chapter's "Schema/Struct" section (how Protocol.java's table is interpreted).
//
// In zkafka the typed, generated codecs in package protocol are what the broker and clients use on
// the hot path. This package exists for three reasons: it is the vocabulary in which
// clients/protocol/schema transcribes Protocol.java (the generator reads those values), it
// decodes any schema generically (the table-versus-generated equivalence test encodes through
// one path and decodes through the other), and non-wire formats that Kafka also defines with
// Schema (ConsumerProtocol, the __consumer_offsets key and value) can use it directly.
//
// Wire format (all big-endian):
//
//	BOOLEAN          1 byte, 0 or 1 written; any non-zero byte reads as true
//	INT8..INT64      1, 2, 4, 8 bytes, two's complement
//	STRING           INT16 length N >= 0, then N bytes of UTF-8
//	NULLABLE_STRING  as STRING, a negative length means null (written as -1)
//	BYTES            INT32 length N >= 0, then N bytes
//	NULLABLE_BYTES   as BYTES, a negative length means null (written as -1)
//	RECORDS          as NULLABLE_BYTES; the content is a message set. A null record set is a
//	                 decoding error, because Kafka fails building the request from it.
//	ARRAY(T)         INT32 count N, then N values of T; -1 means null only for nullable arrays
//	Schema           its fields concatenated, no framing of its own
//
// Decoders never panic and never allocate from a length before checking it against the bytes
// that remain: an array of N elements whose smallest encoding is k bytes needs N*k bytes.
// Reading a Schema ignores trailing bytes, as Schema.read does in Kafka.
//
// Values: BOOLEAN bool, INT8 int8, INT16 int16, INT32 int32, INT64 int64, STRING string,
// NULLABLE_STRING string or nil, BYTES []byte, NULLABLE_BYTES and RECORDS []byte or nil,
// ARRAY []any (nil for a null nullable array), Schema *Struct. Byte values read from a buffer
// alias that buffer.
package types
