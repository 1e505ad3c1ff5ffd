package metrics

// sample is one window of a SampledStat.
//
// Kafka 0.10.2: SampledStat.Sample.
type sample struct {
	initialValue float64
	eventCount   int64
	lastWindowMs int64
	value        float64
	hist         *Histogram // Percentiles' samples only
}

func (s *sample) reset(nowMs int64) {
	s.eventCount = 0
	s.lastWindowMs = nowMs
	s.value = s.initialValue
	if s.hist != nil {
		s.hist.Clear()
	}
}

func (s *sample) isComplete(nowMs int64, config *MetricConfig) bool {
	return nowMs-s.lastWindowMs >= config.TimeWindowMs || s.eventCount >= config.EventWindow
}

// SampledStat is the windowed base of the sampled stats: up to config.Samples samples used round
// robin, each covering TimeWindowMs (or EventWindow events). update folds a value into a sample
// and combine reduces the live samples to one value. It is not safe for concurrent use; the
// Sensor's lock guards it.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.SampledStat.
type SampledStat struct {
	initialValue float64
	current      int
	samples      []*sample
	update       func(s *sample, config *MetricConfig, value float64, nowMs int64)
	combine      func(samples []*sample, config *MetricConfig, nowMs int64) float64
	newHist      func() *Histogram
}

func newSampledStat(initial float64,
	update func(*sample, *MetricConfig, float64, int64),
	combine func([]*sample, *MetricConfig, int64) float64) *SampledStat {
	return &SampledStat{initialValue: initial, update: update, combine: combine}
}

func (st *SampledStat) newSample(nowMs int64) *sample {
	s := &sample{initialValue: st.initialValue, lastWindowMs: nowMs, value: st.initialValue}
	if st.newHist != nil {
		s.hist = st.newHist()
	}
	return s
}

// Record implements Stat.
func (st *SampledStat) Record(config *MetricConfig, value float64, nowMs int64) {
	s := st.currentSample(nowMs)
	if s.isComplete(nowMs, config) {
		s = st.advance(config, nowMs)
	}
	st.update(s, config, value, nowMs)
	s.eventCount++
}

func (st *SampledStat) advance(config *MetricConfig, nowMs int64) *sample {
	st.current = (st.current + 1) % max(config.Samples, 1)
	if st.current >= len(st.samples) {
		s := st.newSample(nowMs)
		st.samples = append(st.samples, s)
		return s
	}
	s := st.currentSample(nowMs)
	s.reset(nowMs)
	return s
}

func (st *SampledStat) currentSample(nowMs int64) *sample {
	if len(st.samples) == 0 {
		st.samples = append(st.samples, st.newSample(nowMs))
	}
	return st.samples[st.current]
}

func (st *SampledStat) oldest(nowMs int64) *sample {
	if len(st.samples) == 0 {
		st.samples = append(st.samples, st.newSample(nowMs))
	}
	o := st.samples[0]
	for _, s := range st.samples[1:] {
		if s.lastWindowMs < o.lastWindowMs {
			o = s
		}
	}
	return o
}

// Measure implements Measurable.
func (st *SampledStat) Measure(config *MetricConfig, nowMs int64) float64 {
	st.purgeObsoleteSamples(config, nowMs)
	return st.combine(st.samples, config, nowMs)
}

func (st *SampledStat) purgeObsoleteSamples(config *MetricConfig, nowMs int64) {
	expireAge := int64(config.Samples) * config.TimeWindowMs
	for _, s := range st.samples {
		if nowMs-s.lastWindowMs >= expireAge {
			s.reset(nowMs)
		}
	}
}
