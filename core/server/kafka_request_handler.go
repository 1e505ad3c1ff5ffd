package server

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/core/metrics"
	"github.com/zkafka/zkafka/core/network"
)

// RequestHandler is what a KafkaRequestHandler hands each request to (KafkaApis).
type RequestHandler interface {
	Handle(req *network.Request)
}

// KafkaRequestHandler is one I/O thread: it takes requests off the RequestChannel and runs
// KafkaApis on them, until its pool shuts down.
//
// Kafka 0.10.2: kafka.server.KafkaRequestHandler. Kafka stops a handler by queueing an
// AllDone request; here the pool closes a done channel that every handler selects on.
type KafkaRequestHandler struct {
	id             int
	brokerID       int32
	totalHandlers  int
	requestChannel *network.RequestChannel
	apis           RequestHandler
	done           <-chan struct{}
	logger         *logrus.Entry
	// idleMeter is the pool's RequestHandlerAvgIdlePercent (kafka_request_handler_metrics.go).
	idleMeter *atomic.Pointer[metrics.Meter]
}

func (h *KafkaRequestHandler) run(wg *sync.WaitGroup) {
	defer wg.Done()
	// The wait is cut every idleMarkInterval so that an idle handler's idle time shows in the
	// meter without waiting for the next request (Kafka polls the queue with a 300 ms timeout).
	tick := time.NewTimer(idleMarkInterval)
	defer tick.Stop()
	for {
		waitStart := time.Now()
		select {
		case <-h.done:
			h.logger.Debugf("Kafka request handler %d on broker %d received shut down command", h.id, h.brokerID)
			return
		case <-tick.C:
			h.markIdle(waitStart)
			tick.Reset(idleMarkInterval)
		case req := <-h.requestChannel.Requests():
			req.DequeueTime = time.Now()
			h.markIdle(waitStart)
			h.logger.Tracef("Kafka request handler %d on broker %d handling request %s", h.id, h.brokerID, describe(req))
			h.apis.Handle(req)
		}
	}
}

// KafkaRequestHandlerPool runs num.io.threads KafkaRequestHandlers.
//
// Kafka 0.10.2: kafka.server.KafkaRequestHandlerPool.
type KafkaRequestHandlerPool struct {
	brokerID  int32
	done      chan struct{}
	idleMeter atomic.Pointer[metrics.Meter] // nil until RegisterMetrics
	wg        sync.WaitGroup
	once      sync.Once
	logger    *logrus.Entry
}

// NewKafkaRequestHandlerPool starts numThreads handlers.
func NewKafkaRequestHandlerPool(brokerID int32, rc *network.RequestChannel, apis RequestHandler, numThreads int, logger *logrus.Entry) *KafkaRequestHandlerPool {
	if logger == nil {
		logger = discardEntry()
	}
	p := &KafkaRequestHandlerPool{brokerID: brokerID, done: make(chan struct{}),
		logger: logger.WithField("logger", "kafka.server.KafkaRequestHandlerPool").WithField("ident", fmt.Sprintf("[Kafka Request Handler on Broker %d], ", brokerID))}
	for i := 0; i < numThreads; i++ {
		h := &KafkaRequestHandler{id: i, brokerID: brokerID, totalHandlers: numThreads, requestChannel: rc, apis: apis,
			done: p.done, idleMeter: &p.idleMeter, logger: logger.WithField("logger", "kafka.server.KafkaRequestHandler").WithField("ident",
				fmt.Sprintf("[Kafka Request Handler %d on Broker %d], ", i, brokerID))}
		p.wg.Add(1)
		go h.run(&p.wg)
	}
	return p
}

// Shutdown stops the handlers after their current request and waits for them.
func (p *KafkaRequestHandlerPool) Shutdown() {
	p.logger.Info("shutting down")
	p.once.Do(func() { close(p.done) })
	p.wg.Wait()
	p.logger.Info("shut down completely")
}
