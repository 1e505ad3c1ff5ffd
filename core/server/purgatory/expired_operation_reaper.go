package purgatory

import (
	"context"
	"sync"

	"github.com/sirupsen/logrus"
)

// ExpiredOperationReaper is the purgatory's background goroutine: it calls doWork (the purgatory's
// AdvanceClock(200)) until shut down, which both expires timed-out operations and purges
// completed ones from the watch lists.
//
// Kafka 0.10.2: DelayedOperationPurgatory.ExpiredOperationReaper, a ShutdownableThread named
// "ExpirationReaper-<brokerId>" (not interruptible). The log lines keep Kafka's "[name], " prefix.
type ExpiredOperationReaper struct {
	name   string
	log    *logrus.Entry
	doWork func()

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

func newExpiredOperationReaper(name string, log *logrus.Entry, doWork func()) *ExpiredOperationReaper {
	return &ExpiredOperationReaper{
		name:   name,
		log:    log,
		doWork: doWork,
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
}

func (r *ExpiredOperationReaper) start() {
	go r.run()
}

func (r *ExpiredOperationReaper) run() {
	defer close(r.done)
	r.log.Infof("[%s], Starting ", r.name)
	for {
		select {
		case <-r.stop:
			r.log.Infof("[%s], Stopped ", r.name)
			return
		default:
		}
		r.doWork()
	}
}

// initiateShutdown asks the loop to stop after the current round.
func (r *ExpiredOperationReaper) initiateShutdown() {
	r.stopOnce.Do(func() {
		r.log.Infof("[%s], Shutting down", r.name)
		close(r.stop)
	})
}

// awaitShutdown waits for the loop to exit, or for ctx to end.
func (r *ExpiredOperationReaper) awaitShutdown(ctx context.Context) error {
	select {
	case <-r.done:
		r.log.Infof("[%s], Shutdown completed", r.name)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
