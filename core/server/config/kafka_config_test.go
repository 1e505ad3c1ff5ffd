package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/common"
	kconfig "github.com/zkafka/zkafka/clients/config"
)

func mustConfig(t *testing.T, props map[string]string) *KafkaConfig {
	t.Helper()
	c, err := FromProps(props)
	if err != nil {
		t.Fatalf("FromProps(%v): %v", props, err)
	}
	return c
}

// TestShippedServerProperties loads config/server.properties as shipped and checks the values an
// operator of Kafka 0.10.2 expects from that file.
func TestShippedServerProperties(t *testing.T) {
	props, err := kconfig.LoadProps(filepath.Join("..", "..", "..", "config", "server.properties"))
	if err != nil {
		t.Fatal(err)
	}
	c := mustConfig(t, props)
	if c.BrokerID != 0 || c.ZkConnect != "localhost:2181" || c.ZkConnectionTimeoutMs != 6000 || c.NumNetworkThreads != 3 || c.NumIoThreads != 8 {
		t.Fatalf("basics: %+v", c)
	}
	if len(c.Listeners) != 1 || c.Listeners[0].ConnectionString() != "PLAINTEXT://127.0.0.1:9092" {
		t.Fatalf("listeners %+v", c.Listeners)
	}
	if c.LogRetentionTimeMillis != 168*3600000 || c.LogSegmentBytes != 1073741824 || c.LogDirs[0] != "/tmp/kafka-logs" {
		t.Fatalf("log: %+v", c)
	}
}

