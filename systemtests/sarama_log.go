package systemtests

import (
	"log"
	"strings"
	"sync"
	"testing"

	"github.com/IBM/sarama"
)

// saramaLogRing keeps the last lines sarama's client logged (its Logger is package-global).
type saramaLogRing struct {
	mu    sync.Mutex
	lines []string
	max   int
}

func (r *saramaLogRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, strings.TrimRight(string(p), "\n"))
	if len(r.lines) > r.max {
		r.lines = r.lines[len(r.lines)-r.max:]
	}
	return len(p), nil
}

// CaptureSaramaLog records what sarama's clients log during the test and prints the last n lines
// if the test fails: an error a client reports (e.g. "kafka: broker not connected") is often the
// echo of an earlier one (a connection closed by a failed metadata request) only its log shows.
func CaptureSaramaLog(t *testing.T, n int) {
	t.Helper()
	ring := &saramaLogRing{max: n}
	prev := sarama.Logger
	sarama.Logger = log.New(ring, "[sarama] ", log.Lmicroseconds)
	t.Cleanup(func() {
		sarama.Logger = prev
		if t.Failed() {
			ring.mu.Lock()
			defer ring.mu.Unlock()
			t.Logf("the last %d lines sarama logged:\n%s", len(ring.lines), strings.Join(ring.lines, "\n"))
		}
	})
}
