package systemtests

import (
	"os"
	"testing"
	"time"
)

// ProcessSchedTime counts this process's CPU in nanoseconds: it grows by at least most of a
// 50 ms busy loop, which utime+stime's 10 ms ticks could not resolve finely.
func TestProcessSchedTimeCountsBusyLoop(t *testing.T) {
	before, err := ProcessSchedTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		x++
	}
	after, err := ProcessSchedTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// On a loaded machine the loop may be descheduled: require a part of it, not all.
	if d := after - before; d < 5*time.Millisecond {
		t.Fatalf("schedstat grew by %v over a 50 ms busy loop (x=%d)", d, x)
	}
	if _, err := ProcessSchedTime(1 << 30); err == nil {
		t.Fatal("no error for a pid that does not exist")
	}
}
