package coordinator

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/protocol/types"
)

// The schema versions 0.10.2 writes.
const (
	CurrentOffsetKeySchemaVersion   int16 = 1
	CurrentGroupKeySchemaVersion    int16 = 2
	CurrentOffsetValueSchemaVersion int16 = 1
	CurrentGroupValueSchemaVersion  int16 = 1
)

// The key and value schemas of __consumer_offsets, as GroupMetadataManager's companion object
// declares them (after the INT16 version that prefixes every key and value).
var (
	offsetCommitKeySchema = types.NewSchema(types.NewField("group", types.STRING),
		types.NewField("topic", types.STRING), types.NewField("partition", types.INT32))
	groupMetadataKeySchema = types.NewSchema(types.NewField("group", types.STRING))

	offsetCommitValueSchemaV0 = types.NewSchema(types.NewField("offset", types.INT64),
		types.NewField("metadata", types.STRING), types.NewField("timestamp", types.INT64))
	offsetCommitValueSchemaV1 = types.NewSchema(types.NewField("offset", types.INT64),
		types.NewField("metadata", types.STRING), types.NewField("commit_timestamp", types.INT64),
		types.NewField("expire_timestamp", types.INT64))

	memberMetadataV0 = types.NewSchema(types.NewField("member_id", types.STRING),
		types.NewField("client_id", types.STRING), types.NewField("client_host", types.STRING),
		types.NewField("session_timeout", types.INT32), types.NewField("subscription", types.BYTES),
		types.NewField("assignment", types.BYTES))
	memberMetadataV1 = types.NewSchema(types.NewField("member_id", types.STRING),
		types.NewField("client_id", types.STRING), types.NewField("client_host", types.STRING),
		types.NewField("rebalance_timeout", types.INT32), types.NewField("session_timeout", types.INT32),
		types.NewField("subscription", types.BYTES), types.NewField("assignment", types.BYTES))

	groupMetadataValueSchemaV0 = types.NewSchema(types.NewField("protocol_type", types.STRING),
		types.NewField("generation", types.INT32), types.NewField("protocol", types.NULLABLE_STRING),
		types.NewField("leader", types.NULLABLE_STRING), types.NewField("members", types.NewArrayOf(memberMetadataV0)))
	groupMetadataValueSchemaV1 = types.NewSchema(types.NewField("protocol_type", types.STRING),
		types.NewField("generation", types.INT32), types.NewField("protocol", types.NULLABLE_STRING),
		types.NewField("leader", types.NULLABLE_STRING), types.NewField("members", types.NewArrayOf(memberMetadataV1)))
)

// ErrUnknownSchemaVersion is returned for a key or value of a version 0.10.2 does not know.
var ErrUnknownSchemaVersion = errors.New("unknown __consumer_offsets schema version")

// writeVersioned encodes st after an INT16 version. It can only fail on a value too long for
// its type (a member id over 32767 bytes), which the callers of mustWriteVersioned rule out.
func writeVersioned(version int16, st *types.Struct) ([]byte, error) {
	out := binary.BigEndian.AppendUint16(nil, uint16(version))
	return st.Schema().Write(out, st)
}

// mustWriteVersioned is writeVersioned for keys and offset values, whose strings came off the
// wire as STRINGs (so they fit) or were bounded by offset.metadata.max.bytes.
func mustWriteVersioned(version int16, st *types.Struct) []byte {
	out, err := writeVersioned(version, st)
	if err != nil {
		panic(err)
	}
	return out
}

func set(st *types.Struct, name string, v any) *types.Struct {
	if _, err := st.Set(name, v); err != nil {
		panic(err)
	}
	return st
}

// OffsetCommitKey is the key of an offset commit (version 1).
//
// Kafka 0.10.2: GroupMetadataManager.offsetCommitKey.
func OffsetCommitKey(group string, tp common.TopicPartition) []byte {
	st := types.NewStruct(offsetCommitKeySchema)
	set(set(set(st, "group", group), "topic", tp.Topic), "partition", tp.Partition)
	return mustWriteVersioned(CurrentOffsetKeySchemaVersion, st)
}

// GroupMetadataKey is the key of a group's metadata (version 2).
func GroupMetadataKey(group string) []byte {
	return mustWriteVersioned(CurrentGroupKeySchemaVersion, set(types.NewStruct(groupMetadataKeySchema), "group", group))
}

