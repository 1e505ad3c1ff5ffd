package main

import (
	"fmt"
	"sort"

	"github.com/zkafka/zkafka/clients/protocol/types"
)

// api names one API key: Kafka's ApiKeys constant (for the file name), the class names of its
// request and response in common.requests (for the Go type names), and the role names of its
// nested structs.
type api struct {
	key      int
	enum     string // ApiKeys enum constant, e.g. LIST_OFFSETS
	request  string
	response string
	roles    roles
}

// roles is the override column: the role of each nested struct, keyed by its path of Go field
// names from the message ("ProduceRequest.TopicData.Data"). The struct's Go name is its parent
// struct's name plus the role, so the partitions of a produce request's topics are
// ProduceRequestTopicPartition, as in franz-go's kmsg, rather than a name made of the wire field
// names (ProduceRequestTopicPartition). A nested struct without a row is named by the default rule (the
// message name plus the field name); a row that names no nested struct is an error.
type roles map[string]string

// apis is the order of ApiKeys in 0.10.2.
var apis = []api{
	{0, "PRODUCE", "ProduceRequest", "ProduceResponse", roles{
		"ProduceRequest.TopicData": "Topic", "ProduceRequest.TopicData.Data": "Partition",
		"ProduceResponse.Responses": "Topic", "ProduceResponse.Responses.PartitionResponses": "Partition"}},
	{1, "FETCH", "FetchRequest", "FetchResponse", roles{
		"FetchRequest.Topics": "Topic", "FetchRequest.Topics.Partitions": "Partition",
		"FetchResponse.Responses": "Topic", "FetchResponse.Responses.PartitionResponses": "Partition",
		"FetchResponse.Responses.PartitionResponses.PartitionHeader": "Header"}},
	{2, "LIST_OFFSETS", "ListOffsetRequest", "ListOffsetResponse", roles{
		"ListOffsetRequest.Topics": "Topic", "ListOffsetRequest.Topics.Partitions": "Partition",
		"ListOffsetResponse.Responses": "Topic", "ListOffsetResponse.Responses.PartitionResponses": "Partition"}},
	{3, "METADATA", "MetadataRequest", "MetadataResponse", roles{
		"MetadataResponse.Brokers": "Broker", "MetadataResponse.TopicMetadata": "Topic",
		"MetadataResponse.TopicMetadata.PartitionMetadata": "Partition"}},
	{4, "LEADER_AND_ISR", "LeaderAndIsrRequest", "LeaderAndIsrResponse", roles{
		"LeaderAndIsrRequest.PartitionStates": "PartitionState", "LeaderAndIsrRequest.LiveLeaders": "LiveLeader",
		"LeaderAndIsrResponse.Partitions": "Partition"}},
	{5, "STOP_REPLICA", "StopReplicaRequest", "StopReplicaResponse", roles{
		"StopReplicaRequest.Partitions": "Partition", "StopReplicaResponse.Partitions": "Partition"}},
	{6, "UPDATE_METADATA", "UpdateMetadataRequest", "UpdateMetadataResponse", roles{
		"UpdateMetadataRequest.PartitionStates": "PartitionState", "UpdateMetadataRequest.LiveBrokers": "LiveBroker",
		"UpdateMetadataRequest.LiveBrokers.EndPoints": "EndPoint"}},
	{7, "CONTROLLED_SHUTDOWN", "ControlledShutdownRequest", "ControlledShutdownResponse", roles{
		"ControlledShutdownResponse.PartitionsRemaining": "Partition"}},
	{8, "OFFSET_COMMIT", "OffsetCommitRequest", "OffsetCommitResponse", roles{
		"OffsetCommitRequest.Topics": "Topic", "OffsetCommitRequest.Topics.Partitions": "Partition",
		"OffsetCommitResponse.Responses": "Topic", "OffsetCommitResponse.Responses.PartitionResponses": "Partition"}},
	{9, "OFFSET_FETCH", "OffsetFetchRequest", "OffsetFetchResponse", roles{
		"OffsetFetchRequest.Topics": "Topic", "OffsetFetchRequest.Topics.Partitions": "Partition",
		"OffsetFetchResponse.Responses": "Topic", "OffsetFetchResponse.Responses.PartitionResponses": "Partition"}},
	{10, "GROUP_COORDINATOR", "GroupCoordinatorRequest", "GroupCoordinatorResponse", roles{
		"GroupCoordinatorResponse.Coordinator": "Coordinator"}},
	{11, "JOIN_GROUP", "JoinGroupRequest", "JoinGroupResponse", roles{
		"JoinGroupRequest.GroupProtocols": "Protocol", "JoinGroupResponse.Members": "Member"}},
	{12, "HEARTBEAT", "HeartbeatRequest", "HeartbeatResponse", nil},
	{13, "LEAVE_GROUP", "LeaveGroupRequest", "LeaveGroupResponse", nil},
	{14, "SYNC_GROUP", "SyncGroupRequest", "SyncGroupResponse", roles{
		"SyncGroupRequest.GroupAssignment": "GroupAssignment"}},
	{15, "DESCRIBE_GROUPS", "DescribeGroupsRequest", "DescribeGroupsResponse", roles{
		"DescribeGroupsResponse.Groups": "Group", "DescribeGroupsResponse.Groups.Members": "Member"}},
	{16, "LIST_GROUPS", "ListGroupsRequest", "ListGroupsResponse", roles{
		"ListGroupsResponse.Groups": "Group"}},
	{17, "SASL_HANDSHAKE", "SaslHandshakeRequest", "SaslHandshakeResponse", nil},
	{18, "API_VERSIONS", "ApiVersionsRequest", "ApiVersionsResponse", roles{
		"ApiVersionsResponse.ApiVersions": "ApiKey"}},
	{19, "CREATE_TOPICS", "CreateTopicsRequest", "CreateTopicsResponse", roles{
		"CreateTopicsRequest.CreateTopicRequests": "Topic", "CreateTopicsRequest.CreateTopicRequests.ReplicaAssignment": "ReplicaAssignment",
		"CreateTopicsRequest.CreateTopicRequests.Configs": "Config", "CreateTopicsResponse.TopicErrors": "Topic"}},
	{20, "DELETE_TOPICS", "DeleteTopicsRequest", "DeleteTopicsResponse", roles{
		"DeleteTopicsResponse.TopicErrorCodes": "Topic"}},
}

