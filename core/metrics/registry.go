package metrics

import (
	"sort"
	"sync"
	"time"

	gometrics "github.com/rcrowley/go-metrics"
)

// Registry holds one broker's metrics under their MBean names.
//
// Kafka 0.10.2: com.yammer.metrics.Metrics.defaultRegistry(), made per broker (see the package
// doc). A nil *Registry is valid: metrics made from it work but are registered nowhere.
type Registry struct {
	mu    sync.Mutex // serialises the gauge replace path (unregister + register)
	reg   gometrics.Registry
	clock Clock
}

// NewRegistry makes an empty registry. clock drives the meters' ticks; nil means the system clock.
func NewRegistry(clock Clock) *Registry {
	if clock == nil {
		clock = systemClock{start: time.Now()}
	}
	return &Registry{reg: gometrics.NewRegistry(), clock: clock}
}

func (r *Registry) clockOrSystem() Clock {
	if r == nil {
		return systemClock{start: time.Now()}
	}
	return r.clock
}

// getOrAdd registers m under name unless a metric is already there, and returns the one that is
// registered (Yammer's getOrAdd: two components asking for the same meter share it).
func (r *Registry) getOrAdd(name string, m any) any {
	if r == nil {
		return m
	}
	return r.reg.GetOrRegister(name, m)
}

// replace registers m under name, replacing any metric already there. Gauges use it: a gauge is a
// closure over its owner, and a re-created owner (a Log reopened, a ReplicaManager after a
// restart in one process) must not leave the registry reading the old one.
func (r *Registry) replace(name string, m any) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reg.Unregister(name)
	_ = r.reg.Register(name, m) // cannot fail: the name was just freed under r.mu
}

// Remove unregisters a metric by MBean name (Kafka's removeMetric).
func (r *Registry) Remove(mbeanName string) {
	if r == nil {
		return
	}
	r.reg.Unregister(mbeanName)
}

// Get returns the metric registered under an MBean name: a *Meter, *Timer, go-metrics Histogram
// or Gauge/GaugeFloat64, or nil.
func (r *Registry) Get(mbeanName string) any {
	if r == nil {
		return nil
	}
	return r.reg.Get(mbeanName)
}

// Meter returns the meter registered under an MBean name, or nil.
func (r *Registry) Meter(mbeanName string) *Meter {
	m, _ := r.Get(mbeanName).(*Meter)
	return m
}

// Timer returns the timer registered under an MBean name, or nil.
func (r *Registry) Timer(mbeanName string) *Timer {
	t, _ := r.Get(mbeanName).(*Timer)
	return t
}

// Histogram returns the histogram registered under an MBean name, or nil.
func (r *Registry) Histogram(mbeanName string) *Histogram {
	h, ok := r.Get(mbeanName).(gometrics.Histogram)
	if !ok {
		return nil
	}
	return &Histogram{h: h}
}

// GaugeValue reads the gauge registered under an MBean name.
func (r *Registry) GaugeValue(mbeanName string) (float64, bool) {
	switch g := r.Get(mbeanName).(type) {
	case gometrics.Gauge:
		return float64(g.Value()), true
	case gometrics.GaugeFloat64:
		return g.Value(), true
	}
	return 0, false
}

// Names lists every registered MBean name, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	var names []string
	r.reg.Each(func(name string, _ any) { names = append(names, name) })
	sort.Strings(names)
	return names
}

// each visits every metric (unsorted).
func (r *Registry) each(f func(name string, m any)) {
	if r == nil {
		return
	}
	r.reg.Each(f)
}
