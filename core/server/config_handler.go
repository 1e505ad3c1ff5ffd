package server

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"

	kmetrics "github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/server/config"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ConfigHandler applies the full set of overrides of one entity (a topic, a client id, a user,
// a broker), as just read from /config/<type>/<name>, to the running broker.
//
// Kafka 0.10.2: kafka.server.ConfigHandler.
type ConfigHandler interface {
	ProcessConfigChanges(entityName string, overrides map[string]string) error
}

// The dynamic config keys of clients, users and brokers (0.10.2's DynamicConfig.Client and
// DynamicConfig.Broker).
const (
	ProducerByteRateOverrideProp         = "producer_byte_rate"
	ConsumerByteRateOverrideProp         = "consumer_byte_rate"
	LeaderReplicationThrottledRateProp   = "leader.replication.throttled.rate"
	FollowerReplicationThrottledRateProp = "follower.replication.throttled.rate"
	// DefaultReplicationThrottledRate is "no throttle" (Long.MaxValue in 0.10.2).
	DefaultReplicationThrottledRate = int64(math.MaxInt64)
)

// AllReplicas is the throttled-replica list "*": every partition of the topic (0.10.2 marks it
// with the partition id -1).
//
// Kafka 0.10.2: kafka.server.Constants.AllReplicas.
var AllReplicas = []int32{-1}

// TopicConfigHandler rebuilds the LogConfig of every local log of a topic from the broker's
// defaults plus the topic's overrides, and tells the leader and follower replication quota
// managers which of its partitions are throttled on this broker.
//
// Kafka 0.10.2: kafka.server.TopicConfigHandler. As there, a message.format.version above the
// inter-broker protocol version is ignored with a warning rather than applied.
type TopicConfigHandler struct {
	logManager    *log.LogManager
	defaultConfig *log.LogConfig
	config        *config.KafkaConfig
	quotas        *QuotaManagers
	logger        *logrus.Entry
}

// NewTopicConfigHandler handles /config/topics changes for the logs of logManager;
// defaultConfig is the broker-wide LogConfig the overrides are laid over.
func NewTopicConfigHandler(logManager *log.LogManager, defaultConfig *log.LogConfig, cfg *config.KafkaConfig,
	quotas *QuotaManagers, logger *logrus.Entry) *TopicConfigHandler {
	return &TopicConfigHandler{logManager: logManager, defaultConfig: defaultConfig, config: cfg, quotas: quotas,
		logger: logger.WithField("logger", "kafka.server.TopicConfigHandler")}
}

// ProcessConfigChanges implements ConfigHandler.
func (h *TopicConfigHandler) ProcessConfigChanges(topic string, overrides map[string]string) error {
	exclude := ""
	if v, ok := overrides[log.MessageFormatVersionProp]; ok {
		want, err := config.ParseApiVersion(v)
		if err != nil || !h.config.InterBrokerProtocolVersion.AtLeast(want) {
			h.logger.Warnf("Log configuration %s is ignored for `%s` because `%s` is not compatible with Kafka inter-broker protocol version `%s`",
				log.MessageFormatVersionProp, topic, v, h.config.InterBrokerProtocolVersion)
			exclude = log.MessageFormatVersionProp
		}
	}
	var logs []*log.Log
	for tp, l := range h.logManager.LogsByTopicPartition() {
		if tp.Topic == topic {
			logs = append(logs, l)
		}
	}
	if len(logs) > 0 {
		props := map[string]string{}
		for k, v := range overrides {
			if k != exclude {
				props[k] = v
			}
		}
		lc, err := log.FromProps(h.defaultConfig.Originals, props)
		if err != nil {
			return fmt.Errorf("config of topic %s: %w", topic, err)
		}
		for _, l := range logs {
			l.SetConfig(lc)
		}
	}
	for _, side := range []struct {
		prop  string
		quota *ReplicationQuotaManager
	}{{log.LeaderReplicationThrottledReplicasProp, h.quotas.Leader}, {log.FollowerReplicationThrottledReplicasProp, h.quotas.Follower}} {
		v := strings.TrimSpace(overrides[side.prop])
		if v == "" {
			side.quota.RemoveThrottle(topic)
			h.logger.Debugf("Removing %s from broker %d for topic %s", side.prop, h.config.BrokerID, topic)
			continue
		}
		parts, err := ParseThrottledPartitions(v, h.config.BrokerID)
		if err != nil {
			return fmt.Errorf("%s of topic %s: %w", side.prop, topic, err)
		}
		side.quota.MarkThrottled(topic, parts)
		h.logger.Debugf("Setting %s on broker %d for topic: %s and partitions %v", side.prop, h.config.BrokerID, topic, parts)
	}
	return nil
}

var throttledReplicaRE = regexp.MustCompile(`^([0-9]+:[0-9]+)?$`)

// ParseThrottledPartitions reads a throttled-replicas value ("0:1,1:2" as partition:broker
// pairs, or "*") and returns the partitions whose entry names brokerID, sorted (AllReplicas for
// "*").
//
// Kafka 0.10.2: TopicConfigHandler.parseThrottledPartitions with
// ThrottledReplicaListValidator's format check.
func ParseThrottledPartitions(value string, brokerID int32) ([]int32, error) {
	value = strings.TrimSpace(value)
	if value == "*" {
		return AllReplicas, nil
	}
	out := []int32{}
	for _, e := range strings.Split(value, ",") {
		e = strings.TrimSpace(e)
		if !throttledReplicaRE.MatchString(e) {
			return nil, fmt.Errorf("must match for format [partitionId],[brokerId]:[partitionId],[brokerId]:[partitionId],[brokerId] etc: %q", value)
		}
		if e == "" {
			continue
		}
		pb := strings.SplitN(e, ":", 2)
		p, err1 := strconv.ParseInt(pb[0], 10, 32)
		b, err2 := strconv.ParseInt(pb[1], 10, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("throttled replica %q out of range", e)
		}
		if int32(b) == brokerID {
			out = append(out, int32(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// parseQuota reads a byte-rate override: absent is nil.
func parseQuota(overrides map[string]string, prop string) (*kmetrics.Quota, error) {
	v, ok := overrides[prop]
	if !ok {
		return nil, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s=%q is not a number", prop, v)
	}
	q := kmetrics.UpperBound(float64(n))
	return &q, nil
}

// updateQuotaConfig hands an entity's producer_byte_rate and consumer_byte_rate (or their
// absence) to the produce and fetch quota managers. A nil half of the entity is not part of it.
//
// Kafka 0.10.2: kafka.server.QuotaConfigHandler.updateQuotaConfig.
func updateQuotaConfig(quotas *QuotaManagers, sanitizedUser, clientID *string, overrides map[string]string) error {
	producer, err := parseQuota(overrides, ProducerByteRateOverrideProp)
	if err != nil {
		return err
	}
	consumer, err := parseQuota(overrides, ConsumerByteRateOverrideProp)
	if err != nil {
		return err
	}
	quotas.Produce.UpdateQuota(sanitizedUser, clientID, producer)
	quotas.Fetch.UpdateQuota(sanitizedUser, clientID, consumer)
	return nil
}

// ClientIdConfigHandler applies a client id's byte-rate overrides (or the client-id default's,
// entity "<default>").
//
// Kafka 0.10.2: kafka.server.ClientIdConfigHandler.
type ClientIdConfigHandler struct{ quotas *QuotaManagers }

// ProcessConfigChanges implements ConfigHandler.
func (h *ClientIdConfigHandler) ProcessConfigChanges(clientID string, overrides map[string]string) error {
	return updateQuotaConfig(h.quotas, nil, &clientID, overrides)
}

// UserConfigHandler applies the byte-rate overrides of a user or of a (user, client id) pair;
// the entity path is "<sanitized user>" or "<sanitized user>/clients/<client id>", either part
// possibly "<default>". A user's own entity (no client id) also carries its SCRAM credentials,
// which go to the SASL listeners' credential cache (nil: no SASL listener).
//
// Kafka 0.10.2: kafka.server.UserConfigHandler (with CredentialProvider.updateCredentials).
type UserConfigHandler struct {
	quotas      *QuotaManagers
	credentials *security.CredentialCache
}

// ProcessConfigChanges implements ConfigHandler.
func (h *UserConfigHandler) ProcessConfigChanges(entityPath string, overrides map[string]string) error {
	parts := strings.Split(entityPath, "/")
	if len(parts) != 1 && len(parts) != 3 {
		return fmt.Errorf("Invalid quota entity path: %s", entityPath)
	}
	var clientID *string
	if len(parts) == 3 {
		clientID = &parts[2]
	}
	if len(parts) == 1 && h.credentials != nil && parts[0] != zkutils.ConfigEntityNameDefault {
		user, err := DesanitizeQuotaUser(parts[0])
		if err != nil {
			return err
		}
		if err := h.credentials.UpdateCredentials(user, overrides); err != nil {
			return err
		}
	}
	return updateQuotaConfig(h.quotas, &parts[0], clientID, overrides)
}

// BrokerConfigHandler applies this broker's leader and follower replication throttle rates
// (unlimited when absent); changes of other brokers are ignored.
//
// Kafka 0.10.2: kafka.server.BrokerConfigHandler.
type BrokerConfigHandler struct {
	brokerID int32
	quotas   *QuotaManagers
}

// ProcessConfigChanges implements ConfigHandler.
func (h *BrokerConfigHandler) ProcessConfigChanges(brokerID string, overrides map[string]string) error {
	id, err := strconv.ParseInt(strings.TrimSpace(brokerID), 10, 32)
	if err != nil {
		return fmt.Errorf("broker config entity %q is not a broker id", brokerID)
	}
	if int32(id) != h.brokerID {
		return nil
	}
	rate := func(prop string) (int64, error) {
		v, ok := overrides[prop]
		if !ok {
			return DefaultReplicationThrottledRate, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s=%q is not a number", prop, v)
		}
		return n, nil
	}
	l, err := rate(LeaderReplicationThrottledRateProp)
	if err != nil {
		return err
	}
	f, err := rate(FollowerReplicationThrottledRateProp)
	if err != nil {
		return err
	}
	h.quotas.Leader.UpdateQuota(kmetrics.UpperBound(float64(l)))
	h.quotas.Follower.UpdateQuota(kmetrics.UpperBound(float64(f)))
	return nil
}

// NewConfigHandlers is the handler table KafkaServer.startup builds: one per ConfigType.
func NewConfigHandlers(logManager *log.LogManager, defaultConfig *log.LogConfig, cfg *config.KafkaConfig,
	quotas *QuotaManagers, credentials *security.CredentialCache, logger *logrus.Entry) map[string]ConfigHandler {
	return map[string]ConfigHandler{
		zkutils.ConfigTypeTopic:  NewTopicConfigHandler(logManager, defaultConfig, cfg, quotas, logger),
		zkutils.ConfigTypeClient: &ClientIdConfigHandler{quotas: quotas},
		zkutils.ConfigTypeUser:   &UserConfigHandler{quotas: quotas, credentials: credentials},
		zkutils.ConfigTypeBroker: &BrokerConfigHandler{brokerID: cfg.BrokerID, quotas: quotas},
	}
}
