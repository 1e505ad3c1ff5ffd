package server

import (
	"errors"
	"math"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	kmetrics "github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ClientQuotaManagerConfig configures a client quota manager: the static per-client-id quota
// (quota.producer.default / quota.consumer.default, unlimited by default) and the windows the
// byte rate is sampled over (quota.window.num x quota.window.size.seconds: 10 whole windows and
// the current one of 1 s).
//
// Kafka 0.10.2: kafka.server.ClientQuotaManagerConfig.
type ClientQuotaManagerConfig struct {
	QuotaBytesPerSecondDefault int64
	NumQuotaSamples            int
	QuotaWindowSizeSeconds     int
}

// DefaultClientQuotaManagerConfig is 0.10.2's defaults: no static quota, 11 samples of 1 s.
func DefaultClientQuotaManagerConfig() ClientQuotaManagerConfig {
	return ClientQuotaManagerConfig{QuotaBytesPerSecondDefault: math.MaxInt64, NumQuotaSamples: 11, QuotaWindowSizeSeconds: 1}
}

// unlimitedQuota is the quota of a client no level applies to.
var unlimitedQuota = kmetrics.UpperBound(math.MaxInt64)

// The quota levels that have been configured, a bit each; the quota lookup is cheaper while only
// one is in use.
//
// Kafka 0.10.2: kafka.server.QuotaTypes.
const (
	quotaTypesNone              = 0
	quotaTypesClientIDEnabled   = 1
	quotaTypesUserEnabled       = 2
	quotaTypesUserClientEnabled = 4
)

// QuotaId names the entity a quota is configured for or metered on: a (sanitized) user, a
// client id, or both. A nil half is "not part of the entity"; zkutils.ConfigEntityNameDefault
// stands for the default of its level.
//
// Kafka 0.10.2: kafka.server.QuotaId (Option[String] halves).
type QuotaId struct {
	SanitizedUser *string
	ClientID      *string
}

func (q QuotaId) key() quotaKey {
	k := quotaKey{}
	if q.SanitizedUser != nil {
		k.hasUser, k.user = true, *q.SanitizedUser
	}
	if q.ClientID != nil {
		k.hasClient, k.client = true, *q.ClientID
	}
	return k
}

// quotaKey is QuotaId as a comparable map key.
type quotaKey struct {
	hasUser, hasClient bool
	user, client       string
}

func (k quotaKey) userOr(def string) string {
	if k.hasUser {
		return k.user
	}
	return def
}

func (k quotaKey) clientOr(def string) string {
	if k.hasClient {
		return k.client
	}
	return def
}

// SanitizeQuotaUser makes a user principal name usable in a metric tag and a znode name.
//
// Kafka 0.10.2: QuotaId.sanitize.
func SanitizeQuotaUser(user string) string { return zkutils.SanitizeQuotaID(user) }

// DesanitizeQuotaUser reverses SanitizeQuotaUser.
//
// Kafka 0.10.2: QuotaId.desanitize.
func DesanitizeQuotaUser(sanitized string) (string, error) { return url.QueryUnescape(sanitized) }

// QuotaEntity is where a client's traffic is metered and which quota applies: the quota id
// the sensors are named after, the user and client-id tags of its metrics ("" where the level
// leaves them out), and the quota.
//
// Kafka 0.10.2: kafka.server.QuotaEntity.
type QuotaEntity struct {
	quotaID       quotaKey
	SanitizedUser string
	ClientID      string
	Quota         kmetrics.Quota
}

// ClientSensors are a quota entity's two sensors: the byte rate checked against the quota and
// the throttle time.
//
// Kafka 0.10.2: kafka.server.ClientSensors.
type ClientSensors struct {
	QuotaSensor        *kmetrics.Sensor
	ThrottleTimeSensor *kmetrics.Sensor
}

// ClientQuotaManager meters the bytes each client produces or fetches and, when a client goes
// over its quota, delays the response long enough to bring its rate back to the quota: the
// response goes to a delay queue that the ThrottledRequestReaper empties, and it carries the
// delay in throttle_time_ms (Produce and Fetch v1+).
//
// The quota of a client is the most specific configured one, in 0.10.2's order:
//
//	/config/users/<user>/clients/<client-id>
//	/config/users/<user>/clients/<default>
//	/config/users/<user>
//	/config/users/<default>/clients/<client-id>
//	/config/users/<default>/clients/<default>
//	/config/users/<default>
//	/config/clients/<client-id>
//	/config/clients/<default>
//	quota.producer.default / quota.consumer.default (static, per client id)
//
// A <user, client-id> level (1, 2, 4, 5) is metered per user and client id, a user level (3, 6)
// is shared by every client id of the user, a client-id level (7, 8, static) by every user of
// the client id. The user is the session's principal, sanitized: ANONYMOUS on a PLAINTEXT
// listener. Sensors are kafka.server:type=<Produce|Fetch>,user=<u>,client-id=<c> byte-rate and
// throttle-time, plus queue-size (responses waiting); unused sensors expire after an hour.
//
// A nil manager throttles nothing: RecordAndMaybeThrottle calls back at once.
//
// Kafka 0.10.2: kafka.server.ClientQuotaManager (with QuotaTypes and SensorAccess). Lock order:
// lock, then quotaMu, then the sensors' and the registry's locks.
type ClientQuotaManager struct {
	config    ClientQuotaManagerConfig
	metrics   *kmetrics.Metrics
	quotaType QuotaType
	time      common.Time
	logger    *logrus.Entry

	// lock is Kafka's read-write lock: quota updates and sensor creation exclude each other.
	lock sync.RWMutex
	// quotaMu guards overriddenQuota (Kafka's ConcurrentHashMap).
	quotaMu                   sync.RWMutex
	overriddenQuota           map[quotaKey]kmetrics.Quota
	staticConfigClientIDQuota kmetrics.Quota
	quotaTypesEnabled         atomic.Int32

	delayQueue       *throttledResponseQueue
	delayQueueSensor *kmetrics.Sensor
	reaper           *ThrottledRequestReaper
	reaperStarted    bool
}

// NewClientQuotaManager makes the manager and starts its reaper.
func NewClientQuotaManager(config ClientQuotaManagerConfig, metrics *kmetrics.Metrics, quotaType QuotaType, clock common.Time,
	logger *logrus.Entry) *ClientQuotaManager {
	m := newClientQuotaManager(config, metrics, quotaType, clock, logger)
	m.reaper.start()
	m.reaperStarted = true
	return m
}

// newClientQuotaManager makes the manager without starting the reaper (tests drive doWork).
func newClientQuotaManager(config ClientQuotaManagerConfig, metrics *kmetrics.Metrics, quotaType QuotaType, clock common.Time,
	logger *logrus.Entry) *ClientQuotaManager {
	if logger == nil {
		logger = discardEntry()
	}
	m := &ClientQuotaManager{config: config, metrics: metrics, quotaType: quotaType, time: clock,
		logger:                    logger.WithField("logger", "kafka.server.ClientQuotaManager"),
		overriddenQuota:           map[quotaKey]kmetrics.Quota{},
		staticConfigClientIDQuota: kmetrics.UpperBound(float64(config.QuotaBytesPerSecondDefault)),
		delayQueue:                newThrottledResponseQueue()}
	if config.QuotaBytesPerSecondDefault != math.MaxInt64 {
		m.quotaTypesEnabled.Store(quotaTypesClientIDEnabled)
	}
	m.delayQueueSensor = metrics.Sensor(quotaType.String() + "-delayQueue")
	if err := m.delayQueueSensor.Add(metrics.MetricName("queue-size", quotaType.String(), "Tracks the size of the delay queue", nil),
		kmetrics.NewTotal(), nil); err != nil && !errors.Is(err, kmetrics.ErrDuplicateMetric) {
		m.logger.WithError(err).Warn("queue-size metric not registered")
	}
	m.reaper = newThrottledRequestReaper(quotaType, m.delayQueue, m.delayQueueSensor,
		logger.WithField("logger", "kafka.server.ClientQuotaManager$ThrottledRequestReaper"))
	return m
}

// RecordAndMaybeThrottle records value bytes for (sanitizedUser, clientID) and calls callback:
// at once with 0 when the client is within its quota, or from the reaper after the returned
// delay (ms) when the value took it over.
//
// Kafka 0.10.2: ClientQuotaManager.recordAndMaybeThrottle.
func (m *ClientQuotaManager) RecordAndMaybeThrottle(sanitizedUser, clientID string, value int, callback func(throttleTimeMs int32)) int32 {
	if m == nil {
		callback(0)
		return 0
	}
	entity := m.quotaEntity(sanitizedUser, clientID)
	sensors := m.getOrCreateQuotaSensors(entity)
	var qv *kmetrics.QuotaViolationError
	if err := sensors.QuotaSensor.RecordValue(float64(value)); !errors.As(err, &qv) {
		callback(0)
		return 0
	}
	throttleTimeMs := m.throttleTime(m.metrics.Metric(m.clientRateMetricName(entity.SanitizedUser, entity.ClientID)))
	_ = sensors.ThrottleTimeSensor.RecordValue(float64(throttleTimeMs))
	m.delayQueue.add(NewThrottledResponse(m.time, throttleTimeMs, callback))
	_ = m.delayQueueSensor.Record()
	m.logger.Debugf("Quota violated for sensor (%s). Delay time: (%d)", sensors.QuotaSensor.Name(), throttleTimeMs)
	return throttleTimeMs
}

// throttleTime is how long the client must stay silent for its rate to come back to the quota:
// observed rate O over window W against quota T needs a delay X with O*W/(W+X) = T, so
// X = (O-T)/T*W, where W is the precise window the rate was measured over.
//
// Kafka 0.10.2: ClientQuotaManager.throttleTime.
func (m *ClientQuotaManager) throttleTime(metric *kmetrics.KafkaMetric) int32 {
	if metric == nil {
		return 0 // the sensor expired under us: nothing to measure against
	}
	var ms float64
	metric.WithLock(func(stat kmetrics.Measurable, config *kmetrics.MetricConfig) {
		rate, ok := stat.(*kmetrics.Rate)
		if !ok || config.Quota == nil {
			return
		}
		now := m.time.Milliseconds()
		bound := config.Quota.Bound()
		ms = (rate.Measure(config, now) - bound) / bound * float64(rate.WindowSize(config, now))
	})
	ms = math.Floor(ms + 0.5) // Scala's Double.round
	switch {
	case ms <= 0:
		return 0
	case ms >= math.MaxInt32:
		return math.MaxInt32
	}
	return int32(ms)
}

// quotaEntity finds the quota that applies to (sanitizedUser, clientID) and where it is metered.
//
// Kafka 0.10.2: ClientQuotaManager.quotaEntity.
func (m *ClientQuotaManager) quotaEntity(sanitizedUser, clientID string) QuotaEntity {
	m.quotaMu.RLock()
	defer m.quotaMu.RUnlock()
	def := zkutils.ConfigEntityNameDefault
	get := func(k quotaKey) (kmetrics.Quota, bool) { q, ok := m.overriddenQuota[k]; return q, ok }
	switch m.quotaTypesEnabled.Load() {
	case quotaTypesNone, quotaTypesClientIDEnabled:
		id := quotaKey{hasClient: true, client: clientID}
		q, ok := get(id)
		if !ok {
			if q, ok = get(quotaKey{hasClient: true, client: def}); !ok {
				q = m.staticConfigClientIDQuota
			}
		}
		return QuotaEntity{quotaID: id, ClientID: clientID, Quota: q}
	case quotaTypesUserEnabled:
		id := quotaKey{hasUser: true, user: sanitizedUser}
		q, ok := get(id)
		if !ok {
			if q, ok = get(quotaKey{hasUser: true, user: def}); !ok {
				q = unlimitedQuota
			}
		}
		return QuotaEntity{quotaID: id, SanitizedUser: sanitizedUser, Quota: q}
	case quotaTypesUserClientEnabled:
		id := quotaKey{hasUser: true, user: sanitizedUser, hasClient: true, client: clientID}
		q, ok := get(id)
		for _, k := range []quotaKey{
			{hasUser: true, user: sanitizedUser, hasClient: true, client: def},
			{hasUser: true, user: def, hasClient: true, client: clientID},
			{hasUser: true, user: def, hasClient: true, client: def},
		} {
			if ok {
				break
			}
			q, ok = get(k)
		}
		if !ok {
			q = unlimitedQuota
		}
		return QuotaEntity{quotaID: id, SanitizedUser: sanitizedUser, ClientID: clientID, Quota: q}
	}
	return m.quotaEntityWithMultipleQuotaLevels(sanitizedUser, clientID)
}

// quotaLevel is one row of the precedence table: the config it reads and the entity it meters.
type quotaLevel struct {
	config  quotaKey
	metered quotaKey
}

// quotaEntityWithMultipleQuotaLevels walks the whole precedence table (see the type's doc).
// Caller holds quotaMu.
//
// Kafka 0.10.2: ClientQuotaManager.quotaEntityWithMultipleQuotaLevels.
func (m *ClientQuotaManager) quotaEntityWithMultipleQuotaLevels(sanitizedUser, clientID string) QuotaEntity {
	def := zkutils.ConfigEntityNameDefault
	userClient := quotaKey{hasUser: true, user: sanitizedUser, hasClient: true, client: clientID}
	user := quotaKey{hasUser: true, user: sanitizedUser}
	client := quotaKey{hasClient: true, client: clientID}
	levels := [...]quotaLevel{
		{userClient, userClient}, // 1) /config/users/<user>/clients/<client-id>
		{quotaKey{hasUser: true, user: sanitizedUser, hasClient: true, client: def}, userClient}, // 2) /config/users/<user>/clients/<default>
		{user, user}, // 3) /config/users/<user>
		{quotaKey{hasUser: true, user: def, hasClient: true, client: clientID}, userClient}, // 4) /config/users/<default>/clients/<client-id>
		{quotaKey{hasUser: true, user: def, hasClient: true, client: def}, userClient},      // 5) /config/users/<default>/clients/<default>
		{quotaKey{hasUser: true, user: def}, user},                                          // 6) /config/users/<default>
		{client, client}, // 7) /config/clients/<client-id>
		{quotaKey{hasClient: true, client: def}, client}, // 8) /config/clients/<default>
	}
	id, q := client, m.staticConfigClientIDQuota
	for _, l := range levels {
		if found, ok := m.overriddenQuota[l.config]; ok {
			id, q = l.metered, found
			break
		}
	}
	e := QuotaEntity{quotaID: id, Quota: q}
	if id != client {
		e.SanitizedUser = sanitizedUser
	}
	if id != user {
		e.ClientID = clientID
	}
	return e
}

// Quota is the quota that applies to the (unsanitized) user principal and client id.
//
// Kafka 0.10.2: ClientQuotaManager.quota.
func (m *ClientQuotaManager) Quota(user, clientID string) kmetrics.Quota {
	return m.quotaEntity(SanitizeQuotaUser(user), clientID).Quota
}

// getOrCreateQuotaSensors returns the entity's byte-rate and throttle-time sensors, creating
// them (and their metrics) when absent or expired.
//
// Kafka 0.10.2: ClientQuotaManager.getOrCreateQuotaSensors.
func (m *ClientQuotaManager) getOrCreateQuotaSensors(e QuotaEntity) ClientSensors {
	return ClientSensors{
		QuotaSensor: getOrCreateSensor(&m.lock, m.metrics, m.quotaSensorName(e.quotaID), InactiveSensorExpirationTimeSeconds,
			func() kmetrics.MetricName { return m.clientRateMetricName(e.SanitizedUser, e.ClientID) },
			func() *kmetrics.MetricConfig { return m.quotaMetricConfig(e.Quota) },
			func() kmetrics.MeasurableStat { return kmetrics.NewRate() }),
		ThrottleTimeSensor: getOrCreateSensor(&m.lock, m.metrics, m.throttleTimeSensorName(e.quotaID), InactiveSensorExpirationTimeSeconds,
			func() kmetrics.MetricName { return m.throttleMetricName(e) },
			func() *kmetrics.MetricConfig { return nil },
			func() kmetrics.MeasurableStat { return kmetrics.NewAvg() }),
	}
}

// quotaSensorName is "<type>-<user>:<client-id>", e.g. "Produce-:clientA".
func (m *ClientQuotaManager) quotaSensorName(id quotaKey) string {
	return m.quotaType.String() + "-" + id.userOr("") + ":" + id.clientOr("")
}

// throttleTimeSensorName is "<type>ThrottleTime-<user>:<client-id>".
func (m *ClientQuotaManager) throttleTimeSensorName(id quotaKey) string {
	return m.quotaType.String() + "ThrottleTime-" + id.userOr("") + ":" + id.clientOr("")
}

func (m *ClientQuotaManager) quotaMetricConfig(q kmetrics.Quota) *kmetrics.MetricConfig {
	c := kmetrics.NewMetricConfig()
	c.TimeWindowMs = int64(m.config.QuotaWindowSizeSeconds) * 1000
	c.Samples = m.config.NumQuotaSamples
	c.Quota = &q
	return c
}

func (m *ClientQuotaManager) clientRateMetricName(sanitizedUser, clientID string) kmetrics.MetricName {
	return m.metrics.MetricName("byte-rate", m.quotaType.String(), "Tracking byte-rate per user/client-id",
		map[string]string{"user": sanitizedUser, "client-id": clientID})
}

func (m *ClientQuotaManager) throttleMetricName(e QuotaEntity) kmetrics.MetricName {
	return m.metrics.MetricName("throttle-time", m.quotaType.String(), "Tracking average throttle-time per user/client-id",
		map[string]string{"user": e.SanitizedUser, "client-id": e.ClientID})
}

// UpdateQuota sets (quota non-nil) or removes the quota of a <user>, <client-id> or <user,
// client-id> entity, or of a level's default (zkutils.ConfigEntityNameDefault); the sensors that
// already exist get the quota that now applies to them, keeping their samples.
//
// Kafka 0.10.2: ClientQuotaManager.updateQuota.
func (m *ClientQuotaManager) UpdateQuota(sanitizedUser, clientID *string, quota *kmetrics.Quota) {
	m.lock.Lock()
	defer m.lock.Unlock()
	id := QuotaId{SanitizedUser: sanitizedUser, ClientID: clientID}.key()
	def := zkutils.ConfigEntityNameDefault
	userInfo, clientInfo := "", ""
	switch {
	case id.hasUser && id.user == def:
		userInfo = "default user "
	case id.hasUser:
		userInfo = "user " + id.user + " "
	}
	switch {
	case id.hasClient && id.client == def:
		clientInfo = "default client-id"
	case id.hasClient:
		clientInfo = "client-id " + id.client
	}
	m.quotaMu.Lock()
	if quota != nil {
		m.logger.Infof("Changing %s quota for %s%s to %s", m.quotaType, userInfo, clientInfo, common.JavaDoubleToString(quota.Bound()))
		m.overriddenQuota[id] = *quota
		switch {
		case id.hasUser && id.hasClient:
			m.quotaTypesEnabled.Store(m.quotaTypesEnabled.Load() | quotaTypesUserClientEnabled)
		case id.hasUser:
			m.quotaTypesEnabled.Store(m.quotaTypesEnabled.Load() | quotaTypesUserEnabled)
		case id.hasClient:
			m.quotaTypesEnabled.Store(m.quotaTypesEnabled.Load() | quotaTypesClientIDEnabled)
		}
	} else {
		m.logger.Infof("Removing %s quota for %s%s", m.quotaType, userInfo, clientInfo)
		delete(m.overriddenQuota, id)
	}
	m.quotaMu.Unlock()

	// With one level in use and no default changed, only the entity's own metric can be
	// affected; otherwise every byte-rate metric of this manager is re-resolved.
	singleUpdate := false
	switch m.quotaTypesEnabled.Load() {
	case quotaTypesNone, quotaTypesClientIDEnabled, quotaTypesUserEnabled, quotaTypesUserClientEnabled:
		singleUpdate = !(id.hasUser && id.user == def) && !(id.hasClient && id.client == def)
	}
	if singleUpdate {
		if metric := m.metrics.Metric(m.clientRateMetricName(id.userOr(""), id.clientOr(""))); metric != nil {
			q := m.quotaEntity(id.userOr(""), id.clientOr("")).Quota
			m.logger.Infof("Sensor for %s%s already exists. Changing quota to %s in MetricConfig", userInfo, clientInfo,
				common.JavaDoubleToString(q.Bound()))
			metric.SetConfig(m.quotaMetricConfig(q))
		}
		return
	}
	for _, metric := range m.metrics.Metrics() {
		n := metric.MetricName()
		if n.Name != "byte-rate" || n.Group != m.quotaType.String() {
			continue
		}
		e := m.quotaEntity(n.Tags["user"], n.Tags["client-id"])
		if cur := metric.Config().Quota; cur == nil || *cur != e.Quota {
			m.logger.Infof("Sensor for quota-id %s already exists. Setting quota to %s in MetricConfig", e.quotaID,
				common.JavaDoubleToString(e.Quota.Bound()))
			metric.SetConfig(m.quotaMetricConfig(e.Quota))
		}
	}
}

// String renders a quota id as 0.10.2's QuotaId(Some(user),None) does.
func (k quotaKey) String() string {
	opt := func(has bool, v string) string {
		if has {
			return "Some(" + v + ")"
		}
		return "None"
	}
	return "QuotaId(" + opt(k.hasUser, k.user) + "," + opt(k.hasClient, k.client) + ")"
}

// QueueSize is the number of responses waiting in the delay queue.
func (m *ClientQuotaManager) QueueSize() int { return m.delayQueue.size() }

// Shutdown stops the reaper; responses still waiting are not sent.
//
// Kafka 0.10.2: ClientQuotaManager.shutdown.
func (m *ClientQuotaManager) Shutdown() {
	if m == nil {
		return
	}
	m.reaper.shutdown()
	if m.reaperStarted {
		m.reaper.awaitShutdown()
	}
}

// reaperDoWork runs one iteration of the reaper (tests of a manager whose reaper is not started).
func (m *ClientQuotaManager) reaperDoWork(maxWait time.Duration) { m.reaper.doWork(maxWait) }
