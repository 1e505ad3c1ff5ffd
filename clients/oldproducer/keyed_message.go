package oldproducer

import "fmt"

// KeyedMessage is a message for a topic: a value, an optional key (stored with the message),
// and an optional partition key (used for partitioning only, not stored).
//
// Kafka 0.10.2: kafka.producer.KeyedMessage. Scala's null key becomes HasKey() false, since a
// Go type parameter has no null.
type KeyedMessage[K, V any] struct {
	Topic   string
	Key     K
	PartKey any // nil: partition by Key (if any)
	Message V
	hasKey  bool
}

// NewKeyedMessage is a message without key.
func NewKeyedMessage[K, V any](topic string, message V) KeyedMessage[K, V] {
	return KeyedMessage[K, V]{Topic: topic, Message: message}
}

// NewKeyedMessageWithKey is a message with a key, partitioned by it.
func NewKeyedMessageWithKey[K, V any](topic string, key K, message V) KeyedMessage[K, V] {
	return KeyedMessage[K, V]{Topic: topic, Key: key, Message: message, hasKey: true}
}

// NewKeyedMessageWithPartKey is a message with a key, partitioned by partKey.
func NewKeyedMessageWithPartKey[K, V any](topic string, key K, partKey any, message V) KeyedMessage[K, V] {
	return KeyedMessage[K, V]{Topic: topic, Key: key, PartKey: partKey, Message: message, hasKey: true}
}

// HasKey reports whether the message has a key.
func (m KeyedMessage[K, V]) HasKey() bool { return m.hasKey }

// PartitionKey is what the partitioner sees: the partition key, else the key, else nil (then
// the producer picks a partition itself).
func (m KeyedMessage[K, V]) PartitionKey() any {
	switch {
	case m.PartKey != nil:
		return m.PartKey
	case m.hasKey:
		return m.Key
	}
	return nil
}

// String is Scala's case class rendering.
func (m KeyedMessage[K, V]) String() string {
	var key any
	if m.hasKey {
		key = m.Key
	}
	return fmt.Sprintf("KeyedMessage(%s,%v,%v,%v)", m.Topic, key, m.PartKey, m.Message)
}
