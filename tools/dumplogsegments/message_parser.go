package dumplogsegments

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zkafka/zkafka/clients/record"
)

// DefaultDecoder is Kafka's identity decoder class.
const DefaultDecoder = "kafka.serializer.DefaultDecoder"

// messageParser turns a message into the key and payload texts the tool prints; nil means
// "print nothing".
//
// Kafka 0.10.2: DumpLogSegments.MessageParser.
type messageParser interface {
	parse(r record.Record) (key, payload *string, err error)
}

func newMessageParser(opts Options) (messageParser, error) {
	if opts.OffsetsDecoder {
		return offsetsMessageParser{}, nil
	}
	kd, err := decoderFor(opts.KeyDecoder)
	if err != nil {
		return nil, err
	}
	vd, err := decoderFor(opts.ValueDecoder)
	if err != nil {
		return nil, err
	}
	return decoderMessageParser{key: kd, value: vd}, nil
}

// decoderFor maps a kafka.serializer decoder class to a function. StringDecoder decodes
// UTF-8 with replacement characters, as new String(bytes, "UTF8") does. DefaultDecoder
// yields the bytes; Scala prints a byte array as "[B@<identity hash>", which cannot be
// reproduced, so the raw bytes are printed instead.
func decoderFor(class string) (func([]byte) string, error) {
	switch class {
	case "", StringDecoder:
		return javaUTF8String, nil
	case DefaultDecoder:
		return func(b []byte) string { return string(b) }, nil
	}
	return nil, fmt.Errorf("%w: decoder class %s is not available (only %s and %s)", ErrUsage, class, StringDecoder, DefaultDecoder)
}

// javaUTF8String decodes b as UTF-8, each malformed byte becoming U+FFFD.
func javaUTF8String(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r) // RuneError is U+FFFD
		b = b[n:]
	}
	return sb.String()
}

// decoderMessageParser prints keys and values through decoders.
//
// Kafka 0.10.2: DumpLogSegments.DecoderMessageParser. A message with a null value prints
// neither key nor payload, as in Kafka.
type decoderMessageParser struct{ key, value func([]byte) string }

func (p decoderMessageParser) parse(r record.Record) (*string, *string, error) {
	if r.HasNullValue() {
		return nil, nil, nil
	}
	var key *string
	if r.HasKey() {
		k := p.key(r.Key())
		key = &k
	}
	v := p.value(r.Value())
	return key, &v, nil
}

// offsetsMessageParser decodes __consumer_offsets messages.
//
// Kafka 0.10.2: DumpLogSegments.OffsetsMessageParser over GroupMetadataManager's key and value
// schemas (keys v0/v1 = offset commit, v2 = group metadata; offset values v0/v1; group values
// v0/v1). The schemas are read here directly so the tool does not depend on the coordinator.
type offsetsMessageParser struct{}

func (offsetsMessageParser) parse(r record.Record) (*string, *string, error) {
	if r.HasNullValue() {
		return nil, nil, nil
	}
	if !r.HasKey() {
		return nil, nil, errors.New("Failed to decode message using offset topic decoder (message had a missing key)")
	}
	kb := &schemaReader{b: r.Key()}
	version := kb.int16()
	var key, value string
	switch version {
	case 0, 1:
		group, topic, partition := kb.string(), kb.string(), kb.int32()
		vb := &schemaReader{b: r.Value()}
		vv := vb.int16()
		if vv != 0 && vv != 1 {
			return nil, nil, fmt.Errorf("Unknown offset schema version %d", vv)
		}
		offset := vb.int64()
		metadata := vb.string()
		key = fmt.Sprintf("offset::%s:%s:%d", group, topic, partition)
		if metadata == "" {
			value = strconv.FormatInt(offset, 10)
		} else {
			value = fmt.Sprintf("%d:%s", offset, metadata)
		}
		if vb.err != nil {
			return nil, nil, vb.err
		}
	case 2:
		group := kb.string()
		v, err := parseGroupMetadataValue(r.Value())
		if err != nil {
			return nil, nil, err
		}
		key = "metadata::" + group
		value = v
	default:
		return nil, nil, errors.New("Failed to decode message using offset topic decoder (message had an invalid key)")
	}
	if kb.err != nil {
		return nil, nil, kb.err
	}
	return &key, &value, nil
}

