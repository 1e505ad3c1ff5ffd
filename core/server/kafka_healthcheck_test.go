package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/server/brokerstate"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// TestHealthcheckReregistersOnNewSession: after its ZooKeeper session expires for real, the
// broker registers /brokers/ids/<id> again under the new session, and the SessionExpireListener
// meters counted the expiry. (metrics.http.port keeps the reporter off the fixed JMX_PORT.)
func TestHealthcheckReregistersOnNewSession(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	capture := zktest.NewSessionCapture()
	srv := NewKafkaServer(brokerConfig(t, connect, t.TempDir(), map[string]string{"broker.id": "7",
		MetricsHTTPPortProp: "0", MetricsHTTPHostProp: "127.0.0.1"}), nil, loggers,
		func(k string) string {
			if k == "JMX_PORT" {
				return "9999"
			}
			return ""
		})
	srv.ZkClientOptions = []zkclient.Option{zkclient.WithDialer(capture.Dial)}
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	z := srv.ZkUtils()
	before := z.ZkClient.SessionID()
	info, ok, err := z.GetBrokerInfo(7)
	if err != nil || !ok || info.JmxPort != 9999 {
		t.Fatalf("registration %+v %v %v", info, ok, err)
	}
	zktest.ExpireSession(t, capture)
	zktest.WaitUntilTrue(t, func() bool {
		if z.ZkClient.SessionID() == before {
			return false
		}
		_, st, exists, err := z.ReadDataMaybeNull(zkutils.BrokerIdPath(7))
		return err == nil && exists && st != nil && st.EphemeralOwner == z.ZkClient.SessionID()
	}, "broker 7 re-registered under the new session", 30*time.Second)
	for _, name := range []string{"ZooKeeperExpiresPerSec", "ZooKeeperSyncConnectsPerSec"} {
		if m := srv.Metrics.Meter("kafka.server:type=SessionExpireListener,name=" + name); m == nil || m.Count() < 1 {
			t.Errorf("%s not marked: %v", name, m)
		}
	}
	if m := srv.Metrics.Meter("kafka.server:type=SessionExpireListener,name=ZooKeeperAuthFailuresPerSec"); m == nil || m.Count() != 0 {
		t.Errorf("ZooKeeperAuthFailuresPerSec %v, want registered with count 0", m)
	}
}

// TestBrokerIDGeneratedAndCheckpointed: broker.id=-1 takes the next /brokers/seqid id (1001 with
// reserved.broker.max.id 1000) and writes it to meta.properties; a restart reads it back.
func TestBrokerIDGeneratedAndCheckpointed(t *testing.T) {
	connect := zktest.Chroot(t)
	dir := t.TempDir()
	loggers, _ := testLoggers(t)
	cfg := brokerConfig(t, connect, dir, map[string]string{"broker.id": "-1"})
	srv := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	id := srv.Config().BrokerID
	srv.Shutdown()
	if id != 1001 {
		t.Fatalf("generated id %d, want 1001", id)
	}
	data, err := os.ReadFile(filepath.Join(dir, BrokerMetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := NewBrokerMetadataCheckpoint(dir).Read(); err != nil || !ok || got != 1001 {
		t.Fatalf("meta.properties %q: %d %v %v", data, got, ok, err)
	}
	srv2 := NewKafkaServer(brokerConfig(t, connect, dir, map[string]string{"broker.id": "-1"}), nil, loggers, func(string) string { return "" })
	if err := srv2.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv2.Shutdown()
	if srv2.Config().BrokerID != 1001 {
		t.Fatalf("restart id %d", srv2.Config().BrokerID)
	}
	// A configured id that differs from meta.properties refuses to start.
	srv2.Shutdown()
	srv3 := NewKafkaServer(brokerConfig(t, connect, dir, map[string]string{"broker.id": "5"}), nil, loggers, func(string) string { return "" })
	if err := srv3.Startup(); err == nil {
		srv3.Shutdown()
		t.Fatal("started with broker.id 5 over meta.properties 1001")
	}
}

// TestAutoCreateTopic: Metadata for an unknown topic with auto.create.topics.enable writes the
// topic config and the replica assignment to ZooKeeper, byte for byte, and answers
// LEADER_NOT_AVAILABLE; an illegal name is INVALID_TOPIC_EXCEPTION.
func TestAutoCreateTopic(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	srv := NewKafkaServer(brokerConfig(t, connect, t.TempDir(), map[string]string{"num.partitions": "2"}), nil, loggers,
		func(string) string { return "" })
	if err := srv.Startup(); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	c := dialRaw(t, srv.BoundPort("PLAINTEXT"))
	r := c.roundTrip(t, &protocol.MetadataRequest{Version: 1, Topics: []string{"auto-t", "bad/name"}}).(*protocol.MetadataResponse)
	codes := map[string]int16{}
	for _, tm := range r.TopicMetadata {
		codes[tm.Topic] = tm.TopicErrorCode
	}
	if codes["auto-t"] != protocol.ErrLeaderNotAvailable.Code || codes["bad/name"] != protocol.ErrInvalidTopicException.Code {
		t.Fatalf("codes %v", codes)
	}
	z := srv.ZkUtils()
	cfgData, _, err := z.ReadData(zkutils.EntityConfigPath(zkutils.ConfigTypeTopic, "auto-t"))
	if err != nil || string(cfgData) != `{"version":1,"config":{}}` {
		t.Fatalf("/config/topics/auto-t = %s, %v", cfgData, err)
	}
	assign, _, err := z.ReadData(zkutils.TopicPath("auto-t"))
	if err != nil || string(assign) != `{"version":1,"partitions":{"1":[0],"0":[0]}}` {
		t.Fatalf("/brokers/topics/auto-t = %s, %v", assign, err)
	}
	// Asking again before any controller acted: still LEADER_NOT_AVAILABLE (TopicExists is ignored).
	r = c.roundTrip(t, &protocol.MetadataRequest{Version: 1, Topics: []string{"auto-t"}}).(*protocol.MetadataResponse)
	if r.TopicMetadata[0].TopicErrorCode != protocol.ErrLeaderNotAvailable.Code {
		t.Fatalf("second request %+v", r.TopicMetadata[0])
	}
}

// TestStartupFailureCleansUp: a broker that cannot bind its port fails Startup, releases what it
// had started (ZooKeeper session, log directory lock, goroutines) and can be started again once
// the port is free.
func TestStartupFailureCleansUp(t *testing.T) {
	connect := zktest.Chroot(t)
	loggers, _ := testLoggers(t)
	first := NewKafkaServer(brokerConfig(t, connect, t.TempDir(), nil), nil, loggers, func(string) string { return "" })
	if err := first.Startup(); err != nil {
		t.Fatal(err)
	}
	port := first.BoundPort("PLAINTEXT")
	dir := t.TempDir()
	cfg := brokerConfig(t, connect, dir, map[string]string{"broker.id": "1", "listeners": fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", port)})
	second := NewKafkaServer(cfg, nil, loggers, func(string) string { return "" })
	if err := second.Startup(); err == nil {
		t.Fatal("second broker bound a port in use")
	}
	if second.BrokerState.CurrentState() != brokerstate.NotRunning {
		t.Fatalf("state after failed startup %s", second.BrokerState.CurrentState())
	}
	first.Shutdown()
	cfg2 := brokerConfig(t, connect, dir, map[string]string{"broker.id": "1"})
	third := NewKafkaServer(cfg2, nil, loggers, func(string) string { return "" })
	if err := third.Startup(); err != nil {
		t.Fatalf("restart in the same log directory: %v", err)
	}
	third.Shutdown()
}
