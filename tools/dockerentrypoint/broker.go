package dockerentrypoint

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	kconfig "github.com/zkafka/zkafka/clients/config"
	"github.com/zkafka/zkafka/core/server/config"
)

// The broker image's layout.
const (
	Home            = "/opt/zkafka"
	BrokerBinary    = Home + "/bin/zkafka"
	BrokerConfig    = Home + "/config/server.properties"
	brokerEnvPrefix = "KAFKA_"
)

// BrokerDefaults are the overrides the image applies before the KAFKA_* variables: a generated
// broker id (kept in meta.properties in the data volume), every interface on port 9092 (the
// container's host name advertised), and the data volume.
var BrokerDefaults = map[string]string{
	"broker.id": "-1",
	"listeners": "PLAINTEXT://:9092",
	"log.dirs":  "/var/lib/kafka/data",
}

// scriptVariables are read by Kafka's scripts (kafka-run-class.sh and friends), not broker
// settings; zkafka ignores them, and so does the mapping.
var scriptVariables = map[string]bool{
	"KAFKA_HEAP_OPTS": true, "KAFKA_JVM_PERFORMANCE_OPTS": true, "KAFKA_GC_LOG_OPTS": true,
	"KAFKA_LOG4J_OPTS": true, "KAFKA_JMX_OPTS": true, "KAFKA_OPTS": true, "KAFKA_DEBUG": true,
	"KAFKA_HOME": true,
}

// ConfigKey maps a KAFKA_* variable name to its server.properties key
// (KAFKA_LOG_RETENTION_HOURS -> log.retention.hours); ok is false for other names and for the
// scripts' own variables.
func ConfigKey(variable string) (key string, ok bool) {
	rest, found := strings.CutPrefix(variable, brokerEnvPrefix)
	if !found || rest == "" || scriptVariables[variable] {
		return "", false
	}
	return strings.ToLower(strings.ReplaceAll(rest, "_", ".")), true
}

// BrokerSettings is the image defaults overlaid with every KAFKA_* variable of env, each checked
// against KafkaConfig's keys. zookeeper.connect must be set.
func BrokerSettings(env map[string]string) (map[string]string, error) {
	known := map[string]bool{}
	for _, n := range config.ConfigNames() {
		known[n] = true
	}
	out := map[string]string{}
	for k, v := range BrokerDefaults {
		out[k] = v
	}
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(env)) {
		key, ok := ConfigKey(name)
		if !ok {
			continue
		}
		if !known[key] {
			bad = append(bad, fmt.Sprintf("%s (%s)", name, key))
			continue
		}
		out[key] = env[name]
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("no broker configuration key for %s: KAFKA_<KEY> stands for the server.properties key <key> with dots as underscores", strings.Join(bad, ", "))
	}
	if strings.TrimSpace(out["zookeeper.connect"]) == "" {
		return nil, errors.New("KAFKA_ZOOKEEPER_CONNECT is required (zookeeper.connect, e.g. zk1:2181,zk2:2181,zk3:2181)")
	}
	return out, nil
}

// BrokerCommand is the command line the broker container execs:
// `zkafka server-start server.properties --override k=v ...`, the overrides in key order.
func BrokerCommand(env map[string]string) ([]string, error) {
	settings, err := BrokerSettings(env)
	if err != nil {
		return nil, err
	}
	argv := []string{BrokerBinary, "server-start", BrokerConfig}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		argv = append(argv, "--override", k+"="+settings[k])
	}
	return argv, nil
}

// brokerID is the broker's id: broker.id when set (not -1), else the one the broker generated
// and stored in meta.properties in its first log directory.
func brokerID(settings map[string]string) (string, error) {
	if id := strings.TrimSpace(settings["broker.id"]); id != "" && id != "-1" {
		return id, nil
	}
	dirs := strings.Split(settings["log.dirs"], ",")
	meta := filepath.Join(strings.TrimSpace(dirs[0]), "meta.properties")
	props, err := kconfig.LoadProps(meta)
	if err != nil {
		return "", fmt.Errorf("broker.id is generated and %s is not readable yet: %w", meta, err)
	}
	id := strings.TrimSpace(props["broker.id"])
	if id == "" {
		return "", fmt.Errorf("%s has no broker.id", meta)
	}
	return id, nil
}
