package server

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

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
var AllReplicas = []int32{-1}

// QuotaOverride is one entity's client quota override; a nil rate means "no override".
type QuotaOverride struct {
	ProducerByteRate *int64
	ConsumerByteRate *int64
}

// DynamicQuotas holds what the dynamic config handlers learned: client/user byte-rate overrides,
// this broker's replication throttle rates and, per topic, the partitions whose replication is
// throttled on this broker. It is what 0.10.2's QuotaManagers receive through
// updateQuota/markThrottled. zkafka does not enforce quotas or throttles yet
// (docs/deviations.md, "Not built yet"); this is the store their managers will read.
//
// Kafka 0.10.2: the state behind kafka.server.QuotaManagers (ClientQuotaManager.updateQuota,
// ReplicationQuotaManager.updateQuota/markThrottled/removeThrottle), without enforcement.
type DynamicQuotas struct {
	mu sync.RWMutex
	// clients is keyed by "<sanitized user>|<client id>"; either half may be empty.
	clients          map[string]QuotaOverride
	leaderRate       int64
	followerRate     int64
	leaderThrottled  map[string][]int32
	followerThrottle map[string][]int32
}

// NewDynamicQuotas is an empty store: no overrides and unlimited replication rates.
func NewDynamicQuotas() *DynamicQuotas {
	return &DynamicQuotas{clients: map[string]QuotaOverride{}, leaderRate: DefaultReplicationThrottledRate,
		followerRate: DefaultReplicationThrottledRate, leaderThrottled: map[string][]int32{}, followerThrottle: map[string][]int32{}}
}

func quotaKey(sanitizedUser, clientID string) string { return sanitizedUser + "|" + clientID }

func (q *DynamicQuotas) updateQuota(sanitizedUser, clientID string, o QuotaOverride) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if o.ProducerByteRate == nil && o.ConsumerByteRate == nil {
		delete(q.clients, quotaKey(sanitizedUser, clientID))
		return
	}
	q.clients[quotaKey(sanitizedUser, clientID)] = o
}

// ClientQuota is the override of (sanitized user, client id); "" stands for "not part of the
// entity" (a client-id-only or a user-only quota).
func (q *DynamicQuotas) ClientQuota(sanitizedUser, clientID string) (QuotaOverride, bool) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	o, ok := q.clients[quotaKey(sanitizedUser, clientID)]
	return o, ok
}

// ReplicationRates are this broker's leader and follower replication throttle rates (bytes/s).
func (q *DynamicQuotas) ReplicationRates() (leader, follower int64) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.leaderRate, q.followerRate
}

// ThrottledPartitions lists the throttled partitions of topic on this broker for the leader
// or follower side (AllReplicas for "*"; nil when none).
func (q *DynamicQuotas) ThrottledPartitions(topic string, leader bool) []int32 {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if leader {
		return q.leaderThrottled[topic]
	}
	return q.followerThrottle[topic]
}

func (q *DynamicQuotas) markThrottled(topic string, leader bool, partitions []int32) {
	q.mu.Lock()
	defer q.mu.Unlock()
	m := q.followerThrottle
	if leader {
		m = q.leaderThrottled
	}
	if partitions == nil {
		delete(m, topic)
		return
	}
	m[topic] = partitions
}

// TopicConfigHandler rebuilds the LogConfig of every local log of a topic from the broker's
// defaults plus the topic's overrides, and records which of its partitions are replication-
// throttled on this broker.
//
// Kafka 0.10.2: kafka.server.TopicConfigHandler. As there, a message.format.version above the
// inter-broker protocol version is ignored with a warning rather than applied.
type TopicConfigHandler struct {
	logManager    *log.LogManager
	defaultConfig *log.LogConfig
	config        *config.KafkaConfig
	quotas        *DynamicQuotas
	logger        *logrus.Entry
}

