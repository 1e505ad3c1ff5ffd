package controller

import (
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ControllerChannelManager keeps one RequestSendThread (queue + goroutine +
// connection) per live broker.
//
// Kafka 0.10.2: kafka.controller.ControllerChannelManager. Brokers are added
// and removed by the BrokerChangeListener; requests for a broker that has no
// channel (it went away) are dropped with a warning, as in Kafka.
type ControllerChannelManager struct {
	controllerID   int32
	epoch          func() int32
	listenerName   string
	socketTimeout  time.Duration
	requestTimeout time.Duration
	log            *logrus.Entry
	stateChangeLog *logrus.Entry
	interBroker    *security.InterBrokerSecurity // nil: plaintext

	mu              sync.Mutex
	brokerStateInfo map[int32]*RequestSendThread
	started         bool
}

func newControllerChannelManager(controllerID int32, epoch func() int32, listenerName string, socketTimeout, requestTimeout time.Duration,
	brokers []zkutils.BrokerInfo, log *logrus.Entry, stateChangeLog *logrus.Entry, interBroker *security.InterBrokerSecurity) *ControllerChannelManager {
	m := &ControllerChannelManager{
		interBroker:  interBroker,
		controllerID: controllerID, epoch: epoch, listenerName: listenerName, socketTimeout: socketTimeout, requestTimeout: requestTimeout,
		log: log.WithField("logger", "kafka.controller.ControllerChannelManager"), stateChangeLog: stateChangeLog,
		brokerStateInfo: map[int32]*RequestSendThread{},
	}
	for _, b := range brokers {
		m.addNewBroker(b)
	}
	return m
}

// Startup starts every send goroutine.
func (m *ControllerChannelManager) Startup() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started = true
	for _, t := range m.brokerStateInfo {
		t.start()
	}
}

// Shutdown stops every send goroutine and waits for them.
func (m *ControllerChannelManager) Shutdown() {
	m.mu.Lock()
	threads := m.brokerStateInfo
	m.brokerStateInfo = map[int32]*RequestSendThread{}
	started := m.started
	m.started = false
	m.mu.Unlock()
	for _, t := range threads {
		if !started {
			go t.run() // never started: let it see the stop and close done
		}
		t.shutdown()
	}
}

// SendRequest queues req for broker brokerID; callback (may be nil) gets the
// response on that broker's send goroutine.
func (m *ControllerChannelManager) SendRequest(brokerID int32, req protocol.Message, callback func(protocol.Message)) {
	m.mu.Lock()
	t, ok := m.brokerStateInfo[brokerID]
	m.mu.Unlock()
	if !ok {
		m.log.Warnf("Not sending request %s to broker %d, since it is offline.", req.Key(), brokerID)
		return
	}
	t.enqueue(QueueItem{Request: req, Callback: callback})
}

// AddBroker opens a channel to a newly registered broker.
func (m *ControllerChannelManager) AddBroker(b zkutils.BrokerInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.brokerStateInfo[b.ID]; ok {
		return
	}
	t := m.addNewBroker(b)
	if m.started {
		t.start()
	}
}

// RemoveBroker closes the channel to a broker that went away, dropping its
// queued requests.
func (m *ControllerChannelManager) RemoveBroker(brokerID int32) {
	m.mu.Lock()
	t, ok := m.brokerStateInfo[brokerID]
	delete(m.brokerStateInfo, brokerID)
	started := m.started
	m.mu.Unlock()
	if ok {
		if !started {
			go t.run()
		}
		t.shutdown()
	}
}

// caller holds m.mu (or m is not shared yet).
func (m *ControllerChannelManager) addNewBroker(b zkutils.BrokerInfo) *RequestSendThread {
	m.log.Debugf("Controller %d trying to connect to broker %d", m.controllerID, b.ID)
	t := newRequestSendThread(m.controllerID, m.epoch, b, m.listenerName, m.socketTimeout, m.requestTimeout, m.log, m.stateChangeLog, m.interBroker)
	m.brokerStateInfo[b.ID] = t
	return t
}
