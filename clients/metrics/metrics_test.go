package metrics

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	gometrics "github.com/rcrowley/go-metrics"
	"go.uber.org/goleak"

	"github.com/zkafka/zkafka/clients/common"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newTestMetrics(t *testing.T) (*Metrics, *common.MockTime) {
	t.Helper()
	mt := common.NewMockTime(0)
	return NewMetrics(nil, nil, mt, nil), mt
}

func value(t *testing.T, m *Metrics, name, group string) float64 {
	t.Helper()
	km := m.Metric(m.MetricName(name, group, "", nil))
	if km == nil {
		t.Fatalf("no metric %s/%s", group, name)
	}
	return km.Value()
}

// Kafka's MetricsTest.testMetrics: avg, max, min, rate, count and total over one sensor, with a
// parent sensor seeing the same values.
func TestSimpleStats(t *testing.T) {
	m, mt := newTestMetrics(t)
	parent := m.Sensor("parent")
	s := m.Sensor("test.sensor", parent)
	g := "grp1"
	add := func(s *Sensor, name string, st MeasurableStat) {
		if err := s.Add(m.MetricName(name, g, "", nil), st, nil); err != nil {
			t.Fatal(err)
		}
	}
	add(s, "test.avg", NewAvg())
	add(s, "test.max", NewMax())
	add(s, "test.min", NewMin())
	add(s, "test.rate", NewRate())
	add(s, "test.occurences", NewRateOf(NewCount()))
	add(s, "test.count", NewCount())
	add(s, "test.total", NewTotal())
	add(parent, "parent.count", NewCount())
	for i := 0; i < 10; i++ {
		if err := s.RecordValue(float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	mt.Sleep(time.Duration(m.Config().TimeWindowMs) * time.Millisecond) // one full window elapsed
	checks := map[string]float64{
		"test.avg": 4.5, "test.max": 9, "test.min": 0, "test.count": 10, "test.total": 45, "parent.count": 10,
		// two samples of 30 s: one full window elapsed, which is the minimum (samples-1) already
		"test.rate": 45.0 / 30, "test.occurences": 10.0 / 30,
	}
	for name, want := range checks {
		if got := value(t, m, name, g); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if err := s.Add(m.MetricName("test.avg", g, "", nil), NewAvg(), nil); !errors.Is(err, ErrDuplicateMetric) {
		t.Errorf("duplicate metric: %v", err)
	}
}

// Kafka's MetricsTest.testSampledStatInitialValue and testOldDataHasNoEffect: a max with no
// data is -Inf, and data older than samples*window no longer counts.
func TestSampledStatExpiry(t *testing.T) {
	max := NewMax()
	config := &MetricConfig{Samples: 3, TimeWindowMs: 1000, EventWindow: math.MaxInt64}
	if got := max.Measure(config, 0); !math.IsInf(got, -1) {
		t.Fatalf("empty max = %v", got)
	}
	max.Record(config, 50, 0)
	if got := max.Measure(config, 2999); got != 50 {
		t.Fatalf("max = %v", got)
	}
	if got := max.Measure(config, 3000); !math.IsInf(got, -1) {
		t.Fatalf("expired max = %v", got)
	}
	// An event window: the fourth record starts a new sample, and only Samples of them live on.
	count := NewCount()
	ev := &MetricConfig{Samples: 2, TimeWindowMs: 1 << 40, EventWindow: 3}
	for i := 0; i < 7; i++ {
		count.Record(ev, 1, 0)
	}
	if got := count.Measure(ev, 0); got != 4 { // samples hold 3 and 1 after the rotation (3+3+1)
		t.Fatalf("event-windowed count = %v", got)
	}
}

// Kafka's MetricsTest.testRateWindowing: the rate's window is the elapsed time since the
// oldest sample.
func TestRateWindowing(t *testing.T) {
	m, mt := newTestMetrics(t)
	config := &MetricConfig{Samples: 3, TimeWindowMs: 1000, EventWindow: math.MaxInt64}
	s := m.SensorWith("test.sensor", config, 0, INFO)
	if err := s.Add(m.MetricName("test.rate", "g", "", nil), NewRate(), config); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for i := 0; i < config.Samples*2; i++ { // fill 3 windows, 2 records each
		s.RecordValue(float64(i)) //nolint:errcheck
		sum += i
		if i%2 == 1 {
			mt.Sleep(time.Duration(config.TimeWindowMs) * time.Millisecond)
		}
	}
	// The oldest sample was rotated out; the live ones cover the last 3 windows.
	mt.Sleep(time.Duration(config.TimeWindowMs/2) * time.Millisecond)
	km := m.Metric(m.MetricName("test.rate", "g", "", nil))
	got := km.Value()
	// The 3 live samples hold windows 2 and 3 (values 2+3, 4+5) and an empty current one started
	// at t=3000; the oldest starts at t=1000, so 2.5 s have elapsed at t=3500.
	want := float64(2+3+4+5) / 2.5
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("rate = %v, want %v", got, want)
	}
}

// Kafka's MetricsTest.testQuotas: an upper bound violated by a record is reported, and the
// record counted; a lower bound likewise.
func TestQuotas(t *testing.T) {
	m, _ := newTestMetrics(t)
	s := m.Sensor("test")
	if err := s.Add(m.MetricName("test1.total", "grp1", "", nil), NewTotal(), m.Config().WithQuota(UpperBound(5))); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(m.MetricName("test2.total", "grp1", "", nil), NewTotal(), m.Config().WithQuota(LowerBound(0))); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordValue(5); err != nil {
		t.Fatalf("5.0 is within the quota: %v", err)
	}
	var qv *QuotaViolationError
	if err := s.RecordValue(1); !errors.As(err, &qv) || qv.Value != 6 || qv.Bound != 5 {
		t.Fatalf("expected an upper-bound violation, got %v", err)
	}
	if !strings.Contains(qv.Error(), "violated quota. Actual: 6.000000, Threshold: 5.000000") {
		t.Fatalf("message %q", qv.Error())
	}
	if got := value(t, m, "test1.total", "grp1"); got != 6 {
		t.Fatalf("the violating record was not counted: %v", got)
	}
	if err := s.RecordValue(-7); !errors.As(err, &qv) || qv.Bound != 0 {
		t.Fatalf("expected a lower-bound violation, got %v", err)
	}
	if !UpperBound(10).Acceptable(10) || UpperBound(10).Acceptable(10.01) || !LowerBound(10).Acceptable(10) {
		t.Fatal("Quota.Acceptable")
	}
}

// Kafka's MetricsTest.testPercentiles: 100 values 0..99 in a constant-bin histogram give
// percentiles within a bin of the truth.
func TestPercentiles(t *testing.T) {
	m, _ := newTestMetrics(t)
	buckets := 100
	p, err := NewPercentiles(4*buckets, 0, 100, CONSTANT,
		Percentile{m.MetricName("test.p25", "grp1", "", nil), 25},
		Percentile{m.MetricName("test.p50", "grp1", "", nil), 50},
		Percentile{m.MetricName("test.p75", "grp1", "", nil), 75})
	if err != nil {
		t.Fatal(err)
	}
	config := &MetricConfig{Samples: 1, TimeWindowMs: 1 << 40, EventWindow: 50}
	s := m.SensorWith("test", config, 0, INFO)
	if err := s.AddCompound(p, config); err != nil {
		t.Fatal(err)
	}
	for name := range map[string]bool{"test.p25": true, "test.p50": true, "test.p75": true} {
		if v := value(t, m, name, "grp1"); !math.IsNaN(v) {
			t.Fatalf("%s before records = %v", name, v)
		}
	}
	for i := 0; i < buckets; i++ {
		s.RecordValue(float64(i)) //nolint:errcheck
	}
	// With one sample of 50 events, only the second half (50..99) survives.
	for name, want := range map[string]float64{"test.p25": 62, "test.p50": 74, "test.p75": 87} {
		if got := value(t, m, name, "grp1"); math.Abs(got-want) > 1.5 {
			t.Errorf("%s = %v, want about %v", name, got, want)
		}
	}
	if _, err := NewPercentiles(40, 1, 10, LINEAR); err == nil {
		t.Fatal("linear bins with min != 0 must fail")
	}
	lin := NewLinearBinScheme(10, 100)
	for _, x := range []float64{0, 1, 7.5, 50, 99} {
		b := lin.ToBin(x)
		if lin.FromBin(b) > x || (b < lin.Bins()-2 && lin.FromBin(b+1) <= x) {
			t.Errorf("linear bin of %v: %d [%v, %v)", x, b, lin.FromBin(b), lin.FromBin(b+1))
		}
	}
}

// Kafka's MetricsTest.testRemoveSensor: removing a parent removes its children and their metrics.
func TestRemoveSensorAndReporter(t *testing.T) {
	m, _ := newTestMetrics(t)
	reg := gometrics.NewRegistry()
	rep := NewGoMetricsReporter("kafka.producer", reg)
	m.AddReporter(rep)
	parent := m.Sensor("parent")
	if err := parent.Add(m.MetricName("pc", "g", "", map[string]string{"client-id": "c"}), NewCount(), nil); err != nil {
		t.Fatal(err)
	}
	child := m.Sensor("child", parent)
	if err := child.Add(m.MetricName("cc", "g", "", nil), NewCount(), nil); err != nil {
		t.Fatal(err)
	}
	child.Record() //nolint:errcheck
	name := "kafka.producer:type=g,client-id=c,name=pc"
	g, ok := reg.Get(name).(gometrics.GaugeFloat64)
	if !ok || g.Value() != 1 {
		t.Fatalf("bridge gauge %s: %v", name, reg.Get(name))
	}
	m.RemoveSensor("parent")
	if m.GetSensor("child") != nil || m.GetSensor("parent") != nil {
		t.Fatal("sensors not removed")
	}
	if m.Metric(m.MetricName("cc", "g", "", nil)) != nil || reg.Get(name) != nil {
		t.Fatal("metrics not removed")
	}
	if got := value(t, m, "count", "kafka-metrics-count"); got != 1 {
		t.Fatalf("kafka-metrics-count = %v", got)
	}
	m.Close()
}

// Sensors are recorded from many goroutines at once (the producer's user threads and its
// sender); run with -race.
func TestConcurrentRecord(t *testing.T) {
	m := NewMetrics(nil, nil, nil, nil)
	s := m.Sensor("s")
	if err := s.Add(m.MetricName("rate", "g", "", nil), NewRate(), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(m.MetricName("total", "g", "", nil), NewTotal(), nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				s.Record() //nolint:errcheck
				_ = m.Metrics()[0].Value()
			}
		}()
	}
	wg.Wait()
	if got := value(t, m, "total", "g"); got != 4000 {
		t.Fatalf("total = %v", got)
	}
}