// OffsetCommitValue is the value of an offset commit (version 1).
func OffsetCommitValue(o OffsetAndMetadata) []byte {
	st := types.NewStruct(offsetCommitValueSchemaV1)
	set(set(set(set(st, "offset", o.Offset), "metadata", o.Metadata), "commit_timestamp", o.CommitTimestamp),
		"expire_timestamp", o.ExpireTimestamp)
	return mustWriteVersioned(CurrentOffsetValueSchemaVersion, st)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// GroupMetadataValue is the value of a group's metadata, version 0 or 1, with each member's
// subscription for the selected protocol and its assignment from assignment (missing → empty).
// Caller holds the group's lock. It fails only for a string too long for the format.
func GroupMetadataValue(g *GroupMetadata, assignment map[string][]byte, version int16) ([]byte, error) {
	schema, member := groupMetadataValueSchemaV1, memberMetadataV1
	if version == 0 {
		schema, member = groupMetadataValueSchemaV0, memberMetadataV0
	}
	st := types.NewStruct(schema)
	set(st, "protocol_type", g.ProtocolType())
	set(st, "generation", g.generationID)
	set(st, "protocol", nullable(g.protocol))
	set(st, "leader", nullable(g.leaderID))
	members := make([]any, 0, len(g.memberOrder))
	for _, m := range g.AllMemberMetadata() {
		ms := types.NewStruct(member)
		set(ms, "member_id", m.MemberID)
		set(ms, "client_id", m.ClientID)
		set(ms, "client_host", m.ClientHost)
		if version > 0 {
			set(ms, "rebalance_timeout", m.RebalanceTimeoutMs)
		}
		set(ms, "session_timeout", m.SessionTimeoutMs)
		sub := m.Metadata(g.protocol)
		if sub == nil {
			sub = []byte{}
		}
		set(ms, "subscription", sub)
		a := assignment[m.MemberID]
		if a == nil {
			a = []byte{}
		}
		set(ms, "assignment", a)
		members = append(members, ms)
	}
	set(st, "members", members)
	return writeVersioned(version, st)
}

// BaseKey is a decoded __consumer_offsets key: an OffsetKey or a GroupMetadataKeyData.
type BaseKey interface{ Version() int16 }

// OffsetKey is a decoded offset commit key.
type OffsetKey struct {
	KeyVersion     int16
	Group          string
	TopicPartition common.TopicPartition
}

// Version implements BaseKey.
func (k OffsetKey) Version() int16 { return k.KeyVersion }

func (k OffsetKey) String() string {
	return fmt.Sprintf("[%s,%s,%d]", k.Group, k.TopicPartition.Topic, k.TopicPartition.Partition)
}

// GroupMetadataKeyData is a decoded group metadata key.
type GroupMetadataKeyData struct {
	KeyVersion int16
	Group      string
}

// Version implements BaseKey.
func (k GroupMetadataKeyData) Version() int16 { return k.KeyVersion }

func (k GroupMetadataKeyData) String() string { return k.Group }

func readVersion(b []byte) (int16, []byte, error) {
	if len(b) < 2 {
		return 0, nil, fmt.Errorf("%w: %d bytes, no version", types.ErrSchema, len(b))
	}
	return int16(binary.BigEndian.Uint16(b)), b[2:], nil
}

func readStruct(schema *types.Schema, b []byte) (*types.Struct, error) {
	v, _, err := schema.Read(b)
	if err != nil {
		return nil, err
	}
	return v.(*types.Struct), nil
}

// ReadMessageKey decodes a key: versions 0 and 1 are offset keys, 2 a group key.
//
// Kafka 0.10.2: GroupMetadataManager.readMessageKey.
func ReadMessageKey(b []byte) (BaseKey, error) {
	version, rest, err := readVersion(b)
	if err != nil {
		return nil, err
	}
	switch version {
	case 0, 1:
		st, err := readStruct(offsetCommitKeySchema, rest)
		if err != nil {
			return nil, err
		}
		return OffsetKey{KeyVersion: version, Group: st.Get("group").(string),
			TopicPartition: common.TopicPartition{Topic: st.Get("topic").(string), Partition: st.Get("partition").(int32)}}, nil
	case 2:
		st, err := readStruct(groupMetadataKeySchema, rest)
		if err != nil {
			return nil, err
		}
		return GroupMetadataKeyData{KeyVersion: version, Group: st.Get("group").(string)}, nil
	}
	return nil, fmt.Errorf("%w: key version %d", ErrUnknownSchemaVersion, version)
}

// ReadOffsetMessageValue decodes an offset value (nil for a tombstone). A v0 value has no
// expire timestamp: it is DefaultTimestamp, to be filled in on load.
func ReadOffsetMessageValue(b []byte) (*OffsetAndMetadata, error) {
	if b == nil {
		return nil, nil
	}
	version, rest, err := readVersion(b)
	if err != nil {
		return nil, err
	}
	switch version {
	case 0:
		st, err := readStruct(offsetCommitValueSchemaV0, rest)
		if err != nil {
			return nil, err
		}
		return &OffsetAndMetadata{Offset: st.Get("offset").(int64), Metadata: st.Get("metadata").(string),
			CommitTimestamp: st.Get("timestamp").(int64), ExpireTimestamp: DefaultTimestamp}, nil
	case 1:
		st, err := readStruct(offsetCommitValueSchemaV1, rest)
		if err != nil {
			return nil, err
		}
		return &OffsetAndMetadata{Offset: st.Get("offset").(int64), Metadata: st.Get("metadata").(string),
			CommitTimestamp: st.Get("commit_timestamp").(int64), ExpireTimestamp: st.Get("expire_timestamp").(int64)}, nil
	}
	return nil, fmt.Errorf("%w: offset value version %d", ErrUnknownSchemaVersion, version)
}

func optString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// ReadGroupMessageValue decodes a group value into a group (nil for a tombstone): Empty if it
// has no members, Stable otherwise; each member supports only the stored protocol with its
// stored subscription. A v0 member's rebalance timeout is its session timeout.
//
// Kafka 0.10.2: GroupMetadataManager.readGroupMessageValue.
func ReadGroupMessageValue(groupID string, b []byte) (*GroupMetadata, error) {
	if b == nil {
		return nil, nil
	}
	version, rest, err := readVersion(b)
	if err != nil {
		return nil, err
	}
	var schema *types.Schema
	switch version {
	case 0:
		schema = groupMetadataValueSchemaV0
	case 1:
		schema = groupMetadataValueSchemaV1
	default:
		return nil, fmt.Errorf("%w: group metadata version %d", ErrUnknownSchemaVersion, version)
	}
	st, err := readStruct(schema, rest)
	if err != nil {
		return nil, err
	}
	g := NewGroupMetadata(groupID)
	pt := st.Get("protocol_type").(string) // becomes the group's type through its first member
	g.generationID = st.Get("generation").(int32)
	g.protocol = optString(st.Get("protocol"))
	g.leaderID = optString(st.Get("leader"))
	members, _ := st.Get("members").([]any)
	if len(members) > 0 {
		g.state = Stable
	}
	for _, mv := range members {
		ms := mv.(*types.Struct)
		session := ms.Get("session_timeout").(int32)
		rebalance := session
		if version > 0 {
			rebalance = ms.Get("rebalance_timeout").(int32)
		}
		m := NewMemberMetadata(ms.Get("member_id").(string), groupID, ms.Get("client_id").(string),
			ms.Get("client_host").(string), rebalance, session, pt,
			[]Protocol{{Name: g.protocol, Metadata: ms.Get("subscription").([]byte)}})
		m.Assignment = ms.Get("assignment").([]byte)
		g.Add(m)
	}
	return g, nil
}

// FormatOffsetsMessage renders a __consumer_offsets message as DumpLogSegments'
// --offsets-decoder prints it: "offset::group:topic:partition" → "offset[:metadata]", and
// "metadata::group" → "protocolType:protocol:generation:{member=assignment,...}" (consumer
// assignments as Java's List<TopicPartition>.toString, others as upper-case hex). A null value
// prints nothing (ok=false).
//
// Kafka 0.10.2: kafka.tools.DumpLogSegments.OffsetsMessageParser.
func FormatOffsetsMessage(key, value []byte) (k, v string, ok bool, err error) {
	if value == nil {
		return "", "", false, nil
	}
	if key == nil {
		return "", "", false, errors.New("failed to decode message using offset topic decoder (message had a missing key)")
	}
	bk, err := ReadMessageKey(key)
	if err != nil {
		return "", "", false, err
	}
	switch bk := bk.(type) {
	case OffsetKey:
		o, err := ReadOffsetMessageValue(value)
		if err != nil {
			return "", "", false, err
		}
		k = fmt.Sprintf("offset::%s:%s:%d", bk.Group, bk.TopicPartition.Topic, bk.TopicPartition.Partition)
		v = itoa(o.Offset)
		if o.Metadata != "" {
			v += ":" + o.Metadata
		}
		return k, v, true, nil
	case GroupMetadataKeyData:
		g, err := ReadGroupMessageValue(bk.Group, value)
		if err != nil {
			return "", "", false, err
		}
		pt := g.ProtocolType()
		parts := make([]string, 0, len(g.memberOrder))
		for _, m := range g.AllMemberMetadata() {
			if pt == protocol.ConsumerProtocolType {
				var a protocol.ConsumerProtocolAssignment
				if err := a.ReadFrom(m.Assignment); err != nil {
					return "", "", false, err
				}
				tps := make([]string, len(a.Partitions))
				for i, tp := range a.Partitions {
					tps[i] = fmt.Sprintf("%s-%d", tp.Topic, tp.Partition)
				}
				s := m.MemberID + "=[" + strings.Join(tps, ", ") + "]"
				if ud := javaHex(a.UserData); ud != "" {
					s += ":" + ud
				}
				parts = append(parts, s)
			} else {
				parts = append(parts, m.MemberID+"="+javaHex(m.Assignment))
			}
		}
		p := g.protocol
		if p == "" {
			p = "null"
		}
		return "metadata::" + bk.Group, fmt.Sprintf("%s:%s:%d:{%s}", pt, p, g.generationID, strings.Join(parts, ",")), true, nil
	}
	return "", "", false, errors.New("failed to decode message using offset topic decoder (message had an invalid key)")
}

// javaHex is Scala's "%X".format(BigInt(1, bytes)): upper-case hex without leading zeros.
func javaHex(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return strings.ToUpper(new(big.Int).SetBytes(b).Text(16))
}
