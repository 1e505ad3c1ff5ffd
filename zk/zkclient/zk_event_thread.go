package zkclient

import (
	"sync"

	"github.com/sirupsen/logrus"
)

// ZkEventThread runs queued listener callbacks one at a time, in arrival order.
//
// Kafka 0.10.2: org.I0Itec.zkclient.ZkEventThread. The queue is an unbounded slice
// rather than a channel: events are produced inside go-zookeeper's receive
// goroutine, which must never block, and an event must never be dropped.
type ZkEventThread struct {
	log  *logrus.Entry
	hook func(desc string) // WithEventHook

	mu      sync.Mutex
	queue   []zkEvent
	wake    chan struct{} // capacity 1: "the queue may be non-empty"
	stopped bool

	quit chan struct{}
	done chan struct{}
}

// zkEvent is one unit of work for the event goroutine; desc names it in logs.
type zkEvent struct {
	desc string
	run  func()
}

func newZkEventThread(log *logrus.Entry, hook func(desc string)) *ZkEventThread {
	t := &ZkEventThread{
		log:  log,
		hook: hook,
		wake: make(chan struct{}, 1),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	go t.loop()
	return t
}

// send queues an event. It never blocks; after shutdown it drops the event.
func (t *ZkEventThread) send(desc string, run func()) {
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return
	}
	t.queue = append(t.queue, zkEvent{desc: desc, run: run})
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *ZkEventThread) loop() {
	defer close(t.done)
	for {
		t.mu.Lock()
		if len(t.queue) == 0 {
			t.mu.Unlock()
			select {
			case <-t.wake:
				continue
			case <-t.quit:
				return
			}
		}
		ev := t.queue[0]
		t.queue[0] = zkEvent{}
		t.queue = t.queue[1:]
		t.mu.Unlock()

		select {
		case <-t.quit:
			return
		default:
		}
		t.log.Debugf("Delivering event %s", ev.desc)
		if t.hook != nil {
			t.hook(ev.desc)
		}
		ev.run()
	}
}

// shutdown stops the goroutine after the callback that is running (if any)
// returns; events still queued are dropped, as I0Itec's interrupt does. It must
// not be called from a listener callback (that would wait for itself).
func (t *ZkEventThread) shutdown() {
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		<-t.done
		return
	}
	t.stopped = true
	t.queue = nil
	t.mu.Unlock()
	close(t.quit)
	<-t.done
}
