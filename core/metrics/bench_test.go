package metrics

import (
	"io"
	"testing"
	"time"
)

func BenchmarkMeterMark(b *testing.B) {
	m := NewKafkaMetricsGroup(NewRegistry(nil), "kafka.server", "BrokerTopicMetrics").NewMeter(BytesInPerSec, "bytes", time.Second)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Mark(100)
		}
	})
}

func BenchmarkHistogramUpdate(b *testing.B) {
	h := NewKafkaMetricsGroup(NewRegistry(nil), "kafka.network", "RequestMetrics").NewHistogram("TotalTimeMs", true)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Update(int64(i & 63))
	}
}

// BenchmarkWritePrometheus renders a registry the size of a broker's (the 184 request metrics
// plus topic meters).
func BenchmarkWritePrometheus(b *testing.B) {
	reg := NewRegistry(nil)
	bts := NewBrokerTopicStats(reg)
	for i := 0; i < 10; i++ {
		bts.TopicStats("topic-" + string(rune('a'+i))).BytesInRate.Mark(1)
	}
	g := NewKafkaMetricsGroup(reg, "kafka.network", "RequestMetrics")
	for i := 0; i < 23; i++ {
		tags := Tags("request", "R"+string(rune('A'+i)))
		g.NewMeter("RequestsPerSec", "requests", time.Second, tags...)
		for _, n := range []string{"RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ThrottleTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs", "TotalTimeMs"} {
			h := g.NewHistogram(n, true, tags...)
			for v := int64(0); v < 100; v++ {
				h.Update(v)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		WritePrometheus(io.Discard, reg)
	}
}
