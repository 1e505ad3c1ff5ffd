package producer

import (
	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/metrics"
)

// senderMetrics are the Sender's metrics in producer-metrics, and per topic in
// producer-topic-metrics (tag topic). A nil *senderMetrics records nothing.
//
// Kafka 0.10.2: Sender.SenderMetrics (same sensor and metric names).
type senderMetrics struct {
	m                                                          *metrics.Metrics
	time                                                       common.Time
	retrySensor, errorSensor, queueTimeSensor, requestTimeSens *metrics.Sensor
	recordsPerRequest, batchSize, compressionRate, maxRecordSz *metrics.Sensor
	produceThrottleTime                                        *metrics.Sensor
}

const senderGrp = "producer-metrics"

func newSenderMetrics(m *metrics.Metrics, client clients.KafkaClient, metadata *clients.Metadata, t common.Time) *senderMetrics {
	if m == nil {
		return nil
	}
	sm := &senderMetrics{m: m, time: t}
	name := func(n, desc string) metrics.MetricName { return m.MetricName(n, senderGrp, desc, nil) }
	add := func(s *metrics.Sensor, n metrics.MetricName, st metrics.MeasurableStat) { _ = s.Add(n, st, nil) }

	sm.batchSize = m.Sensor("batch-size")
	add(sm.batchSize, name("batch-size-avg", "The average number of bytes sent per partition per-request."), metrics.NewAvg())
	add(sm.batchSize, name("batch-size-max", "The max number of bytes sent per partition per-request."), metrics.NewMax())
	sm.compressionRate = m.Sensor("compression-rate")
	add(sm.compressionRate, name("compression-rate-avg", "The average compression rate of record batches."), metrics.NewAvg())
	sm.queueTimeSensor = m.Sensor("queue-time")
	add(sm.queueTimeSensor, name("record-queue-time-avg", "The average time in ms record batches spent in the record accumulator."), metrics.NewAvg())
	add(sm.queueTimeSensor, name("record-queue-time-max", "The maximum time in ms record batches spent in the record accumulator."), metrics.NewMax())
	sm.requestTimeSens = m.Sensor("request-time")
	add(sm.requestTimeSens, name("request-latency-avg", "The average request latency in ms"), metrics.NewAvg())
	add(sm.requestTimeSens, name("request-latency-max", "The maximum request latency in ms"), metrics.NewMax())
	sm.produceThrottleTime = m.Sensor("produce-throttle-time")
	add(sm.produceThrottleTime, name("produce-throttle-time-avg", "The average throttle time in ms"), metrics.NewAvg())
	add(sm.produceThrottleTime, name("produce-throttle-time-max", "The maximum throttle time in ms"), metrics.NewMax())
	sm.recordsPerRequest = m.Sensor("records-per-request")
	add(sm.recordsPerRequest, name("record-send-rate", "The average number of records sent per second."), metrics.NewRate())
	add(sm.recordsPerRequest, name("records-per-request-avg", "The average number of records per request."), metrics.NewAvg())
	sm.retrySensor = m.Sensor("record-retries")
	add(sm.retrySensor, name("record-retry-rate", "The average per-second number of retried record sends"), metrics.NewRate())
	sm.errorSensor = m.Sensor("errors")
	add(sm.errorSensor, name("record-error-rate", "The average per-second number of record sends that resulted in errors"), metrics.NewRate())
	sm.maxRecordSz = m.Sensor("record-size-max")
	add(sm.maxRecordSz, name("record-size-max", "The maximum record size"), metrics.NewMax())
	add(sm.maxRecordSz, name("record-size-avg", "The average record size"), metrics.NewAvg())
	_ = m.AddMetric(name("requests-in-flight", "The current number of in-flight requests awaiting a response."), nil,
		metrics.MeasurableFunc(func(*metrics.MetricConfig, int64) float64 { return float64(inFlight(client)) }))
	_ = m.AddMetric(name("metadata-age", "The age in seconds of the current producer metadata being used."), nil,
		metrics.MeasurableFunc(func(_ *metrics.MetricConfig, now int64) float64 {
			return float64(now-metadata.LastSuccessfulUpdate()) / 1000
		}))
	return sm
}

