// Package serialization holds the Serializer and Deserializer interfaces the clients use to turn
// keys and values into bytes and back, and Kafka's built-in ones (byte array, string, integer,
// long, double), each under its Java class name so that key.serializer and value.serializer
// settings written for the Java clients keep working (ByName, DeserializerByName).
//
// Kafka 0.10.2: org.apache.kafka.common.serialization
// (clients/src/main/java/org/apache/kafka/common/serialization).
//
// Bookmap: 《Apache Kafka源码剖析》 §2.2.3 (Serializer & Deserializer).
//
// Null: Java passes null through every serializer (a null key, a tombstone value). In Go a nil
// []byte is null; for the other types Nullable wraps a serializer of T into one of *T, a nil
// pointer being null (NullableDeserializer the reverse).
package serialization
