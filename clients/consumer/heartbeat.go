package consumer

import "sync"

// Heartbeat keeps the times the group protocol depends on: when the last heartbeat was sent and
// answered, when the session was last reset, and when the application last called poll. It is
// read by the HeartbeatThread and written by both goroutines, so it has its own (leaf) lock.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.Heartbeat.
type Heartbeat struct {
	mu                   sync.Mutex
	sessionTimeoutMs     int64
	heartbeatIntervalMs  int64
	maxPollIntervalMs    int64
	retryBackoffMs       int64
	lastHeartbeatSend    int64
	lastHeartbeatReceive int64
	lastSessionReset     int64
	lastPoll             int64
	heartbeatFailed      bool
}

// NewHeartbeat checks, as Kafka does, that heartbeats come more often than the session times out.
func NewHeartbeat(sessionTimeoutMs, heartbeatIntervalMs, maxPollIntervalMs, retryBackoffMs, nowMs int64) (*Heartbeat, error) {
	if heartbeatIntervalMs >= sessionTimeoutMs {
		return nil, errIllegalArgument("Heartbeat must be set lower than the session timeout")
	}
	return &Heartbeat{sessionTimeoutMs: sessionTimeoutMs, heartbeatIntervalMs: heartbeatIntervalMs, maxPollIntervalMs: maxPollIntervalMs,
		retryBackoffMs: retryBackoffMs, lastSessionReset: nowMs, lastPoll: nowMs}, nil
}

type errIllegalArgument string

func (e errIllegalArgument) Error() string { return string(e) }

// Poll records a call of KafkaConsumer.poll.
func (h *Heartbeat) Poll(now int64) { h.mu.Lock(); h.lastPoll = now; h.mu.Unlock() }

// SentHeartbeat records a heartbeat sent.
func (h *Heartbeat) SentHeartbeat(now int64) {
	h.mu.Lock()
	h.lastHeartbeatSend, h.heartbeatFailed = now, false
	h.mu.Unlock()
}

// FailHeartbeat makes the next heartbeat due after the retry backoff.
func (h *Heartbeat) FailHeartbeat() { h.mu.Lock(); h.heartbeatFailed = true; h.mu.Unlock() }

// ReceiveHeartbeat records an answered heartbeat.
func (h *Heartbeat) ReceiveHeartbeat(now int64) {
	h.mu.Lock()
	h.lastHeartbeatReceive = now
	h.mu.Unlock()
}

// ShouldHeartbeat reports a heartbeat due.
func (h *Heartbeat) ShouldHeartbeat(now int64) bool { return h.TimeToNextHeartbeat(now) == 0 }

// TimeToNextHeartbeat is how long until the next heartbeat is due.
func (h *Heartbeat) TimeToNextHeartbeat(now int64) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	since := now - max(h.lastHeartbeatSend, h.lastSessionReset)
	delay := h.heartbeatIntervalMs
	if h.heartbeatFailed {
		delay = h.retryBackoffMs
	}
	if since > delay {
		return 0
	}
	return delay - since
}

// SessionTimeoutExpired reports no answered heartbeat for session.timeout.ms.
func (h *Heartbeat) SessionTimeoutExpired(now int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return now-max(h.lastSessionReset, h.lastHeartbeatReceive) > h.sessionTimeoutMs
}

// ResetTimeouts restarts the session and poll clocks (after a join).
func (h *Heartbeat) ResetTimeouts(now int64) {
	h.mu.Lock()
	h.lastSessionReset, h.lastPoll, h.heartbeatFailed = now, now, false
	h.mu.Unlock()
}

// PollTimeoutExpired reports no poll for max.poll.interval.ms.
func (h *Heartbeat) PollTimeoutExpired(now int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return now-h.lastPoll > h.maxPollIntervalMs
}