// inFlight reads the client's in-flight count for the gauge, from whichever goroutine reads
// the metric: NetworkClient exposes an atomic counter for that.
func inFlight(c clients.KafkaClient) int {
	if nc, ok := c.(interface{ InFlightRequestGauge() int }); ok {
		return nc.InFlightRequestGauge()
	}
	return 0
}

func (sm *senderMetrics) maybeRegisterTopicMetrics(topic string) {
	if sm.m.GetSensor("topic."+topic+".records-per-batch") != nil {
		return
	}
	tags := map[string]string{"topic": topic}
	const grp = "producer-topic-metrics"
	name := func(n string) metrics.MetricName { return sm.m.MetricName(n, grp, "", tags) }
	_ = sm.m.Sensor("topic."+topic+".records-per-batch").Add(name("record-send-rate"), metrics.NewRate(), nil)
	_ = sm.m.Sensor("topic."+topic+".bytes").Add(name("byte-rate"), metrics.NewRate(), nil)
	_ = sm.m.Sensor("topic."+topic+".compression-rate").Add(name("compression-rate"), metrics.NewAvg(), nil)
	_ = sm.m.Sensor("topic."+topic+".record-retries").Add(name("record-retry-rate"), metrics.NewRate(), nil)
	_ = sm.m.Sensor("topic."+topic+".record-errors").Add(name("record-error-rate"), metrics.NewRate(), nil)
}

func (sm *senderMetrics) updateProduceRequestMetrics(batches map[int32][]*RecordBatch) {
	if sm == nil {
		return
	}
	now := sm.time.Milliseconds()
	for _, list := range batches {
		records := 0
		for _, b := range list {
			topic := b.topicPartition.Topic
			sm.maybeRegisterTopicMetrics(topic)
			_ = sm.m.GetSensor("topic."+topic+".records-per-batch").RecordAt(float64(b.recordCount), now)
			_ = sm.m.GetSensor("topic."+topic+".bytes").RecordAt(float64(b.sizeInBytes()), now)
			_ = sm.m.GetSensor("topic."+topic+".compression-rate").RecordAt(b.compressionRate(), now)
			_ = sm.batchSize.RecordAt(float64(b.sizeInBytes()), now)
			_ = sm.queueTimeSensor.RecordAt(float64(b.drainedMs-b.createdMs), now)
			_ = sm.compressionRate.RecordAt(b.compressionRate(), now)
			_ = sm.maxRecordSz.RecordAt(float64(b.maxRecordSize), now)
			records += b.recordCount
		}
		_ = sm.recordsPerRequest.RecordAt(float64(records), now)
	}
}

func (sm *senderMetrics) recordRetries(topic string, count int) {
	if sm == nil {
		return
	}
	now := sm.time.Milliseconds()
	_ = sm.retrySensor.RecordAt(float64(count), now)
	if s := sm.m.GetSensor("topic." + topic + ".record-retries"); s != nil {
		_ = s.RecordAt(float64(count), now)
	}
}

func (sm *senderMetrics) recordErrors(topic string, count int) {
	if sm == nil {
		return
	}
	now := sm.time.Milliseconds()
	_ = sm.errorSensor.RecordAt(float64(count), now)
	if s := sm.m.GetSensor("topic." + topic + ".record-errors"); s != nil {
		_ = s.RecordAt(float64(count), now)
	}
}

func (sm *senderMetrics) recordLatency(node string, latency int64) {
	if sm == nil {
		return
	}
	now := sm.time.Milliseconds()
	_ = sm.requestTimeSens.RecordAt(float64(latency), now)
	if node != "" {
		if s := sm.m.GetSensor("node-" + node + ".latency"); s != nil {
			_ = s.RecordAt(float64(latency), now)
		}
	}
}

func (sm *senderMetrics) recordThrottleTime(ms int64) {
	if sm != nil {
		_ = sm.produceThrottleTime.RecordAt(float64(ms), sm.time.Milliseconds())
	}
}
