package common

import (
	"sync"
	"time"
)

// Time is the clock every component takes instead of calling time.Now directly,
// so tests can drive time with MockTime.
//
// Kafka 0.10.2: org.apache.kafka.common.utils.Time.
type Time interface {
	// Milliseconds is wall-clock time in ms since the Unix epoch.
	Milliseconds() int64
	// Nanoseconds is a monotonic reading in ns, for measuring intervals.
	Nanoseconds() int64
	// Sleep blocks for d (MockTime advances its clock instead).
	Sleep(d time.Duration)
}

// SystemTime is the real clock.
//
// Kafka 0.10.2: org.apache.kafka.common.utils.SystemTime.
type SystemTime struct{}

var monoStart = time.Now()

// Milliseconds implements Time.
func (SystemTime) Milliseconds() int64 { return time.Now().UnixMilli() }

// Nanoseconds implements Time.
func (SystemTime) Nanoseconds() int64 { return int64(time.Since(monoStart)) }

// Sleep implements Time.
func (SystemTime) Sleep(d time.Duration) { time.Sleep(d) }

// MockTime is a manually advanced clock for tests; Sleep advances it.
//
// Kafka 0.10.2: org.apache.kafka.common.utils.MockTime.
type MockTime struct {
	mu    sync.Mutex
	ms    int64
	nanos int64
}

// NewMockTime returns a MockTime starting at the given wall-clock milliseconds.
func NewMockTime(startMs int64) *MockTime {
	return &MockTime{ms: startMs, nanos: startMs * int64(time.Millisecond)}
}

// Milliseconds implements Time.
func (t *MockTime) Milliseconds() int64 { t.mu.Lock(); defer t.mu.Unlock(); return t.ms }

// Nanoseconds implements Time.
func (t *MockTime) Nanoseconds() int64 { t.mu.Lock(); defer t.mu.Unlock(); return t.nanos }

// Sleep implements Time by advancing the clock.
func (t *MockTime) Sleep(d time.Duration) { t.Advance(d) }

// Advance moves the clock forward by d.
func (t *MockTime) Advance(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nanos += int64(d)
	t.ms += int64(d / time.Millisecond)
}
