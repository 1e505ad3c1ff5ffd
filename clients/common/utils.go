package common

import (
	"math"
	"strconv"
	"strings"
)

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

// Murmur2 is Kafka's 32-bit murmur2 hash of data (seed 0x9747b28c), bit for bit as
// Utils.murmur2 computes it: the Java client's DefaultPartitioner places a keyed record in
// partition ToPositive(Murmur2(key)) % numPartitions, and so do kafka-python and librdkafka's
// murmur2 partitioners.
//
// Kafka 0.10.2: org.apache.kafka.common.utils.Utils.murmur2.
func Murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	length := len(data)
	h := seed ^ uint32(length)
	for i := 0; i+4 <= length; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := length &^ 3
	switch length % 4 {
	case 3:
		h ^= uint32(data[tail+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[tail+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[tail])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// JavaDoubleToString formats as Java's Double.toString: the shortest digits that read back,
// in plain notation for 1e-3 <= |d| < 1e7 (always with a fraction digit), else as d.dddE±n.
func JavaDoubleToString(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	case d == 0:
		if math.Signbit(d) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(d)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(d, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(d, 'e', -1, 64) // e.g. 1.2345e+08, 1e-05
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}
