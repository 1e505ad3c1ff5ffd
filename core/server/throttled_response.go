package server

import (
	"container/heap"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	kmetrics "github.com/zkafka/zkafka/clients/metrics"
)

// ThrottledResponse is a response held back because its client is over its quota: callback
// sends it (with the throttle time in throttle_time_ms) once ThrottleTimeMs have passed. While it
// waits, the client's connection stays muted, so the client sends nothing else on it.
//
// Kafka 0.10.2: kafka.server.ThrottledResponse (a java.util.concurrent.Delayed).
type ThrottledResponse struct {
	time           common.Time
	ThrottleTimeMs int32
	endTimeMs      int64
	callback       func(throttleTimeMs int32)
}

// NewThrottledResponse holds callback back for throttleTimeMs from now.
func NewThrottledResponse(time common.Time, throttleTimeMs int32, callback func(throttleTimeMs int32)) *ThrottledResponse {
	return &ThrottledResponse{time: time, ThrottleTimeMs: throttleTimeMs, endTimeMs: time.Milliseconds() + int64(throttleTimeMs),
		callback: callback}
}

// Execute sends the response.
func (r *ThrottledResponse) Execute() { r.callback(r.ThrottleTimeMs) }

// DelayMs is the time left before the response is due (<= 0: due).
//
// Kafka 0.10.2: ThrottledResponse.getDelay.
func (r *ThrottledResponse) DelayMs() int64 { return r.endTimeMs - r.time.Milliseconds() }

// throttledResponseQueue holds the throttled responses ordered by due time. It is 0.10.2's
// DelayQueue[ThrottledResponse]: Go has none, so it is a mutex-guarded heap plus a channel that
// tells a waiting reaper a new response may be due earlier than the one it waits for.
type throttledResponseQueue struct {
	mu    sync.Mutex
	items throttledHeap
	added chan struct{} // cap 1
}

func newThrottledResponseQueue() *throttledResponseQueue {
	return &throttledResponseQueue{added: make(chan struct{}, 1)}
}

func (q *throttledResponseQueue) add(r *ThrottledResponse) {
	q.mu.Lock()
	heap.Push(&q.items, r)
	q.mu.Unlock()
	select {
	case q.added <- struct{}{}:
	default:
	}
}

// poll removes and returns the earliest response if it is due; otherwise it returns nil and the
// time until the earliest is due (-1 when the queue is empty).
func (q *throttledResponseQueue) poll() (*ThrottledResponse, int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil, -1
	}
	if d := q.items[0].DelayMs(); d > 0 {
		return nil, d
	}
	return heap.Pop(&q.items).(*ThrottledResponse), 0
}

func (q *throttledResponseQueue) size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// throttledHeap is a container/heap of responses by due time.
type throttledHeap []*ThrottledResponse

func (h throttledHeap) Len() int           { return len(h) }
func (h throttledHeap) Less(i, j int) bool { return h[i].endTimeMs < h[j].endTimeMs }
func (h throttledHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *throttledHeap) Push(x any)        { *h = append(*h, x.(*ThrottledResponse)) }
func (h *throttledHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return r
}

// ThrottledRequestReaper is the goroutine that sends throttled responses when they are due, one
// per client quota manager ("ThrottledRequestReaper-Produce", "-Fetch"). The queue-size metric
// of its manager counts the responses waiting.
//
// Kafka 0.10.2: ClientQuotaManager.ThrottledRequestReaper (a ShutdownableThread whose doWork
// polls the DelayQueue for one second).
type ThrottledRequestReaper struct {
	name        string
	queue       *throttledResponseQueue
	queueSensor *kmetrics.Sensor
	logger      *logrus.Entry
	stop        chan struct{}
	done        chan struct{}
	stopOnce    sync.Once
}

func newThrottledRequestReaper(quotaType QuotaType, queue *throttledResponseQueue, queueSensor *kmetrics.Sensor,
	logger *logrus.Entry) *ThrottledRequestReaper {
	name := "ThrottledRequestReaper-" + quotaType.String()
	return &ThrottledRequestReaper{name: name, queue: queue, queueSensor: queueSensor,
		logger: logger.WithField("ident", "["+name+"], "), stop: make(chan struct{}), done: make(chan struct{})}
}

// start runs the reaper's goroutine until shutdown.
func (r *ThrottledRequestReaper) start() {
	go func() {
		defer close(r.done)
		r.logger.Info("Starting ")
		for {
			select {
			case <-r.stop:
				r.logger.Info("Stopped ")
				return
			default:
			}
			r.doWork(time.Second)
		}
	}()
}

// shutdown stops the goroutine and waits for it (a reaper never started returns at once).
func (r *ThrottledRequestReaper) shutdown() {
	r.stopOnce.Do(func() {
		r.logger.Info("Shutting down")
		close(r.stop)
	})
}

// awaitShutdown waits for a started reaper's goroutine to end.
func (r *ThrottledRequestReaper) awaitShutdown() {
	<-r.done
	r.logger.Info("Shutdown completed")
}

// doWork waits up to maxWait for the earliest response to be due and sends it; it returns
// after sending one, after maxWait, or on shutdown. Waiting is in real time; whether a response
// is due is asked of the manager's clock, so a test on a MockTime advances the clock and calls
// doWork with no wait.
func (r *ThrottledRequestReaper) doWork(maxWait time.Duration) {
	deadline := time.Now().Add(maxWait)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		resp, delayMs := r.queue.poll()
		if resp != nil {
			_ = r.queueSensor.RecordValue(-1)
			r.logger.Tracef("Response throttled for: %d ms", resp.ThrottleTimeMs)
			resp.Execute()
			return
		}
		wait := time.Until(deadline)
		if delayMs >= 0 {
			wait = min(wait, time.Duration(delayMs)*time.Millisecond)
		}
		if wait <= 0 {
			return
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		select {
		case <-r.queue.added:
		case <-timer.C:
		case <-r.stop:
			return
		}
	}
}
