package metrics

import (
	"math"
	"sync"
	"testing"
	"time"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestMeterRatesFollowTheClock: the one-minute rate starts at the first five-second period's
// instant rate and decays by exp(-5/60) per silent tick, as Yammer's OneMinuteRate does.
func TestMeterRatesFollowTheClock(t *testing.T) {
	reg, clock := newFakeRegistry()
	m := NewKafkaMetricsGroup(reg, "kafka.server", "BrokerTopicMetrics").NewMeter("MessagesInPerSec", "messages", time.Second)
	m.Mark(100)
	m.Mark(200)
	if m.Rate1() != 0 {
		t.Fatalf("rate before the first tick = %v, want 0", m.Rate1())
	}
	clock.advance(5 * time.Second)
	near(t, "Rate1 after one tick", m.Rate1(), 60)
	near(t, "Rate5 after one tick", m.Rate5(), 60)
	near(t, "RateMean", m.RateMean(), 60)
	clock.advance(60 * time.Second) // twelve silent ticks: e^-1
	near(t, "Rate1 a minute later", m.Rate1(), 60*math.Exp(-1))
	near(t, "Rate5 a minute later", m.Rate5(), 60*math.Exp(-1.0/5))
	near(t, "Rate15 a minute later", m.Rate15(), 60*math.Exp(-1.0/15))
	near(t, "RateMean a minute later", m.RateMean(), 300.0/65)
	if m.Count() != 300 {
		t.Fatalf("Count = %d", m.Count())
	}
	clock.advance(2 * time.Second) // not a whole tick: no change
	near(t, "Rate1 mid-period", m.Rate1(), 60*math.Exp(-1))
}

// TestNanosecondMeterGivesAFraction: RequestHandlerAvgIdlePercent marks idle nanoseconds on a
// per-nanosecond meter, so its rate is the idle fraction.
func TestNanosecondMeterGivesAFraction(t *testing.T) {
	reg, clock := newFakeRegistry()
	m := NewKafkaMetricsGroup(reg, "kafka.server", "KafkaRequestHandlerPool").NewMeter("RequestHandlerAvgIdlePercent", "percent", time.Nanosecond)
	m.Mark(int64(5 * time.Second / 4)) // a quarter of five seconds idle
	clock.advance(5 * time.Second)
	near(t, "idle fraction", m.Rate1(), 0.25)
}

func TestMeterConcurrentMarks(t *testing.T) {
	reg, clock := newFakeRegistry()
	m := NewKafkaMetricsGroup(reg, "g", "T").NewMeter("M", "events", time.Second)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				m.Mark(1)
				if j%100 == 0 {
					clock.advance(time.Second)
					_ = m.Rate1()
				}
			}
		}()
	}
	wg.Wait()
	if m.Count() != 8000 {
		t.Fatalf("Count = %d, want 8000", m.Count())
	}
}

func TestHistogramAndTimer(t *testing.T) {
	reg, _ := newFakeRegistry()
	g := NewKafkaMetricsGroup(reg, "kafka.network", "RequestMetrics")
	h := g.NewHistogram("TotalTimeMs", true, Tags("request", "Produce")...)
	for _, v := range []int64{1, 2, 3, 4, 10} {
		h.Update(v)
	}
	if h.Count() != 5 || h.Min() != 1 || h.Max() != 10 || h.Mean() != 4 {
		t.Fatalf("histogram count/min/max/mean = %d/%d/%d/%v", h.Count(), h.Min(), h.Max(), h.Mean())
	}
	if p := h.Percentile(0.5); p != 3 {
		t.Fatalf("median = %v", p)
	}
	if got := reg.Histogram("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce"); got == nil || got.Count() != 5 {
		t.Fatal("histogram not registered under its MBean name")
	}
	if u := g.NewHistogram("Unbiased", false); u == nil {
		t.Fatal("unbiased histogram")
	}

	timer := NewKafkaMetricsGroup(reg, "kafka.controller", "ControllerStats").NewTimer("LeaderElectionRateAndTimeMs", time.Millisecond, time.Second)
	kt := NewKafkaTimer(timer)
	timer.Update(3 * time.Millisecond)
	timer.Update(5 * time.Millisecond)
	kt.Time(func() {})
	if err := kt.TimeErr(func() error { return errTest }); err != errTest {
		t.Fatalf("TimeErr returned %v", err)
	}
	if timer.Count() != 4 {
		t.Fatalf("timer count = %d", timer.Count())
	}
	if timer.Max() != 5 {
		t.Fatalf("timer max = %d ms, want 5", timer.Max())
	}
	if mean := timer.Mean(); mean < 2 || mean > 2.1 {
		t.Fatalf("timer mean = %v ms, want about 2", mean)
	}
	if reg.Timer("kafka.controller:type=ControllerStats,name=LeaderElectionRateAndTimeMs") != timer {
		t.Fatal("timer not registered")
	}
}

