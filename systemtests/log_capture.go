package systemtests

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sync"
	"time"
)

// LogCapture is the file receiving a process's stdout and stderr (appended across restarts),
// with helpers to wait for and look up lines. Searches start at the offset the file had when
// the process was last started, so a restarted broker is not credited with its previous life's
// lines; ExpectFrom and MatchesFrom take an explicit offset (Mark).
//
// Kafka 0.10.2: kafkatest's monitor/wait_until on a service's log file
// (KafkaService.start_node's "Kafka Server.*started" wait).
type LogCapture struct {
	path string

	mu    sync.Mutex
	start int64 // file size at the last Start
}

// NewLogCapture returns a capture reading path (which need not exist yet).
func NewLogCapture(path string) *LogCapture { return &LogCapture{path: path} }

// Path is the captured file.
func (l *LogCapture) Path() string { return l.path }

// Mark returns the file's current size, an offset for ExpectFrom.
func (l *LogCapture) Mark() int64 {
	fi, err := os.Stat(l.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// markStart makes the searches start at the current end of the file.
func (l *LogCapture) markStart() {
	m := l.Mark()
	l.mu.Lock()
	l.start = m
	l.mu.Unlock()
}

// StartOffset is the file offset of the last Start.
func (l *LogCapture) StartOffset() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.start
}

// Since returns the captured bytes from offset off to the end.
func (l *LogCapture) Since(off int64) []byte {
	b, err := os.ReadFile(l.path)
	if err != nil || off > int64(len(b)) {
		return nil
	}
	return b[off:]
}

// Matches returns every line since the last Start that re matches.
func (l *LogCapture) Matches(re *regexp.Regexp) []string { return l.MatchesFrom(l.StartOffset(), re) }

// MatchesFrom returns every line from off that re matches.
func (l *LogCapture) MatchesFrom(off int64, re *regexp.Regexp) []string {
	var out []string
	for _, line := range bytes.Split(l.Since(off), []byte("\n")) {
		if re.Match(line) {
			out = append(out, string(line))
		}
	}
	return out
}

// Expect waits up to timeout for a line matching re since the last Start and returns it.
func (l *LogCapture) Expect(re *regexp.Regexp, timeout time.Duration) (string, error) {
	return l.ExpectFrom(l.StartOffset(), re, timeout)
}

// ExpectFrom waits up to timeout for a line matching re at or after offset off.
func (l *LogCapture) ExpectFrom(off int64, re *regexp.Regexp, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if m := l.MatchesFrom(off, re); len(m) > 0 {
			return m[0], nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no line matching %q in %s within %v; last lines:\n%s", re, l.path, timeout, l.Tail(20))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Tail returns the last n lines of the file.
func (l *LogCapture) Tail(n int) string {
	b, _ := os.ReadFile(l.path)
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
