// Package config defines typed configuration keys (ConfigDef), parses string property maps into
// typed values with Kafka's validation messages (AbstractConfig), copies them into the typed
// fields of a configuration struct (AbstractConfig.Fill, checked by CheckFields), and reads
// java.util.Properties files.
//
// Kafka 0.10.2: org.apache.kafka.common.config (clients/src/main/java/org/apache/kafka/common/config),
// and kafka.utils.Utils.loadProps / VerifiableProperties, whose jobs this package takes over.
//
// Bookmap: 《Kafka技术内幕》 ch.1.4 (config files), 《Apache Kafka源码剖析》 §4.1 (KafkaConfig).
//
// Parsing follows ConfigDef.parseType: every value is trimmed first; INT/SHORT/LONG/DOUBLE/BOOLEAN
// are parsed strictly; LIST splits on commas with surrounding spaces; an empty LIST is empty. The
// error strings are Kafka's, because operators grep for them.
//
// Every configuration type (the broker's KafkaConfig, the producer's and consumer's configs)
// follows one pattern, described on AbstractConfig: a ConfigDef, one struct field per key tagged
// `config:"key"` filled once at construction, cross-key checks in a validate step, and a test
// calling CheckFields. No code outside the configuration packages looks a key up by its name.
package config
