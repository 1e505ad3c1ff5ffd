package metrics

// RecordingLevel says which sensors record: a DEBUG sensor records only when the configuration's
// level is DEBUG; an INFO sensor always does.
//
// Kafka 0.10.2: Sensor.RecordingLevel (metrics.recording.level).
type RecordingLevel int

// The recording levels.
const (
	INFO RecordingLevel = iota
	DEBUG
)

func (l RecordingLevel) String() string {
	if l == DEBUG {
		return "DEBUG"
	}
	return "INFO"
}

func (l RecordingLevel) shouldRecord(configured RecordingLevel) bool {
	return configured == DEBUG || configured == l
}

// MetricConfig configures how stats sample and what a metric's quota is.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.MetricConfig.
type MetricConfig struct {
	Quota          *Quota
	Samples        int   // number of samples kept (metrics.num.samples, default 2)
	EventWindow    int64 // events per sample before the next one starts (default unbounded)
	TimeWindowMs   int64 // time per sample (metrics.sample.window.ms, default 30 s)
	Tags           map[string]string
	RecordingLevel RecordingLevel
}

// NewMetricConfig returns Kafka's defaults: 2 samples of 30 s, no event window, no quota.
func NewMetricConfig() *MetricConfig {
	return &MetricConfig{Samples: 2, EventWindow: 1<<63 - 1, TimeWindowMs: 30000, Tags: map[string]string{}}
}

// WithQuota returns a copy of c with quota q.
func (c *MetricConfig) WithQuota(q Quota) *MetricConfig {
	cp := *c
	cp.Quota = &q
	return &cp
}
