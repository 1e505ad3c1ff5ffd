package server

import (
	"math"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	kmetrics "github.com/zkafka/zkafka/clients/metrics"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Kafka 0.10.2's ClientQuotaManagerTest, ThrottledResponseExpirationTest and
// ReplicationQuotaManagerTest, on a MockTime, plus the precedence table of the quota levels.

// newTestQuotaManagers builds quota managers on clock whose reapers do not run (tests call
// reaperDoWork), stopped with the test.
func newTestQuotaManagers(t testing.TB, clock common.Time) *QuotaManagers {
	t.Helper()
	m := kmetrics.NewMetrics(nil, nil, clock, nil)
	cfg := DefaultClientQuotaManagerConfig()
	rcfg := ReplicationQuotaManagerConfig{QuotaBytesPerSecondDefault: math.MaxInt64, NumQuotaSamples: 11, QuotaWindowSizeSeconds: 1}
	q := &QuotaManagers{
		Fetch:    newClientQuotaManager(cfg, m, QuotaTypeFetch, clock, nil),
		Produce:  newClientQuotaManager(cfg, m, QuotaTypeProduce, clock, nil),
		Leader:   NewReplicationQuotaManager(rcfg, m, QuotaTypeLeaderReplication, nil),
		Follower: NewReplicationQuotaManager(rcfg, m, QuotaTypeFollowerReplication, nil),
	}
	t.Cleanup(q.Shutdown)
	return q
}

// quotaTestConfig is the test's ClientQuotaManagerConfig(quotaBytesPerSecondDefault = 500).
func quotaTestConfig(defaultQuota int64) ClientQuotaManagerConfig {
	c := DefaultClientQuotaManagerConfig()
	c.QuotaBytesPerSecondDefault = defaultQuota
	return c
}

func opt(s string) *string { return &s }

func upper(b float64) *kmetrics.Quota { q := kmetrics.UpperBound(b); return &q }

type callbackCounter struct{ n atomic.Int32 }

func (c *callbackCounter) callback(int32) { c.n.Add(1) }

// userClient is the test's UserClient: the session user and client id, and the entity a quota is
// configured for (nil halves are None).
type userClient struct {
	user, clientID             string
	configUser, configClientID *string
}

func testQuotaParsing(t *testing.T, config ClientQuotaManagerConfig, client1, client2, randomClient, defaultConfigClient userClient) {
	t.Helper()
	clock := common.NewMockTime(0)
	m := newClientQuotaManager(config, kmetrics.NewMetrics(nil, nil, clock, nil), QuotaTypeProduce, clock, nil)
	defer m.Shutdown()
	var cb callbackCounter
	samples := config.NumQuotaSamples

	// Case 1: an override is returned, the others get the default.
	m.UpdateQuota(client1.configUser, client1.configClientID, upper(2000))
	m.UpdateQuota(client2.configUser, client2.configClientID, upper(4000))
	if got := m.Quota(randomClient.user, randomClient.clientID); got != kmetrics.UpperBound(float64(config.QuotaBytesPerSecondDefault)) {
		t.Errorf("default producer quota %v, want %d", got, config.QuotaBytesPerSecondDefault)
	}
	if got := m.Quota(client1.user, client1.clientID); got.Bound() != 2000 {
		t.Errorf("client1 quota %v, want 2000", got)
	}
	if got := m.Quota(client2.user, client2.clientID); got.Bound() != 4000 {
		t.Errorf("client2 quota %v, want 4000", got)
	}
	// client1 is throttled against its override.
	if ms := m.RecordAndMaybeThrottle(client1.user, client1.clientID, 2500*samples, cb.callback); ms <= 0 {
		t.Errorf("throttle time %d, want > 0", ms)
	}

	// Case 2: a new quota reaches the existing sensor; client1 is no longer throttled.
	m.UpdateQuota(client1.configUser, client1.configClientID, upper(3000))
	if got := m.Quota(client1.user, client1.clientID); got.Bound() != 3000 {
		t.Errorf("client1 quota %v, want 3000", got)
	}
	if ms := m.RecordAndMaybeThrottle(client1.user, client1.clientID, 0, cb.callback); ms != 0 {
		t.Errorf("throttle time %d after raising the quota, want 0", ms)
	}

	// Case 3: back to 500, throttled again.
	m.UpdateQuota(client1.configUser, client1.configClientID, upper(500))
	if got := m.Quota(client1.user, client1.clientID); got.Bound() != 500 {
		t.Errorf("client1 quota %v, want 500", got)
	}
	if ms := m.RecordAndMaybeThrottle(client1.user, client1.clientID, 0, cb.callback); ms <= 0 {
		t.Errorf("throttle time %d at 500, want > 0", ms)
	}

	// Case 4: override removed, a high default set: no longer throttled.
	m.UpdateQuota(client1.configUser, client1.configClientID, nil)
	m.UpdateQuota(defaultConfigClient.configUser, defaultConfigClient.configClientID, upper(4000))
	if got := m.Quota(client1.user, client1.clientID); got.Bound() != 4000 {
		t.Errorf("client1 quota %v after removal, want the default 4000", got)
	}
	if ms := m.RecordAndMaybeThrottle(client1.user, client1.clientID, 1000*samples, cb.callback); ms != 0 {
		t.Errorf("throttle time %d under the default, want 0", ms)
	}
}

// <client-id> quotas: /config/clients/<client-id>, default /config/clients/<default>.
func TestClientIdQuotaParsing(t *testing.T) {
	def := zkutils.ConfigEntityNameDefault
	testQuotaParsing(t, quotaTestConfig(500),
		userClient{"ANONYMOUS", "p1", nil, opt("p1")}, userClient{"ANONYMOUS", "p2", nil, opt("p2")},
		userClient{"ANONYMOUS", "random-client-id", nil, nil}, userClient{"", "", nil, opt(def)})
}

// <user> quotas: /config/users/<user>, default /config/users/<default>.
func TestUserQuotaParsing(t *testing.T) {
	def := zkutils.ConfigEntityNameDefault
	testQuotaParsing(t, quotaTestConfig(math.MaxInt64),
		userClient{"User1", "p1", opt("User1"), nil}, userClient{"User2", "p2", opt("User2"), nil},
		userClient{"RandomUser", "random-client-id", nil, nil}, userClient{"", "", opt(def), nil})
}

// <user, client-id> quotas: /config/users/<user>/clients/<client-id>, default
// /config/users/<default>/clients/<default>.
func TestUserClientIdQuotaParsing(t *testing.T) {
	def := zkutils.ConfigEntityNameDefault
	testQuotaParsing(t, quotaTestConfig(math.MaxInt64),
		userClient{"User1", "p1", opt("User1"), opt("p1")}, userClient{"User2", "p2", opt("User2"), opt("p2")},
		userClient{"RandomUser", "random-client-id", nil, nil}, userClient{"", "", opt(def), opt(def)})
}

// <user> quotas while the static client-id default (quota.producer.default) is set.
func TestUserQuotaParsingWithDefaultClientIdQuota(t *testing.T) {
	def := zkutils.ConfigEntityNameDefault
	testQuotaParsing(t, quotaTestConfig(500),
		userClient{"User1", "p1", opt("User1"), nil}, userClient{"User2", "p2", opt("User2"), nil},
		userClient{"RandomUser", "random-client-id", nil, nil}, userClient{"", "", opt(def), nil})
}

// <user, client-id> quotas while the static client-id default is set.
func TestUserClientQuotaParsingIdWithDefaultClientIdQuota(t *testing.T) {
	def := zkutils.ConfigEntityNameDefault
	testQuotaParsing(t, quotaTestConfig(500),
		userClient{"User1", "p1", opt("User1"), opt("p1")}, userClient{"User2", "p2", opt("User2"), opt("p2")},
		userClient{"RandomUser", "random-client-id", nil, nil}, userClient{"", "", opt(def), opt(def)})
}

func TestQuotaConfigPrecedence(t *testing.T) {
	clock := common.NewMockTime(0)
	config := quotaTestConfig(500) // for numQuotaSamples only, as in Kafka's test
	m := newClientQuotaManager(quotaTestConfig(math.MaxInt64), kmetrics.NewMetrics(nil, nil, clock, nil), QuotaTypeProduce, clock, nil)
	defer m.Shutdown()
	var cb callbackCounter
	def := zkutils.ConfigEntityNameDefault
	check := func(user, clientID string, expectedBound float64, value int, expectThrottle bool) {
		t.Helper()
		if got := m.Quota(user, clientID); got != kmetrics.UpperBound(expectedBound) {
			t.Errorf("quota of (%s, %s) %v, want %v", user, clientID, got, expectedBound)
		}
		ms := m.RecordAndMaybeThrottle(user, clientID, value*config.NumQuotaSamples, cb.callback)
		if expectThrottle && ms <= 0 {
			t.Errorf("(%s, %s) +%d: throttle time %d, want > 0", user, clientID, value, ms)
		}
		if !expectThrottle && ms != 0 {
			t.Errorf("(%s, %s) +%d: throttle time %d, want 0", user, clientID, value, ms)
		}
	}
	m.UpdateQuota(opt(def), nil, upper(1000))
	m.UpdateQuota(nil, opt(def), upper(2000))
	m.UpdateQuota(opt(def), opt(def), upper(3000))
	m.UpdateQuota(opt("userA"), nil, upper(4000))
	m.UpdateQuota(opt("userA"), opt("client1"), upper(5000))
	m.UpdateQuota(opt("userB"), nil, upper(6000))
	m.UpdateQuota(opt("userB"), opt("client1"), upper(7000))
	m.UpdateQuota(opt("userB"), opt(def), upper(8000))
	m.UpdateQuota(opt("userC"), nil, upper(10000))
	m.UpdateQuota(nil, opt("client1"), upper(9000))

	check("userA", "client1", 5000, 4500, false) // <user, client> over <user>
	check("userA", "client2", 4000, 4500, true)  // <user> over <client> and the defaults
	check("userA", "client3", 4000, 0, true)     // <user> is shared by the user's clients
	check("userA", "client1", 5000, 0, false)    // <user, client> is the pair's alone

	check("userB", "client1", 7000, 8000, true)
	check("userB", "client2", 8000, 7000, false) // the user's default client quota, per pair
	check("userB", "client3", 8000, 7000, false)

	check("userD", "client1", 3000, 3500, true) // the default <user, client> quota
	check("userD", "client2", 3000, 2500, false)
	check("userE", "client1", 3000, 2500, false)

	// Without the default <user, client> quota the <user> default applies.
	m.UpdateQuota(opt(def), opt(def), nil)
	check("userD", "client1", 1000, 0, false) // metered on new tags: a fresh counter
	check("userE", "client4", 1000, 1500, true)
	check("userF", "client4", 1000, 800, false) // the <user> default is shared by the user's clients
	check("userF", "client5", 1000, 800, true)

	// Without the <user> default the <client-id> default applies.
	m.UpdateQuota(opt(def), nil, nil)
	check("userF", "client4", 2000, 0, false) // shared by the client id's users
	check("userF", "client5", 2000, 0, false)
	check("userF", "client5", 2000, 2500, true)
	check("userG", "client5", 2000, 0, true)

	// Updates.
	m.UpdateQuota(opt("userA"), nil, upper(8000))
	m.UpdateQuota(opt("userA"), opt("client1"), upper(10000))
	check("userA", "client2", 8000, 0, false)
	check("userA", "client2", 8000, 4500, true) // the new value and the earlier ones
	check("userA", "client1", 10000, 0, false)
	check("userA", "client1", 10000, 6000, true)
	m.UpdateQuota(opt("userA"), opt("client1"), nil)
	check("userA", "client6", 8000, 0, true) // the shared user quota
	m.UpdateQuota(opt("userA"), opt("client6"), upper(11000))
	check("userA", "client6", 11000, 8500, false)
	m.UpdateQuota(opt("userA"), opt(def), upper(12000))
	m.UpdateQuota(opt("userA"), opt("client6"), nil)
	check("userA", "client6", 12000, 4000, true)
}

// The precedence table itself: each level configured in turn from the lowest up, for the
// session (u, c); the quota found and where it is metered (the metric's user and client-id tags).
func TestQuotaPrecedenceTable(t *testing.T) {
	clock := common.NewMockTime(0)
	m := newClientQuotaManager(quotaTestConfig(100), kmetrics.NewMetrics(nil, nil, clock, nil), QuotaTypeFetch, clock, nil)
	defer m.Shutdown()
	def := zkutils.ConfigEntityNameDefault
	for _, tc := range []struct {
		path                string
		user, clientID      *string
		bound               float64
		meterUser, meterCID string
	}{
		{"quota.consumer.default", nil, nil, 100, "", "c"},
		{"/config/clients/<default>", nil, opt(def), 200, "", "c"},
		{"/config/clients/c", nil, opt("c"), 300, "", "c"},
		{"/config/users/<default>", opt(def), nil, 400, "u", ""},
		{"/config/users/<default>/clients/<default>", opt(def), opt(def), 500, "u", "c"},
		{"/config/users/<default>/clients/c", opt(def), opt("c"), 600, "u", "c"},
		{"/config/users/u", opt("u"), nil, 700, "u", ""},
		{"/config/users/u/clients/<default>", opt("u"), opt(def), 800, "u", "c"},
		{"/config/users/u/clients/c", opt("u"), opt("c"), 900, "u", "c"},
	} {
		if tc.user != nil || tc.clientID != nil {
			m.UpdateQuota(tc.user, tc.clientID, upper(tc.bound))
		}
		e := m.quotaEntity("u", "c")
		if e.Quota.Bound() != tc.bound || e.SanitizedUser != tc.meterUser || e.ClientID != tc.meterCID {
			t.Errorf("with %s: quota %v metered on user=%q client-id=%q; want %v on %q %q", tc.path, e.Quota.Bound(),
				e.SanitizedUser, e.ClientID, tc.bound, tc.meterUser, tc.meterCID)
		}
		// Another user and client id fall through to the defaults only.
		if o := m.quotaEntity("other", "other"); o.Quota.Bound() > 600 {
			t.Errorf("with %s: (other, other) got %v, a quota of u or c", tc.path, o.Quota.Bound())
		}
	}
}

func TestQuotaViolation(t *testing.T) {
	clock := common.NewMockTime(0)
	metrics := kmetrics.NewMetrics(nil, nil, clock, nil)
	m := newClientQuotaManager(quotaTestConfig(500), metrics, QuotaTypeProduce, clock, nil)
	defer m.Shutdown()
	queueSize := metrics.Metric(metrics.MetricName("queue-size", "Produce", "", nil))
	var cb callbackCounter
	// 10 one-second windows under the quota: no violation.
	for range 10 {
		m.RecordAndMaybeThrottle("ANONYMOUS", "unknown", 400, cb.callback)
		clock.Sleep(time.Second)
	}
	if cb.n.Load() != 10 || queueSize.Value() != 0 {
		t.Fatalf("callbacks %d, queue %v; want 10, 0", cb.n.Load(), queueSize.Value())
	}
	// A spike: 400*10 + 2000 + 300 = 6300 bytes over 10.5 s = 600 B/s; (600-500)/500*10.5 s = 2100 ms.
	clock.Sleep(500 * time.Millisecond)
	sleepTime := m.RecordAndMaybeThrottle("ANONYMOUS", "unknown", 2300, cb.callback)
	if sleepTime != 2100 {
		t.Fatalf("throttle time %d, want 2100", sleepTime)
	}
	if queueSize.Value() != 1 {
		t.Fatalf("queue-size %v, want 1", queueSize.Value())
	}
	m.reaperDoWork(0)
	if cb.n.Load() != 10 {
		t.Fatalf("the delayed callback ran before its time (%d callbacks)", cb.n.Load())
	}
	clock.Sleep(time.Duration(sleepTime) * time.Millisecond)
	m.reaperDoWork(0)
	if cb.n.Load() != 11 || queueSize.Value() != 0 {
		t.Fatalf("after the delay: callbacks %d, queue %v; want 11, 0", cb.n.Load(), queueSize.Value())
	}
	// Delays may go on until the spike's sample has rolled out of the window.
	for range 10 {
		m.RecordAndMaybeThrottle("ANONYMOUS", "unknown", 400, cb.callback)
		clock.Sleep(time.Second)
	}
	if ms := m.RecordAndMaybeThrottle("ANONYMOUS", "unknown", 0, cb.callback); ms != 0 {
		t.Errorf("throttle time %d once the spike rolled over, want 0", ms)
	}
}

func TestExpireThrottleTimeSensor(t *testing.T) {
	clock := common.NewMockTime(0)
	metrics := kmetrics.NewMetrics(nil, nil, clock, nil)
	m := newClientQuotaManager(quotaTestConfig(500), metrics, QuotaTypeProduce, clock, nil)
	defer m.Shutdown()
	var cb callbackCounter
	m.RecordAndMaybeThrottle("ANONYMOUS", "client1", 100, cb.callback)
	metrics.RemoveSensor("ProduceThrottleTime-:client1")
	if ms := m.RecordAndMaybeThrottle("ANONYMOUS", "client1", 10000, cb.callback); ms <= 0 {
		t.Errorf("throttle time %d, want > 0", ms)
	}
	if metrics.GetSensor("ProduceThrottleTime-:client1") == nil {
		t.Error("the throttle time sensor was not re-created")
	}
}

func TestExpireQuotaSensors(t *testing.T) {
	clock := common.NewMockTime(0)
	metrics := kmetrics.NewMetrics(nil, nil, clock, nil)
	m := newClientQuotaManager(quotaTestConfig(500), metrics, QuotaTypeProduce, clock, nil)
	defer m.Shutdown()
	var cb callbackCounter
	m.RecordAndMaybeThrottle("ANONYMOUS", "client1", 100, cb.callback)
	metrics.RemoveSensor("ProduceThrottleTime-:client1")
	metrics.RemoveSensor("Produce-ANONYMOUS:client1") // not the name of a client-id quota's sensor: a no-op, as in Kafka's test
	if ms := m.RecordAndMaybeThrottle("ANONYMOUS", "client1", 10000, cb.callback); ms <= 0 {
		t.Errorf("throttle time %d, want > 0", ms)
	}
	if metrics.GetSensor("ProduceThrottleTime-:client1") == nil || metrics.GetSensor("Produce-:client1") == nil {
		t.Error("the sensors were not re-created")
	}
	// Sensors expire after an hour without records, and come back on the next record.
	clock.Sleep(time.Duration(InactiveSensorExpirationTimeSeconds+1) * time.Second)
	metrics.ExpireSensors()
	if metrics.GetSensor("Produce-:client1") != nil {
		t.Fatal("an inactive quota sensor did not expire")
	}
	if ms := m.RecordAndMaybeThrottle("ANONYMOUS", "client1", 10, cb.callback); ms != 0 || metrics.GetSensor("Produce-:client1") == nil {
		t.Errorf("after expiry: throttle %d, sensor %v", ms, metrics.GetSensor("Produce-:client1"))
	}
}

func TestQuotaUserSanitize(t *testing.T) {
	principal := "CN=Some characters !@#$%&*()_-+=';:,/~"
	sanitized := SanitizeQuotaUser(principal)
	// Apart from % (percent-encoding), only characters legal in a client id.
	legal := regexp.MustCompile(`^[a-zA-Z0-9._%-]+$`)
	if !legal.MatchString(sanitized) {
		t.Errorf("sanitized principal %q has illegal characters", sanitized)
	}
	if back, err := DesanitizeQuotaUser(sanitized); err != nil || back != principal {
		t.Errorf("desanitize(%q) = %q, %v", sanitized, back, err)
	}
}

// Metric names: byte-rate and throttle-time tagged user and client-id, in the manager's group.
func TestClientQuotaMetricNames(t *testing.T) {
	clock := common.NewMockTime(0)
	metrics := kmetrics.NewMetrics(nil, nil, clock, nil)
	m := newClientQuotaManager(quotaTestConfig(500), metrics, QuotaTypeFetch, clock, nil)
	defer m.Shutdown()
	m.UpdateQuota(opt("alice"), nil, upper(10))
	var cb callbackCounter
	if ms := m.RecordAndMaybeThrottle("alice", "app", 1000, cb.callback); ms <= 0 {
		t.Fatalf("throttle %d, want > 0", ms)
	}
	rate := metrics.Metric(metrics.MetricName("byte-rate", "Fetch", "", map[string]string{"user": "alice", "client-id": ""}))
	throttle := metrics.Metric(metrics.MetricName("throttle-time", "Fetch", "", map[string]string{"user": "alice", "client-id": ""}))
	if rate == nil || throttle == nil {
		t.Fatalf("byte-rate %v, throttle-time %v not registered", rate, throttle)
	}
	if v := rate.Value(); v != 1000.0/10 { // 1000 bytes over 10 windows of 1 s
		t.Errorf("byte-rate %v, want 100", v)
	}
	if v := throttle.Value(); v <= 0 {
		t.Errorf("throttle-time %v, want > 0", v)
	}
}

func TestThrottledResponseExpire(t *testing.T) {
	clock := common.NewMockTime(0)
	metrics := kmetrics.NewMetrics(nil, nil, clock, nil)
	m := newClientQuotaManager(DefaultClientQuotaManagerConfig(), metrics, QuotaTypeProduce, clock, nil)
	defer m.Shutdown()
	var cb callbackCounter
	// Four out of order, two due at the same time.
	for _, d := range []int32{10, 30, 30, 20} {
		m.delayQueue.add(NewThrottledResponse(clock, d, cb.callback))
	}
	for i := int32(1); i <= 3; i++ {
		clock.Sleep(10 * time.Millisecond)
		m.reaperDoWork(0)
		if cb.n.Load() != i {
			t.Fatalf("after %d ms: %d callbacks, want %d", 10*i, cb.n.Load(), i)
		}
	}
	m.reaperDoWork(0)
	if cb.n.Load() != 4 || m.QueueSize() != 0 {
		t.Fatalf("callbacks %d, queue %d; want 4, 0", cb.n.Load(), m.QueueSize())
	}
	m.reaperDoWork(0)
	if cb.n.Load() != 4 {
		t.Fatalf("callbacks %d on an empty queue", cb.n.Load())
	}
}

func TestThrottledRequest(t *testing.T) {
	clock := common.NewMockTime(0)
	var cb callbackCounter
	t1 := NewThrottledResponse(clock, 10, cb.callback)
	t2 := NewThrottledResponse(clock, 20, cb.callback)
	t3 := NewThrottledResponse(clock, 20, cb.callback)
	if t1.ThrottleTimeMs != 10 || t2.ThrottleTimeMs != 20 || t3.ThrottleTimeMs != 20 {
		t.Fatal("throttle times changed")
	}
	for i := range int64(3) {
		if t1.DelayMs() != 10-10*i || t2.DelayMs() != 20-10*i || t3.DelayMs() != 20-10*i {
			t.Fatalf("step %d: delays %d %d %d", i, t1.DelayMs(), t2.DelayMs(), t3.DelayMs())
		}
		clock.Sleep(10 * time.Millisecond)
	}
}

// A started reaper sends a throttled response on its own once it is due (real clock), and
// stops with the manager.
func TestThrottledRequestReaperRuns(t *testing.T) {
	m := NewClientQuotaManager(quotaTestConfig(1000), kmetrics.NewMetrics(nil, nil, common.SystemTime{}, nil), QuotaTypeProduce,
		common.SystemTime{}, nil)
	done := make(chan int32, 1)
	start := time.Now()
	ms := m.RecordAndMaybeThrottle("ANONYMOUS", "c", 11_000, func(d int32) { done <- d }) // 1.1 kB/s over 10 s: ~1 s
	if ms <= 0 {
		t.Fatalf("throttle time %d for 11 kB against 1 kB/s", ms)
	}
	select {
	case d := <-done:
		if d != ms {
			t.Errorf("callback got %d, want %d", d, ms)
		}
		// The reaper's clock counts whole milliseconds (as Kafka's Time.milliseconds), so the due
		// time can fall up to 1 ms before start + throttle.
		if el := time.Since(start); el < time.Duration(ms-1)*time.Millisecond {
			t.Errorf("sent after %v, before the %d ms throttle", el, ms)
		}
	case <-time.After(time.Duration(ms)*time.Millisecond + 30*time.Second):
		t.Fatal("the reaper never sent the response")
	}
	m.Shutdown()
}

func TestReplicationQuotaShouldThrottleOnlyDefinedReplicas(t *testing.T) {
	q := NewReplicationQuotaManager(ReplicationQuotaManagerConfig{NumQuotaSamples: 11, QuotaWindowSizeSeconds: 1},
		kmetrics.NewMetrics(nil, nil, common.NewMockTime(0), nil), QuotaTypeFetch, nil)
	q.MarkThrottled("topic1", []int32{1, 2, 3})
	for p, want := range map[int32]bool{1: true, 2: true, 3: true, 4: false} {
		if got := q.IsThrottled(common.TopicPartition{Topic: "topic1", Partition: p}); got != want {
			t.Errorf("partition %d throttled %v, want %v", p, got, want)
		}
	}
}

func TestReplicationQuotaExceededThenBelowBoundAsTimePasses(t *testing.T) {
	clock := common.NewMockTime(0)
	metrics := kmetrics.NewMetrics(nil, nil, clock, nil)
	q := NewReplicationQuotaManager(ReplicationQuotaManagerConfig{NumQuotaSamples: 10, QuotaWindowSizeSeconds: 1}, metrics,
		QuotaTypeLeaderReplication, nil)
	rate := func() float64 {
		return metrics.Metric(metrics.MetricName("byte-rate", "LeaderReplication", "", nil)).Value()
	}
	q.UpdateQuota(kmetrics.UpperBound(100))
	if q.IsQuotaExceeded() {
		t.Fatal("exceeded before any record")
	}
	clock.Sleep(1500 * time.Millisecond) // the first window counts as fixed
	q.Record(1)
	if q.IsQuotaExceeded() {
		t.Fatal("exceeded at 1 B")
	}
	q.Record(149) // 150 B in 1.5 s
	if q.IsQuotaExceeded() {
		t.Fatal("exceeded at 150 B / 1.5 s")
	}
	q.Record(1) // 151 B in 1.5 s
	if got := rate(); got != 151/1.5 || !q.IsQuotaExceeded() {
		t.Fatalf("rate %v (want %v), exceeded %v", got, 151/1.5, q.IsQuotaExceeded())
	}
	clock.Sleep(500 * time.Millisecond) // 151 B in 2 s
	if q.IsQuotaExceeded() || math.Abs(rate()-151.0/2) > 0.1 {
		t.Fatalf("at 2 s: rate %v, exceeded %v", rate(), q.IsQuotaExceeded())
	}
	clock.Sleep(500 * time.Millisecond)
	q.Record(99) // 250 B in 2.5 s
	if rate() != 250/2.5 || q.IsQuotaExceeded() {
		t.Fatalf("at 2.5 s: rate %v, exceeded %v", rate(), q.IsQuotaExceeded())
	}
	q.Record(1)
	if rate() != 251/2.5 || !q.IsQuotaExceeded() {
		t.Fatalf("at 251 B: rate %v, exceeded %v", rate(), q.IsQuotaExceeded())
	}
	clock.Sleep(2 * time.Second)
	if q.IsQuotaExceeded() || rate() != 251/4.5 {
		t.Fatalf("at 4.5 s: rate %v, exceeded %v", rate(), q.IsQuotaExceeded())
	}
}

func TestReplicationQuotaWildcardThrottledReplicas(t *testing.T) {
	q := NewReplicationQuotaManager(ReplicationQuotaManagerConfig{NumQuotaSamples: 11, QuotaWindowSizeSeconds: 1},
		kmetrics.NewMetrics(nil, nil, common.NewMockTime(0), nil), QuotaTypeLeaderReplication, nil)
	q.MarkThrottled("MyTopic", AllReplicas)
	if !q.IsThrottled(common.TopicPartition{Topic: "MyTopic", Partition: 0}) {
		t.Error("a partition of a '*' topic is not throttled")
	}
	if q.IsThrottled(common.TopicPartition{Topic: "MyOtherTopic", Partition: 0}) {
		t.Error("another topic is throttled")
	}
	q.RemoveThrottle("MyTopic")
	if q.IsThrottled(common.TopicPartition{Topic: "MyTopic", Partition: 0}) {
		t.Error("still throttled after RemoveThrottle")
	}
	var none *ReplicationQuotaManager
	if none.IsThrottled(common.TopicPartition{Topic: "MyTopic"}) || none.IsQuotaExceeded() {
		t.Error("a nil manager throttles")
	}
	none.Record(1)
}