type testError struct{}

func (testError) Error() string { return "test" }

var errTest error = testError{}

// TestRegistrySemantics: meters, histograms and timers are get-or-add (shared), gauges are replaced,
// RemoveMetric unregisters, and a nil registry hands out working unregistered metrics.
func TestRegistrySemantics(t *testing.T) {
	reg, _ := newFakeRegistry()
	g := NewKafkaMetricsGroup(reg, "kafka.server", "ReplicaManager")
	a := g.NewMeter("IsrShrinksPerSec", "shrinks", time.Second)
	b := g.NewMeter("IsrShrinksPerSec", "shrinks", time.Second)
	if a != b {
		t.Fatal("two NewMeter calls for one name gave two meters")
	}
	g.NewGauge("LeaderCount", func() int64 { return 1 })
	g.NewGauge("LeaderCount", func() int64 { return 2 })
	if v, ok := reg.GaugeValue("kafka.server:type=ReplicaManager,name=LeaderCount"); !ok || v != 2 {
		t.Fatalf("gauge = %v %v, want the newer closure's 2", v, ok)
	}
	g.NewGaugeFloat64("Ratio", func() float64 { return 0.5 })
	if v, _ := reg.GaugeValue("kafka.server:type=ReplicaManager,name=Ratio"); v != 0.5 {
		t.Fatalf("float gauge = %v", v)
	}
	g.RemoveMetric("LeaderCount")
	if _, ok := reg.GaugeValue("kafka.server:type=ReplicaManager,name=LeaderCount"); ok {
		t.Fatal("RemoveMetric left the gauge")
	}

	var none *Registry
	ng := NewKafkaMetricsGroup(none, "kafka.server", "ReplicaManager")
	m := ng.NewMeter("IsrShrinksPerSec", "shrinks", time.Second)
	m.Mark(3)
	ng.NewGauge("LeaderCount", func() int64 { return 1 })
	ng.NewHistogram("H", true).Update(1)
	ng.NewTimer("T", time.Millisecond, time.Second).Update(time.Millisecond)
	ng.RemoveMetric("LeaderCount")
	if m.Count() != 3 || none.Names() != nil || none.Meter("x") != nil {
		t.Fatal("nil registry: metrics must work and nothing be registered")
	}
}

func TestBrokerTopicStats(t *testing.T) {
	reg, _ := newFakeRegistry()
	s := NewBrokerTopicStats(reg)
	s.BrokerAllTopicsStats().BytesInRate.Mark(10)
	s.TopicStats("t").BytesInRate.Mark(7)
	s.TopicStats("t").MessagesInRate.Mark(2)
	if s.TopicStats("t") != s.TopicStats("t") {
		t.Fatal("TopicStats made a second BrokerTopicMetrics for one topic")
	}
	if m := reg.Meter("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec"); m == nil || m.Count() != 10 {
		t.Fatalf("all-topics BytesInPerSec = %v", m)
	}
	if m := reg.Meter("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=t"); m == nil || m.Count() != 7 {
		t.Fatalf("topic BytesInPerSec = %v", m)
	}
	if m := reg.Meter("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=t"); m == nil || m.Count() != 2 {
		t.Fatalf("topic MessagesInPerSec = %v", m)
	}
	s.RemoveMetrics("t")
	for _, n := range reg.Names() {
		if len(n) > 0 && n[len(n)-8:] == ",topic=t" {
			t.Fatalf("RemoveMetrics left %s", n)
		}
	}
	if len(reg.Names()) != 8 {
		t.Fatalf("want the 8 all-topics meters left, got %v", reg.Names())
	}
	if s.TopicStats("t").BytesInRate.Count() != 0 {
		t.Fatal("a topic's meters after RemoveMetrics must start again from zero")
	}
}
