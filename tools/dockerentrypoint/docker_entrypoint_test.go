package dockerentrypoint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zktest"
	"github.com/zkafka/zkafka/zk/zkutils"
)

func TestMain(m *testing.M) { os.Exit(zktest.Main(m, 1)) }

func TestConfigKey(t *testing.T) {
	for in, want := range map[string]string{
		"KAFKA_BROKER_ID":                      "broker.id",
		"KAFKA_ADVERTISED_LISTENERS":           "advertised.listeners",
		"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "listener.security.protocol.map",
		"KAFKA_LOG_RETENTION_HOURS":            "log.retention.hours",
	} {
		if got, ok := ConfigKey(in); !ok || got != want {
			t.Errorf("ConfigKey(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"KAFKA_HEAP_OPTS", "KAFKA_OPTS", "KAFKA_", "ZOO_MY_ID", "PATH"} {
		if got, ok := ConfigKey(in); ok {
			t.Errorf("ConfigKey(%s) = %q, want none", in, got)
		}
	}
}

// The compose file's broker environment becomes Kafka's --override options, over the image's
// defaults, in key order; the scripts' own variables are left alone.
func TestBrokerCommand(t *testing.T) {
	argv, err := BrokerCommand(map[string]string{
		"KAFKA_BROKER_ID":                      "2",
		"KAFKA_ZOOKEEPER_CONNECT":              "zk1:2181,zk2:2181/kafka",
		"KAFKA_LISTENERS":                      "INTERNAL://:9092,EXTERNAL://:19092",
		"KAFKA_ADVERTISED_LISTENERS":           "INTERNAL://kafka2:9092,EXTERNAL://localhost:9093",
		"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP": "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
		"KAFKA_INTER_BROKER_LISTENER_NAME":     "INTERNAL",
		"KAFKA_HEAP_OPTS":                      "-Xmx1g",
		"HOSTNAME":                             "kafka2",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{BrokerBinary, "server-start", BrokerConfig,
		"--override", "advertised.listeners=INTERNAL://kafka2:9092,EXTERNAL://localhost:9093",
		"--override", "broker.id=2",
		"--override", "inter.broker.listener.name=INTERNAL",
		"--override", "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT",
		"--override", "listeners=INTERNAL://:9092,EXTERNAL://:19092",
		"--override", "log.dirs=/var/lib/kafka/data",
		"--override", "zookeeper.connect=zk1:2181,zk2:2181/kafka",
	}
	if strings.Join(argv, "\n") != strings.Join(want, "\n") {
		t.Errorf("argv:\n%s\nwant:\n%s", strings.Join(argv, "\n"), strings.Join(want, "\n"))
	}
}

func TestBrokerCommandErrors(t *testing.T) {
	for env, want := range map[string]map[string]string{
		"KAFKA_ZOOKEEPER_CONNECT is required":             {"KAFKA_BROKER_ID": "1"},
		"KAFKA_ADVERTISED_LISTENER (advertised.listener)": {"KAFKA_ZOOKEEPER_CONNECT": "zk:2181", "KAFKA_ADVERTISED_LISTENER": "PLAINTEXT://x:9092"},
	} {
		_, err := BrokerCommand(want)
		if err == nil || !strings.Contains(err.Error(), env) {
			t.Errorf("BrokerCommand(%v) = %v, want an error mentioning %q", want, err, env)
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"broker"}, []string{"KAFKA_NUM_PARTITIONZ=3", "KAFKA_ZOOKEEPER_CONNECT=zk:2181"}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "KAFKA_NUM_PARTITIONZ (num.partitionz)") {
		t.Errorf("Main broker with a misspelt key: exit %d, stderr %q", code, errb.String())
	}
	if code := Main([]string{"nonsense"}, nil, &out, &errb); code != 2 {
		t.Errorf("Main nonsense: exit %d, want 2", code)
	}
}

func TestZooKeeperCommand(t *testing.T) {
	root := t.TempDir()
	s, err := ZooKeeperCommand(map[string]string{
		"ZOO_MY_ID":       "2",
		"ZOO_SERVERS":     "server.1=zk1:2888:3888;2181 server.2=zk2:2888:3888;2181 server.3=zk3:2888:3888;2181",
		"ZOO_TICK_TIME":   "500",
		"ZOO_CFG_EXTRA":   "snapCount=1000",
		"JVMFLAGS":        "-Xmx64m",
		"KAFKA_BROKER_ID": "ignored",
	}, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"dataDir=" + filepath.Join(root, "data"), "clientPort=2181", "tickTime=500", "initLimit=10",
		"server.2=zk2:2888:3888;2181", "quorumListenOnAllIPs=true", "standaloneEnabled=false", "snapCount=1000", "4lw.commands.whitelist=*"} {
		if !strings.Contains(s.Cfg, l+"\n") {
			t.Errorf("zoo.cfg lacks %q:\n%s", l, s.Cfg)
		}
	}
	if s.MyID != 2 || s.Argv[0] != "java" || s.Argv[1] != "-Xmx64m" || s.Argv[len(s.Argv)-1] != filepath.Join(root, "zoo.cfg") ||
		s.Argv[len(s.Argv)-2] != "org.apache.zookeeper.server.quorum.QuorumPeerMain" {
		t.Errorf("setup %d %q", s.MyID, s.Argv)
	}
	if err := writeZooKeeperFiles(s, root); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "data", "myid")); err != nil || string(b) != "2\n" {
		t.Errorf("myid %q %v", b, err)
	}
	standalone, err := ZooKeeperCommand(map[string]string{}, root)
	if err != nil || strings.Contains(standalone.Cfg, "server.") || standalone.MyID != 0 {
		t.Errorf("standalone: %v %q", err, standalone.Cfg)
	}
	for want, env := range map[string]map[string]string{
		"needs its id":                     {"ZOO_SERVERS": "server.1=a:1:2"},
		"has no server.3":                  {"ZOO_MY_ID": "3", "ZOO_SERVERS": "server.1=a:1:2 server.2=b:1:2"},
		"is not server.<id>":               {"ZOO_MY_ID": "1", "ZOO_SERVERS": "server.1=a:1"},
		"ZOO_TICKTIME is not a setting":    {"ZOO_TICKTIME": "500"},
		"not a non-negative integer":       {"ZOO_TICK_TIME": "fast"},
		"a standalone server has no id":    {"ZOO_MY_ID": "1"},
		"ZOO_CFG_EXTRA entry \"x\" is not": {"ZOO_CFG_EXTRA": "x"},
	} {
		if _, err := ZooKeeperCommand(env, root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ZooKeeperCommand(%v) = %v, want an error with %q", env, err, want)
		}
	}
}

// The health checks against a real ZooKeeper: srvr's Mode, and a broker registration under
// a chroot, found by broker.id or, for a generated id, through meta.properties.
func TestHealth(t *testing.T) {
	e := zktest.Ensemble()
	if e == nil {
		t.Skip("ZK_CONNECT given: no ensemble of this package to ask srvr")
	}
	if mode, err := ZooKeeperHealth(e.Addr(0)); err != nil || mode != "standalone" {
		t.Errorf("ZooKeeperHealth = %q, %v", mode, err)
	}
	if _, err := ZooKeeperHealth("127.0.0.1:1"); err == nil {
		t.Error("ZooKeeperHealth of a closed port succeeded")
	}
	connect := zktest.Chroot(t)
	dataDir := t.TempDir()
	env := map[string]string{"KAFKA_ZOOKEEPER_CONNECT": connect, "KAFKA_LOG_DIRS": dataDir}
	if _, err := BrokerHealth(env); err == nil || !strings.Contains(err.Error(), "meta.properties") {
		t.Errorf("BrokerHealth before the broker wrote its id: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "meta.properties"), []byte("version=0\nbroker.id=1001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := BrokerHealth(env); err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("BrokerHealth before registration: %v", err)
	}
	l := logrus.New()
	l.SetOutput(bytes.NewBuffer(nil))
	z, err := zkutils.Connect(connect, zktest.SessionTimeout, 20*time.Second, false, logrus.NewEntry(l), common.SystemTime{})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := z.CreateEphemeralPathExpectConflict(zkutils.BrokerIdPath(1001), []byte(`{"version":3}`)); err != nil {
		t.Fatal(err)
	}
	if reg, err := BrokerHealth(env); err != nil || reg != `{"version":3}` {
		t.Errorf("BrokerHealth after registration: %q, %v", reg, err)
	}
	env["KAFKA_BROKER_ID"] = "7"
	if _, err := BrokerHealth(env); err == nil {
		t.Error("BrokerHealth of an unregistered broker.id 7 succeeded")
	}
}
