package network

import (
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/metrics"
)

// BenchmarkUpdateRequestMetrics is the per-response cost metrics add to a Processor (a consumer
// fetch: two label sets, one meter and seven histograms each).
func BenchmarkUpdateRequestMetrics(b *testing.B) {
	m := newRequestMetricsMap(metrics.NewRegistry(nil))
	now := time.Now()
	req := &Request{Header: protocol.RequestHeader{ApiKey: protocol.Fetch}, Body: &protocol.FetchRequest{ReplicaID: -1},
		StartTime: now.Add(-3 * time.Millisecond), DequeueTime: now.Add(-2 * time.Millisecond),
		responseComplete: now.Add(-time.Millisecond)}
	req.responseDequeue.Store(now.UnixNano())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.updateRequestMetrics(req, now)
	}
}
