package metrics

import (
	"fmt"
	"math"
)

// BucketSizing chooses the bin scheme of Percentiles.
//
// Kafka 0.10.2: Percentiles.BucketSizing.
type BucketSizing int

// The bucket sizings.
const (
	CONSTANT BucketSizing = iota
	LINEAR
)

// Percentile names one percentile of a Percentiles stat.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Percentile.
type Percentile struct {
	Name       MetricName
	Percentile float64 // 0-100
}

// Percentiles is a sampled histogram reporting several percentiles, each as its own metric.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Percentiles.
type Percentiles struct {
	*SampledStat
	buckets     int
	percentiles []Percentile
	scheme      BinScheme
}

// NewPercentiles uses sizeInBytes/4 buckets over [min, max]. LINEAR sizing needs min 0.
func NewPercentiles(sizeInBytes int, min, max float64, sizing BucketSizing, percentiles ...Percentile) (*Percentiles, error) {
	buckets := sizeInBytes / 4
	var scheme BinScheme
	switch sizing {
	case CONSTANT:
		scheme = NewConstantBinScheme(buckets, min, max)
	case LINEAR:
		if min != 0 {
			return nil, fmt.Errorf("Linear bucket sizing requires min to be 0.0.")
		}
		scheme = NewLinearBinScheme(buckets, max)
	default:
		return nil, fmt.Errorf("Unknown bucket type: %d", sizing)
	}
	p := &Percentiles{buckets: scheme.Bins(), percentiles: percentiles, scheme: scheme}
	p.SampledStat = newSampledStat(0,
		func(s *sample, _ *MetricConfig, v float64, _ int64) { s.hist.Record(v) },
		func(_ []*sample, config *MetricConfig, now int64) float64 { return p.value(config, now, 0.5) })
	p.SampledStat.newHist = func() *Histogram { return NewHistogram(scheme) }
	return p, nil
}

// Stats implements CompoundStat.
func (p *Percentiles) Stats() []NamedMeasurable {
	out := make([]NamedMeasurable, 0, len(p.percentiles))
	for _, pc := range p.percentiles {
		q := pc.Percentile / 100
		out = append(out, NamedMeasurable{Name: pc.Name, Stat: MeasurableFunc(func(config *MetricConfig, now int64) float64 {
			return p.value(config, now, q)
		})})
	}
	return out
}

func (p *Percentiles) value(config *MetricConfig, now int64, quantile float64) float64 {
	p.purgeObsoleteSamples(config, now)
	var count float32
	for _, s := range p.samples {
		count += float32(s.eventCount)
	}
	if count == 0 {
		return math.NaN()
	}
	var sum float32
	q := float32(quantile)
	for b := 0; b < p.buckets; b++ {
		for _, s := range p.samples {
			sum += s.hist.Counts()[b]
			if sum/count > q {
				return p.scheme.FromBin(b)
			}
		}
	}
	return math.Inf(1)
}
