package network

import (
	"strconv"
	"time"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/core/metrics"
)

// The two extra request labels Kafka keeps for fetches, beside "Fetch": consumers' fetches and
// followers' (replica id >= 0).
const (
	ConsumerFetchMetricName = "FetchConsumer"
	FollowFetchMetricName   = "FetchFollower"
)

// RequestMetrics are the per-request-type meter and time histograms (all in milliseconds) of
// kafka.network:type=RequestMetrics,name=...,request=<ApiKeys name>.
//
// Kafka 0.10.2: kafka.network.RequestMetrics. Kafka keeps them in a JVM-wide object; here the
// SocketServer builds one set per broker over the registry it was given.
type RequestMetrics struct {
	RequestRate           *metrics.Meter     // RequestsPerSec
	RequestQueueTimeHist  *metrics.Histogram // RequestQueueTimeMs: dequeue - start
	LocalTimeHist         *metrics.Histogram // LocalTimeMs: api local complete - dequeue
	RemoteTimeHist        *metrics.Histogram // RemoteTimeMs: api remote complete - local complete (purgatory)
	ThrottleTimeHist      *metrics.Histogram // ThrottleTimeMs: response complete - remote complete (quotas)
	ResponseQueueTimeHist *metrics.Histogram // ResponseQueueTimeMs: response dequeue - response complete
	ResponseSendTimeHist  *metrics.Histogram // ResponseSendTimeMs: end - response dequeue
	TotalTimeHist         *metrics.Histogram // TotalTimeMs: end - start
}

func newRequestMetrics(reg *metrics.Registry, name string) *RequestMetrics {
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.network", "RequestMetrics")
	tags := metrics.Tags("request", name)
	h := func(n string) *metrics.Histogram { return g.NewHistogram(n, true, tags...) }
	return &RequestMetrics{
		RequestRate:           g.NewMeter("RequestsPerSec", "requests", time.Second, tags...),
		RequestQueueTimeHist:  h("RequestQueueTimeMs"),
		LocalTimeHist:         h("LocalTimeMs"),
		RemoteTimeHist:        h("RemoteTimeMs"),
		ThrottleTimeHist:      h("ThrottleTimeMs"),
		ResponseQueueTimeHist: h("ResponseQueueTimeMs"),
		ResponseSendTimeHist:  h("ResponseSendTimeMs"),
		TotalTimeHist:         h("TotalTimeMs"),
	}
}

// requestMetricsMap is every request label's RequestMetrics, made up front as Kafka's
// RequestMetrics object does (so every name is visible before the first request). Read-only once
// built, so the Processors share it without a lock. nil means metrics are off.
type requestMetricsMap map[string]*RequestMetrics

func newRequestMetricsMap(reg *metrics.Registry) requestMetricsMap {
	if reg == nil {
		return nil
	}
	m := requestMetricsMap{}
	for k := protocol.ApiKeys(0); k <= protocol.MaxApiKey; k++ {
		m[k.String()] = newRequestMetrics(reg, k.String())
	}
	m[ConsumerFetchMetricName] = newRequestMetrics(reg, ConsumerFetchMetricName)
	m[FollowFetchMetricName] = newRequestMetrics(reg, FollowFetchMetricName)
	return m
}

// MarkAPILocalComplete records that KafkaApis finished the local part of the request (Kafka sets
// apiLocalCompleteTimeMs in KafkaApis.handle's finally block). Safe to call from any goroutine,
// also after the response has gone: then it has no effect on the metrics, which fall back to the
// response completion time as Kafka's do.
func (r *Request) MarkAPILocalComplete() { r.apiLocalComplete.Store(time.Now().UnixNano()) }

// MarkAPIRemoteComplete records that the delayed part (purgatory) finished, before any quota
// throttling (Kafka: apiRemoteCompleteTimeMs, set in the produce and fetch response callbacks).
func (r *Request) MarkAPIRemoteComplete() { r.apiRemoteComplete.Store(time.Now().UnixNano()) }

// metricNames are the labels a completed request counts under.
func (r *Request) metricNames() []string {
	name := r.Header.ApiKey.String()
	if r.Header.ApiKey == protocol.Fetch {
		if f, ok := r.Body.(*protocol.FetchRequest); ok {
			if f.ReplicaID >= 0 {
				return []string{FollowFetchMetricName, name}
			}
			return []string{ConsumerFetchMetricName, name}
		}
	}
	return []string{name}
}

