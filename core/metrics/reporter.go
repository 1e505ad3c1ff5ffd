package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gometrics "github.com/rcrowley/go-metrics"
)

// The HTTP endpoints served by NewServeMux.
const (
	JSONPath       = "/metrics.json" // go-metrics' JSON of the registry, keyed by MBean name
	PrometheusPath = "/metrics"      // Prometheus text format 0.0.4
)

// JSONHandler writes the registry as JSON: {"<MBean name>": {"count": .., "1m.rate": .., ...}}, the
// view zkafka's JmxTool reads. The optional query parameter name (repeatable) keeps only metrics
// whose MBean name matches it as a path.Match pattern, e.g.
// name=kafka.server:type=BrokerTopicMetrics,name=*.
func JSONHandler(reg *Registry) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sel := gometrics.NewRegistry()
		patterns := req.URL.Query()["name"]
		reg.each(func(name string, m any) {
			if matchAny(patterns, name) {
				_ = sel.Register(name, m)
			}
		})
		w.Header().Set("Content-Type", "application/json")
		gometrics.WriteJSONOnce(sel, w)
	})
}

func matchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, err := path.Match(p, name); (err == nil && ok) || p == name {
			return true
		}
	}
	return false
}

// PrometheusHandler writes the registry in Prometheus' text format.
func PrometheusHandler(reg *Registry) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		WritePrometheus(w, reg)
	})
}

// NewServeMux is the broker's own metrics mux (never http.DefaultServeMux, and no expvar: several
// brokers share a test process).
func NewServeMux(reg *Registry) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(JSONPath, JSONHandler(reg))
	mux.Handle(PrometheusPath, PrometheusHandler(reg))
	return mux
}

// HTTPReporter serves a registry over HTTP, in place of the JMX port Kafka opens when JMX_PORT is
// set.
//
// Kafka 0.10.2: kafka.metrics.KafkaMetricsReporter (the pluggable reporter that
// kafka.metrics.reporters names); JMX itself comes from the JVM, which Go does not have.
type HTTPReporter struct {
	srv  *http.Server
	addr net.Addr
	done chan struct{}
	once sync.Once
	err  error
}

// Serve listens on addr ("host:port"; port 0 picks one) and serves reg in a goroutine until ctx is
// cancelled or Shutdown is called. The listener is bound before Serve returns.
func Serve(ctx context.Context, addr string, reg *Registry) (*HTTPReporter, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics reporter failed to bind to %s: %w", addr, err)
	}
	r := &HTTPReporter{
		srv:  &http.Server{Handler: NewServeMux(reg), ReadHeaderTimeout: 10 * time.Second},
		addr: ln.Addr(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(r.done)
		if err := r.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.err = err
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			r.Shutdown()
		case <-r.done:
		}
	}()
	return r, nil
}

// Addr is the bound address.
func (r *HTTPReporter) Addr() net.Addr { return r.addr }

// Shutdown closes the listener and open connections and waits for the serving goroutine; it returns
// the error that stopped serving, if any.
func (r *HTTPReporter) Shutdown() error {
	r.once.Do(func() { r.srv.Close() })
	<-r.done
	return r.err
}

// prometheusQuantiles are the JMX percentile attributes of a Yammer histogram (50th ... 999th).
var prometheusQuantiles = []float64{0.5, 0.75, 0.95, 0.98, 0.99, 0.999}

type promFamily struct {
	typ    string
	series map[string][]string // labels -> sample lines
}

type promWriter map[string]*promFamily

func (p promWriter) add(family, typ, labels string, lines ...string) {
	f, ok := p[family]
	if !ok {
		f = &promFamily{typ: typ, series: map[string][]string{}}
		p[family] = f
	}
	f.series[labels] = append(f.series[labels], lines...)
}

func (p promWriter) sample(family, typ, suffix, labels string, v float64) {
	p.add(family, typ, labels, family+suffix+braces(labels)+" "+promFloat(v))
}

