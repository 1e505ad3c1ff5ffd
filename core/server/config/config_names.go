package config

// ConfigNames lists every broker configuration key KafkaConfig defines, sorted (what
// server.properties may set; the Docker entrypoint checks its KAFKA_* variables against it).
//
// Kafka 0.10.2: kafka.server.KafkaConfig.configNames.
func ConfigNames() []string { return configDef().SortedNames() }
