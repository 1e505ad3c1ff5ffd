package consumer

import "github.com/zkafka/zkafka/clients/metrics"

// groupCoordinatorMetrics are the consumer-coordinator-metrics. A nil one records nothing.
//
// Kafka 0.10.2: AbstractCoordinator.GroupCoordinatorMetrics and
// ConsumerCoordinator.ConsumerCoordinatorMetrics (same sensor and metric names).
type groupCoordinatorMetrics struct {
	heartbeatLatency, joinLatency, syncLatency, commitLatency *metrics.Sensor
}

const coordinatorGrp = "consumer-coordinator-metrics"

func newGroupCoordinatorMetrics(m *metrics.Metrics, assigned func() int) *groupCoordinatorMetrics {
	if m == nil {
		return nil
	}
	gm := &groupCoordinatorMetrics{}
	name := func(n, desc string) metrics.MetricName { return m.MetricName(n, coordinatorGrp, desc, nil) }
	add := func(s *metrics.Sensor, n metrics.MetricName, st metrics.MeasurableStat) { _ = s.Add(n, st, nil) }
	gm.heartbeatLatency = m.Sensor("heartbeat-latency")
	add(gm.heartbeatLatency, name("heartbeat-response-time-max", "The max time taken to receive a response to a heartbeat request"), metrics.NewMax())
	add(gm.heartbeatLatency, name("heartbeat-rate", "The average number of heartbeats per second"), metrics.NewRateOf(metrics.NewCount()))
	gm.joinLatency = m.Sensor("join-latency")
	add(gm.joinLatency, name("join-time-avg", "The average time taken for a group rejoin"), metrics.NewAvg())
	add(gm.joinLatency, name("join-time-max", "The max time taken for a group rejoin"), metrics.NewMax())
	add(gm.joinLatency, name("join-rate", "The number of group joins per second"), metrics.NewRateOf(metrics.NewCount()))
	gm.syncLatency = m.Sensor("sync-latency")
	add(gm.syncLatency, name("sync-time-avg", "The average time taken for a group sync"), metrics.NewAvg())
	add(gm.syncLatency, name("sync-time-max", "The max time taken for a group sync"), metrics.NewMax())
	add(gm.syncLatency, name("sync-rate", "The number of group syncs per second"), metrics.NewRateOf(metrics.NewCount()))
	gm.commitLatency = m.Sensor("commit-latency")
	add(gm.commitLatency, name("commit-latency-avg", "The average time taken for a commit request"), metrics.NewAvg())
	add(gm.commitLatency, name("commit-latency-max", "The max time taken for a commit request"), metrics.NewMax())
	add(gm.commitLatency, name("commit-rate", "The number of commit calls per second"), metrics.NewRateOf(metrics.NewCount()))
	_ = m.AddMetric(name("assigned-partitions", "The number of partitions currently assigned to this consumer"), nil,
		metrics.MeasurableFunc(func(*metrics.MetricConfig, int64) float64 { return float64(assigned()) }))
	return gm
}

func (g *groupCoordinatorMetrics) record(s func(*groupCoordinatorMetrics) *metrics.Sensor, v int64) {
	if g != nil {
		_ = s(g).RecordValue(float64(v))
	}
}

func (g *groupCoordinatorMetrics) recordHeartbeat(ms int64) {
	g.record(func(g *groupCoordinatorMetrics) *metrics.Sensor { return g.heartbeatLatency }, ms)
}
func (g *groupCoordinatorMetrics) recordJoin(ms int64) {
	g.record(func(g *groupCoordinatorMetrics) *metrics.Sensor { return g.joinLatency }, ms)
}
func (g *groupCoordinatorMetrics) recordSync(ms int64) {
	g.record(func(g *groupCoordinatorMetrics) *metrics.Sensor { return g.syncLatency }, ms)
}
func (g *groupCoordinatorMetrics) recordCommit(ms int64) {
	g.record(func(g *groupCoordinatorMetrics) *metrics.Sensor { return g.commitLatency }, ms)
}
