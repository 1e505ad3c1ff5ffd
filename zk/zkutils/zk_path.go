package zkutils

import (
	"net/url"
	"strconv"
	"strings"
)

// The znode paths of Kafka 0.10.2 (ZkUtils' companion object). Every path is
// relative to the chroot of zookeeper.connect.
const (
	AdminPath                 = "/admin"
	BrokersPath               = "/brokers"
	ClusterPath               = "/cluster"
	ConfigPath                = "/config"
	ControllerPath            = "/controller"
	ControllerEpochPath       = "/controller_epoch"
	IsrChangeNotificationPath = "/isr_change_notification"
	KafkaAclPath              = "/kafka-acl"
	KafkaAclChangesPath       = "/kafka-acl-changes"

	ConsumersPath                      = "/consumers"
	ClusterIdPath                      = ClusterPath + "/id"
	BrokerIdsPath                      = BrokersPath + "/ids"
	BrokerTopicsPath                   = BrokersPath + "/topics"
	ReassignPartitionsPath             = AdminPath + "/reassign_partitions"
	DeleteTopicsPath                   = AdminPath + "/delete_topics"
	PreferredReplicaLeaderElectionPath = AdminPath + "/preferred_replica_election"
	BrokerSequenceIdPath               = BrokersPath + "/seqid"
	ConfigChangesPath                  = ConfigPath + "/changes"
	ConfigUsersPath                    = ConfigPath + "/users"

	// EntityConfigChangeZnodePrefix names the sequential children of /config/changes
	// (AdminUtils.EntityConfigChangeZnodePrefix).
	EntityConfigChangeZnodePrefix = "config_change_"
	// IsrChangeNotificationPrefix names the sequential children of
	// /isr_change_notification (ReplicationUtils.IsrChangeNotificationPrefix).
	IsrChangeNotificationPrefix = "isr_change_"
	// AclChangedPrefix names the sequential children of /kafka-acl-changes
	// (SimpleAclAuthorizer.AclChangedPrefix).
	AclChangedPrefix = "acl_changes_"
)

// SecureZkRootPaths are the top-level znodes Kafka owns (ZkUtils.SecureZkRootPaths);
// /consumers is deliberately absent, it stays world-writable.
var SecureZkRootPaths = []string{AdminPath, BrokersPath, ClusterPath, ConfigPath, ControllerPath,
	ControllerEpochPath, IsrChangeNotificationPath, KafkaAclPath, KafkaAclChangesPath}

// SensitiveZkRootPaths are the paths not made world-readable under secure ACLs
// (0.10.2.1+).
var SensitiveZkRootPaths = []string{ConfigUsersPath}

// PersistentZkPaths are created (empty) by every broker at startup
// (ZkUtils.persistentZkPaths, created by setupCommonPaths).
var PersistentZkPaths = []string{ConsumersPath, BrokerIdsPath, BrokerTopicsPath, ConfigChangesPath,
	EntityConfigRootPath(ConfigTypeTopic), EntityConfigRootPath(ConfigTypeClient), DeleteTopicsPath,
	BrokerSequenceIdPath, IsrChangeNotificationPath}

// ConfigType values are the entity types under /config.
//
// Kafka 0.10.2: kafka.server.ConfigType.
const (
	ConfigTypeTopic  = "topics"
	ConfigTypeClient = "clients"
	ConfigTypeUser   = "users"
	ConfigTypeBroker = "brokers"
)

// ConfigTypeAll lists every entity type (ConfigType.all).
var ConfigTypeAll = []string{ConfigTypeTopic, ConfigTypeClient, ConfigTypeUser, ConfigTypeBroker}

// ConfigEntityNameDefault is the entity name of quota defaults
// (kafka.server.ConfigEntityName.Default).
const ConfigEntityNameDefault = "<default>"

// TopicPath is /brokers/topics/<topic> (getTopicPath).
func TopicPath(topic string) string { return BrokerTopicsPath + "/" + topic }

// TopicPartitionsPath is /brokers/topics/<topic>/partitions.
func TopicPartitionsPath(topic string) string { return TopicPath(topic) + "/partitions" }

// TopicPartitionPath is /brokers/topics/<topic>/partitions/<p>.
func TopicPartitionPath(topic string, partition int32) string {
	return TopicPartitionsPath(topic) + "/" + strconv.FormatInt(int64(partition), 10)
}

