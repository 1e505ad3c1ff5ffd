package metrics

import "math"

// BinScheme maps values to histogram bins and back.
//
// Kafka 0.10.2: Histogram.BinScheme.
type BinScheme interface {
	Bins() int
	ToBin(x float64) int
	FromBin(b int) float64
}

// ConstantBinScheme has bins of equal width between min and max, plus one bin below and one
// above.
//
// Kafka 0.10.2: Histogram.ConstantBinScheme.
type ConstantBinScheme struct {
	min, max, width float64
	bins            int
}

// NewConstantBinScheme needs at least 2 bins.
func NewConstantBinScheme(bins int, min, max float64) *ConstantBinScheme {
	bins = max2(bins, 2)
	return &ConstantBinScheme{min: min, max: max, bins: bins, width: (max - min) / float64(bins-2)}
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Bins implements BinScheme.
func (s *ConstantBinScheme) Bins() int { return s.bins }

// FromBin implements BinScheme.
func (s *ConstantBinScheme) FromBin(b int) float64 {
	switch {
	case b == 0:
		return math.Inf(-1)
	case b == s.bins-1:
		return math.Inf(1)
	}
	return s.min + float64(b-1)*s.width
}

// ToBin implements BinScheme.
func (s *ConstantBinScheme) ToBin(x float64) int {
	switch {
	case x < s.min:
		return 0
	case x > s.max:
		return s.bins - 1
	}
	return int((x-s.min)/s.width) + 1
}

// LinearBinScheme has bins that widen linearly from 0 to max (fine near 0, coarse near max),
// plus an overflow bin.
//
// Kafka 0.10.2: Histogram.LinearBinScheme.
type LinearBinScheme struct {
	bins       int
	max, scale float64
}

// NewLinearBinScheme returns numBins bins over [0, max].
func NewLinearBinScheme(numBins int, max float64) *LinearBinScheme {
	numBins = max2(numBins, 2)
	return &LinearBinScheme{bins: numBins, max: max, scale: max / float64(numBins*(numBins-1)/2)}
}

// Bins implements BinScheme.
func (s *LinearBinScheme) Bins() int { return s.bins }

// FromBin implements BinScheme.
func (s *LinearBinScheme) FromBin(b int) float64 {
	if b == s.bins-1 {
		return math.Inf(1)
	}
	return float64(b) * (float64(b) + 1) / 2 * s.scale
}

// ToBin implements BinScheme. A negative value (Kafka throws) goes to bin 0.
func (s *LinearBinScheme) ToBin(x float64) int {
	switch {
	case x < 0 || math.IsNaN(x):
		return 0
	case x > s.max:
		return s.bins - 1
	}
	return int(-0.5 + math.Sqrt(2*(x/s.scale)+0.25))
}

// Histogram counts values per bin.
//
// Kafka 0.10.2: org.apache.kafka.common.metrics.stats.Histogram.
type Histogram struct {
	scheme BinScheme
	hist   []float32
	count  float64
}

// NewHistogram returns an empty histogram over scheme.
func NewHistogram(scheme BinScheme) *Histogram {
	return &Histogram{scheme: scheme, hist: make([]float32, scheme.Bins())}
}

// Record counts value.
func (h *Histogram) Record(value float64) {
	h.hist[h.scheme.ToBin(value)]++
	h.count++
}

// Value is the lower edge of the bin holding the quantile (NaN when empty).
func (h *Histogram) Value(quantile float64) float64 {
	if h.count == 0 {
		return math.NaN()
	}
	var sum float32
	q := float32(quantile)
	for i := 0; i < len(h.hist)-1; i++ {
		sum += h.hist[i]
		if float64(sum)/h.count > float64(q) {
			return h.scheme.FromBin(i)
		}
	}
	return math.Inf(1)
}

// Counts are the per-bin counts.
func (h *Histogram) Counts() []float32 { return h.hist }

// Clear empties the histogram.
func (h *Histogram) Clear() {
	clear(h.hist)
	h.count = 0
}
