package metrics

import (
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClock is a Clock tests advance by hand (common.MockTime satisfies Clock too; this package
// is rank 0 and cannot import it).
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) Nanoseconds() int64        { return c.ns.Load() }
func (c *fakeClock) advance(d time.Duration)   { c.ns.Add(int64(d)) }
func newFakeRegistry() (*Registry, *fakeClock) { c := &fakeClock{}; return NewRegistry(c), c }
