package server

import (
	"time"

	"github.com/zkafka/zkafka/core/metrics"
)

// idleMarkInterval bounds how long a handler waits before it reports its idle time.
const idleMarkInterval = 300 * time.Millisecond

// RegisterMetrics registers kafka.server:type=KafkaRequestHandlerPool,
// name=RequestHandlerAvgIdlePercent, the meter every handler marks with its time spent waiting
// for a request, divided by the number of handlers. Its rate unit is the nanosecond, so its
// rates are idle nanoseconds per nanosecond: the pool's average idle fraction, 0 to 1 (Kafka's
// "Percent" is a fraction too). A nil registry registers nothing.
//
// Kafka 0.10.2: KafkaRequestHandlerPool.aggregateIdleMeter.
func (p *KafkaRequestHandlerPool) RegisterMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	p.idleMeter.Store(metrics.NewKafkaMetricsGroup(reg, "kafka.server", "KafkaRequestHandlerPool").
		NewMeter("RequestHandlerAvgIdlePercent", "percent", time.Nanosecond))
}

// markIdle marks the time since waitStart as this handler's share of the pool's idle time.
func (h *KafkaRequestHandler) markIdle(waitStart time.Time) {
	m := h.idleMeter.Load()
	if m == nil {
		return
	}
	m.Mark(int64(time.Since(waitStart)) / int64(max(h.totalHandlers, 1)))
}
