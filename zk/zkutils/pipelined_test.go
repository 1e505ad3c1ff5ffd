package zkutils

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestPipelined: every index is run once, never more than PipelineDepth at a time,
// and the call returns only after all of them.
func TestPipelined(t *testing.T) {
	for _, n := range []int{0, 1, 5, 1000} {
		seen := make([]atomic.Int32, n)
		var running, peak, done atomic.Int32
		Pipelined(n, func(i int) {
			r := running.Add(1)
			for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
			}
			time.Sleep(100 * time.Microsecond)
			seen[i].Add(1)
			running.Add(-1)
			done.Add(1)
		})
		if int(done.Load()) != n {
			t.Fatalf("n=%d: returned after %d calls", n, done.Load())
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("n=%d: index %d run %d times", n, i, seen[i].Load())
			}
		}
		if peak.Load() > PipelineDepth {
			t.Fatalf("n=%d: %d calls at once", n, peak.Load())
		}
		if n == 1000 && peak.Load() < 2 {
			t.Fatalf("n=%d: the calls did not overlap (peak %d)", n, peak.Load())
		}
	}
}
