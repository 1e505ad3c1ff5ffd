package perf

// javaRandom is java.util.Random: a 48-bit linear congruential generator, so that the payload of
// a run is the same bytes Kafka's tool sends (Random(0), nextInt(26) + 65).
type javaRandom struct{ seed int64 }

const (
	randMultiplier = 0x5DEECE66D
	randMask       = (1 << 48) - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ randMultiplier) & randMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*randMultiplier + 0xB) & randMask
	return int32(r.seed >> (48 - bits))
}

// nextInt is Random.nextInt(bound) (bound > 0).
func (r *javaRandom) nextInt(bound int32) int32 {
	if bound&(-bound) == bound {
		return int32((int64(bound) * int64(r.next(31))) >> 31)
	}
	for {
		bits := r.next(31)
		val := bits % bound
		if bits-val+(bound-1) >= 0 {
			return val
		}
	}
}
