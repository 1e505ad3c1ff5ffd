package zkutils

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
)

// This file holds the JSON (and plain-text) codecs of every znode Kafka 0.10.2
// writes, other than the broker registration (broker_info.go) and the partition
// state (leader_and_isr.go). Encoders reproduce Kafka's bytes; decoders accept
// any member order.

// ---- /controller ----

// ControllerZkData is the JSON of /controller:
// {"version":1,"brokerid":1,"timestamp":"1490000000000"}.
//
// Kafka 0.10.2: ZookeeperLeaderElector.elect.
func ControllerZkData(brokerID int32, timestampMs int64) []byte {
	o := &jsonObject{}
	o.put("version", 1)
	o.put("brokerid", brokerID)
	o.put("timestamp", strconv.FormatInt(timestampMs, 10))
	return []byte(encodeJSON(o))
}

// ParseControllerId reads the broker id from /controller, falling back to the
// pre-0.8.2 form (a bare integer) when the data is not JSON.
//
// Kafka 0.10.2: KafkaController.parseControllerId.
func ParseControllerId(data []byte) (int32, error) {
	var j struct {
		BrokerID *int32 `json:"brokerid"`
	}
	if err := json.Unmarshal(data, &j); err == nil && j.BrokerID != nil {
		return *j.BrokerID, nil
	}
	id, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("failed to parse the controller info: %q; this is neither the new nor the old format", data)
	}
	return int32(id), nil
}

// ---- /controller_epoch ----

// ControllerEpochZkData is the bare decimal epoch, e.g. "5".
func ControllerEpochZkData(epoch int32) []byte { return []byte(strconv.FormatInt(int64(epoch), 10)) }

// ParseControllerEpoch reads /controller_epoch.
func ParseControllerEpoch(data []byte) (int32, error) {
	v, err := strconv.ParseInt(string(data), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid controller epoch %q: %w", data, err)
	}
	return int32(v), nil
}

// ---- /brokers/topics/<topic> ----

// ReplicaAssignmentZkData is the JSON of /brokers/topics/<t>, e.g.
// {"version":1,"partitions":{"2":[2,0],"1":[1,2],"0":[0,1]}}. The partition order
// is the one AdminUtils' hash maps give (see partitionKeysInKafkaOrder).
//
// Kafka 0.10.2: ZkUtils.replicaAssignmentZkData via AdminUtils.writeTopicPartitionAssignment.
func ReplicaAssignmentZkData(assignment map[int32][]int32) []byte {
	ids := make([]int32, 0, len(assignment))
	for p := range assignment {
		ids = append(ids, p)
	}
	parts := &jsonObject{}
	for _, k := range partitionKeysInKafkaOrder(ids) {
		p, _ := strconv.ParseInt(k, 10, 32)
		parts.put(k, isrOrEmpty(assignment[int32(p)]))
	}
	o := &jsonObject{}
	o.put("version", 1)
	o.put("partitions", parts)
	return []byte(encodeJSON(o))
}

// ParseReplicaAssignment reads /brokers/topics/<t>: partition → replicas (first
// entry is the preferred leader). A missing "partitions" member gives an empty map.
func ParseReplicaAssignment(data []byte) (map[int32][]int32, error) {
	var j struct {
		Partitions map[string][]int32 `json:"partitions"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("invalid replica assignment json %q: %w", data, err)
	}
	out := make(map[int32][]int32, len(j.Partitions))
	for k, v := range j.Partitions {
		p, err := strconv.ParseInt(k, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("invalid partition id %q in replica assignment", k)
		}
		out[int32(p)] = v
	}
	return out, nil
}

// ---- /admin/reassign_partitions ----

// PartitionReplicas is one entry of a reassignment: the target replicas of a
// partition.
type PartitionReplicas struct {
	TopicPartition common.TopicPartition
	Replicas       []int32
}

// FormatAsReassignmentJson writes /admin/reassign_partitions, entries in the
// given order, e.g.
// {"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[5,6]}]}.
//
// Kafka 0.10.2: ZkUtils.formatAsReassignmentJson.
func FormatAsReassignmentJson(partitions []PartitionReplicas) []byte {
	list := make([]any, len(partitions))
	for i, p := range partitions {
		e := &jsonObject{}
		e.put("topic", p.TopicPartition.Topic)
		e.put("partition", p.TopicPartition.Partition)
		e.put("replicas", isrOrEmpty(p.Replicas))
		list[i] = e
	}
	o := &jsonObject{}
	o.put("version", 1)
	o.put("partitions", list)
	return []byte(encodeJSON(o))
}

type topicPartitionJSON struct {
	Topic     *string `json:"topic"`
	Partition *int32  `json:"partition"`
	Replicas  []int32 `json:"replicas"`
}

// ParsePartitionReassignmentDataWithoutDedup keeps duplicates, in file order, so
// a tool can reject them. Missing "partitions" gives an empty list.
//
// Kafka 0.10.2: ZkUtils.parsePartitionReassignmentDataWithoutDedup.
func ParsePartitionReassignmentDataWithoutDedup(data []byte) ([]PartitionReplicas, error) {
	var j struct {
		Partitions []topicPartitionJSON `json:"partitions"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("invalid partition reassignment json %q: %w", data, err)
	}
	out := make([]PartitionReplicas, 0, len(j.Partitions))
	for _, p := range j.Partitions {
		if p.Topic == nil || p.Partition == nil || p.Replicas == nil {
			return nil, fmt.Errorf("invalid partition reassignment json %q: entry without topic, partition or replicas", data)
		}
		out = append(out, PartitionReplicas{common.TopicPartition{Topic: *p.Topic, Partition: *p.Partition}, p.Replicas})
	}
	return out, nil
}

