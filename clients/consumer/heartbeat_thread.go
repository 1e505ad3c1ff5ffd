package consumer

import (
	"context"
	"time"
)

// HeartbeatThread keeps this member in its group while the application processes records: it
// sends a Heartbeat every heartbeat.interval.ms while the group is stable, finds a new
// coordinator when the old one fails, and leaves the group when the application has not
// polled for max.poll.interval.ms (so that its partitions go to a member that polls).
//
// Kafka 0.10.2: AbstractCoordinator.HeartbeatThread (the thread
// "kafka-coordinator-heartbeat-thread | <group.id>"), here a goroutine stopped by its context.
type HeartbeatThread struct {
	a      *AbstractCoordinator
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func newHeartbeatThread(a *AbstractCoordinator) *HeartbeatThread {
	ctx, cancel := context.WithCancel(context.Background())
	return &HeartbeatThread{a: a, ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

func (h *HeartbeatThread) start() { go h.run() }

// close stops the goroutine and waits for it.
func (h *HeartbeatThread) close() {
	h.cancel()
	<-h.done
}

func (h *HeartbeatThread) run() {
	defer close(h.done)
	a := h.a
	log := a.log.WithField("thread", "kafka-coordinator-heartbeat-thread | "+a.groupID)
	log.Debug("Heartbeat thread for group " + a.groupID + " started")
	defer log.Debug("Heartbeat thread for group " + a.groupID + " has closed")
	wait := func(ms int64) bool {
		t := time.NewTimer(msDuration(max(ms, 1)))
		defer t.Stop()
		select {
		case <-h.ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	for {
		a.mu.Lock()
		st := a.state
		a.mu.Unlock()
		if st != Stable {
			if !wait(a.retryBackoffMs) {
				return
			}
			continue
		}
		a.client.TryPollNoWakeup()
		now := a.time.Milliseconds()
		switch {
		case a.CoordinatorUnknown():
			f := a.lookupCoordinator()
			f.AddListener(func(struct{}, error) {})
			if !wait(a.retryBackoffMs) {
				return
			}
		case a.heartbeat.SessionTimeoutExpired(now):
			a.coordinatorDead()
		case a.heartbeat.PollTimeoutExpired(now):
			log.Warnf("Consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than"+
				" the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time"+
				" processing messages. You can address this either by increasing the session timeout or by reducing the"+
				" maximum size of batches returned in poll() with max.poll.records. (group %s)", a.groupID)
			a.maybeLeaveGroup()
		case !a.heartbeat.ShouldHeartbeat(now):
			if !wait(min(a.retryBackoffMs, a.heartbeat.TimeToNextHeartbeat(now))) {
				return
			}
		default:
			a.heartbeat.SentHeartbeat(now)
			a.sendHeartbeatRequest().AddListener(func(_ struct{}, err error) {
				if err == nil {
					a.heartbeat.ReceiveHeartbeat(a.time.Milliseconds())
					return
				}
				if isRetriable(err) {
					a.heartbeat.FailHeartbeat()
				} else {
					a.heartbeat.ReceiveHeartbeat(a.time.Milliseconds())
				}
			})
			a.client.TryPollNoWakeup()
		}
	}
}

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