// TopicPartitionLeaderAndIsrPath is /brokers/topics/<topic>/partitions/<p>/state.
func TopicPartitionLeaderAndIsrPath(topic string, partition int32) string {
	return TopicPartitionPath(topic, partition) + "/state"
}

// BrokerIdPath is /brokers/ids/<id>.
func BrokerIdPath(brokerID int32) string {
	return BrokerIdsPath + "/" + strconv.FormatInt(int64(brokerID), 10)
}

// EntityConfigRootPath is /config/<entityType>.
func EntityConfigRootPath(entityType string) string { return ConfigPath + "/" + entityType }

// EntityConfigPath is /config/<entityType>/<entity>.
func EntityConfigPath(entityType, entity string) string {
	return EntityConfigRootPath(entityType) + "/" + entity
}

// EntityConfigPathOf is /config/<entityPath>, for an entity path such as
// "users/alice/clients/c1" taken from a change notification.
func EntityConfigPathOf(entityPath string) string { return ConfigPath + "/" + entityPath }

// DeleteTopicPath is /admin/delete_topics/<topic>.
func DeleteTopicPath(topic string) string { return DeleteTopicsPath + "/" + topic }

// KafkaAclResourcePath is /kafka-acl/<resourceType>/<name>.
func KafkaAclResourcePath(resourceType, name string) string {
	return KafkaAclPath + "/" + resourceType + "/" + name
}

// SensitivePath reports whether path lies under a SensitiveZkRootPaths entry.
func SensitivePath(path string) bool {
	for _, p := range SensitiveZkRootPaths {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// SanitizeQuotaID makes a user principal usable as a znode name: URL encoding,
// with '*' encoded as %2A and '+' (an encoded space) as %20.
//
// Kafka 0.10.2: kafka.server.QuotaId.sanitize.
func SanitizeQuotaID(user string) string {
	s := url.QueryEscape(user)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*':
			b.WriteString("%2A")
		case '+':
			b.WriteString("%20")
		case '~': // java.net.URLEncoder encodes it, Go's QueryEscape does not
			b.WriteString("%7E")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ZKGroupDirs are the znodes of one old-consumer group.
//
// Kafka 0.10.2: kafka.utils.ZKGroupDirs.
type ZKGroupDirs struct {
	Group string
}

// ConsumerDir is /consumers.
func (d ZKGroupDirs) ConsumerDir() string { return ConsumersPath }

// ConsumerGroupDir is /consumers/<group>.
func (d ZKGroupDirs) ConsumerGroupDir() string { return ConsumersPath + "/" + d.Group }

// ConsumerRegistryDir is /consumers/<group>/ids.
func (d ZKGroupDirs) ConsumerRegistryDir() string { return d.ConsumerGroupDir() + "/ids" }

// ConsumerGroupOffsetsDir is /consumers/<group>/offsets.
func (d ZKGroupDirs) ConsumerGroupOffsetsDir() string { return d.ConsumerGroupDir() + "/offsets" }

// ConsumerGroupOwnersDir is /consumers/<group>/owners.
func (d ZKGroupDirs) ConsumerGroupOwnersDir() string { return d.ConsumerGroupDir() + "/owners" }

// ZKGroupTopicDirs adds the per-topic znodes of a group.
//
// Kafka 0.10.2: kafka.utils.ZKGroupTopicDirs.
type ZKGroupTopicDirs struct {
	ZKGroupDirs
	Topic string
}

// NewZKGroupTopicDirs names the directories of group for topic.
func NewZKGroupTopicDirs(group, topic string) ZKGroupTopicDirs {
	return ZKGroupTopicDirs{ZKGroupDirs: ZKGroupDirs{Group: group}, Topic: topic}
}

// ConsumerOffsetDir is /consumers/<group>/offsets/<topic>.
func (d ZKGroupTopicDirs) ConsumerOffsetDir() string {
	return d.ConsumerGroupOffsetsDir() + "/" + d.Topic
}

// ConsumerOwnerDir is /consumers/<group>/owners/<topic>.
func (d ZKGroupTopicDirs) ConsumerOwnerDir() string {
	return d.ConsumerGroupOwnersDir() + "/" + d.Topic
}