// ParsePartitionReassignmentData collapses duplicates (the last one wins).
func ParsePartitionReassignmentData(data []byte) (map[common.TopicPartition][]int32, error) {
	list, err := ParsePartitionReassignmentDataWithoutDedup(data)
	if err != nil {
		return nil, err
	}
	out := make(map[common.TopicPartition][]int32, len(list))
	for _, p := range list {
		out[p.TopicPartition] = p.Replicas
	}
	return out, nil
}

// ---- partition lists: preferred election, ISR change notifications ----

// topicPartitionListJSON writes {"version":1,"partitions":[{"topic":..,"partition":..},..]}.
func topicPartitionListJSON(partitions []common.TopicPartition) []byte {
	list := make([]any, len(partitions))
	for i, tp := range partitions {
		e := &jsonObject{}
		e.put("topic", tp.Topic)
		e.put("partition", tp.Partition)
		list[i] = e
	}
	o := &jsonObject{}
	o.put("version", 1)
	o.put("partitions", list)
	return []byte(encodeJSON(o))
}

func parseTopicPartitionList(data []byte) ([]common.TopicPartition, bool, error) {
	var j struct {
		Partitions []topicPartitionJSON `json:"partitions"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, false, err
	}
	if j.Partitions == nil {
		return nil, false, nil
	}
	out := make([]common.TopicPartition, 0, len(j.Partitions))
	for _, p := range j.Partitions {
		if p.Topic == nil || p.Partition == nil {
			return nil, true, errors.New("entry without topic or partition")
		}
		out = append(out, common.TopicPartition{Topic: *p.Topic, Partition: *p.Partition})
	}
	return out, true, nil
}

// PreferredReplicaElectionZkData writes /admin/preferred_replica_election, in
// the given order.
//
// Kafka 0.10.2: PreferredReplicaLeaderElectionCommand.writePreferredReplicaElectionData.
func PreferredReplicaElectionZkData(partitions []common.TopicPartition) []byte {
	return topicPartitionListJSON(partitions)
}

// ErrPreferredReplicaElectionDataEmpty is AdminOperationException("Preferred
// replica election data is empty").
var ErrPreferredReplicaElectionDataEmpty = errors.New("preferred replica election data is empty")

// ParsePreferredReplicaElectionData reads /admin/preferred_replica_election.
// Non-JSON data or a missing list is ErrPreferredReplicaElectionDataEmpty;
// duplicates are an error.
//
// Kafka 0.10.2: PreferredReplicaLeaderElectionCommand.parsePreferredReplicaElectionData.
func ParsePreferredReplicaElectionData(data []byte) (map[common.TopicPartition]struct{}, error) {
	list, ok, err := parseTopicPartitionList(data)
	if err != nil && !ok {
		return nil, ErrPreferredReplicaElectionDataEmpty
	}
	if err != nil {
		return nil, fmt.Errorf("invalid preferred replica election data: %w", err)
	}
	if !ok {
		return nil, ErrPreferredReplicaElectionDataEmpty
	}
	out := make(map[common.TopicPartition]struct{}, len(list))
	var dups []string
	for _, tp := range list {
		if _, seen := out[tp]; seen {
			dups = append(dups, "["+tp.Topic+","+strconv.FormatInt(int64(tp.Partition), 10)+"]")
		}
		out[tp] = struct{}{}
	}
	if len(dups) > 0 {
		return nil, fmt.Errorf("preferred replica election data contains duplicate partitions: %s", strings.Join(dups, ","))
	}
	return out, nil
}

// IsrChangeNotificationVersion is IsrChangeNotificationListener.version.
const IsrChangeNotificationVersion = 1

// IsrChangeNotificationZkData writes an isr_change_<seq> node, in the given order.
//
// Kafka 0.10.2: ReplicationUtils.generateIsrChangeJson.
func IsrChangeNotificationZkData(partitions []common.TopicPartition) []byte {
	return topicPartitionListJSON(partitions)
}

// ParseIsrChangeNotification reads an isr_change_<seq> node (version 1 only).
func ParseIsrChangeNotification(data []byte) ([]common.TopicPartition, error) {
	var v struct {
		Version *int32 `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil || v.Version == nil || *v.Version != IsrChangeNotificationVersion {
		return nil, fmt.Errorf("invalid topic and partition JSON: %s", data)
	}
	list, ok, err := parseTopicPartitionList(data)
	if err != nil || !ok {
		return nil, fmt.Errorf("invalid topic and partition JSON: %s", data)
	}
	return list, nil
}

// ---- /config/<type>/<name> and /config/changes ----

// EntityConfigZkData writes {"version":1,"config":{...}}. Kafka hands the encoder a
// java.util.Properties, so the keys come out in Hashtable order; keys are
// inserted in sorted order (only keys sharing a bucket depend on that).
//
// Kafka 0.10.2: AdminUtils.writeEntityConfig.
func EntityConfigZkData(config map[string]string) []byte {
	keys := make([]string, 0, len(config))
	for k := range config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cfg := &jsonObject{}
	for _, k := range javaHashtableOrder(keys) {
		cfg.put(k, config[k])
	}
	o := &jsonObject{}
	o.put("version", 1)
	o.put("config", cfg)
	return []byte(encodeJSON(o))
}

// ParseEntityConfig reads a config node: version must be 1 and every value a
// string. nil data (a null node) gives an empty config.
//
// Kafka 0.10.2: AdminUtils.fetchEntityConfig.
func ParseEntityConfig(data []byte) (map[string]string, error) {
	out := map[string]string{}
	if data == nil {
		return out, nil
	}
	var j struct {
		Version *int32                     `json:"version"`
		Config  map[string]json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("unexpected value in config: %s: %w", data, err)
	}
	if j.Version == nil || *j.Version != 1 {
		return nil, fmt.Errorf("unexpected config version in %s", data)
	}
	if j.Config == nil {
		return nil, fmt.Errorf("invalid config: %s", data)
	}
	for k, raw := range j.Config {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("invalid config: %s", data)
		}
		out[k] = s
	}
	return out, nil
}

