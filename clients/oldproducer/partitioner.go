package oldproducer

import (
	"fmt"

	"github.com/zkafka/zkafka/clients/common"
)

// Partitioner maps a partition key to a partition in [0, numPartitions); a result outside that
// range fails the message (UnknownTopicOrPartitionException in Kafka).
//
// Kafka 0.10.2: kafka.producer.Partitioner.
type Partitioner interface {
	Partition(key any, numPartitions int) int
}

// HashCoder is a key type that brings its own Java-compatible hashCode.
type HashCoder interface {
	HashCode() int32
}

// JavaHashCode is Java's hashCode of a key: String.hashCode for strings, Arrays.hashCode for
// byte slices, Integer/Long/Short/Byte/Boolean.hashCode for Go's integer and boolean types,
// HashCode() for a HashCoder, and String.hashCode of fmt's rendering for anything else.
//
// Kafka 0.10.2 calls key.hashCode. A Java byte[] has only its identity hash there (different in
// every JVM, so the old DefaultPartitioner scattered byte[] keys at random); zkafka gives byte
// slices Arrays.hashCode, so a key always lands in the partition ByteArrayPartitioner would pick.
func JavaHashCode(key any) int32 {
	switch k := key.(type) {
	case HashCoder:
		return k.HashCode()
	case string:
		return common.JavaStringHashCode(k)
	case []byte:
		return ArraysHashCode(k)
	case int32:
		return k
	case int16:
		return int32(k)
	case int8:
		return int32(k)
	case uint8:
		return int32(int8(k))
	case int:
		return longHashCode(int64(k))
	case int64:
		return longHashCode(k)
	case bool:
		if k {
			return 1231
		}
		return 1237
	}
	return common.JavaStringHashCode(fmt.Sprint(key))
}

// longHashCode is Long.hashCode: (int)(v ^ (v >>> 32)).
func longHashCode(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// ArraysHashCode is java.util.Arrays.hashCode(byte[]): 31*h + b over the signed bytes, from 1.
func ArraysHashCode(b []byte) int32 {
	if b == nil {
		return 0
	}
	h := int32(1)
	for _, c := range b {
		h = 31*h + int32(int8(c))
	}
	return h
}

// DefaultPartitioner is abs(hashCode(key)) % numPartitions, with Kafka's abs (MIN_VALUE → 0).
//
// Kafka 0.10.2: kafka.producer.DefaultPartitioner (see JavaHashCode for byte slices).
type DefaultPartitioner struct{}

// Partition implements Partitioner.
func (DefaultPartitioner) Partition(key any, numPartitions int) int {
	return int(common.Abs(JavaHashCode(key))) % numPartitions
}

// ByteArrayPartitioner is abs(Arrays.hashCode(key)) % numPartitions for byte-slice keys; any
// other key type gets -1 (an invalid partition: Kafka fails it with a ClassCastException).
//
// Kafka 0.10.2: kafka.producer.ByteArrayPartitioner, the old producer's partitioner in the
// console producer and MirrorMaker.
type ByteArrayPartitioner struct{}

// Partition implements Partitioner.
func (ByteArrayPartitioner) Partition(key any, numPartitions int) int {
	b, ok := key.([]byte)
	if !ok {
		return -1
	}
	return int(common.Abs(ArraysHashCode(b))) % numPartitions
}

// partitionerForClass makes the partitioner of partitioner.class.
func partitionerForClass(class string) (Partitioner, error) {
	switch class {
	case DefaultPartitionerClass:
		return DefaultPartitioner{}, nil
	case ByteArrayPartitionerClass:
		return ByteArrayPartitioner{}, nil
	}
	return nil, fmt.Errorf("partitioner.class %s is not supported by zkafka (%s and %s are; a Go Partitioner can be passed to NewProducer)",
		class, DefaultPartitionerClass, ByteArrayPartitionerClass)
}