// WritePrometheus renders every metric: the MBean's group, type and name joined by underscores
// (other characters become underscores) make the family name, the other key properties become
// labels. Meters give <family>_total and the four rates; histograms and timers a summary (timers in
// milliseconds) plus _min, _max, _mean; gauges a gauge.
func WritePrometheus(w io.Writer, reg *Registry) {
	p := promWriter{}
	reg.each(func(mbean string, m any) {
		family, labels := promName(mbean)
		switch m := m.(type) {
		case gometrics.Gauge:
			p.sample(family, "gauge", "", labels, float64(m.Value()))
		case gometrics.GaugeFloat64:
			p.sample(family, "gauge", "", labels, m.Value())
		case gometrics.Histogram:
			s := m.Snapshot()
			p.summary(family, labels, s.Percentiles(prometheusQuantiles), float64(s.Sum()), s.Count())
			p.sample(family+"_min", "gauge", "", labels, float64(s.Min()))
			p.sample(family+"_max", "gauge", "", labels, float64(s.Max()))
			p.sample(family+"_mean", "gauge", "", labels, s.Mean())
		case *Meter:
			p.meter(family, labels, m)
		case *Timer:
			h := m.hist.Snapshot()
			p.summary(family, labels, m.Percentiles(prometheusQuantiles), float64(h.Sum())/m.unit, m.Count())
			p.sample(family+"_min", "gauge", "", labels, float64(h.Min())/m.unit)
			p.sample(family+"_max", "gauge", "", labels, float64(h.Max())/m.unit)
			p.sample(family+"_mean", "gauge", "", labels, m.Mean())
			p.meter(family, labels, m.meter)
		}
	})
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		f := p[n]
		fmt.Fprintf(&b, "# TYPE %s %s\n", n, f.typ)
		keys := make([]string, 0, len(f.series))
		for k := range f.series {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, line := range f.series[k] {
				b.WriteString(line)
				b.WriteByte('\n')
			}
		}
	}
	io.WriteString(w, b.String())
}

func (p promWriter) meter(family, labels string, m *Meter) {
	p.sample(family+"_total", "counter", "", labels, float64(m.Count()))
	p.sample(family+"_one_minute_rate", "gauge", "", labels, m.Rate1())
	p.sample(family+"_five_minute_rate", "gauge", "", labels, m.Rate5())
	p.sample(family+"_fifteen_minute_rate", "gauge", "", labels, m.Rate15())
	p.sample(family+"_mean_rate", "gauge", "", labels, m.RateMean())
}

func (p promWriter) summary(family, labels string, qs []float64, sum float64, count int64) {
	lines := make([]string, 0, len(qs)+2)
	for i, q := range qs {
		l := `quantile="` + strconv.FormatFloat(prometheusQuantiles[i], 'g', -1, 64) + `"`
		if labels != "" {
			l = labels + "," + l
		}
		lines = append(lines, family+"{"+l+"} "+promFloat(q))
	}
	lines = append(lines, family+"_sum"+braces(labels)+" "+promFloat(sum),
		family+"_count"+braces(labels)+" "+strconv.FormatInt(count, 10))
	p.add(family, "summary", labels, lines...)
}

func braces(labels string) string {
	if labels == "" {
		return ""
	}
	return "{" + labels + "}"
}

// promName maps an MBean name to a family name and a rendered label set.
func promName(mbean string) (family, labels string) {
	group, props, ok := ParseMBeanName(mbean)
	if !ok {
		return sanitize(mbean), ""
	}
	parts := []string{group}
	var ls []string
	for _, t := range props {
		if t.Key == "type" || t.Key == "name" {
			parts = append(parts, t.Value)
			continue
		}
		ls = append(ls, sanitize(t.Key)+`="`+escapeLabel(t.Value)+`"`)
	}
	return sanitize(strings.Join(parts, "_")), strings.Join(ls, ",")
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
		return "_" + string(b)
	}
	return string(b)
}

func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}

func promFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