// TestDefaults mirrors KafkaConfigTest's default and fallback checks (the fallbacks of KafkaConfig: log.dirs, the roll, retention and flush times).
func TestDefaults(t *testing.T) {
	c := mustConfig(t, map[string]string{"zookeeper.connect": "zk:2181"})
	checks := []struct {
		name      string
		got, want any
	}{
		{"broker.id", c.BrokerID, int32(-1)},
		{"zk connection timeout falls back to session timeout", c.ZkConnectionTimeoutMs, int32(6000)},
		{"message.max.bytes", c.MessageMaxBytes, int32(1000012)},
		{"listeners default", c.Listeners[0].ConnectionString(), "PLAINTEXT://:9092"},
		{"advertised = listeners", c.AdvertisedListeners[0].ConnectionString(), "PLAINTEXT://:9092"},
		{"inter broker listener", c.InterBrokerListenerName, "PLAINTEXT"},
		{"log dirs from log.dir", strings.Join(c.LogDirs, ","), "/tmp/kafka-logs"},
		{"retention from hours", c.LogRetentionTimeMillis, int64(604800000)},
		{"roll from hours", c.LogRollTimeMillis, int64(604800000)},
		{"flush ms from scheduler interval", c.LogFlushIntervalMs, int64(9223372036854775807)},
		{"compression.type", c.CompressionType, "producer"},
		{"ibp", c.InterBrokerProtocolVersion.String(), "0.10.2-IV0"},
		{"offsets.topic.replication.factor", c.OffsetsTopicReplicationFactor, int16(3)},
		{"log.cleaner.io.buffer.load.factor", c.LogCleanerDedupeBufferLoadFactor, 0.9},
		{"unclean.leader.election.enable", c.UncleanLeaderElectionEnable, true},
		{"log.cleanup.policy", strings.Join(c.LogCleanupPolicy, ","), "delete"},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	c = mustConfig(t, map[string]string{"zookeeper.connect": "zk", "log.retention.minutes": "10", "log.retention.hours": "1"})
	if c.LogRetentionTimeMillis != 600000 {
		t.Errorf("minutes should win over hours: %d", c.LogRetentionTimeMillis)
	}
	c = mustConfig(t, map[string]string{"zookeeper.connect": "zk", "log.retention.ms": "-5", "log.retention.minutes": "10"})
	if c.LogRetentionTimeMillis != -1 {
		t.Errorf("negative retention should be -1: %d", c.LogRetentionTimeMillis)
	}
	c = mustConfig(t, map[string]string{"zookeeper.connect": "zk", "log.dirs": "/a, ,/b", "port": "9093", "host.name": "h", "advertised.port": "19093"})
	if strings.Join(c.LogDirs, ",") != "/a,/b" || c.Listeners[0].ConnectionString() != "PLAINTEXT://h:9093" || c.AdvertisedListeners[0].ConnectionString() != "PLAINTEXT://h:19093" {
		t.Errorf("dirs %v listeners %v advertised %v", c.LogDirs, c.Listeners, c.AdvertisedListeners)
	}
	c = mustConfig(t, map[string]string{"zookeeper.connect": "zk", "listeners": "plaintext://[::1]:9092,SASL_PLAINTEXT://:9093", "sasl.enabled.mechanisms": "PLAIN", "max.connections.per.ip.overrides": "127.0.0.1:5, ::1:7"})
	if c.Listeners[0].ConnectionString() != "PLAINTEXT://[::1]:9092" || c.Listeners[1].SecurityProtocol != common.SASL_PLAINTEXT || c.MaxConnectionsPerIPOverrides["::1"] != 7 {
		t.Errorf("listeners %v overrides %v", c.Listeners, c.MaxConnectionsPerIPOverrides)
	}
}

// TestValidationMessages checks KafkaConfig.validateValues and listener parsing messages .
func TestValidationMessages(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"zookeeper.connect": "zk"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{}, `Missing required configuration "zookeeper.connect" which has no default value.`},
		{base("broker.id", "1001"), "requirement failed: broker.id must be equal or greater than -1 and not greater than reserved.broker.max.id"},
		{base("broker.id.generation.enable", "false"), "requirement failed: broker.id must be equal or greater than 0"},
		{base("log.roll.ms", "0"), "requirement failed: log.roll.ms must be equal or greater than 1"},
		{base("log.retention.ms", "0"), "requirement failed: log.retention.ms must be unlimited (-1) or, equal or greater than 1"},
		{base("log.cleaner.dedupe.buffer.size", "1048576"), "requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread."},
		{base("replica.fetch.wait.max.ms", "40000"), "requirement failed: replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts"},
		{base("compression.type", "none"), "requirement failed: compression.type : none is not valid. Valid options are uncompressed,snappy,lz4,gzip,producer"},
		{base("offsets.commit.required.acks", "4"), "requirement failed: offsets.commit.required.acks must be greater or equal -1 and less or equal to offsets.topic.replication.factor"},
		{base("listeners", "PLAINTEXT://:9092,SSL://:9092"), "requirement failed: Each listener must have a different port, listeners: PLAINTEXT://:9092,SSL://:9092"},
		{base("listeners", "CLIENT://:9092"), "Error creating broker listeners from 'CLIENT://:9092': No security protocol defined for listener CLIENT"},
		{base("listeners", "nonsense"), "Error creating broker listeners from 'nonsense': Unable to parse nonsense to a broker endpoint"},
		{base("inter.broker.listener.name", "PLAINTEXT", "security.inter.broker.protocol", "PLAINTEXT"), "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set."},
		{base("inter.broker.protocol.version", "0.10.1", "log.message.format.version", "0.10.2"), "requirement failed: log.message.format.version 0.10.2 cannot be used when inter.broker.protocol.version is set to 0.10.1"},
		{base("inter.broker.protocol.version", "0.7"), "Version `0.7` is not a valid version"},
		{base("num.io.threads", "0"), "Invalid value 0 for configuration num.io.threads: Value must be at least 1"},
		{base("log.cleanup.policy", "compact,bogus"), "Invalid value bogus for configuration log.cleanup.policy: String must be one of: compact, delete"},
		// zkafka's refusals of what it does not build (security_support.go)
		{base("listeners", "PLAINTEXT://:9092,SSL://:9093"), "ssl.keystore.location is required for SSL listeners"},
		{base("listeners", "PLAINTEXT://:9092,SSL://:9093", "ssl.keystore.location", "/etc/kafka/server.keystore.jks"), "ssl.keystore.type JKS is not supported by zkafka: convert the store to PKCS12 with `keytool -importkeystore -srckeystore /etc/kafka/server.keystore.jks -destkeystore /etc/kafka/server.keystore.p12 -deststoretype PKCS12` and set ssl.keystore.type=PKCS12"},
		{base("listeners", "PLAINTEXT://:9092,SSL://:9093", "ssl.keystore.location", "/k.p12", "ssl.keystore.type", "PKCS12", "ssl.client.auth", "required"), "ssl.truststore.location is required when ssl.client.auth is required"},
		{base("listeners", "PLAINTEXT://:9092,SASL_PLAINTEXT://:9093"), "SASL mechanism GSSAPI in sasl.enabled.mechanisms is not supported by zkafka (supported: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)"},
		{base("listeners", "SSL://:9093", "ssl.keystore.type", "PKCS12", "ssl.keystore.location", "/k.p12", "security.inter.broker.protocol", "SSL"), "ssl.truststore.location is required when security.inter.broker.protocol is SSL"},
		{base("principal.builder.class", "com.example.Builder"), "principal.builder.class com.example.Builder is not supported by zkafka: the principal is DefaultPrincipalBuilder's"},
		{base("authorizer.class.name", "com.example.MyAuthorizer"), "authorizer.class.name com.example.MyAuthorizer is not supported by zkafka: the only authorizer is kafka.security.auth.SimpleAclAuthorizer"},
	}
	for _, c := range cases {
		_, err := FromProps(c.props)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v:\n got  %v\n want %s", c.props, err, c.want)
		}
	}
}

func TestApiVersionAndOverrides(t *testing.T) {
	v, err := ParseApiVersion("0.10.2.1")
	if err != nil || v.String() != "0.10.2-IV0" {
		t.Fatalf("%v %v", v, err)
	}
	old, _ := ParseApiVersion("0.9.0")
	if old.AtLeast(v) || !v.AtLeast(old) || old.MessageFmt != 0 || v.MessageFmt != 1 {
		t.Fatal("ordering")
	}
	p, err := ApplyOverrides(map[string]string{"broker.id": "0"}, []string{"broker.id=2", "log.dirs=/x"})
	if err != nil || p["broker.id"] != "2" || p["log.dirs"] != "/x" {
		t.Fatalf("%v %v", p, err)
	}
	if _, err := ApplyOverrides(nil, []string{"a=b=c"}); err == nil || err.Error() != "Invalid command line properties: a=b=c" {
		t.Fatalf("err %v", err)
	}
	c := mustConfig(t, map[string]string{"zookeeper.connect": "zk", "ssl.key.password": "secret"})
	if s := c.LogString(); !strings.Contains(s, "ssl.key.password = [hidden]") || !strings.Contains(s, "\tzookeeper.connect = zk\n") {
		t.Fatalf("LogString:\n%s", s)
	}
}
