package zktest

import (
	"context"
	"testing"
	"time"

	"github.com/zkafka/zkafka/zk/ensemble"
)

// NewSessionCapture returns a SessionCapture whose Dial is to be passed
// to the client under test (gozk.WithDialer(capture.Dial)), so that
// ExpireSession can expire exactly that client's session.
func NewSessionCapture() *ensemble.SessionCapture { return ensemble.NewSessionCapture() }

// ExpireSession expires the latest session capture has seen, on the shared
// ensemble or on the ZK_CONNECT servers, and fails the test if it cannot.
// The client then sees StateExpired and must start a new session.
func ExpireSession(t testing.TB, capture *ensemble.SessionCapture) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if e := Ensemble(); e != nil {
		if err := e.ExpireCaptured(ctx, capture); err != nil {
			t.Fatalf("zktest: %v", err)
		}
		return
	}
	id, passwd := capture.Session()
	servers, _ := SplitConnect(ConnectString())
	var err error
	for _, s := range servers {
		if err = ensemble.ExpireSessionAt(ctx, s, id, passwd); err == nil {
			return
		}
	}
	t.Fatalf("zktest: %v", err)
}

// WaitUntilTrue polls cond until it holds, failing the test with msg after
// timeout. It is the repository's one polling helper for tests: the first
// polls come after 1 ms and the interval doubles up to 20 ms, so a condition
// that holds at once costs nothing and a slow one costs little CPU.
//
// Kafka 0.10.2: kafka.utils.TestUtils.waitUntilTrue.
func WaitUntilTrue(t testing.TB, cond func() bool, msg string, timeout time.Duration) {
	t.Helper()
	if !PollUntil(cond, timeout) {
		t.Fatalf("zktest: %s (after %v)", msg, timeout)
	}
}

// PollUntil is WaitUntilTrue for callers that report the failure
// themselves: it returns whether cond held before timeout.
func PollUntil(cond func() bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	interval := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
		interval = min(2*interval, 20*time.Millisecond)
	}
	return true
}
