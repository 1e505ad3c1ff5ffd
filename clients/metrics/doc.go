// Package metrics is Kafka's client metrics library: named Sensors that record values into
// windowed statistics (Rate, Avg, Max, Min, Count, Total, Percentiles), each exposed as a
// KafkaMetric under a MetricName (name, group, tags) in a Metrics registry, with an optional
// Quota per metric that a record may violate (QuotaViolationError), and reporters that see every
// metric added or removed. The producer's metrics (record-send-rate, request-latency-avg,
// buffer-available-bytes, ...) and, later, the broker's quotas are built on it.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics and org.apache.kafka.common.metrics.stats
// (clients/src/main/java/org/apache/kafka/common/metrics), org.apache.kafka.common.MetricName.
// The stats live in this package rather than a stats sub-package: in Java, stats imports
// metrics (MetricConfig, MeasurableStat) and the registry is used with them side by side; Go's
// import ranks (layout.md B.4) put both at the same rank, where neither may import the other.
//
// Bookmap: 《Apache Kafka源码剖析》 §2.4 (Sender's SenderMetrics), §4.x (quotas);
// 《Kafka技术内幕》 §2.1 (producer metrics).
//
// Windowed semantics (SampledStat): a stat keeps MetricConfig.Samples samples; a record goes into
// the current sample until it is older than TimeWindowMs (or holds EventWindow events), then the
// next one (reset) takes over, round robin. A measure first resets samples older than
// Samples*TimeWindowMs, then combines the rest. Rate divides a sampled total by the elapsed time
// since the oldest sample, counting at least Samples-1 full windows (so a fresh rate is not
// inflated by a tiny elapsed time).
//
// Concurrency and lock order: a Sensor's mutex guards its stats (record and measure take it);
// the metrics of a sensor share that mutex, metrics added with AddMetric have their own. Lock
// order, as in Kafka: Sensor.mu, then Metrics.mu (Sensor.Add registers while holding its own
// lock; RemoveSensor takes the sensor's lock first). Reporters are called with Metrics.mu held:
// they must not call back into the registry nor measure a metric inside the callback (the
// go-metrics bridge measures lazily, when the gauge is read).
package metrics
