package record

import "fmt"

// CompressionType is the codec in bits 0-2 of a message's attributes.
//
// Kafka 0.10.2: org.apache.kafka.common.record.CompressionType (and kafka.message.CompressionCodec).
type CompressionType int8

// The codecs of Kafka 0.10.2; ids 4-7 are unassigned.
const (
	NONE   CompressionType = 0
	GZIP   CompressionType = 1
	SNAPPY CompressionType = 2
	LZ4    CompressionType = 3
)

// ID is the attribute value of the codec.
func (t CompressionType) ID() int8 { return int8(t) }

// Name is the codec's configuration name ("none", "gzip", "snappy", "lz4").
func (t CompressionType) Name() string {
	switch t {
	case NONE:
		return "none"
	case GZIP:
		return "gzip"
	case SNAPPY:
		return "snappy"
	case LZ4:
		return "lz4"
	}
	return fmt.Sprintf("unknown(%d)", int8(t))
}

// String returns Name.
func (t CompressionType) String() string { return t.Name() }

// ForID returns the codec with the given attribute id, or an error wrapping ErrIllegalArgument for
// ids outside 0-3 (Java throws IllegalArgumentException, which a Produce reports as UNKNOWN).
func ForID(id int) (CompressionType, error) {
	if id < 0 || id > int(LZ4) {
		return NONE, fmt.Errorf("%w: unknown compression type id: %d", ErrIllegalArgument, id)
	}
	return CompressionType(id), nil
}

// ForName returns the codec with the given configuration name (exact, lower case as in Kafka).
func ForName(name string) (CompressionType, error) {
	for t := NONE; t <= LZ4; t++ {
		if t.Name() == name {
			return t, nil
		}
	}
	return NONE, fmt.Errorf("%w: unknown compression name: %s", ErrIllegalArgument, name)
}