// NewTopicConfigHandler handles /config/topics changes for the logs of logManager;
// defaultConfig is the broker-wide LogConfig the overrides are laid over.
func NewTopicConfigHandler(logManager *log.LogManager, defaultConfig *log.LogConfig, cfg *config.KafkaConfig,
	quotas *DynamicQuotas, logger *logrus.Entry) *TopicConfigHandler {
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
		prop   string
		leader bool
	}{{log.LeaderReplicationThrottledReplicasProp, true}, {log.FollowerReplicationThrottledReplicasProp, false}} {
		v := strings.TrimSpace(overrides[side.prop])
		if v == "" {
			h.quotas.markThrottled(topic, side.leader, nil)
			continue
		}
		parts, err := ParseThrottledPartitions(v, h.config.BrokerID)
		if err != nil {
			return fmt.Errorf("%s of topic %s: %w", side.prop, topic, err)
		}
		h.quotas.markThrottled(topic, side.leader, parts)
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
func parseQuota(overrides map[string]string, prop string) (*int64, error) {
	v, ok := overrides[prop]
	if !ok {
		return nil, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s=%q is not a number", prop, v)
	}
	return &n, nil
}

func quotaOverrideFrom(overrides map[string]string) (QuotaOverride, error) {
	p, err := parseQuota(overrides, ProducerByteRateOverrideProp)
	if err != nil {
		return QuotaOverride{}, err
	}
	c, err := parseQuota(overrides, ConsumerByteRateOverrideProp)
	if err != nil {
		return QuotaOverride{}, err
	}
	return QuotaOverride{ProducerByteRate: p, ConsumerByteRate: c}, nil
}

// ClientIdConfigHandler stores a client id's byte-rate overrides.
//
// Kafka 0.10.2: kafka.server.ClientIdConfigHandler (QuotaConfigHandler.updateQuotaConfig with
// no user).
type ClientIdConfigHandler struct{ quotas *DynamicQuotas }

// ProcessConfigChanges implements ConfigHandler.
func (h *ClientIdConfigHandler) ProcessConfigChanges(clientID string, overrides map[string]string) error {
	o, err := quotaOverrideFrom(overrides)
	if err != nil {
		return err
	}
	h.quotas.updateQuota("", clientID, o)
	return nil
}

// UserConfigHandler stores the byte-rate overrides of a user or of a (user, client id) pair;
// the entity path is "<user>" or "<user>/clients/<client id>". SCRAM credentials (the other
// thing 0.10.2 reads from /config/users) arrive with SASL support.
//
// Kafka 0.10.2: kafka.server.UserConfigHandler.
type UserConfigHandler struct{ quotas *DynamicQuotas }

// ProcessConfigChanges implements ConfigHandler.
func (h *UserConfigHandler) ProcessConfigChanges(entityPath string, overrides map[string]string) error {
	parts := strings.Split(entityPath, "/")
	if len(parts) != 1 && len(parts) != 3 {
		return fmt.Errorf("Invalid quota entity path: %s", entityPath)
	}
	clientID := ""
	if len(parts) == 3 {
		clientID = parts[2]
	}
	o, err := quotaOverrideFrom(overrides)
	if err != nil {
		return err
	}
	h.quotas.updateQuota(parts[0], clientID, o)
	return nil
}

// BrokerConfigHandler applies this broker's replication throttle rates; changes of other
// brokers are ignored.
//
// Kafka 0.10.2: kafka.server.BrokerConfigHandler.
type BrokerConfigHandler struct {
	brokerID int32
	quotas   *DynamicQuotas
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
	h.quotas.mu.Lock()
	h.quotas.leaderRate, h.quotas.followerRate = l, f
	h.quotas.mu.Unlock()
	return nil
}

// NewConfigHandlers is the handler table KafkaServer.startup builds: one per ConfigType.
func NewConfigHandlers(logManager *log.LogManager, defaultConfig *log.LogConfig, cfg *config.KafkaConfig,
	quotas *DynamicQuotas, logger *logrus.Entry) map[string]ConfigHandler {
	return map[string]ConfigHandler{
		zkutils.ConfigTypeTopic:  NewTopicConfigHandler(logManager, defaultConfig, cfg, quotas, logger),
		zkutils.ConfigTypeClient: &ClientIdConfigHandler{quotas: quotas},
		zkutils.ConfigTypeUser:   &UserConfigHandler{quotas: quotas},
		zkutils.ConfigTypeBroker: &BrokerConfigHandler{brokerID: cfg.BrokerID, quotas: quotas},
	}
}
