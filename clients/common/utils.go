package common

// JavaStringHashCode returns java.lang.String.hashCode of s (UTF-16 code units,
// h = 31*h + c), which Kafka uses for group -> __consumer_offsets partitioning.
//
// Kafka 0.10.2: String.hashCode as used by GroupMetadataManager.partitionFor.
func JavaStringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// Abs is Kafka's Utils.abs: the absolute value, mapping MinInt32 to 0 rather than overflowing.
//
// Kafka 0.10.2: org.apache.kafka.common.utils.Utils.abs / kafka.utils.Utils.abs.
func Abs(n int32) int32 {
	if n == -2147483648 {
		return 0
	}
	if n < 0 {
		return -n
	}
	return n
}

// ToPositive is Utils.toPositive (n & 0x7fffffff), used by the producer's DefaultPartitioner.
func ToPositive(n int32) int32 { return n & 0x7fffffff }
