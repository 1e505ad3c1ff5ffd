package utils

import (
	"errors"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// ErrSchedulerNotRunning is returned (and logged) when a task is scheduled on a scheduler
// that is not started.
var ErrSchedulerNotRunning = errors.New("kafka scheduler is not running")

// KafkaScheduler runs scheduled tasks on goroutines driven by timers.
//
// Kafka 0.10.2: kafka.utils.KafkaScheduler. Kafka uses a ScheduledThreadPoolExecutor
// with a fixed number of threads; a Go timer per task is cheaper and reads the same way.
// The pool size is kept as a bound on concurrently running tasks. As in Kafka, a
// periodic task never overlaps with itself (the next run is scheduled once the previous
// one returned: fixed rate in Kafka, fixed delay here, which differs only for tasks that
// run longer than their period).
type KafkaScheduler struct {
	threads int
	logger  *logrus.Entry

	mu      sync.Mutex
	started bool
	stop    chan struct{}
	sem     chan struct{}
	wg      sync.WaitGroup
}

// NewKafkaScheduler returns a stopped scheduler that runs at most threads tasks at once.
func NewKafkaScheduler(threads int, logger *logrus.Entry) *KafkaScheduler {
	if threads < 1 {
		threads = 1
	}
	if logger == nil {
		logger = logrus.NewEntry(logrus.StandardLogger())
	}
	return &KafkaScheduler{threads: threads, logger: logger.WithField("logger", "kafka.utils.KafkaScheduler")}
}

// Startup implements Scheduler.
func (s *KafkaScheduler) Startup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	s.stop = make(chan struct{})
	s.sem = make(chan struct{}, s.threads)
}

// Shutdown implements Scheduler: pending runs are dropped, running ones are waited for.
func (s *KafkaScheduler) Shutdown() {
	s.mu.Lock()
	if !s.started {
		s.mu.Unlock()
		return
	}
	s.started = false
	close(s.stop)
	s.mu.Unlock()
	s.wg.Wait()
}

// IsStarted implements Scheduler.
func (s *KafkaScheduler) IsStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// Schedule implements Scheduler. On a stopped scheduler the task is dropped with an error log.
func (s *KafkaScheduler) Schedule(name string, fn func(), delay, period time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.logger.WithError(ErrSchedulerNotRunning).Errorf("Cannot schedule task %s", name)
		return
	}
	stop, sem := s.stop, s.sem
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		timer := time.NewTimer(max(delay, 0))
		defer timer.Stop()
		for {
			select {
			case <-stop:
				return
			case <-timer.C:
			}
			select {
			case <-stop:
				return
			case sem <- struct{}{}:
			}
			s.runTask(name, fn)
			<-sem
			if period <= 0 {
				return
			}
			timer.Reset(period)
		}
	}()
}

// runTask runs one task, logging (not propagating) a panic as Kafka logs a task's exception.
func (s *KafkaScheduler) runTask(name string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Errorf("Uncaught exception in scheduled task '%s': %v", name, r)
		}
	}()
	s.logger.Tracef("Beginning execution of scheduled task '%s'.", name)
	fn()
	s.logger.Tracef("Completed execution of scheduled task '%s'.", name)
}
