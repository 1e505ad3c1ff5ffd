package utils

import (
	"container/heap"
	"errors"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
)

// ErrSchedulerNotRunning is returned (and logged) when a task is scheduled on a scheduler
// that is not started.
var ErrSchedulerNotRunning = errors.New("kafka scheduler is not running")

// KafkaScheduler runs scheduled tasks on a fixed pool of worker goroutines, taking them from
// one queue in order of due time and, for equal times, of scheduling: a one-thread scheduler runs
// tasks strictly in that order, one at a time, which GroupMetadataManager relies on (the load
// and the unload of a partition, scheduled back to back, must not swap).
//
// Kafka 0.10.2: kafka.utils.KafkaScheduler, a ScheduledThreadPoolExecutor of `threads` threads
// (its DelayedWorkQueue orders by trigger time, then by sequence number). A periodic task runs at
// a fixed rate (the next run is due one period after the previous one was due) and never
// overlaps itself: it is queued again only once a run returned. Shutdown drops queued runs
// (executeExistingDelayedTasksAfterShutdown and continueExistingPeriodicTasksAfterShutdown are
// false in Kafka) and waits for running ones.
type KafkaScheduler struct {
	threads int
	logger  *logrus.Entry

	mu      sync.Mutex // guards started, queue, seq
	started bool
	queue   taskQueue
	seq     uint64
	stop    chan struct{}
	wake    chan struct{} // a new head, or a due task left behind: one sleeping worker looks again
	wg      sync.WaitGroup
}

// scheduledTask is one queued run of a task.
type scheduledTask struct {
	name   string
	fn     func()
	due    time.Time
	period time.Duration
	seq    uint64
}

// taskQueue is a min-heap by (due, seq).
type taskQueue []*scheduledTask

func (q taskQueue) Len() int { return len(q) }
func (q taskQueue) Less(i, j int) bool {
	if !q[i].due.Equal(q[j].due) {
		return q[i].due.Before(q[j].due)
	}
	return q[i].seq < q[j].seq
}
func (q taskQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *taskQueue) Push(x any)   { *q = append(*q, x.(*scheduledTask)) }
func (q *taskQueue) Pop() any {
	old := *q
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return t
}

// NewKafkaScheduler returns a stopped scheduler with threads workers.
func NewKafkaScheduler(threads int, logger *logrus.Entry) *KafkaScheduler {
	if threads < 1 {
		threads = 1
	}
	if logger == nil {
		logger = logrus.NewEntry(logrus.StandardLogger())
	}
	return &KafkaScheduler{threads: threads, logger: logger.WithField("logger", "kafka.utils.KafkaScheduler")}
}

// Startup implements Scheduler: it starts the workers.
func (s *KafkaScheduler) Startup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.logger.Debug("Initializing task scheduler.")
	s.started = true
	s.stop = make(chan struct{})
	s.wake = make(chan struct{}, 1)
	s.queue = nil
	for i := 0; i < s.threads; i++ {
		s.wg.Add(1)
		go s.worker(s.stop, s.wake)
	}
}

// Shutdown implements Scheduler: queued runs are dropped, running ones are waited for.
func (s *KafkaScheduler) Shutdown() {
	s.mu.Lock()
	if !s.started {
		s.mu.Unlock()
		return
	}
	s.logger.Debug("Shutting down task scheduler.")
	s.started = false
	s.queue = nil
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
	s.logger.Debugf("Scheduling task %s with initial delay %d ms and period %d ms.", name, delay.Milliseconds(), period.Milliseconds())
	s.seq++
	heap.Push(&s.queue, &scheduledTask{name: name, fn: fn, due: time.Now().Add(max(delay, 0)), period: period, seq: s.seq})
	s.signal()
}

// signal wakes one sleeping worker (the caller holds mu).
func (s *KafkaScheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// worker is one of the pool's threads: it runs the queue's head when it is due and sleeps until
// then (or until a new head is queued) otherwise.
func (s *KafkaScheduler) worker(stop <-chan struct{}, wake chan struct{}) {
	defer s.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		s.mu.Lock()
		select {
		case <-stop:
			s.mu.Unlock()
			return
		default:
		}
		var sleep <-chan time.Time
		if len(s.queue) > 0 {
			head := s.queue[0]
			if wait := time.Until(head.due); wait > 0 {
				timer.Reset(wait)
				sleep = timer.C
			} else {
				heap.Pop(&s.queue)
				if len(s.queue) > 0 {
					s.signal() // another worker may take the next one meanwhile
				}
				s.mu.Unlock()
				s.runTask(head)
				if head.period > 0 {
					s.requeue(head, stop)
				}
				continue
			}
		}
		s.mu.Unlock()
		select {
		case <-stop:
			return
		case <-wake:
		case <-sleep:
		}
		timer.Stop()
	}
}

// requeue queues the next run of a periodic task, unless the scheduler stopped meanwhile.
func (s *KafkaScheduler) requeue(t *scheduledTask, stop <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-stop:
		return
	default:
	}
	t.due = t.due.Add(t.period) // keeps its sequence number, as a ScheduledFutureTask does
	heap.Push(&s.queue, t)
	s.signal()
}

// runTask runs one task, logging (not propagating) a panic as Kafka logs a task's exception.
func (s *KafkaScheduler) runTask(t *scheduledTask) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Errorf("Uncaught exception in scheduled task '%s': %v", t.name, r)
		}
	}()
	s.logger.Tracef("Beginning execution of scheduled task '%s'.", t.name)
	t.fn()
	s.logger.Tracef("Completed execution of scheduled task '%s'.", t.name)
}
