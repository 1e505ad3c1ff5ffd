package timer

import (
	"runtime/debug"
	"sync"

	"github.com/sirupsen/logrus"
)

// taskExecutor runs expired tasks on a fixed number of goroutines, like the
// Executors.newFixedThreadPool that SystemTimer creates (one thread, "executor-<name>"). Its queue
// is unbounded so submit never blocks: the timer submits while holding its own lock, and a task
// may itself add to the timer.
type taskExecutor struct {
	name string
	log  *logrus.Entry

	mu       sync.Mutex
	cond     *sync.Cond // signalled when a task is queued or on shutdown
	queue    []Task
	shutdown bool
	workers  sync.WaitGroup
}

func newTaskExecutor(name string, workers int, log *logrus.Entry) *taskExecutor {
	x := &taskExecutor{name: name, log: log}
	x.cond = sync.NewCond(&x.mu)
	for i := 0; i < workers; i++ {
		x.workers.Add(1)
		go x.work()
	}
	return x
}

// submit queues a task. After shutdown it drops the task and reports false: a timer that has been
// shut down leaves its pending tasks unexecuted.
func (x *taskExecutor) submit(t Task) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.shutdown {
		return false
	}
	x.queue = append(x.queue, t)
	x.cond.Signal()
	return true
}

func (x *taskExecutor) work() {
	defer x.workers.Done()
	for {
		x.mu.Lock()
		for len(x.queue) == 0 && !x.shutdown {
			x.cond.Wait()
		}
		if len(x.queue) == 0 { // shut down and drained
			x.mu.Unlock()
			return
		}
		t := x.queue[0]
		x.queue[0] = nil
		x.queue = x.queue[1:]
		x.mu.Unlock()
		x.run(t)
	}
}

func (x *taskExecutor) run(t Task) {
	defer func() {
		if r := recover(); r != nil {
			x.log.WithField("executor", "executor-"+x.name).
				Errorf("timer task panicked: %v\n%s", r, debug.Stack())
		}
	}()
	t.Run()
}

// shutdownAndWait stops accepting tasks, lets the queued ones run (as ExecutorService.shutdown
// does) and waits for the workers to exit. It must not be called from a task.
func (x *taskExecutor) shutdownAndWait() {
	x.mu.Lock()
	x.shutdown = true
	x.cond.Broadcast()
	x.mu.Unlock()
	x.workers.Wait()
}