// parseGroupMetadataValue renders "<protocolType>:<protocol>:<generation>:{member=assignment,...}".
// Kafka only learns the protocol type from the first member, so a group without members
// prints an empty protocol type.
func parseGroupMetadataValue(b []byte) (string, error) {
	vb := &schemaReader{b: b}
	version := vb.int16()
	if version != 0 && version != 1 {
		return "", errors.New("Unknown group metadata message version")
	}
	protocolType := vb.string()
	generation := vb.int32()
	protocol := vb.nullableString()
	_ = vb.nullableString() // leader
	n := vb.int32()
	var members []string
	for i := int32(0); i < n && vb.err == nil; i++ {
		memberID := vb.string()
		_, _ = vb.string(), vb.string() // client id, client host
		if version == 1 {
			_ = vb.int32() // rebalance timeout
		}
		_ = vb.int32() // session timeout
		_ = vb.bytes() // subscription
		assignment := vb.bytes()
		if protocolType == "consumer" {
			parts, userData, err := parseConsumerAssignment(assignment)
			if err != nil {
				return "", err
			}
			if userData == "" {
				members = append(members, fmt.Sprintf("%s=%s", memberID, parts))
			} else {
				members = append(members, fmt.Sprintf("%s=%s:%s", memberID, parts, userData))
			}
		} else {
			members = append(members, fmt.Sprintf("%s=%s", memberID, javaHex(assignment)))
		}
	}
	if vb.err != nil {
		return "", vb.err
	}
	if n <= 0 {
		protocolType = ""
	}
	p := "null"
	if protocol != nil {
		p = *protocol
	}
	return fmt.Sprintf("%s:%s:%d:{%s}", protocolType, p, generation, strings.Join(members, ",")), nil
}

// parseConsumerAssignment decodes ConsumerProtocol's assignment: version, [topic [partition]],
// user data. The partitions render as Java's List<TopicPartition>.toString: "[t-0, t-1]".
func parseConsumerAssignment(b []byte) (string, string, error) {
	r := &schemaReader{b: b}
	_ = r.int16()
	var parts []string
	nt := r.int32()
	for i := int32(0); i < nt && r.err == nil; i++ {
		topic := r.string()
		np := r.int32()
		for j := int32(0); j < np && r.err == nil; j++ {
			parts = append(parts, fmt.Sprintf("%s-%d", topic, r.int32()))
		}
	}
	userData := r.bytes()
	if r.err != nil {
		return "", "", r.err
	}
	return "[" + strings.Join(parts, ", ") + "]", javaHex(userData), nil
}

// javaHex is "%X".format(BigInt(1, bytes)): upper-case hex without leading zeros.
func javaHex(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return strings.ToUpper(new(big.Int).SetBytes(b).Text(16))
}

// schemaReader reads Kafka protocol primitive types; the first error sticks.
type schemaReader struct {
	b   []byte
	err error
}

func (r *schemaReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errors.New("Error reading field: buffer underflow")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *schemaReader) int16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *schemaReader) int32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *schemaReader) int64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (r *schemaReader) string() string {
	n := r.int16()
	if n < 0 {
		if r.err == nil {
			r.err = errors.New("Error reading field: string length is negative")
		}
		return ""
	}
	return string(r.take(int(n)))
}

func (r *schemaReader) nullableString() *string {
	n := r.int16()
	if n < 0 || r.err != nil {
		return nil
	}
	s := string(r.take(int(n)))
	return &s
}

func (r *schemaReader) bytes() []byte {
	n := r.int32()
	if n < 0 {
		return nil
	}
	return r.take(int(n))
}
