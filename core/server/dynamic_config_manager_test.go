package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/core/utils"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestParseThrottledPartitions(t *testing.T) {
	for _, tc := range []struct {
		value  string
		broker int32
		want   string
		bad    bool
	}{
		{"*", 1, "[-1]", false},
		{" * ", 7, "[-1]", false},
		{"0:1,1:2,2:1", 1, "[0 2]", false},
		{"0:1, 1:2", 2, "[1]", false},
		{"0:1", 3, "[]", false},
		{"0:1,x", 1, "", true},
		{"0-1", 1, "", true},
		{"0:1:2", 1, "", true},
	} {
		got, err := ParseThrottledPartitions(tc.value, tc.broker)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: accepted as %v", tc.value, got)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("%q for broker %d: %v, %v; want %s", tc.value, tc.broker, got, err, tc.want)
		}
	}
}

// The broker follows /config/changes: a topic override written the way kafka-configs.sh writes
// it reaches the LogConfig of the live logs of that topic (and only that topic); client,
// user and broker overrides land in the quota store; a stored config is replayed at startup.
func TestDynamicConfigManagerAppliesChanges(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	cfg := brokerConfig(t, connect, t.TempDir(), nil)
	clock := common.NewMockTime(1_700_000_000_000)
	defaults, err := logConfigFromKafka(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := log.NewLogManager(log.LogManagerConfig{LogDirs: cfg.LogDirs, DefaultConfig: defaults, IOThreads: 1},
		utils.NewMockScheduler(clock), nil, clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lm.Shutdown() })
	var logs []*log.Log
	for _, tp := range []common.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}, {Topic: "other", Partition: 0}} {
		l, err := lm.CreateLog(tp, defaults)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, l)
	}
	z := connectZk(t, connect)
	if err := z.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	// Stored before startup: replayed by Startup.
	if _, err := z.ChangeEntityConfig(zkutils.ConfigTypeClient, "early", map[string]string{ProducerByteRateOverrideProp: "1024"}); err != nil {
		t.Fatal(err)
	}
	quotas := newTestQuotaManagers(t, clock)
	m := NewDynamicConfigManager(z, NewConfigHandlers(lm, defaults, cfg, quotas, nil, loggers.Server), 0, loggers.Server)
	if err := m.Startup(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Shutdown)
	if p, f := quotas.Produce.Quota("ANONYMOUS", "early"), quotas.Fetch.Quota("ANONYMOUS", "early"); p.Bound() != 1024 || f != unlimitedQuota {
		t.Fatalf("stored client quota not replayed: produce %v, fetch %v", p, f)
	}

	if _, err := z.ChangeEntityConfig(zkutils.ConfigTypeTopic, "t", map[string]string{"segment.bytes": "2048", "retention.ms": "1234",
		log.FollowerReplicationThrottledReplicasProp: "0:0,1:5"}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return logs[0].Config().SegmentSize == 2048 && logs[1].Config().SegmentSize == 2048
	}, "topic config applied", 10*time.Second)
	if got := logs[0].Config().RetentionMs; got != 1234 {
		t.Errorf("retention.ms %d, want 1234", got)
	}
	if got := logs[2].Config().SegmentSize; got != defaults.SegmentSize {
		t.Errorf("other topic's segment.bytes changed to %d", got)
	}
	if got := quotas.Follower.ThrottledPartitions("t"); fmt.Sprint(got) != "[0]" {
		t.Errorf("follower-throttled partitions of t on broker 0: %v, want [0]", got)
	}

	// Removing an override goes back to the broker default.
	if _, err := z.ChangeEntityConfig(zkutils.ConfigTypeTopic, "t", map[string]string{}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return logs[0].Config().SegmentSize == defaults.SegmentSize }, "topic override removed", 10*time.Second)
	if got := quotas.Follower.ThrottledPartitions("t"); got != nil {
		t.Errorf("throttle not removed: %v", got)
	}

	// A message.format.version above the inter-broker protocol is ignored, the rest applied.
	if _, err := z.ChangeEntityConfig(zkutils.ConfigTypeTopic, "other", map[string]string{"segment.bytes": "4096", "message.format.version": "99.0"}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool { return logs[2].Config().SegmentSize == 4096 }, "other topic config applied", 10*time.Second)
	if got := logs[2].Config().MessageFormatVersion; got != defaults.MessageFormatVersion {
		t.Errorf("message.format.version became %q", got)
	}

	if _, err := z.ChangeEntityConfig(zkutils.ConfigTypeUser, "alice/clients/app", map[string]string{ConsumerByteRateOverrideProp: "77"}); err != nil {
		t.Fatal(err)
	}
	if _, err := z.ChangeEntityConfig(zkutils.ConfigTypeBroker, "0", map[string]string{LeaderReplicationThrottledRateProp: "5000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := z.ChangeEntityConfig(zkutils.ConfigTypeBroker, "9", map[string]string{LeaderReplicationThrottledRateProp: "1"}); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		return quotas.Fetch.Quota("alice", "app").Bound() == 77 && quotas.Leader.UpperBound() == 5000 && m.LastExecutedChange() >= 6
	}, "user and broker quotas", 10*time.Second)
	if p := quotas.Produce.Quota("alice", "app"); p != unlimitedQuota {
		t.Errorf("produce quota of alice/app %v, want unlimited", p)
	}
	if l, f := quotas.Leader.UpperBound(), quotas.Follower.UpperBound(); l != 5000 || f != DefaultReplicationThrottledRate {
		t.Errorf("replication rates %d/%d: another broker's change leaked in or the follower default is wrong", l, f)
	}
	if err := m.ProcessNotification([]byte("not json: from the old TopicConfigManager")); err != nil {
		t.Errorf("a non-JSON notification is skipped, got %v", err)
	}
	if err := m.ProcessNotification([]byte(`{"version":2,"entity_path":"nosuchtype/x"}`)); err == nil {
		t.Error("a notification of an unknown entity type was accepted")
	}
}

func connectZk(t *testing.T, connect string) *zkutils.ZkUtils {
	t.Helper()
	loggers, _ := testLoggers(t)
	// The chroot must exist before a client rooted in it can work.
	if i := strings.IndexByte(connect, '/'); i >= 0 {
		root, err := zkutils.Connect(connect[:i], 6*time.Second, 10*time.Second, false, loggers.Server, common.SystemTime{})
		if err != nil {
			t.Fatal(err)
		}
		err = root.MakeSurePersistentPathExists(connect[i:])
		root.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	z, err := zkutils.Connect(connect, 6*time.Second, 10*time.Second, false, loggers.Server, common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(z.Close)
	return z
}