// ConfigChangeNotification is a parsed config_change_<seq> node. Version 2 names
// the entity with EntityPath ("topics/foo", "users/alice/clients/c1"); version 1
// (0.9/0.10.0 tools) with EntityType and EntityName.
type ConfigChangeNotification struct {
	Version    int32
	EntityPath string
	EntityType string
	EntityName string
}

// ConfigChangeZkData writes a version 2 notification: {"version":2,"entity_path":"topics/foo"}.
//
// Kafka 0.10.2: AdminUtils.getConfigChangeZnodeData.
func ConfigChangeZkData(sanitizedEntityPath string) []byte {
	o := &jsonObject{}
	o.put("version", 2)
	o.put("entity_path", sanitizedEntityPath)
	return []byte(encodeJSON(o))
}

// ParseConfigChangeNotification reads a notification of version 1 or 2. For
// version 1 EntityPath is filled from type and name.
func ParseConfigChangeNotification(data []byte) (ConfigChangeNotification, error) {
	var j struct {
		Version    *int32  `json:"version"`
		EntityPath *string `json:"entity_path"`
		EntityType *string `json:"entity_type"`
		EntityName *string `json:"entity_name"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return ConfigChangeNotification{}, fmt.Errorf("config change notification is not JSON: %q: %w", data, err)
	}
	if j.Version == nil {
		return ConfigChangeNotification{}, fmt.Errorf("config change notification without version: %s", data)
	}
	switch *j.Version {
	case 1:
		if j.EntityType == nil || j.EntityName == nil {
			return ConfigChangeNotification{}, fmt.Errorf("version 1 config change notification without entity: %s", data)
		}
		if *j.EntityType != ConfigTypeTopic && *j.EntityType != ConfigTypeClient {
			return ConfigChangeNotification{}, fmt.Errorf("version 1 config change notification must have entity_type %s or %s: %s", ConfigTypeTopic, ConfigTypeClient, data)
		}
		return ConfigChangeNotification{Version: 1, EntityType: *j.EntityType, EntityName: *j.EntityName,
			EntityPath: *j.EntityType + "/" + *j.EntityName}, nil
	case 2:
		if j.EntityPath == nil {
			return ConfigChangeNotification{}, fmt.Errorf("version 2 config change notification without entity_path: %s", data)
		}
		n := ConfigChangeNotification{Version: 2, EntityPath: *j.EntityPath}
		if i := strings.IndexByte(n.EntityPath, '/'); i > 0 {
			n.EntityType, n.EntityName = n.EntityPath[:i], n.EntityPath[i+1:]
		}
		return n, nil
	}
	return ConfigChangeNotification{}, fmt.Errorf("config change notification has unsupported version %d: %s", *j.Version, data)
}

// ---- /cluster/id ----

// ClusterIdZkData writes {"version":"1","id":"<id>"} (the version is a string).
//
// Kafka 0.10.2: ZkUtils.ClusterId.toJson.
func ClusterIdZkData(id string) []byte {
	o := &jsonObject{}
	o.put("version", "1")
	o.put("id", id)
	return []byte(encodeJSON(o))
}

// ParseClusterId reads the id from /cluster/id (ZkUtils.ClusterId.fromJson).
func ParseClusterId(data []byte) (string, error) {
	var j struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(data, &j); err != nil || j.ID == nil {
		return "", fmt.Errorf("failed to parse the cluster id json %s", data)
	}
	return *j.ID, nil
}

// ---- /kafka-acl/<type>/<name> and /kafka-acl-changes ----

// AclEntry is one ACL of a resource as stored in ZooKeeper.
//
// Kafka 0.10.2: kafka.security.auth.Acl (its JSON form; core/security/auth owns
// the typed version).
type AclEntry struct {
	Principal      string // "User:alice"
	PermissionType string // Allow | Deny
	Operation      string // Read, Write, Create, Delete, Alter, Describe, ClusterAction, All
	Host           string // "*" for any
}

// AclZkData writes {"version":1,"acls":[{"principal":..,"permissionType":..,"operation":..,"host":..}]},
// in the given order (Kafka's is its Set's iteration order).
//
// Kafka 0.10.2: Acl.toJsonCompatibleMap.
func AclZkData(acls []AclEntry) []byte {
	list := make([]any, len(acls))
	for i, a := range acls {
		e := &jsonObject{}
		e.put("principal", a.Principal)
		e.put("permissionType", a.PermissionType)
		e.put("operation", a.Operation)
		e.put("host", a.Host)
		list[i] = e
	}
	o := &jsonObject{}
	o.put("version", 1)
	o.put("acls", list)
	return []byte(encodeJSON(o))
}

// ParseAcls reads an ACL node (version must be 1). Empty or null data gives no ACLs.
//
// Kafka 0.10.2: Acl.fromJson.
func ParseAcls(data []byte) ([]AclEntry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var j struct {
		Version *int32 `json:"version"`
		Acls    []struct {
			Principal      *string `json:"principal"`
			PermissionType *string `json:"permissionType"`
			Operation      *string `json:"operation"`
			Host           *string `json:"host"`
		} `json:"acls"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("invalid acl json %q: %w", data, err)
	}
	if j.Version == nil || *j.Version != 1 {
		return nil, fmt.Errorf("invalid acl json version in %s", data)
	}
	out := make([]AclEntry, 0, len(j.Acls))
	for _, a := range j.Acls {
		if a.Principal == nil || a.PermissionType == nil || a.Operation == nil || a.Host == nil {
			return nil, fmt.Errorf("invalid acl entry in %s", data)
		}
		out = append(out, AclEntry{*a.Principal, *a.PermissionType, *a.Operation, *a.Host})
	}
	return out, nil
}

// AclChangeZkData is the plain-text content of an acl_changes_<seq> node:
// "<ResourceType>:<name>".
func AclChangeZkData(resourceType, name string) []byte { return []byte(resourceType + ":" + name) }

// ParseAclChange splits an acl change notification on its first ':'.
func ParseAclChange(data []byte) (resourceType, name string, err error) {
	s := string(data)
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", "", fmt.Errorf("expected a string in format ResourceType:ResourceName but got %q", s)
	}
	return s[:i], s[i+1:], nil
}