// interBrokerAPIs are the zkafka broker-to-broker extensions (schema.InterBrokerRequests): their
// codecs are generated like the others, but they stay out of the 0.10.2 registry, so
// ParseRequest and ApiVersions never know them.
var interBrokerAPIs = []api{
	{23, "OFFSET_FOR_LEADER_EPOCH", "OffsetsForLeaderEpochRequest", "OffsetsForLeaderEpochResponse", roles{
		"OffsetsForLeaderEpochRequest.Topics": "Topic", "OffsetsForLeaderEpochRequest.Topics.Partitions": "Partition",
		"OffsetsForLeaderEpochResponse.Topics": "Topic", "OffsetsForLeaderEpochResponse.Topics.Partitions": "Partition"}},
}

// structModel is one generated Go struct: the union of the fields a schema path has over all
// versions, and the distinct wire layouts of those versions.
type structModel struct {
	name    string
	owner   string // "ProduceRequest.TopicData" for nested types, "" for messages
	fields  []*fieldModel
	byWire  map[string]*fieldModel
	layouts []*layout
}

// fieldModel is one Go field.
type fieldModel struct {
	wire     string
	goName   string
	goType   string
	versions []int16
	child    *structModel // element struct (array of schema) or struct (schema field)
}

// layout is a set of versions sharing one field sequence.
type layout struct {
	versions []int16
	sig      string
	fields   []layoutField
}

type layoutField struct {
	f *fieldModel
	t types.Type
}

// builder assigns nested type names within one message and rejects collisions.
type builder struct {
	message string
	names   map[string]bool
	roles   roles           // the api's override column
	used    map[string]bool // the rows of roles that named a struct
}

