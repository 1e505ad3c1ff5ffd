// Package serialization turns keys and values into bytes and back.
//
// Kafka 0.10.2: org.apache.kafka.common.serialization (clients/src/main/java/org/apache/kafka/common/serialization)
// and the Scala clients' kafka.serializer (core/src/main/scala/kafka/serializer), the latter in
// legacy.go.
//
// Bookmap: 《Kafka技术内幕》 §2.2 (the old producer's encoders), ch.3 (the old consumer's decoders).
package serialization