// updateRequestMetrics records a finished request (Kafka: RequestChannel.Request.updateRequestMetrics,
// called by the Processor when the response is sent, dropped, or its connection closed). Each
// interval is clamped at zero; unset marks fall back as in Kafka: local complete and remote complete
// default to the response completion time.
func (m requestMetricsMap) updateRequestMetrics(r *Request, end time.Time) {
	if m == nil || r == nil {
		return
	}
	at := func(ns int64) time.Time { return time.Unix(0, ns) }
	responseComplete := r.responseComplete
	if responseComplete.IsZero() {
		responseComplete = end
	}
	responseDequeue := responseComplete
	if ns := r.responseDequeue.Load(); ns != 0 {
		responseDequeue = at(ns)
	}
	dequeue := r.DequeueTime
	if dequeue.IsZero() {
		dequeue = r.StartTime
	}
	local := responseComplete
	if ns := r.apiLocalComplete.Load(); ns != 0 {
		local = at(ns)
	}
	remote := responseComplete
	if ns := r.apiRemoteComplete.Load(); ns != 0 {
		remote = at(ns)
	}
	ms := func(from, to time.Time) int64 {
		if d := to.Sub(from); d > 0 {
			return d.Milliseconds()
		}
		return 0
	}
	requestQueueTime := ms(r.StartTime, dequeue)
	apiLocalTime := ms(dequeue, local)
	apiRemoteTime := ms(local, remote)
	apiThrottleTime := ms(remote, responseComplete)
	responseQueueTime := ms(responseComplete, responseDequeue)
	responseSendTime := ms(responseDequeue, end)
	totalTime := ms(r.StartTime, end)
	for _, name := range r.metricNames() {
		rm, ok := m[name]
		if !ok {
			continue
		}
		rm.RequestRate.Mark(1)
		rm.RequestQueueTimeHist.Update(requestQueueTime)
		rm.LocalTimeHist.Update(apiLocalTime)
		rm.RemoteTimeHist.Update(apiRemoteTime)
		rm.ThrottleTimeHist.Update(apiThrottleTime)
		rm.ResponseQueueTimeHist.Update(responseQueueTime)
		rm.ResponseSendTimeHist.Update(responseSendTime)
		rm.TotalTimeHist.Update(totalTime)
	}
}

// registerRequestChannelGauges adds kafka.network:type=RequestChannel RequestQueueSize and
// ResponseQueueSize (in total and per processor).
func (rc *RequestChannel) registerGauges(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	g := metrics.NewKafkaMetricsGroup(reg, "kafka.network", "RequestChannel")
	g.NewGauge("RequestQueueSize", func() int64 { return int64(rc.RequestQueueSize()) })
	g.NewGauge("ResponseQueueSize", func() int64 {
		n := 0
		for i := range rc.responseQueues {
			n += rc.ResponseQueueSize(i)
		}
		return int64(n)
	})
	for i := range rc.responseQueues {
		g.NewGauge("ResponseQueueSize", func() int64 { return int64(rc.ResponseQueueSize(i)) },
			metrics.Tags("processor", strconv.Itoa(i))...)
	}
}

// idleMeter measures the share of time a Processor's loop waits for work: the meter counts idle
// nanoseconds per nanosecond, so its one-minute rate is the idle fraction. It stands in for the
// KSelector's io-wait-ratio behind Kafka's IdlePercent gauges. nil means metrics are off.
type idleMeter struct{ m *metrics.Meter }

func (im *idleMeter) begin() time.Time {
	if im == nil {
		return time.Time{}
	}
	return time.Now()
}

func (im *idleMeter) end(start time.Time) {
	if im == nil {
		return
	}
	im.m.Mark(int64(time.Since(start)))
}

func (im *idleMeter) fraction() float64 {
	v := im.m.Rate1()
	if v > 1 {
		v = 1
	}
	return v
}

// registerProcessorGauges adds kafka.network:type=Processor,name=IdlePercent,networkProcessor=<id>
// for each Processor and kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent, their
// mean (both fractions between 0 and 1, as in Kafka despite the names).
func registerProcessorGauges(reg *metrics.Registry, meters []*idleMeter, ids []int) {
	if reg == nil || len(meters) == 0 {
		return
	}
	pg := metrics.NewKafkaMetricsGroup(reg, "kafka.network", "Processor")
	for i, im := range meters {
		pg.NewGaugeFloat64("IdlePercent", im.fraction, metrics.Tags("networkProcessor", strconv.Itoa(ids[i]))...)
	}
	metrics.NewKafkaMetricsGroup(reg, "kafka.network", "SocketServer").NewGaugeFloat64("NetworkProcessorAvgIdlePercent",
		func() float64 {
			sum := 0.0
			for _, im := range meters {
				sum += im.fraction()
			}
			return sum / float64(len(meters))
		})
}
