// Package config is the broker's configuration: KafkaConfig parsed from server.properties (plus
// --override pairs) with 0.10.2's keys, defaults, validation messages, derived values and
// cross-field checks, and ApiVersion (inter.broker.protocol.version / log.message.format.version).
//
// Kafka 0.10.2: kafka.server (core/src/main/scala/kafka/server/KafkaConfig.scala: KafkaConfig,
// Defaults) and kafka.api (core/src/main/scala/kafka/api/ApiVersion.scala).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.1 (broker startup reads KafkaConfig), 《Kafka技术内幕》 ch.1.4.
//
// It is a leaf under core/server (docs/design.md §1.2 row 1): the network, log, controller and
// coordinator packages read it, and core/server imports all of them. The key table lives in
// config_def.go (every key of 0.10.2's KafkaConfig.configDef), the typed fields in props.go;
// docs/design.md §6 describes the pattern.
package config