// build merges the per-version schemas of one path (Go field names from the message, e.g.
// "ProduceRequest.TopicData") into a structModel.
func (b *builder) build(name, owner, path string, byVersion map[int16]*types.Schema) (*structModel, error) {
	if b.names[name] {
		return nil, fmt.Errorf("type name %s used twice in %s", name, b.message)
	}
	b.names[name] = true
	m := &structModel{name: name, owner: owner, byWire: map[string]*fieldModel{}}
	versions := make([]int16, 0, len(byVersion))
	for v := range byVersion {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })

	childSchemas := map[*fieldModel]map[int16]*types.Schema{}
	for _, v := range versions {
		s := byVersion[v]
		sig := s.String()
		var lay *layout
		for _, l := range m.layouts {
			if l.sig == sig {
				lay = l
			}
		}
		if lay == nil {
			lay = &layout{sig: sig}
			m.layouts = append(m.layouts, lay)
		}
		lay.versions = append(lay.versions, v)
		fill := len(lay.fields) == 0
		var prev *fieldModel
		for _, f := range s.Fields() {
			fm := m.byWire[f.Name]
			goType, childSchema, err := goTypeOf(f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, f.Name, err)
			}
			if fm == nil {
				fm = &fieldModel{wire: f.Name, goName: goName(f.Name), goType: goType}
				m.fields = insertAfter(m.fields, prev, fm)
				m.byWire[f.Name] = fm
			} else if fm.goType != goType {
				return nil, fmt.Errorf("%s.%s: Go type %s in one version, %s in another", name, f.Name, fm.goType, goType)
			}
			fm.versions = append(fm.versions, v)
			if childSchema != nil {
				if childSchemas[fm] == nil {
					childSchemas[fm] = map[int16]*types.Schema{}
				}
				childSchemas[fm][v] = childSchema
			}
			if fill {
				lay.fields = append(lay.fields, layoutField{f: fm, t: f.Type})
			}
			prev = fm
		}
	}
	for _, fm := range m.fields {
		cs := childSchemas[fm]
		if cs == nil {
			continue
		}
		childPath := path + "." + fm.goName
		childName := b.message + fm.goName
		if role, ok := b.roles[childPath]; ok {
			childName = name + role
			b.used[childPath] = true
		} else if b.names[childName] {
			childName = name + fm.goName
		}
		child, err := b.build(childName, name+"."+fm.goName, childPath, cs)
		if err != nil {
			return nil, err
		}
		fm.child = child
		if fm.goType == "[]" {
			fm.goType = "[]" + child.name
		} else {
			fm.goType = child.name
		}
	}
	return m, nil
}

// goTypeOf maps a wire type to its Go type. Struct types come back as "" (a field) or "[]" (an
// array) together with the schema; their name is assigned by build.
func goTypeOf(t types.Type) (string, *types.Schema, error) {
	switch x := t.(type) {
	case *types.Schema:
		return "", x, nil
	case *types.ArrayOf:
		switch e := x.Elem().(type) {
		case *types.Schema:
			return "[]", e, nil
		case *types.ArrayOf:
			return "", nil, fmt.Errorf("arrays of arrays are not in the 0.10.2 protocol")
		default:
			p, ok := primGo[e.String()]
			if !ok {
				return "", nil, fmt.Errorf("no Go type for %s", e)
			}
			return "[]" + p, nil, nil
		}
	}
	p, ok := primGo[t.String()]
	if !ok {
		return "", nil, fmt.Errorf("no Go type for %s", t)
	}
	return p, nil, nil
}

var primGo = map[string]string{
	"BOOLEAN":         "bool",
	"INT8":            "int8",
	"INT16":           "int16",
	"INT32":           "int32",
	"INT64":           "int64",
	"STRING":          "string",
	"NULLABLE_STRING": "*string",
	"BYTES":           "[]byte",
	"NULLABLE_BYTES":  "[]byte",
	"RECORDS":         "record.Records",
}

// primCodec names the encode and decode helpers of package protocol for each primitive.
var primCodec = map[string][2]string{
	"BOOLEAN":         {"appendBool", "bool"},
	"INT8":            {"appendInt8", "int8"},
	"INT16":           {"appendInt16", "int16"},
	"INT32":           {"appendInt32", "int32"},
	"INT64":           {"appendInt64", "int64"},
	"STRING":          {"appendString", "string"},
	"NULLABLE_STRING": {"appendNullableString", "nullableString"},
	"BYTES":           {"appendBytes", "bytes"},
	"NULLABLE_BYTES":  {"appendNullableBytes", "nullableBytes"},
	"RECORDS":         {"appendRecords", "records"},
}

// insertAfter places fm right after prev (at the front when prev is nil), so a field a later
// version adds sits in the struct where that version puts it on the wire.
func insertAfter(fields []*fieldModel, prev, fm *fieldModel) []*fieldModel {
	at := 0
	for i, f := range fields {
		if f == prev {
			at = i + 1
		}
	}
	fields = append(fields, nil)
	copy(fields[at+1:], fields[at:])
	fields[at] = fm
	return fields
}
