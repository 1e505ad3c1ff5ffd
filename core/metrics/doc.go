// Package metrics names and holds a broker's metrics the way Kafka 0.10.2 exposes them over JMX:
// one registry per broker, every metric keyed by its MBean name
// ("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=t"), meters that give Kafka's
// OneMinuteRate, biased histograms, timers in milliseconds, and an HTTP endpoint (JSON and
// Prometheus text) that stands in for JMX.
//
// Kafka 0.10.2: kafka.metrics (core/src/main/scala/kafka/metrics: KafkaMetricsGroup, KafkaTimer,
// KafkaMetricsReporter) and kafka.server.BrokerTopicStats / BrokerTopicMetrics
// (core/src/main/scala/kafka/server/KafkaRequestHandler.scala), moved here because Log and
// ReplicaManager mark their meters (docs/design.md §1.2 row 7).
//
// Bookmap: 《Apache Kafka源码剖析》 §4.9 (JMX, the Yammer Metrics library, KafkaMetricsGroup),
// §4.2.1 (BrokerTopicStats); 《Kafka技术内幕》 and 《深入理解Kafka》 monitoring chapters (§10.1,
// OneMinuteRate). docs/metrics.md lists every name zkafka exports and where it is updated.
//
// Why one registry per broker and not Kafka's Metrics.defaultRegistry(): Kafka runs one broker per
// JVM, so a process-global registry is harmless there; zkafka's integration tests run several
// brokers in one process, and their metrics must not mix. A nil *Registry is valid everywhere:
// metrics built from it work but are not registered, so a component built without metrics needs no
// nil checks.
//
// Why our own Meter instead of go-metrics' StandardMeter: StandardMeter is ticked every five seconds
// by one process-global goroutine that never stops (a goleak failure in every package that uses
// it, and a wall clock tests cannot drive). Meter here ticks lazily when it is marked or read,
// catching up the five-second ticks it missed, as Dropwizard's Meter does; it reads the registry's
// injected Clock. The exponentially weighted averages themselves are go-metrics' EWMAs.
//
// Naming (KafkaMetricsGroup.explicitMetricName): "<group>:type=<type>[,name=<name>][,k=v...]",
// tags in the caller's order (Kafka's Scala Maps of up to four entries keep insertion order),
// tags whose value is empty dropped, values containing ':' quoted as javax.management.ObjectName
// quotes them.
//
// Units: meters report events per rate unit (per second unless the metric says otherwise:
// RequestHandlerAvgIdlePercent and the Processors' idle meters count nanoseconds per nanosecond,
// i.e. an idle fraction, exactly as Kafka's TimeUnit.NANOSECONDS meter does). Histograms named
// ...TimeMs hold whole milliseconds. Timers record nanoseconds and report milliseconds.
//
// Lock order: Registry.mu (the gauge replace path) is taken before go-metrics' registry lock;
// BrokerTopicStats.mu is a leaf; meters and histograms lock nothing of ours.
package metrics
